"""Sentence segmentation for Japanese and English prose.

Japanese: a sentence ends at 。！？ (and ``!?``) outside 「」『』（）“” — a
quotation's own 。 does not end the sentence that quotes it (「…。」と述べた。).
English: ``. ! ?`` end a sentence when followed by space and a word that does
not continue it (not lower case), except after abbreviations (e.g., i.e., et
al., Fig., Dr., vs., No., p., pp. ...) and single initials (J. Smith);
decimals (3.5) never split. A closing quotation mark after a terminator ends the
sentence when a capitalised word follows (“It works.” Then ...). Blank lines
and block boundaries (headings, list items, table cells) always end a sentence.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from claimledger.extract.draft import PARA

ABBREVIATIONS = frozenset(
    ["e.g", "i.e", "et", "al", "etc", "cf", "vs", "viz", "fig", "figs", "eq", "eqs", "no", "nos", "p", "pp", "vol", "vols", "ch", "chap", "sec", "secs", "ed", "eds", "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "inc", "ltd", "co", "corp", "approx", "ca", "c", "dept", "univ", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mt", "ft", "no", "op", "cit", "ibid", "resp", "tab", "tabs", "app", "rev", "art", "nr"]
)
_OPEN = {"「": "」", "『": "』", "（": "）", "(": ")", "“": "”", "［": "］"}
_CLOSE = {v: k for k, v in _OPEN.items()}
_TOKEN = re.compile(r"\n[ \t\r]*\n|\u2029|[。！？!?.]+|[「『（(“［」』）)”］]|\"")
_CJK_END = "。！？"


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int


def _english_end(text: str, dot: int, run_end: int) -> bool:
    """Does the terminator run ending at ``run_end`` (starting at ``dot``) end the sentence?"""
    n = len(text)
    j = run_end
    while j < n and text[j] in "\"'”’)]":
        j += 1
    if j < n and not text[j].isspace():
        return False
    k = j
    while k < n and text[k] in " \t\r\n":
        k += 1
    if k < n and text[k] == PARA:
        return True
    if k >= n:
        return True
    nxt = text[k]
    if nxt.islower():
        return False
    if text[dot] != ".":
        return True
    w = dot
    while w > 0 and not text[w - 1].isspace() and text[w - 1] not in "(「『“\"" + PARA:
        w -= 1
    word = text[w:dot].casefold()
    if word in ABBREVIATIONS or word.rstrip(".") in ABBREVIATIONS:
        return False
    return not (len(word) == 1 and word.isalpha())


def split_sentences(text: str) -> list[Sentence]:
    """Sentence spans of ``text`` (prose view), in order, covering every non-blank part."""
    out: list[Sentence] = []
    start = 0
    stack: list[str] = []
    straight = False

    def emit(end: int) -> None:
        nonlocal start
        if text[start:end].strip(" \t\r\n" + PARA):
            out.append(Sentence(start, end))
        start = end

    for m in _TOKEN.finditer(text):
        tok = m.group()
        s, e = m.span()
        if tok[0] in "\n" + PARA:
            emit(s)
            start = e
            stack.clear()
            straight = False
        elif tok in _OPEN:
            stack.append(_OPEN[tok])
        elif tok in _CLOSE:
            if stack and stack[-1] == tok:
                stack.pop()
                if not stack and not straight and tok == "”" and s > 0 and text[s - 1] in ".!?" and _english_end(
                    text, s - 1, e
                ):
                    emit(e)
        elif tok == '"':
            straight = not straight
        elif stack or straight:
            continue
        elif tok[-1] in _CJK_END or tok[0] in _CJK_END:
            j = e
            while j < len(text) and text[j] in "」』）)”":
                j += 1
            emit(j)
        elif _english_end(text, s, e):
            emit(e)
    emit(len(text))
    return out


class SentenceIndex:
    """Find the sentence that holds a prose offset."""

    def __init__(self, sentences: list[Sentence]) -> None:
        self.sentences = sentences
        self._starts = [s.start for s in sentences]

    def index_of(self, offset: int) -> int | None:
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0:
            return None
        return i if offset < self.sentences[i].end or offset == self.sentences[i].start else None
