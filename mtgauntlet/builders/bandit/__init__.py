"""Bandit topic search (topics are arms; find the hardest topics within a budget of pulls)."""

from mtgauntlet.builders.bandit.algorithms import ALGORITHMS, BanditState, choose
from mtgauntlet.builders.bandit.search import BanditSearch

__all__ = ["ALGORITHMS", "BanditSearch", "BanditState", "choose"]
