"""Citation keys: Pandoc ``[@key]``, ``[@key, p. 4]``, ``[see @a; @b]``, ``[-@key]``, narrative
``@key`` (Markdown, only for declared keys), and LaTeX ``\\cite{a,b}``, ``\\citep[p.~4]{a}``,
``\\citet{a}``, ``\\parencite`` and friends.

Everything inside a citation (keys, years in keys, locators such as "p. 4") is
part of the citation, never a claim of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from claimledger.extract.latex import CITE_COMMAND

_KEY = r"[\w][\w:.#$%&\-+?<>~/]*"
_PANDOC = re.compile(r"\[(?P<body>(?:[^\[\]\n]*?[\s;])?-?@[^\[\]\n]*)\]")
_PANDOC_KEY = re.compile(rf"(?:(?<=[\s;\[-])|^)-?@(?P<key>\{{[^}}]+\}}|{_KEY})")
_NARRATIVE = re.compile(rf"(?<![\w@\[])@(?P<key>{_KEY})")
_LATEX = re.compile(CITE_COMMAND)
_LATEX_KEYS = re.compile(r"\{([^{}]*)\}$")


@dataclass(frozen=True)
class Citation:
    """A citation in the prose view: its span and the keys it names."""

    start: int
    end: int
    keys: tuple[str, ...]
    key_starts: tuple[int, ...]


def _clean_key(key: str) -> str:
    key = key.strip("{}")
    return key.rstrip(".,:;?!") if not key.startswith("{") else key


def find_citations(prose: str, fmt: str, known_keys: Collection[str] = ()) -> list[Citation]:
    """Every citation in ``prose`` (format ``markdown``, ``latex`` or ``text``), in order."""
    out: list[Citation] = []
    if fmt == "latex":
        for m in _LATEX.finditer(prose):
            km = _LATEX_KEYS.search(m.group())
            if not km:
                continue
            base = m.start() + km.start(1)
            keys: list[str] = []
            starts: list[int] = []
            offset = 0
            for part in km.group(1).split(","):
                stripped = part.strip()
                if stripped:
                    keys.append(stripped)
                    starts.append(base + offset + part.index(stripped))
                offset += len(part) + 1
            if keys:
                out.append(Citation(m.start(), m.end(), tuple(keys), tuple(starts)))
        return out
    taken: list[tuple[int, int]] = []
    for m in _PANDOC.finditer(prose):
        body = m.group("body")
        keys_m = list(_PANDOC_KEY.finditer(body))
        if not keys_m:
            continue
        base = m.start("body")
        out.append(Citation(m.start(), m.end(), tuple(_clean_key(k.group("key")) for k in keys_m),
                            tuple(base + k.start("key") for k in keys_m)))  # fmt: skip
        taken.append(m.span())
    if known_keys and fmt == "markdown":
        known = set(known_keys)
        for m in _NARRATIVE.finditer(prose):
            key = _clean_key(m.group("key"))
            if key not in known or any(a <= m.start() < b for a, b in taken):
                continue
            end = m.start("key") + len(key)
            out.append(Citation(m.start(), end, (key,), (m.start("key"),)))
        out.sort(key=lambda c: c.start)
    return out


# --- numeric citations: [1], [2–4], [1, 3], ［１］, ^2^, ¹⁻³ --------------------------------------------

_NUM = r"[1-9１-９][0-9０-９]{0,2}"
_DASH = r"[–—\-－〜~‐‑]"
_SEP = r"[,;，；、]"
_BODY = rf"{_NUM}(?:\s*{_DASH}\s*{_NUM})?(?:\s*{_SEP}\s*{_NUM}(?:\s*{_DASH}\s*{_NUM})?)*"
# [1], ［１］ (not a reference link's label `][1]`, not a link definition `[1]:`)
_BRACKETED = re.compile(rf"[\[［](?P<body>{_BODY})[\]］](?![:(\[])")
_IDENTIFIER_BEFORE = re.compile(r"(?:^|[^A-Za-z])[A-Za-z]{1,2}$|[\]\\0-9_.]$")  # x[1], df[2], a.b[3]: indexing
_PANDOC_SUP = re.compile(rf"\^(?P<body>{_BODY})\^")
_SUP_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUPERSCRIPT = re.compile(
    rf"(?:(?<=[.,;:)\]」』”\"'’。、）])|(?<=[A-Za-z\u3040-\u30ff\u4e00-\u9fff]{{3}}))"
    rf"(?P<body>[¹²³⁴⁵⁶⁷⁸⁹][{_SUP_DIGITS}]{{0,2}}(?:[⁻‐–,][¹²³⁴⁵⁶⁷⁸⁹][{_SUP_DIGITS}]{{0,2}})*)(?![{_SUP_DIGITS}\w])"
)
_SUP_MAP = str.maketrans(_SUP_DIGITS + "⁻", "0123456789-")
_INTERVAL_BEFORE = re.compile(r"(?:range|interval|scale|between|from|domain|bounds?)(?:\s+of)?\s*$|[=∈]\s*$", re.I)
RANGE_MAX = 50  # [2–40] is a citation of 39 works at most; a longer run is not read as one


_HTML_SUP = re.compile(rf"<sup>\s*(?P<body>{_BODY})\s*</sup>", re.IGNORECASE)


def html_sup_citations(
    raw: str, prose: str, prose_index: Callable[[int], int], numbering: Mapping[str, str]
) -> list[Citation]:
    """``<sup>1</sup>``, ``<sup>2-4</sup>`` in a Markdown draft's raw text (the prose view drops the
    tags and keeps the digits): citations over those digits in the prose. A match whose digits are
    not prose (inside code, a comment) is skipped."""
    out: list[Citation] = []
    for m in _HTML_SUP.finditer(raw):
        a, b = prose_index(m.start("body")), prose_index(m.end("body") - 1) + 1
        if prose[a:b] != m.group("body"):
            continue
        numbers = numbers_in(m.group("body"))
        if not numbers:
            continue
        keys = list(dict.fromkeys(numbering.get(str(n)) or unknown_number_key(n) for n in numbers))
        out.append(Citation(a, b, tuple(keys), tuple(a for _ in keys)))
    return out


def unknown_number_key(number: int) -> str:
    """The key of a numeric citation no bibliography entry has: ``[7]`` (an unlisted citation)."""
    return f"[{number}]"


def numbers_in(body: str) -> list[int] | None:
    """``2–4, 7`` -> [2, 3, 4, 7]; None for a reversed or too long range."""
    import unicodedata

    text = unicodedata.normalize("NFKC", body.translate(_SUP_MAP))
    out: list[int] = []
    for part in re.split(r"\s*[,;、]\s*", text):
        bounds = [int(b) for b in re.split(r"\s*[–—\-〜~‐‑]\s*", part.strip()) if b]
        if len(bounds) == 2:
            lo, hi = bounds
            if hi < lo or hi - lo > RANGE_MAX:
                return None
            out += range(lo, hi + 1)
        elif len(bounds) == 1:
            out.append(bounds[0])
        else:
            return None
    return out


def numeric_citations(prose: str, numbering: Mapping[str, str]) -> list[Citation]:
    """Numeric citations in the prose view, keys mapped through ``numbering`` (``"1"`` -> the key
    of the first bibliography entry). A number no entry has keeps the key ``[n]``: the unlisted
    audit reports it (HIGH); it is never skipped.

    Read: ``[1]``, ``[2–4]`` / ``[2-4]``, ``[1, 3]``, ``[1; 3]``, full-width ``［１］`` and ``［1、3］``,
    Pandoc superscripts ``^2^`` and Unicode superscripts ``¹``, ``²⁻⁴`` after punctuation or a word of
    three letters or more (``x²``, ``km²`` are exponents); HTML ``<sup>1</sup>`` in Markdown is read
    by :func:`html_sup_citations`. Not read: a bracketed interval after
    "range", "between", "=" and the like (``the range [1, 5]``), a reversed or longer-than-50 range.
    """
    out: list[Citation] = []
    for pattern in (_BRACKETED, _PANDOC_SUP, _SUPERSCRIPT):
        for m in pattern.finditer(prose):
            body = m.group("body")
            start, end = m.span()
            before = prose[max(0, start - 24) : start]
            if pattern is _BRACKETED and (_INTERVAL_BEFORE.search(before) or _IDENTIFIER_BEFORE.search(before)):
                continue
            numbers = numbers_in(body)
            if not numbers:
                continue
            keys: list[str] = []
            for n in numbers:
                key = numbering.get(str(n)) or unknown_number_key(n)
                if key not in keys:
                    keys.append(key)
            out.append(Citation(start, end, tuple(keys), tuple(m.start("body") for _ in keys)))
    out.sort(key=lambda c: c.start)
    return out
