"""Verbatim passages sampled from a document, and a typography-blind oracle.

A passage is a span ``[start, end)`` of the document text; its text is
therefore a verbatim quote. English passages are windows of whole words
within one line; Japanese passages are windows of characters within one line.
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass

TOKEN = re.compile(r"\S+")
EN_HEDGES = re.compile(
    r"\b(?:about|approximately|around|nearly|almost|roughly|some|may|might|could|likely|possibly"
    r"|perhaps|estimated|up to|often|suggests?)\s+",
    re.IGNORECASE,
)
JA_HEDGES = re.compile("約|およそ|程度|ほぼ|一部の|多くの|かもしれない|可能性がある|以上|以下|前後|ほど|など")
JA_NUMERALS = "〇一二三四五六七八九十百千万"
_JA_CHAR = re.compile("[\u3040-\u30ff\u3400-\u9fff]")


@dataclass(frozen=True)
class Passage:
    start: int
    end: int
    text: str
    kind: str  # "general", "number" or "hedge"


def is_ja_char(ch: str) -> bool:
    """Han or kana (where a PDF may break a line, and where the policy drops whitespace)."""
    return bool(_JA_CHAR.match(ch))


def has_digit(text: str) -> bool:
    return any(ch.isdigit() or ch in JA_NUMERALS for ch in text)


def loose(text: str) -> str:
    """A fold that is coarser than claimledger's: NFKC, case, and no whitespace, dashes,
    quote marks, brackets or invisible characters at all. When ``loose(a)`` is not in ``loose(b)``,
    ``a`` cannot be in ``b`` by any typography-only reading: the oracle for must-not cases.
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return "".join(
        ch
        for ch in folded
        if not ch.isspace()
        and unicodedata.category(ch) not in ("Pd", "Pi", "Pf", "Ps", "Pe", "Cf", "Cn", "Cs", "Co", "Cc")
        and ch not in "\"'\u2032\u2033\u2212\ufffe"
    )


def _overlaps(spans: list[tuple[int, int]], a: int, b: int) -> bool:
    return any(a < e and s < b for s, e in spans)


def _lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        out.append((pos, line.rstrip("\r\n")))
        pos += len(line)
    return out


def _word_line(line: str) -> bool:
    letters = sum(ch.isalpha() for ch in line)
    return letters >= 0.6 * max(1, len(line.replace(" ", "")))


def sample_en(text: str, rng: random.Random, kind: str, taken: list[tuple[int, int]]) -> Passage | None:
    """A window of 10-24 words (number: around a figure; hedge: around a hedge word)."""
    candidates: list[tuple[int, list[re.Match[str]]]] = []
    for off, line in _lines(text):
        toks = list(TOKEN.finditer(line))
        if len(toks) >= 12 and _word_line(line):
            candidates.append((off, toks))
    for _ in range(40):
        if not candidates:
            return None
        off, toks = candidates[rng.randrange(len(candidates))]
        width = rng.randint(10, min(24, len(toks)))
        if kind == "general":
            first = rng.randint(0, len(toks) - width)
        else:
            line_text = toks[0].string
            anchors = [
                i
                for i, t in enumerate(toks)
                if (kind == "number" and any(c.isdigit() for c in t.group()))
                or (kind == "hedge" and EN_HEDGES.match(line_text, t.start()) and 0 < i < len(toks) - 1)
            ]
            if not anchors:
                continue
            anchor = anchors[rng.randrange(len(anchors))]
            first = max(0, min(anchor - rng.randint(1, width - 2), len(toks) - width))
        a, b = off + toks[first].start(), off + toks[first + width - 1].end()
        if _overlaps(taken, a, b):
            continue
        return Passage(a, b, text[a:b], kind)
    return None


def sample_ja(text: str, rng: random.Random, kind: str, taken: list[tuple[int, int]]) -> Passage | None:
    """A window of 10-40 characters within one line (number/hedge: around a figure or hedge)."""
    candidates = [(off, line) for off, line in _lines(text) if len(line) >= 12 and _JA_CHAR.search(line)]
    for _ in range(60):
        if not candidates:
            return None
        off, line = candidates[rng.randrange(len(candidates))]
        width = rng.randint(10, min(40, len(line)))
        if kind == "general":
            first = rng.randint(0, len(line) - width)
        else:
            if kind == "number":
                anchors = [i for i, ch in enumerate(line) if has_digit(ch)]
            else:
                anchors = [m.start() for m in JA_HEDGES.finditer(line)]
            anchors = [i for i in anchors if 0 < i < len(line) - 2]
            if not anchors:
                continue
            anchor = anchors[rng.randrange(len(anchors))]
            first = max(0, min(anchor - rng.randint(1, width - 3), len(line) - width))
        a, b = off + first, off + first + width
        if text[a:b] != text[a:b].strip() or _overlaps(taken, a, b) or _cuts_number(text, a, b):
            continue
        return Passage(a, b, text[a:b], kind)
    return None


def _cuts_number(text: str, a: int, b: int) -> bool:
    """A window that starts or ends inside a run of digits is not a quote anyone would make."""
    starts_inside = a > 0 and text[a - 1].isdigit() and text[a].isdigit()
    ends_inside = b < len(text) and text[b - 1].isdigit() and text[b].isdigit()
    return starts_inside or ends_inside


def sample_passages(text: str, lang: str, rng: random.Random, general: int) -> list[Passage]:
    """``general`` non-overlapping general passages, then one number and one hedge passage when possible."""
    sample = sample_en if lang == "en" else sample_ja
    out: list[Passage] = []
    taken: list[tuple[int, int]] = []
    for kind in ["general"] * general + ["number", "hedge"]:
        p = sample(text, rng, kind, taken if kind == "general" else [])
        if p is not None:
            out.append(p)
            if kind == "general":
                taken.append((p.start, p.end))
    return out
