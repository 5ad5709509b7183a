"""The leaderboard page of a workbench results folder (``gauntlet leaderboard``): one self-contained HTML file."""

from mtgauntlet.cards.leaderboard.page import render

__all__ = ["render"]
