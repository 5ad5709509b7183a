"""Render a dataset card's Markdown the way the Hub does (Markdown with raw HTML allowed), for the card tests."""

from __future__ import annotations

from html import unescape
from html.parser import HTMLParser


def render(markdown_text: str) -> str:
    """CommonMark with raw HTML enabled and GFM tables (markdown-it-py, the parser rich and mdit use)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown_text)


def render_python_markdown(markdown_text: str) -> str:
    """The same card through Python-Markdown (raw HTML passes through it too)."""
    import markdown

    return markdown.markdown(markdown_text, extensions=["tables", "fenced_code"])


class Elements(HTMLParser):
    """Every element of rendered HTML with its attributes, and the page's text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data):
        self.text.append(data)

    def plain(self) -> str:
        return " ".join(" ".join(self.text).split())


def card_text(markdown_text: str) -> str:
    """What a reader sees of a card: its rendered text, whitespace collapsed."""
    return unescape(Elements(render(markdown_text)).plain())
