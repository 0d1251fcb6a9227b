"""Elided quotes: ``"the system [...] reduced errors"``, with bracketed insertions.

A quote that marks an omission with ``[…]``, ``[...]``, ``...``, ``…``, ``(中略)``
or ``〔略〕`` is split there; every segment is matched literally (normalized, on
word boundaries, like any quote), in order, in the same passage: each gap is at
most :data:`MAX_GAP` normalized characters and crosses no blank line. Each
segment must itself be long enough to mean something (``min_quote_chars``). A
bracketed editorial insertion (``[the system]``, ``[sic]``) is a gap too (at most
:data:`MAX_INSERTION_GAP` characters of the source stand where it is), and is
listed in the finding. A bracket holding a digit (``[3]``, ``[2019]``) is never an
insertion: it is a footnote or citation mark or a figure, and must match literally
(a changed footnote number once verified through the gap). Tried only when the quote as a whole is not in the
source. A layer over the literal match: nothing here is fuzzy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimledger.load.index import IndexedSource
from claimledger.model.finding import Evidence

MAX_GAP = 400  # normalized characters one omission may stand for
MAX_INSERTION_GAP = 80  # source characters a bracketed insertion may replace ([the system] for "it")
MAX_OCCURRENCES = 200  # places tried for each segment
_MARK = re.compile(
    r"\s*(?P<elide>\[\s*\.{3}\s*\]|\.{3}|\(\s*中?略\s*\)|〔\s*中?略\s*〕)\s*|\s*\[(?P<insert>[^\[\]0-9]{1,60})\]\s*"
)
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")


@dataclass(frozen=True)
class ElidedQuote:
    segments: tuple[str, ...]
    gaps: tuple[str, ...]  # "elide" or "insert", one between each two segments
    insertions: tuple[str, ...]
    gap_insertions: tuple[str, ...] = ()  # per gap: the insertions standing in it ("" for none)
    edge_insertions: tuple[str, ...] = ()  # insertions before the first or after the last segment


def split_elided(nq: str) -> ElidedQuote | None:
    """The segments of a normalized quote with omission marks or insertions; None when it has none."""
    if "[" not in nq and "..." not in nq and "略" not in nq:
        return None  # every mark of _MARK holds one of these (a quick test; the search starts at every space)
    if not _MARK.search(nq):
        return None
    pieces: list[str] = []
    kinds: list[str] = []
    insertions: list[str] = []
    inserted: list[str] = []  # per mark: its insertion ("" for an omission)
    pos = 0
    for m in _MARK.finditer(nq):
        pieces.append(nq[pos : m.start()].strip())
        if m.group("insert") is not None:
            kinds.append("insert")
            insertions.append(m.group("insert").strip())
            inserted.append(insertions[-1])
        else:
            kinds.append("elide")
            inserted.append("")
        pos = m.end()
    pieces.append(nq[pos:].strip())
    segments: list[str] = []
    gaps: list[str] = []
    gap_insertions: list[str] = []
    edge: list[str] = []
    pending: str | None = None
    held: list[str] = []  # insertions since the last segment
    for i, piece in enumerate(pieces):
        if i > 0:
            pending = "elide" if "elide" in (pending, kinds[i - 1]) else kinds[i - 1]
            if inserted[i - 1]:
                held.append(inserted[i - 1])
        if piece:
            if segments:
                gaps.append(pending or "elide")
                gap_insertions.append(" ".join(held))
            else:
                edge += held
            held = []
            segments.append(piece)
            pending = None
    edge += held
    if not segments:
        return None
    return ElidedQuote(tuple(segments), tuple(gaps), tuple(insertions), tuple(gap_insertions), tuple(edge))


def _occurrences(text: str, seg: str, lo: int, hi: int) -> list[int]:
    from claimledger.checks.boundaries import find_whole

    out: list[int] = []
    pos = find_whole(text, seg, lo, hi)  # bounded: a segment missing after a gap no longer reads to the end
    while 0 <= pos <= hi and len(out) < MAX_OCCURRENCES:
        out.append(pos)
        pos = find_whole(text, seg, pos + 1, hi)
    return out


def _first_occurrences(text: str, seg: str, starts: list[int], cap: int) -> list[int]:
    """``_occurrences(text, seg, 0, len(text))`` from ``starts``, the first ``cap`` starts of ``seg`` in
    ``text`` (every occurrence, overlapping ones too, found beforehand): those on word boundaries,
    and when ``cap`` cut the list short, the search goes on after its last start."""
    from claimledger.checks.boundaries import find_whole, on_boundaries

    out = [p for p in starts if on_boundaries(text, p, p + len(seg))][:MAX_OCCURRENCES]
    if len(starts) >= cap:
        pos = find_whole(text, seg, starts[-1] + 1) if starts else find_whole(text, seg)
        while pos >= 0 and len(out) < MAX_OCCURRENCES:
            out.append(pos)
            pos = find_whole(text, seg, pos + 1)
    return out


def find_elided(
    ix: IndexedSource, quote: ElidedQuote, first: tuple[list[int], int] | None = None
) -> Evidence | None:
    """Every segment in order, each gap bounded and within one passage; evidence with all spans.
    ``first``: the first segment's starts in the primary reading found beforehand, and their cap
    (:func:`_first_occurrences`)."""
    from claimledger.checks.evidence import source_evidence
    from claimledger.checks.readings import reader_text

    text = ix.primary.text
    original = ix.source.text
    segs = quote.segments
    places = _occurrences(text, segs[0], 0, len(text)) if first is None else _first_occurrences(text, segs[0], *first)
    for pos in places:
        spans = _extend(ix, quote, 1, pos + len(segs[0]), [ix.primary.to_original(pos, pos + len(segs[0]))])
        if spans is not None:
            base = source_evidence(ix, spans[0][0], spans[-1][1])
            shown = " […] ".join(reader_text(original[a:b]) for a, b in spans)
            return Evidence(
                source=base.source, start=base.start, end=base.end, text=shown, page=base.page,
                end_page=base.end_page, line=base.line, column=base.column,
                spans=tuple(spans), reading="elided",
            )  # fmt: skip
    return None


def _extend(
    ix: IndexedSource, quote: ElidedQuote, i: int, prev_end: int, acc: list[tuple[int, int]]
) -> list[tuple[int, int]] | None:
    """The spans of segments ``i`` and after, each within its gap after the one before (depth first).
    A module function, not a closure that calls itself: such a closure is a reference cycle, and it
    held the whole source until the garbage collector ran (while a run pauses it, every source with
    an elided quote stayed in memory)."""
    segs = quote.segments
    if i == len(segs):
        return acc
    text, original = ix.primary.text, ix.source.text
    gap = MAX_INSERTION_GAP if quote.gaps[i - 1] == "insert" else MAX_GAP
    for pos in _occurrences(text, segs[i], prev_end, prev_end + gap + 1):
        a, b = ix.primary.to_original(pos, pos + len(segs[i]))
        pa = acc[-1][1]
        if _BLANK_LINE.search(original, pa, a) or a < pa:
            continue
        found = _extend(ix, quote, i + 1, pos + len(segs[i]), [*acc, (a, b)])
        if found is not None:
            return found
    return None


_CUES: tuple[tuple[str, str, str], ...] = (
    # (kind, name of the pattern in checks/overclaim/lexicon.py, name of its "not really" pattern or "")
    ("negation", "NEGATION_EN", "NOT_NEGATION_EN"),
    ("negation", "NEGATION_JA", "NOT_NEGATION_JA"),
    ("modal", "MODAL_EN", ""),
    ("modal", "MODAL_JA", ""),
    ("qualifier", "QUALIFIER_EN", ""),
    ("qualifier", "QUALIFIER_JA", ""),
)


def meaning_cues(text: str) -> dict[str, str]:
    """The negation, modal and qualifier cues in ``text`` (kind -> the first cue), English and Japanese,
    from the overclaim rules' lexicon ("not only" and the like are not negations)."""
    from claimledger.checks.overclaim import lexicon

    found: dict[str, str] = {}
    for kind, name, unless in _CUES:
        if kind in found:
            continue
        probe = getattr(lexicon, unless).sub(" ", text) if unless else text
        m = getattr(lexicon, name).search(probe)
        if m is not None:
            found[kind] = m.group(0).strip()
    return found


def dropped_meaning(original: str, evidence: Evidence, quote: ElidedQuote) -> tuple[str, str, str] | None:
    """What an elided quote's gaps take out of the source: (kind, cue, the source text of the gap) for
    the first omission whose text holds a negation, modal or qualifier, or the first insertion whose
    cues differ from those of the text it stands for; None when the cuts leave the meaning's cues alone.

    ``"the treatment was [...] effective"`` for "the treatment was not found to be effective" keeps
    every word literally and inverts the finding; the literal match alone would verify it.
    """
    for (_a, end), (start, _b), kind, inserted in zip(
        evidence.spans, evidence.spans[1:], quote.gaps, quote.gap_insertions, strict=False
    ):
        gap = original[end:start]
        cues, added = meaning_cues(gap), meaning_cues(inserted)
        if kind == "insert":  # the insertion stands for the gap: the same kinds of cue on both sides
            for k in sorted(cues.keys() ^ added.keys()):
                return k, cues.get(k) or added[k], gap.strip()
        figure = _new_figure(inserted, gap)  # and no figure the gap does not hold
        if figure is not None:
            return "figure", figure, gap.strip()
        elif cues.keys() - added.keys():  # an omission takes out what it held
            k = sorted(cues.keys() - added.keys())[0]
            return k, cues[k], gap.strip()
    for inserted in quote.edge_insertions:  # nothing of the source stands where these are
        added = meaning_cues(inserted)
        if added:
            k = sorted(added)[0]
            return k, added[k], ""
        figure = _new_figure(inserted, "")
        if figure is not None:
            return "figure", figure, ""
    return None


def _figures(text: str) -> list[tuple[str, float]]:
    from claimledger.numbers import find_numbers, find_word_numbers

    return [(m.text, m.value.value) for m in (*find_numbers(text, kanji=True), *find_word_numbers(text))]


def _new_figure(inserted: str, gap: str) -> str | None:
    """A figure of the insertion that the source text it stands for does not hold (``[after the forty
    election]`` for "[after the 2015 election]"): the insertion would put a number in the source's mouth."""
    if not inserted:
        return None
    held = {value for _, value in _figures(gap)}
    for shown, value in _figures(inserted):
        if value not in held:
            return shown
    return None

