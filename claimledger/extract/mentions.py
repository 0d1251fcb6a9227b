"""Numbers and dates in prose, in English and Japanese, and when two are the same figure.

Found: digit numbers with separators, decimals, scale words and units
(``1,234``, ``12k``, ``1.2万``, ``1億2000万``, ``３０％``, ``4倍``, ``4x``, ``$1.2
million``, ``$8.2m``); ``30パーセント`` and ``3割`` (= 30%); English number words
(``four``, ``twenty-one``, ``four times``, ``twice``; a bare ``one`` is not a
figure); Japanese numerals (``三十``, ``二千五百``, ``四倍``; one kanji digit
only with a counter: ``三つ``, ``五社``); dates and years (``2024-03-15``,
``2024/3/15``, ``2024年3月``, ``March 15, 2024``, ``2024``). The numbers are read by
:mod:`claimledger.numbers` (every displayed-number form lives there); this module adds dates,
locators and the comparison of two figures.

Not claims (structural): numbers right after a locator word (p., pp., Fig.,
Figure, Table, Section, Eq., Chapter, 図, 表, 第…章/節).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from claimledger.numbers import (
    Value,
    find_kanji_numbers,
    find_numbers,
    find_word_numbers,
    parse_value,
)

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ]
    )
    for m in names
}
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|" \
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?"  # fmt: skip
_D = r"[0-9０-９]"
_DATE = re.compile(
    rf"""
    (?P<iso>(?<![0-9])(?P<y1>{_D}{{4}})[-/．.](?P<m1>{_D}{{1,2}})[-/．.](?P<d1>{_D}{{1,2}})(?![0-9]))
    |(?P<ja>(?P<y2>{_D}{{4}})年(?:(?P<m2>{_D}{{1,2}})月(?:(?P<d2>{_D}{{1,2}})日)?)?)
    |(?P<jamd>(?<![0-9０-９年])(?P<m3>{_D}{{1,2}})月(?P<d3>{_D}{{1,2}})日)
    |(?P<en1>(?P<mon1>{_MONTH})\s+(?P<d4>[0-9]{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y4>[0-9]{{4}})(?![0-9]))
    |(?P<en2>(?<![0-9])(?P<d5>[0-9]{{1,2}})(?:st|nd|rd|th)?\s+(?P<mon2>{_MONTH})\s+(?P<y5>[0-9]{{4}})(?![0-9]))
    |(?P<en3>(?P<mon3>{_MONTH})\s+(?P<y6>[0-9]{{4}})(?![0-9]))
    """,
    re.VERBOSE,
)
_LOCATOR = re.compile(
    r"(?:\b(?:pp?|pages?|ch(?:ap)?|chapters?|sec(?:t|tion)?s?|§+|figs?|figures?|tabs?|tables?|eqs?|"
    r"equations?|appendix|vol|volume|no|nos|art|article|item|step|line|lines|footnote|note|ref)\.?"
    r"|[§¶]|図|表|式|付録)\s*$",
    re.IGNORECASE,
)
_JA_ORDINAL_AFTER = re.compile(r"[章節項条部編回]")


@dataclass(frozen=True)
class NumberKey:
    """A figure for comparison: value, half of its last displayed unit, unit; or a date."""

    value: float
    half_unit: float | None
    unit: str | None
    date: tuple[int, int | None, int | None] | None = None


@dataclass(frozen=True)
class NumberMention:
    start: int
    end: int
    text: str
    key: NumberKey
    kind: str  # "number", "word", "kanji", "date"


def _key(v: Value) -> NumberKey:
    return NumberKey(v.value, v.half_unit, v.unit)


def number_key(text: str | int | float) -> NumberKey | None:
    """The comparable form of a displayed figure (``"1.2万"``, ``"four times"``, ``"3割"``, a date)."""
    if not isinstance(text, str):
        v = parse_value(text)
        return _key(v) if v else None
    probe = unicodedata.normalize("NFKC", text).strip()
    found = find_mentions(probe)
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(probe):
        return found[0].key
    v = parse_value(probe)
    return _key(v) if v else None


def same_number(draft: NumberKey, ledger: NumberKey) -> bool:
    """True when the draft's figure is the ledger's figure, as displayed.

    Units must agree when both sides have one. The ledger value must fall within
    the draft's displayed precision (``1.2万`` covers 11,500-12,500), so a draft
    may round a backed figure but never state it more precisely.
    """
    if draft.date is not None or ledger.date is not None:
        if draft.date is None or ledger.date is None:
            return draft.date is None and ledger.date is None
        return draft.date == ledger.date
    if draft.unit and ledger.unit and draft.unit != ledger.unit:
        return False
    diff = abs(draft.value - ledger.value)
    if diff <= 1e-9 * max(abs(draft.value), abs(ledger.value), 1.0):
        return True
    return draft.half_unit is not None and diff <= draft.half_unit * (1 + 1e-9)


def _fw(s: str) -> int:
    return int(unicodedata.normalize("NFKC", s))


def _dates(text: str) -> list[NumberMention]:
    out: list[NumberMention] = []
    for m in _DATE.finditer(text):
        g = m.groupdict()
        y: int
        mo: int | None
        d: int | None
        if g["iso"]:
            y, mo, d = _fw(g["y1"]), _fw(g["m1"]), _fw(g["d1"])
        elif g["ja"]:
            y, mo, d = _fw(g["y2"]), _fw(g["m2"]) if g["m2"] else None, _fw(g["d2"]) if g["d2"] else None
            if mo is None:
                # a bare year with 年 is a plain number (a year): let the number reader take it
                continue
        elif g["jamd"]:
            y, mo, d = 0, _fw(g["m3"]), _fw(g["d3"])
        elif g["en1"]:
            y, mo, d = int(g["y4"]), _MONTHS[g["mon1"].rstrip(".").lower()], int(g["d4"])
        elif g["en2"]:
            y, mo, d = int(g["y5"]), _MONTHS[g["mon2"].rstrip(".").lower()], int(g["d5"])
        else:
            y, mo, d = int(g["y6"]), _MONTHS[g["mon3"].rstrip(".").lower()], None
        if (mo is not None and not 1 <= mo <= 12) or (d is not None and not 1 <= d <= 31):
            continue
        key = NumberKey(float(y), None, "date", (y, mo, d))
        out.append(NumberMention(m.start(), m.end(), m.group(), key, "date"))
    return out


def _words(text: str) -> list[NumberMention]:
    return [NumberMention(m.start, m.end, m.text, _key(m.value), "word") for m in find_word_numbers(text)]


def _kanji(text: str) -> list[NumberMention]:
    return [NumberMention(m.start, m.end, m.text, _key(m.value), "kanji") for m in find_kanji_numbers(text)]


def _digits(text: str) -> list[NumberMention]:
    return [NumberMention(m.start, m.end, m.text, _key(m.value), "number") for m in find_numbers(text)]


def is_structural(text: str, m: NumberMention) -> bool:
    """A locator's number (p. 4, Fig. 2, Table 3, 図2, 第3章), not a claim."""
    before = text[max(0, m.start - 16) : m.start]
    if _LOCATOR.search(before):
        return True
    return m.start > 0 and text[m.start - 1] == "第" and bool(_JA_ORDINAL_AFTER.match(text, m.end))


def find_mentions(text: str) -> list[NumberMention]:
    """Every figure and date in ``text``; dates win over the numbers inside them."""
    candidates = [(m.start, 0, m) for m in _dates(text)]
    candidates += [(m.start, 1, m) for m in _digits(text) + _words(text) + _kanji(text)]
    candidates.sort(key=lambda c: (c[0], c[1]))
    found: list[NumberMention] = []
    last_end = -1
    for start, _prio, m in candidates:
        if start >= last_end:
            found.append(m)
            last_end = m.end
    return found
