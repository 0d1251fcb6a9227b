"""Proper names in a sentence: researchers, titles, journals, packages, estimators, organisations.

English: capitalised words that are not the first word of a sentence
(``Smith``, ``DuckDB``, ``OECD``, ``Journal of Labor Economics`` gives
``Journal``, ``Labor``, ``Economics``) — the first word counts only when it is
clearly a name (inner capital, digit, or all capitals: ``MiniCheck``,
``GPT-4``, ``OECD``). Function words, months, weekdays and words such as
"Table" or "Figure" are never names.

Japanese: katakana words of three or more characters marked as names
(``ジョン・スミス``, ``スミス氏``, ``スミスら（2019）``, ``ウッドリッジの推定量``,
``アクメ社``; a bare loanword such as ``ベッド`` is vocabulary, not a name) and
kanji person names marked as such (``田中ら``, ``田中氏``, ``田中教授``,
``田中（2019）``).

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
# titles and generic words of institutions and places: capitalised in names, not names themselves
_GENERIC = frozenset(
    ["city", "county", "state", "province", "region", "district", "university", "college", "school", "museum", "institute", "institution", "department", "ministry", "agency", "company", "corporation", "group", "association", "society", "council", "committee", "board", "center", "centre", "party", "river", "lake", "mountain", "street", "road", "station", "hospital", "church", "bridge", "park", "airport", "executive", "producer", "director", "president", "minister", "chairman", "chair", "ceo", "professor", "doctor", "captain", "king", "queen", "prince", "princess", "lord", "lady", "sir", "saint", "general", "senator", "governor", "mayor", "judge", "north", "south", "east", "west", "northern", "southern", "eastern", "western", "national", "international", "federal", "royal"]
)
_DEMONYMS = frozenset(
    ["british", "english", "american", "european", "french", "german", "japanese", "chinese", "indian", "african",
     "asian", "catholic", "christian", "protestant", "muslim", "islamic", "jewish", "buddhist", "roman", "yoy",
     "qoq", "ytd"]
)  # fmt: skip
_LATIN = "A-Za-z0-9\u00c0-\u024f"
_EN_WORD = re.compile(rf"(?<![\w@\\])[A-Z][{_LATIN}'’\-]*(?:\.[A-Z][{_LATIN}\-]*)*")
_NOT_A_NAME = re.compile(r"^(?:Q[1-4]|H[12]|FY\d*|[IVX]+)$")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"“(\[]\s*)$")
_NAME_FOLLOWS = re.compile(r"(?:'s|’s)?\s*(?:\(\s*\d{4}|et\s+al\b|(?:and|&)\s+[A-Z]|[A-Z][a-z])")
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_KATAKANA = re.compile(r"[\u30a1-\u30fa\u30fc\u30fd\u30fe\u30fb\uff66-\uff9f]{3,}")
_KANJI_PERSON = re.compile(
    r"(?P<name>[\u4e00-\u9fff々]{2,4})(?=(?:ら|等|氏|教授|准教授|博士|先生|さん|らの)|\s*[（(]\s*[0-9０-９]{4})"
)
_KATAKANA_NAME_AFTER = re.compile(
    r"(?:氏|ら|等|教授|准教授|博士|先生|さん|社|大学|研究所|財団|の(?:研究|論文|推定量|方法|手法|モデル|検定|定理)"
    r"|\s*[（(]\s*[0-9０-９]{4}|\s*et al)"
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
    word = _POSSESSIVE.sub("", word).strip("-'’.")
    head, sep, tail = word.partition("-")
    if sep and tail[:1].islower():  # Sims-based, Go-there: the name is the capitalised part
        word = head
    if len(word) >= 3 and word.endswith("s") and word[:-1].isupper():  # GANs, CNNs: the acronym
        word = word[:-1]
    if word.endswith("s") and len(word) >= 4 and word[-2].isupper() and word[0].isupper():  # PhDs
        word = word[:-1]
    return word


def _clearly_a_name(word: str) -> bool:
    body = word.replace("-", "").replace(".", "")
    if len(body) >= 2 and body.isupper() and body.isalpha():
        return True
    return any(ch.isupper() for ch in body[1:]) or any(ch.isdigit() for ch in body)


def latin_names(text: str) -> list[Name]:
    out: list[Name] = []
    for m in _EN_WORD.finditer(text):
        word = _clean(m.group())
        folded = word.casefold()
        if len(word) < 2 or folded in _NOT_NAMES or folded in _GENERIC or folded in _DEMONYMS or _NOT_A_NAME.match(word):
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
        if len(word.replace("ー", "").replace("・", "")) < 3:
            continue
        # a katakana word is a name when it is marked as one (スミス氏, スミスら（2019）, ジョン・スミス,
        # ウッドリッジの推定量); a bare loanword (ベッド, フルーツ) is ordinary vocabulary
        if "・" in word or _KATAKANA_NAME_AFTER.match(text, m.start() + len(word)):
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
