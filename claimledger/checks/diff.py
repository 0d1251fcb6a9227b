"""Word-level diff between a quote and the nearest source passage."""

from __future__ import annotations

import difflib
import re

from claimledger.normalize import _CJK_RANGES, is_cjk

# One token: a run of characters that are neither whitespace (str.isspace) nor CJK (is_cjk), or
# one character that is. The regex's \s is str.isspace on str patterns (both Py_UNICODE_ISSPACE);
# tests/test_diff_tokens.py checks the class against both predicates on every code point.
_CJK_CLASS = "".join(f"{chr(max(lo, 0x3000))}-{chr(hi)}" for lo, hi in _CJK_RANGES if hi >= 0x3000)
_TOKEN = re.compile(f"[^\\s{_CJK_CLASS}]+|[\\s{_CJK_CLASS}]")


def tokens(text: str) -> list[str]:
    """Words for Latin text, single characters for CJK; whitespace kept as tokens."""
    return _TOKEN.findall(text)


def tokens_py(text: str) -> list[str]:
    """:func:`tokens` one character at a time (the definition the regex is tested against)."""
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
