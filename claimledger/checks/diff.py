"""Word-level diff between a quote and the nearest source passage."""

from __future__ import annotations

import difflib
import re

from claimledger.normalize import is_cjk

_TOKEN = re.compile(r"\s+|[^\s]")


def tokens(text: str) -> list[str]:
    """Words for Latin text, single characters for CJK; whitespace kept as tokens."""
    out: list[str] = []
    word = ""
    for ch in text:
        if ch.isspace() or is_cjk(ch):
            if word:
                out.append(word)
                word = ""
            out.append(ch)
        else:
            word += ch
    if word:
        out.append(word)
    return out


def word_diff(quote: str, passage: str) -> str:
    """Inline diff: ``[-what the quote says-]{+what the source says+}``."""
    a, b = tokens(quote), tokens(passage)
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append("".join(a[i1:i2]))
            continue
        if i2 > i1:
            out.append("[-" + "".join(a[i1:i2]) + "-]")
        if j2 > j1:
            out.append("{+" + "".join(b[j1:j2]) + "+}")
    return "".join(out)
