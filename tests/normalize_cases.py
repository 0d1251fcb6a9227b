"""Deterministic text cases for the differential test of the two normalizer cores.

Used by tests/test_normalize_core.py (a few thousand cases on every run) and by
scripts/normalize_differential.py (a million or more). Each case is drawn from pools of the code
points the normalizer treats specially: every whitespace kind, the invisible characters, hyphens
and dashes at line ends, U+FFFE and the soft hyphen before line breaks, combining marks (BMP and
astral, alone and after removed characters), full-width and half-width forms, the full-width
brackets and punctuation of the space rule, ligatures and other expansions, superscripts and
fractions that must not fold, CJK (BMP and astral), lone surrogates and random code points.
"""

from __future__ import annotations

import random
import sys
import unicodedata

from claimledger.normalize import INVISIBLE

WHITESPACE = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
HYPHENS = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d"
BREAKS = ["\n", "\r\n", "\r", " \n", "\n ", " \t\n\t ", "\n\n", "\r\n\r\n", "\u2028", "\x85"]
COMBINING = [chr(c) for c in range(0x300, 0x370)] + [
    "\u0483", "\u0591", "\u05b0", "\u064b", "\u0951", "\u093c", "\u094d", "\u0e38", "\u1ab0", "\u1dc0",
    "\u20d0", "\u20e3", "\u302a", "\u3099", "\u309a", "\ufe20", "\U000101fd", "\U0001d165",
    "\U0001d167", "\U0001e8d0", "\U000e0100",
]  # fmt: skip
EXPANSIONS = (
    "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06\u0132\u0133\u01c4\u01c6\u01c7\u01c9\u01ca\u01cc"
    "\u00df\u1e9e\u0130\u0149\u017f\u00b5\u337f\u3300\u00a8\u00b4\u02d8\u02dc\ufe49\ufdfa\ufdfb"
    "\u2026\u2025\u00bd\u2153\u00b2\u00b3\u00b9\u2070\u2074\u2080\u2082\u2460\u2461\u24b6\u3251"
    "\u1e9b\u03d0\u03f4\u1f80\u1fbc\u0587\u2126\u212b\u2163\u216b\u33a1\u2122\u2116"
)
QUOTES = "\"'\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb\uff02\u2018\u2019\u201a\u201b\u2032\uff07"
FULLWIDTH = [chr(c) for c in range(0xFF01, 0xFF5F)] + [chr(c) for c in range(0xFF61, 0xFFA0)]
BRACKETS = "\uff08\uff09\uff3b\uff3d\uff5b\uff5d\uff0c\uff0e\uff1a\uff05\uff01\uff1f\u3001\u3002\u300c\u300d"
CJK = (
    [chr(c) for c in range(0x3041, 0x3097)]
    + [chr(c) for c in range(0x30A1, 0x30FB)]
    + list("調査結果年月日本語生成言葉扱利用約倍全角")
    + [chr(c) for c in range(0x3000, 0x3040)]
    + ["\U00020000", "\U0002a6d6", "\U0002f800", "\U00030000"]
)
ASTRAL = ["\U0001d400", "\U0001d7ce", "\U0001f600", "\U0001f1ef", "\U0001f1f5", "\U00010400", "\U0001e900"]
WORDS = [
    "the", "verification", "well", "known", "step", "results", "data", "Fine", "ABC", "2024", "10.5",
    "EPS", "$3.50", "co", "operate", "naïve", "café", "İstanbul", "STRASSE", "Ωmega", "x",
]  # fmt: skip


def _random_char(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.6:
        return chr(rng.randrange(0x80, 0x10000))
    if roll < 0.97:
        cp = rng.randrange(0x10000, 0x110000)
        return chr(cp)
    return chr(rng.randrange(0xD800, 0xE000))  # a lone surrogate (text decoded with surrogateescape)


def _token(rng: random.Random) -> str:
    kind = rng.randrange(20)
    if kind == 0:
        return rng.choice(WHITESPACE) * rng.randrange(1, 3)
    if kind == 1:
        return rng.choice(INVISIBLE)
    if kind == 2:  # a word broken at a line end by a hyphen, U+FFFE or a soft hyphen
        mark = rng.choice([rng.choice(HYPHENS), "\ufffe", "\u00ad", "-", "\u2010"])
        return rng.choice(WORDS) + mark + rng.choice(["", " ", "  "]) + rng.choice(BREAKS) + rng.choice(WORDS)
    if kind == 3:
        return rng.choice(BREAKS)
    if kind == 4:
        return rng.choice(COMBINING) * rng.randrange(1, 3)
    if kind == 5:
        return rng.choice(EXPANSIONS)
    if kind == 6:
        return rng.choice(QUOTES)
    if kind in (7, 8):
        return "".join(rng.choice(FULLWIDTH) for _ in range(rng.randrange(1, 5)))
    if kind == 9:
        return rng.choice(BRACKETS)
    if kind in (10, 11):
        return "".join(rng.choice(CJK) for _ in range(rng.randrange(1, 5)))
    if kind == 12:
        return rng.choice(ASTRAL)
    if kind == 13:
        return _random_char(rng)
    if kind == 14:  # a letter, then a mark split from it by an invisible character
        return rng.choice("aeouAEOnc") + rng.choice(INVISIBLE) + rng.choice(COMBINING)
    if kind == 15:
        return unicodedata.normalize(rng.choice(["NFD", "NFKD"]), rng.choice(WORDS + CJK))
    if kind == 16:
        return rng.choice(HYPHENS)
    return rng.choice(WORDS) + rng.choice(["", " ", " ", "  ", ".", ",", "\n"])


def case(rng: random.Random) -> str:
    """One text of 0 to about 40 tokens."""
    return "".join(_token(rng) for _ in range(rng.randrange(0, 40)))


def bmp_case(rng: random.Random) -> str:
    """A case with no character outside the BMP (each is replaced by U+3042): the C core's builder
    then stays one or two bytes wide, the width its fast path (scan_run) folds into."""
    return "".join(c if ord(c) < 0x10000 else "\u3042" for c in case(rng))


def cases(seed: int, count: int, *, bmp: bool = False) -> list[str]:
    rng = random.Random(seed)
    make = bmp_case if bmp else case
    return [make(rng) for _ in range(count)]
