"""Plain text and Markdown sources."""

from __future__ import annotations

import re

from claimledger._exceptions import SourceError


def decode_text(data: bytes) -> str:
    """Decode UTF-8 (with or without BOM), UTF-16 with BOM, or Shift_JIS (cp932)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:  # a UTF-16 byte-order mark, then bytes that are not UTF-16
            raise SourceError(
                "source_unreadable", f"text starts like UTF-16 but is not ({exc.reason} at byte {exc.start})"
            ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp932")
    except UnicodeDecodeError:
        raise SourceError(
            "source_unreadable", "text is neither UTF-8, UTF-16 nor Shift_JIS; re-save it as UTF-8"
        ) from None


_FRONT_MATTER = re.compile(r"\A---\r?\n.*?\r?\n(?:---|\.\.\.)\r?\n", re.S)
# Character classes exclude the opening delimiter, so no attempt runs past the next one: every rule
# is linear even on a 50 MB line of "[" or "<" (tests/test_limits.py, scripts/bench_hostile.py).
_MD_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"!\[([^\[\]]*)\]\(([^()]*)\)"), r"\1"),  # images -> alt text
    (re.compile(r"\[([^\[\]]+)\]\(([^()]*)\)"), r"\1"),  # links -> text
    (re.compile(r"\[([^\[\]]+)\]\[[^\[\]]*\]"), r"\1"),  # reference links
    (re.compile(r"<[^<>\n]+>"), ""),  # inline HTML tags
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # strong
    (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),  # emphasis
    (re.compile(r"(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])"), r"\1"),
    (re.compile(r"`([^`\n]+)`"), r"\1"),  # inline code
    (re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+", re.M), ""),  # heading marks
    (re.compile(r"^[ \t]{0,3}>[ \t]?", re.M), ""),  # blockquote marks
]


def markdown_to_text(markdown: str) -> str:
    """The prose of a Markdown document: markup removed, words and punctuation kept."""
    text = _FRONT_MATTER.sub("", markdown)
    for pattern, repl in _MD_RULES:
        text = pattern.sub(repl, text)
    return text
