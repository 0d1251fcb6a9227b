"""Proper names in a sentence: researchers, titles, journals, packages, estimators, organisations.

English: capitalised words that are not the first word of a sentence
(``Smith``, ``DuckDB``, ``OECD``, ``Journal of Labor Economics`` gives
``Journal``, ``Labor``, ``Economics``) — the first word counts only when it is
clearly a name (inner capital, digit, or all capitals: ``MiniCheck``,
``GPT-4``, ``OECD``). Function words, months, weekdays and words such as
"Table" or "Figure" are never names.

Japanese: katakana runs of three or more characters (``スミス``,
``ウッドリッジ``; a long sound mark or middle dot may join them) and kanji
person names marked as such (``田中ら``, ``田中氏``, ``田中教授``,
``田中（2019）``). Katakana loanwords are names for this purpose too: a
katakana word the cited source never prints is worth a look.

Precision over recall: a name that is missed only means one check less; a
false name is a false alarm (HIGH).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_NOT_NAMES = frozenset(
    ["a", "an", "the", "this", "that", "these", "those", "there", "their", "they", "them", "then", "than", "thus", "hence", "however", "moreover", "furthermore", "although", "though", "while", "whereas", "when", "where", "which", "who", "whom", "whose", "what", "why", "how", "here", "it", "its", "we", "our", "us", "i", "you", "your", "he", "she", "his", "her", "in", "on", "at", "by", "for", "from", "of", "to", "with", "without", "within", "into", "onto", "over", "under", "after", "before", "during", "since", "until", "and", "or", "but", "nor", "so", "yet", "if", "as", "also", "both", "either", "neither", "each", "every", "all", "some", "any", "many", "most", "more", "much", "few", "several", "such", "no", "not", "only", "just", "even", "still", "other", "another", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "first", "second", "third", "finally", "overall", "similarly", "likewise", "instead", "indeed", "specifically", "notably", "importantly", "consequently", "according", "based", "using", "given", "despite", "among", "between", "across", "along", "around", "about", "above", "below", "table", "tables", "figure", "figures", "fig", "section", "sections", "chapter", "chapters", "appendix", "equation", "eq", "page", "pages", "part", "parts", "panel", "column", "columns", "row", "rows", "note", "notes", "see", "cf", "ibid", "et", "al", "vs", "i.e", "e.g", "etc", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "study", "studies", "paper", "papers", "report", "reports", "authors", "author", "results", "result", "evidence", "data", "yes", "ok", "mr", "mrs", "ms", "dr", "prof"]
)
_EN_WORD = re.compile(r"(?<![\w@\\])[A-Z][\w'’\-]*(?:\.[A-Z][\w\-]*)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"“(\[]\s*)$")
_NAME_FOLLOWS = re.compile(r"(?:'s|’s)?\s*(?:\(\s*\d{4}|et\s+al\b|(?:and|&)\s+[A-Z]|[A-Z][a-z])")
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_KATAKANA = re.compile(r"[\u30a1-\u30fa\u30fc\u30fd\u30fe\u30fb\uff66-\uff9f]{3,}")
_KANJI_PERSON = re.compile(
    r"(?P<name>[\u4e00-\u9fff々]{2,4})(?=(?:ら|等|氏|教授|准教授|博士|先生|さん|らの)|\s*[（(]\s*[0-9０-９]{4})"
)
_KANJI_STOP = frozenset(["本稿", "本研究", "先行研究", "同研究", "研究", "報告", "調査", "論文", "著者", "筆者", "我々"])


@dataclass(frozen=True)
class Name:
    """A proper name found in a text: its span and its text."""

    start: int
    end: int
    text: str
    script: str  # "latin", "katakana", "kanji"


def _clean(word: str) -> str:
    word = _POSSESSIVE.sub("", word)
    return word.strip("-'’.")


def _clearly_a_name(word: str) -> bool:
    body = word.replace("-", "").replace(".", "")
    if len(body) >= 2 and body.isupper() and body.isalpha():
        return True
    return any(ch.isupper() for ch in body[1:]) or any(ch.isdigit() for ch in body)


def latin_names(text: str) -> list[Name]:
    out: list[Name] = []
    for m in _EN_WORD.finditer(text):
        word = _clean(m.group())
        if len(word) < 2 or word.casefold() in _NOT_NAMES:
            continue
        at_start = bool(_SENTENCE_START.search(text[max(0, m.start() - 3) : m.start()])) or m.start() == 0
        if at_start and not _clearly_a_name(word) and not _NAME_FOLLOWS.match(text, m.start() + len(word)):
            continue
        out.append(Name(m.start(), m.start() + len(word), word, "latin"))
    return out


def japanese_names(text: str) -> list[Name]:
    out: list[Name] = []
    for m in _KATAKANA.finditer(text):
        word = m.group().strip("・")
        if len(word.replace("ー", "").replace("・", "")) >= 3:
            out.append(Name(m.start(), m.start() + len(word), word, "katakana"))
    for m in _KANJI_PERSON.finditer(text):
        name = m.group("name")
        if name in _KANJI_STOP or any(name.endswith(s) for s in _KANJI_STOP):
            continue
        out.append(Name(m.start(), m.end(), name, "kanji"))
    return sorted(out, key=lambda n: n.start)


def find_names(text: str) -> list[Name]:
    """Proper names in ``text`` (Latin script and Japanese), in order, one per span."""
    probe = unicodedata.normalize("NFKC", text) if len(unicodedata.normalize("NFKC", text)) == len(text) else text
    names = latin_names(probe) + japanese_names(text)
    names.sort(key=lambda n: n.start)
    out: list[Name] = []
    last = -1
    for n in names:
        if n.start >= last:
            out.append(n)
            last = n.end
    return out
