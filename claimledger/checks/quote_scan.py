"""All quotes of a run in one pass per source.

Every normalized quote goes into one Aho-Corasick automaton; each cited source
is loaded, scanned once and released, so memory stays near the largest source
plus the automaton. Quotes not found in their cited source are then looked for
in the other sources (misattribution) with a second, smaller automaton; a source whose
letter-and-digit skeleton (claimledger/skeleton.py) holds none of those quotes' skeletons cannot
hold any of them and is skipped without being normalized. Near
misses are searched only for quotes that did not match, with a bounded cost:
on long sources, seed-and-extend (exact seeds from the quote vote for a place,
then a local alignment) instead of a scan per quote. The seeds of all of a source's
missing quotes are found in one pass (checks/seed_hits.py, compiled when built); a
quote none of whose seeds occurs costs no alignment: it is absent at once.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from claimledger._compiled import compiled
from claimledger._exceptions import SourceError
from claimledger.checks import seed_hits
from claimledger.checks.boundaries import find_whole, on_boundaries
from claimledger.checks.evidence import source_evidence, source_evidences
from claimledger.checks.seed_hits import MIN_SEED, first_hits
from claimledger.load.index import IndexedSource
from claimledger.model.finding import Evidence
from claimledger.normalize import has_break_hyphens, normalize
from claimledger.skeleton import Prefilter

if TYPE_CHECKING:
    from claimledger.checks.scan_memo import ScanMemo

FULL_SEARCH_LIMIT = 50_000  # normalized characters; above this, seed-and-extend
SEED_MAX_HITS = 200  # a seed seen more often than this is uninformative
# the starts kept of each piece searched ahead (piece_starts): at least what each search that uses
# them keeps (SEED_MAX_HITS, _MAX_ANCHOR_TRIES, elisions.MAX_OCCURRENCES; tests/test_read_ahead.py)
PIECE_CAP = 200
CONTEXT_CHARS = 200
AHEAD_DEPTH = 2  # sources offered to ``ahead`` beyond the current one (the run's reading threads)


@dataclass
class QuoteResult:
    """What the scan learned about one (source, normalized quote) pair."""

    found: Evidence | None = None
    context: str | None = None  # original text around the match (for overclaim rules)
    elsewhere: Evidence | None = None
    in_hidden: bool = False
    near: tuple[Evidence, float, str] | None = None
    error: SourceError | None = None
    # an elided quote ("the model [...] reduced errors"), missing verbatim, looked for segment by
    # segment while its source was loaded (checks/elisions.py): None when not looked for here
    elided: Elided | None = None


@dataclass
class Elided:
    """Where an elided quote's segments are in its cited source, and what its cuts drop there."""

    found: Evidence | None
    dropped: tuple[str, str, str] | None


Key = tuple[str, str]  # (source id, normalized quote)
SourceLoader = Callable[[str], IndexedSource | SourceError]


class Unindexed(Protocol):
    """A source read and extracted but not yet normalized."""

    @property
    def text(self) -> str: ...

    @property
    def ruled_out_by(self) -> Prefilter | None:
        """The prefilter that has already ruled the text out (read ahead), if any."""

    def index(self) -> IndexedSource | SourceError: ...


# a source for the misattribution search, given the prefilter: None when it ruled the source out
# from its bytes (claimledger.load.index.RuledOut)
UncitedLoader = Callable[[str, Prefilter], "IndexedSource | Unindexed | SourceError | None"]
# ``ahead(sid, keep, then)``: read ``sid`` ahead on a reading thread; ``then(ix)`` runs there on the
# indexed source (the verbatim scan's compiled passes, :meth:`PatternSet.prescan`)
ReadAhead = Callable[[str, Prefilter | None, Callable[[IndexedSource], None] | None], None]
Prescan = list[dict[int, int] | None]  # per group of a PatternSet: {pattern index: first start}, or not run


def _context(ix: IndexedSource, ev: Evidence) -> str:
    text = ix.source.text
    return text[max(0, ev.start - CONTEXT_CHARS) : ev.end + CONTEXT_CHARS]


class PatternSet:
    """Many patterns, built once and looked for in many texts: the first occurrence of each.

    With the compiled seed search (claimledger/_cseeds.c), one compiled pass finds the first start
    of every pattern of at least ``MIN_SEED`` characters; an Aho-Corasick automaton, which reports
    every match to Python, finds the shorter ones (and all of them without the compiled search,
    or with ``compiled=False``). Both give the same starts: the first occurrence of a pattern is the
    one with the smallest start, however it is found (tests/test_pattern_scan.py compares them).
    """

    def __init__(self, patterns: Iterable[str], *, compiled: bool | None = None) -> None:
        self.patterns = sorted(set(patterns))
        auto = compiled is None
        if compiled is None:
            compiled = seed_hits.compiled() is not None
        self.compiled = compiled
        # the compiled pass hashes the patterns' first k characters: 16 for the long ones (with
        # 100,000 quotes most 8-character windows of a text begin some quote), 8 for the others
        # of at least 8; the automaton takes the shorter ones (and all of them when not compiled).
        # The patterns long enough for it are found in a strided pass, which reads one 16-character
        # window in `stride` (see _stride)
        if compiled:
            stride = _stride(sum(len(p) >= _LONG_K for p in self.patterns))
            strided = _LONG_K + stride - 1
            groups = [
                ([p for p in self.patterns if len(p) >= strided], _LONG_K, stride, True),
                ([p for p in self.patterns if _LONG_K <= len(p) < strided], _LONG_K, 1, True),
                ([p for p in self.patterns if seed_hits.MIN_SEED <= len(p) < _LONG_K], seed_hits.MIN_SEED, 1, True),
                ([p for p in self.patterns if len(p) < seed_hits.MIN_SEED], seed_hits.MIN_SEED, 1, False),
            ]
        else:
            groups = [(self.patterns, seed_hits.MIN_SEED, 1, False)]
        if auto:  # a compiled pass reads the whole text: for a few patterns, a str.find each reads less
            groups = [(ps, k, st, c and len(ps) > seed_hits.FIND_FEW) for ps, k, st, c in groups]
        self._groups = [seed_hits.FirstStarts(ps, k, stride=st, compiled=c) for ps, k, st, c in groups if ps]
        # muted patterns are not looked for (a byte per pattern of each group, read by the passes)
        self._masks = [bytearray(len(g.seeds)) for g in self._groups]
        # each pattern's group and index in it (its mute byte: self._masks[group][index])
        self._group_of = {p: (n, i) for n, g in enumerate(self._groups) for i, p in enumerate(g.seeds)}

    def mute(self, pattern: str, muted: bool = True) -> None:
        """Leave ``pattern`` out of the next :meth:`first_positions` (``muted=False``: look for it again)."""
        g, i = self._group_of[pattern]
        self._masks[g][i] = muted

    def first_positions(self, text: str, early: Prescan | None = None) -> dict[str, int]:
        """Start of the first occurrence of each pattern not muted found in ``text`` (one pass per group).

        ``early``: what :meth:`prescan` found in this text beforehand (on a reading thread); its
        groups are not scanned again, and what it reports of a pattern muted since is left out."""
        out: dict[str, int] = {}
        for g, (group, mask) in enumerate(zip(self._groups, self._masks, strict=True)):
            seeds = group.seeds
            muted = any(mask)
            got = early[g] if early is not None else None
            if got is None:
                got = group(text, mask if muted else None)
            elif muted:
                got = {i: at for i, at in got.items() if not mask[i]}
            out.update((seeds[i], at) for i, at in got.items())
        return out

    def unreported(self, early: Prescan, patterns: Iterable[str]) -> list[str]:
        """Those of ``patterns`` that a compiled pass of :meth:`prescan` (``early``) looked for and did
        not find: they occur nowhere in its text (a pass finds every occurrence of what it looks for)."""
        out = []
        for p in patterns:
            g, i = self._group_of[p]
            got = early[g]
            if got is not None and i not in got:
                out.append(p)
        return out

    def prescan(self, text: str, also: Iterable[str] = ()) -> Prescan:
        """The compiled groups' passes over ``text`` ahead of :meth:`first_positions` (None for the
        other groups), leaving out the patterns muted now except ``also``; safe on another thread.

        Exact: a pass's answer for a pattern it looks for (its first start) does not depend on which
        other patterns are muted, and a pattern muted now is still muted when ``first_positions``
        takes the answer unless it is one of ``also``: the scan mutes a pattern once it is placed,
        which stays true, and unmutes only the quotes of the source it scans (``also``). So the passes
        report every pattern ``first_positions`` would look for, and it drops the others."""
        masks = [bytearray(m) for m in self._masks]  # under the GIL: a consistent copy of each
        for p in also:
            g, i = self._group_of[p]
            masks[g][i] = 0
        return [
            group(text, mask if any(mask) else None) if group.compiled else None
            for group, mask in zip(self._groups, masks, strict=True)
        ]


_LONG_K = 16  # (the strided pass of claimledger/_cseeds.c has a fast path for this window: STRIDED_K)
_STRIDE_ENTRIES = 160_000  # windows tabled by a strided pass (16 per pattern up to 10,000 patterns)


# the compiled near-miss search (claimledger/_cnear.c; None: not built, the rapidfuzz path below)
_NEAREST = getattr(compiled("_cnear"), "nearest", None)
_BEST_CELL = getattr(compiled("_cnear"), "best_cell", None)


def _stride(patterns: int) -> int:
    """How many positions apart the strided pass reads its windows: 16 for up to 10,000 patterns,
    fewer for more (a pattern tables one window per position of the stride, and a table much larger
    than the cache costs more than the windows it saves), 1 (every window, rolled) from 80,001 on."""
    stride = 16
    while stride > 1 and patterns * stride > _STRIDE_ENTRIES:
        stride //= 2
    return stride


def _seeds(q: str) -> list[tuple[int, str]]:
    size = max(8, min(24, len(q) // 6))
    return [(o, q[o : o + size]) for o in range(0, len(q) - size + 1, size)]


def piece_starts(pieces: list[str], text: str) -> dict[str, list[int]]:
    """The first PIECE_CAP starts of each piece in ``text``, overlapping ones included (each piece's
    answer depends on that piece and the text only: asked with other pieces, or beforehand on a
    reading thread, it is the same; its first ``n`` starts are those a search capped at ``n`` gives)."""
    return dict(zip(pieces, first_hits(text, pieces, PIECE_CAP), strict=True))


def _seed_candidates(quotes: list[str], text: str, known: Mapping[str, list[int]] | None = None) -> dict[int, list[int]]:
    """For each quote, a few likely start positions in ``text`` voted by exact seeds.

    Each of the first SEED_MAX_HITS occurrences of a seed votes for the place its quote would
    start (in buckets of 4 characters); a quote's votes are counted in text order (a tie between
    buckets goes to the one voted for first) and its three best buckets are its candidates. A
    quote none of whose seeds occurs has no candidate: no alignment is tried for it. ``known``: the
    starts of some seeds, found beforehand (:func:`piece_starts`).
    """
    per_quote = [_seeds(q) for q in quotes]
    seeds = list(dict.fromkeys(seed for pieces in per_quote for _, seed in pieces))
    if not seeds:
        return {}
    hits = {seed: known[seed][:SEED_MAX_HITS] for seed in seeds if seed in known} if known else {}
    rest = [seed for seed in seeds if seed not in hits]
    if rest:
        hits.update(zip(rest, first_hits(text, rest, SEED_MAX_HITS), strict=True))
    out: dict[int, list[int]] = {}
    for qi, pieces in enumerate(per_quote):
        # one quote's votes at a time (at most SEED_MAX_HITS per seed), in text order; at one
        # start, a quote's repeated seed votes in offset order
        evs = sorted((start, offset) for offset, seed in pieces for start in hits[seed])
        if not evs:
            continue
        buckets: dict[int, int] = {}
        for start, offset in evs:
            b = (start - offset) // 4
            buckets[b] = buckets.get(b, 0) + 1
        best = sorted(buckets.items(), key=lambda kv: -kv[1])[:3]
        out[qi] = [b * 4 for b, _ in best]
    return out


def _align(q: str, text: str, lo: int, hi: int) -> tuple[float, int, int] | None:
    span = _rough(q, text, lo, hi)
    return None if span is None else _refine(q, text, *span)


def _rough(q: str, text: str, lo: int, hi: int) -> tuple[int, int] | None:
    """The passage of ``text[lo:hi]`` that fits ``q`` best, before its edges are refined."""
    from rapidfuzz import fuzz

    lo, hi = max(0, lo), min(len(text), hi)
    if hi <= lo:
        return None
    al = fuzz.partial_ratio_alignment(q, text[lo:hi])
    if al is None:
        return None
    return lo + al.dest_start, lo + al.dest_end


def _refine_bound(q: str, text: str, start: int, end: int) -> float:
    """No cell of :func:`_refine`'s grid scores more than this: every cell is a piece of the grid's
    outer window, so it has at most that window's longest common subsequence with ``q``, and it is at
    least ``end - start - 2k`` long (``ratio`` is 200 x LCS / (len(q) + len(piece)))."""
    from rapidfuzz.distance import LCSseq

    k = max(1, min(8, len(q) // 4))
    common = LCSseq.similarity(q, text[max(0, start - k) : min(end + k, len(text))])
    return 200.0 * common / (len(q) + max(1, end - start - 2 * k))


def _place_bound(q: str, text: str, lo: int, hi: int) -> float:
    """No passage that :func:`_rough` then :func:`_refine` can find for ``q`` in ``text[lo:hi]`` scores
    more than this (a bound computed before the costly rough alignment).

    The rough passage lies in ``text[lo:hi]`` (clamped to the text), and every cell of its refine grid
    (the passage itself included) at most ``k`` characters beyond it: inside the window ``W`` of
    ``lo - k .. hi + k``. A cell of ``m`` characters has an LCS with ``q`` of at most ``min(m, w)``, ``w``
    the LCS of ``q`` with ``W``, and ``200 min(m, w) / (len(q) + m)`` is largest at ``m = w``.
    """
    from rapidfuzz.distance import LCSseq

    k = max(1, min(8, len(q) // 4))
    lo, hi = max(0, lo), min(len(text), hi)
    common = LCSseq.similarity(q, text[max(0, lo - k) : min(len(text), hi + k)]) if hi > lo else 0
    return 200.0 * common / (len(q) + common) if common else 0.0


def _refine(q: str, text: str, start: int, end: int) -> tuple[float, int, int]:
    """Move the passage's edges a few characters to fit the quote best (insertions shift windows).

    The grid: starts ``start - k .. start + k``, and for each start the ends ``end - k .. end + k``
    (within the text, past the start). The answer is the grid's first best cell (starts ascending,
    then ends), or the given edges unless a cell beats them strictly.

    Compiled (``_cnear.best_cell``): one bit-parallel LCS pass per start gives the LCS of every cell
    of its row, and the cell of the largest ``LCS / (len(q) + len)``, the first in grid order, is the
    first best cell of ``fuzz.ratio``. Exact: ``fuzz.ratio`` is ``100 * (1 - d / S)`` with ``S = len(q)
    + len``, ``d = S - 2 LCS``, each step correctly rounded and monotone, so equal fractions give equal
    scores, and unequal ones (at least ``1 / (S1 S2)`` apart, far more than the rounding) unequal scores
    in the same order. Only that cell is scored with ``fuzz.ratio``. :func:`_refine_py` is the pure-Python
    path and the oracle (tests/test_near_miss_refine.py).
    """
    from rapidfuzz import fuzz

    best_cell = _BEST_CELL
    if best_cell is None or not q:
        return _refine_py(q, text, start, end)
    k = max(1, min(8, len(q) // 4))
    last = min(end + k, len(text))
    initial = fuzz.ratio(q, text[start:end])
    cell = best_cell(q, text, max(0, start - k), min(start + k, last), end - k, last)
    if cell is not None:
        s, e = cell
        score = fuzz.ratio(q, text[s:e])
        if score > initial:
            return float(score), s, e
    return initial, start, end


def _refine_py(q: str, text: str, start: int, end: int) -> tuple[float, int, int]:
    """:func:`_refine` without the compiled grid: each start's row is scored in one rapidfuzz call,
    best row first, and a row that cannot hold a cell as good as the best so far (:func:`_row_bound`)
    is not scored: the same cell as scoring every row in grid order.
    """
    from rapidfuzz import fuzz
    from rapidfuzz.distance import LCSseq
    from rapidfuzz.process import extractOne

    k = max(1, min(8, len(q) // 4))
    last = min(end + k, len(text))
    initial = fuzz.ratio(q, text[start:end])
    lcs = LCSseq.similarity
    # (bound, start, first end, past the last end), best bound first
    rows = sorted(
        ((_row_bound(lcs(q, text[s:e0]), lcs(q, text[s:last]), len(q), s, e0, last + 1), s, e0, last + 1)
         for s in range(max(0, start - k), start + k + 1) if (e0 := max(end - k, s + 1)) <= last),
        key=lambda row: -row[0],
    )  # fmt: skip
    best, cell = initial, None
    for bound, s, e0, e1 in rows:
        if bound < best - 1e-6:  # nor can any row after it (a margin for the scores' rounding)
            break
        found = extractOne(q, [text[s:e] for e in range(e0, e1)], scorer=fuzz.ratio)
        if found is None:
            continue
        at = (s, e0 + found[2])
        # strictly better than the given edges; among equal cells, the first in grid order
        if found[1] > best or (cell is not None and found[1] == best and at < cell):
            best, cell = found[1], at
    if cell is None:
        return initial, start, end
    return float(best), cell[0], cell[1]


def _row_bound(a: int, b: int, n: int, s: int, e0: int, e1: int) -> float:
    """No cell ``text[s:e]``, ``e0 <= e < e1``, scores more than this against a quote of ``n``
    characters, given ``a`` and ``b``, the LCS of the quote with the row's shortest and longest cell.

    ``fuzz.ratio`` is 200 x LCS / (n + e - s). A cell ``d`` characters longer than the shortest has an
    LCS of at most ``min(b, a + d)`` (a character adds at most one), and ``(a + d) / (n + e0 - s + d)``
    grows with ``d``: the bound is its value at ``d = min(b - a, e1 - 1 - e0)``.
    """
    d = min(b - a, e1 - 1 - e0)
    return 200.0 * min(b, a + d) / (n + e0 - s + d)


def nearest_passages(quotes: list[str], ix: IndexedSource) -> dict[int, tuple[Evidence, float, str]]:
    """The closest passage of the source for each quote (descriptive only; never verifies)."""
    return _nears_of(ix, nearest_spans(quotes, ix))


def _nears_of(ix: IndexedSource, spans: dict[int, tuple[float, int, int]]) -> dict[int, tuple[Evidence, float, str]]:
    """The nearest passages of :func:`nearest_spans` with their evidence, mapped back and their lines
    counted together (:func:`~claimledger.checks.evidence.source_evidences`)."""
    text, kept = ix.primary.text, list(spans.items())
    found = source_evidences(ix, ix.primary.spans_to_original([(start, end) for _, (_, start, end) in kept]))
    return {qi: (ev, score, text[start:end]) for (qi, (score, start, end)), ev in zip(kept, found, strict=True)}


Span = tuple[float, int, int]  # a nearest passage: score, start and end in the primary reading


def _answers(spans: Mapping[int, Span], n: int) -> list[Span | None]:
    """:func:`nearest_spans`'s answers for its ``n`` quotes in order (None: no passage)."""
    return [spans.get(qi) for qi in range(n)]


def nearest_spans(
    quotes: list[str], ix: IndexedSource, known: Mapping[str, list[int]] | None = None
) -> dict[int, tuple[float, int, int]]:
    """:func:`nearest_passages` as (score, start, end) in the primary reading, for the quotes that
    have one. Each quote's answer depends on that quote and the source only, not on the others
    asked with it (checks/scan_memo.py remembers them one by one).

    Compiled (``_cnear.nearest``, claimledger/_cnear.c), the search after the seeds' vote runs in one
    call without the GIL (rapidfuzz's calls hold it, and this search runs on the reading threads
    while the main thread scans); the Python path below stays the fallback and the oracle
    (tests/test_near_miss_compiled.py)."""
    text = ix.primary.text
    out: dict[int, tuple[float, int, int]] = {}
    if not text:
        return out
    if _NEAREST is not None:  # the same search compiled, without the GIL (claimledger/_cnear.c)
        asked: Mapping[int, list[int] | None] = dict.fromkeys(range(len(quotes)))  # the whole text
        if len(text) > FULL_SEARCH_LIMIT:
            asked = _seed_candidates(quotes, text, known)
        found = _NEAREST([quotes[qi] for qi in asked], text, list(asked.values()))
        spans: dict[int, tuple[float, int, int] | None] = dict(zip(asked, found, strict=True))
    elif len(text) <= FULL_SEARCH_LIMIT:
        spans = {qi: _align(q, text, 0, len(text)) for qi, q in enumerate(quotes)}
    else:
        spans = {}
        for qi, starts in _seed_candidates(quotes, text, known).items():
            q = quotes[qi]
            best = None
            tried: set[tuple[int, int]] = set()
            for s in starts:
                lo, hi = s - len(q) // 2, s + len(q) + len(q) // 2
                # a candidate replaces the best only when it scores strictly more: a place none of
                # whose passages can beat the best is not aligned, a passage already refined, or one
                # whose grid cannot beat the best, is not refined (same answer)
                if best is not None and _place_bound(q, text, lo, hi) < best[0] - 1e-6:
                    continue
                rough = _rough(q, text, lo, hi)
                if rough is None or rough in tried:
                    continue
                tried.add(rough)
                if best is not None and _refine_bound(q, text, *rough) < best[0] - 1e-6:
                    continue
                al = _refine(q, text, *rough)
                if best is None or al[0] > best[0]:
                    best = al
            spans[qi] = best
    for qi, span in spans.items():
        if span is None or span[2] <= span[1]:
            continue
        out[qi] = span
    return out


def scan_quotes(
    keys: Iterable[Key],
    load: SourceLoader,
    all_sources: list[str],
    *,
    near_misses: bool = True,
    uncited: UncitedLoader | None = None,
    ahead: ReadAhead | None = None,
    memo: ScanMemo | None = None,
    on_found: Callable[[str, list[tuple[str, str]]], None] | None = None,
) -> dict[Key, QuoteResult]:
    """Locate every (source, normalized quote) pair; see the module docstring. ``uncited`` loads a
    source for the misattribution search, maybe unindexed (else ``load`` does); ``ahead(sid, keep)``
    is told which source comes next, so it can be read (``keep``: and prefiltered) meanwhile; ``uncited``
    is given the prefilter too, to test a plain-text source's bytes before decoding them. ``memo``
    answers, from earlier runs, the second-reading and nearest-passage searches of quotes missing
    from their cited source (checks/scan_memo.py), and keeps this run's answers. ``on_found(sid,
    [(normalized quote, context), ...])`` is told, once a cited source is scanned, which of its
    quotes were found there (checks/rules_ahead.py; what it raises is dropped)."""
    results: dict[Key, QuoteResult] = {k: QuoteResult() for k in keys}
    by_source: dict[str, list[str]] = defaultdict(list)
    owners: dict[str, list[tuple[str, QuoteResult]]] = defaultdict(list)
    for (sid, nq), r in results.items():
        by_source[sid].append(nq)
        owners[nq].append((sid, r))
    everything = PatternSet(owners)
    settled: set[str] = set()  # quotes found in the source of each of their claims: nothing more to learn
    cited = [s for s in all_sources if s in by_source] + [s for s in by_source if s not in all_sources]
    # pass 1: each cited source once; every quote of the run is looked for in it, so a
    # quote found in a source it does not cite is known without a second pass
    # the compiled passes and piece searches, run by the reading thread that indexed a source
    early: dict[str, Prescan] = {}
    pieces: dict[str, dict[str, list[int]]] = {}
    # the nearest passages of a source's quotes missing there, searched by the reading thread too
    # when no earlier run can answer them (a cold memo): each is a function of the quote and the
    # source alone (nearest_spans), so which thread searches changes no answer
    cold = memo is None or memo.cold()
    nears: dict[str, dict[str, Span | None]] | None = {} if near_misses and cold else None
    for i, sid in enumerate(cited):
        if ahead is not None:
            for later in cited[i + 1 : i + 1 + AHEAD_DEPTH]:
                ahead(later, None, _prescan(everything, by_source[later], later, early, pieces, near_misses, nears))
        ix = load(sid)
        if isinstance(ix, SourceError):
            for nq in by_source[sid]:
                results[(sid, nq)].error = ix
            continue
        # a quote muted because it is placed elsewhere is still looked for in a source it cites
        for nq in by_source[sid]:
            if nq not in settled:
                everything.mute(nq, False)
        prepared = pieces.pop(sid, None)
        found = _locate(everything, by_source[sid], ix, settled, memo, early.pop(sid, None), prepared)
        _record(found, sid, ix, owners, settled, everything)
        if on_found is not None:
            with contextlib.suppress(Exception):
                on_found(sid, [(nq, c) for nq in by_source[sid] if (c := results[(sid, nq)].context) is not None])
        for nq in by_source[sid]:
            if _placed(owners[nq]):
                everything.mute(nq)
        missing = [nq for nq in by_source[sid] if results[(sid, nq)].found is None]
        if missing and ix.hidden:
            for nq in missing:
                results[(sid, nq)].in_hidden = nq in ix.hidden
        for nq in missing:
            results[(sid, nq)].elided = _elided(ix, nq, prepared)
        if missing and near_misses:
            # a quote only in hidden text here, or already found verbatim in another source, is
            # reported as such (checks/quote.py): a nearest passage would never be shown for it
            wanted = [nq for nq in missing if not results[(sid, nq)].in_hidden and results[(sid, nq)].elsewhere is None]
            known = memo.nearest(ix, wanted) if memo is not None and not cold else {}
            todo = [nq for nq in wanted if nq not in known]
            searched = nears.pop(sid, {}) if nears is not None else {}
            unsearched = [nq for nq in todo if nq not in searched]
            here = nearest_spans(unsearched, ix, prepared) if unsearched else {}
            answers = {**searched, **dict(zip(unsearched, _answers(here, len(unsearched)), strict=True))}
            if memo is not None:
                memo.note_nearest(ix, {nq: answers[nq] for nq in todo})
            spans = {qi: span for qi, nq in enumerate(todo) if (span := answers[nq]) is not None}
            for qi, computed in _nears_of(ix, spans).items():
                results[(sid, todo[qi])].near = computed
            for nq, near in known.items():
                results[(sid, nq)].near = near
    # pass 2: quotes still unaccounted for, in the sources nobody cited
    pending = [nq for nq, rs in owners.items() if any(r.found is None and r.elsewhere is None and r.error is None
                                                      for _, r in rs)]  # fmt: skip
    others = [sid for sid in all_sources if sid not in by_source]
    if pending and others:  # (the tables of the pending quotes cost something: none without a source left)
        rest = PatternSet(pending)
        keep = Prefilter(pending)
        for i, sid in enumerate(others):
            # the next sources are read ahead: the reading threads test them while this one takes
            # their results (each test runs without the GIL), so both cores work; results are
            # still taken in source order
            if ahead is not None and uncited is not None:
                for later in others[i + 1 : i + 1 + AHEAD_DEPTH]:
                    ahead(later, keep, None)
            got = uncited(sid, keep) if uncited is not None else load(sid)
            if got is None or isinstance(got, SourceError):
                continue  # ruled out from its bytes (never decoded), or unusable
            if not isinstance(got, IndexedSource):
                if got.ruled_out_by is keep or not keep.may_contain(got.text):
                    continue  # none of the pending quotes can occur in it: never normalized
                got = got.index()
                if isinstance(got, SourceError):
                    continue
            _record(_locate(rest, [], got, settled), sid, got, owners, settled, rest)
    return results


def _prescan(
    patterns: PatternSet, own: list[str], sid: str, early: dict[str, Prescan],
    pieces: dict[str, dict[str, list[int]]], near_misses: bool,
    nears: dict[str, dict[str, Span | None]] | None = None,
) -> Callable[[IndexedSource], None]:
    """What a reading thread runs on ``sid`` once indexed (the compiled passes run without the GIL,
    while the scan takes the results of the source before): the verbatim scan's passes, kept in
    ``early`` for :meth:`PatternSet.first_positions` (``own``: the source's quotes, unmuted when it is
    scanned), and the searches for pieces of the source's quotes those passes found nowhere in it
    (:func:`_pieces`), kept in ``pieces``. A quote found verbatim but not on word boundaries, or only
    in another reading, has its pieces looked for by the scan itself. With ``nears``, the nearest
    passages of the quotes found nowhere in it and not in its hidden text (:func:`nearest_spans`:
    the alignments release the GIL), kept there for the scan; it searches the others itself."""

    def run(ix: IndexedSource) -> None:
        text = ix.primary.text
        early[sid] = found = patterns.prescan(text, own)
        absent = patterns.unreported(found, own)
        near = near_misses and len(text) > FULL_SEARCH_LIMIT
        wanted = _pieces(absent, near=near, hyphens=bool(absent) and has_break_hyphens(ix.source.text))
        if wanted:
            pieces[sid] = piece_starts(wanted, text)
        if nears is not None and absent:
            todo = [nq for nq in absent if not (ix.hidden and nq in ix.hidden)]
            if todo:
                spans = nearest_spans(todo, ix, pieces.get(sid))
                nears[sid] = dict(zip(todo, _answers(spans, len(todo)), strict=True))

    return run


def _pieces(quotes: list[str], *, near: bool, hyphens: bool) -> list[str]:
    """The pieces the scan looks for in a source for its quotes missing there: with ``near``, the
    seeds of the near-miss search (:func:`_seed_candidates`); the first segment of an elided quote
    (:func:`claimledger.checks.elisions.find_elided`); with ``hyphens``, a hyphenated quote's anchor
    (:func:`find_in_hyphen_reading`). Those the compiled search takes (at least MIN_SEED long)."""
    from claimledger.checks.elisions import split_elided

    out: list[str] = []
    for q in quotes:
        if near:
            out += [seed for _, seed in _seeds(q)]
        elided = split_elided(q)
        if elided is not None:
            out.append(elided.segments[0])
        if hyphens and "-" in q:
            anchor = _anchor(q)
            if anchor is not None:
                out.append(anchor[0])
    return [p for p in dict.fromkeys(out) if len(p) >= MIN_SEED]


def _elided(ix: IndexedSource, nq: str, known: Mapping[str, list[int]] | None = None) -> Elided | None:
    """An elided quote's segments in the source, now that it is loaded: the literal check would
    otherwise load the source again for it, from the cache once it is evicted. ``known``: starts of
    pieces found beforehand (:func:`piece_starts`), maybe its first segment's."""
    from claimledger.checks.elisions import dropped_meaning, find_elided, split_elided

    quote = split_elided(nq)
    if quote is None:
        return None
    first = known.get(quote.segments[0]) if known else None
    found = find_elided(ix, quote, None if first is None else (first, PIECE_CAP))
    return Elided(found, dropped_meaning(ix.source.text, found, quote) if found is not None else None)


def _record(
    found: dict[str, Evidence | int],
    sid: str,
    ix: IndexedSource,
    owners: dict[str, list[tuple[str, QuoteResult]]],
    settled: set[str],
    patterns: PatternSet,
) -> None:
    """Store each match where a result still needs it. A match is a start in the primary reading
    until a finding needs it: only then is it mapped back to the original text. Where a quote
    occurs elsewhere matters only while it is not found in its cited source (checks/quote.py);
    a quote found in the source of each of its claims joins ``settled`` and is not looked at
    again; one placed (each claim's quote found where cited, or else somewhere) is muted in
    ``patterns``: only a source it cites can still tell something of it (the scan unmutes it there)."""
    wanted: list[tuple[str, Evidence | int]] = []
    for nq, at in found.items():
        for cited, r in owners[nq]:
            if r.found is None and (cited == sid or r.elsewhere is None):
                wanted.append((nq, at))
                break
    # the starts still to map back, mapped and their lines counted together (source_evidences)
    spans = ix.primary.spans_to_original([(at, at + len(nq)) for nq, at in wanted if not isinstance(at, Evidence)])
    mapped = iter(source_evidences(ix, spans))
    for nq, at in wanted:
        ev = at if isinstance(at, Evidence) else next(mapped)
        for cited, r in owners[nq]:
            if cited == sid and r.found is None:
                r.found = ev
                r.context = _context(ix, ev)
            elif cited != sid and r.found is None and r.elsewhere is None:
                r.elsewhere = ev
        if all(r.found is not None for _, r in owners[nq]):
            settled.add(nq)
            patterns.mute(nq)
        elif _placed(owners[nq]):
            patterns.mute(nq)


def _placed(owners: list[tuple[str, QuoteResult]]) -> bool:
    """Each claim of the quote has it found in its cited source or found elsewhere: a source it does
    not cite has nothing more to tell (only the first place elsewhere is kept)."""
    return all(r.found is not None or r.elsewhere is not None for _, r in owners)


def _whole_positions(
    patterns: PatternSet, text: str, settled: AbstractSet[str], early: Prescan | None = None
) -> dict[str, int]:
    out = {}
    for nq, pos in patterns.first_positions(text, early).items():
        if nq in settled:
            continue
        if not on_boundaries(text, pos, pos + len(nq)):
            pos = find_whole(text, nq, pos + 1)
        if pos >= 0:
            out[nq] = pos
    return out


_WINDOW_MARGIN = 64
_MAX_ANCHOR_TRIES = 200


def _anchor(nq: str) -> tuple[str, int] | None:
    """The longest hyphen-free piece of a quote (the first of the longest) and its offset."""
    pieces = [p for p in nq.split("-") if p]
    if not pieces:
        return None
    anchor = max(pieces, key=len)
    return anchor, nq.index(anchor)


def _occurrences(text: str, piece: str) -> Iterator[int]:
    """The starts of the first _MAX_ANCHOR_TRIES occurrences of ``piece`` (overlapping ones too)."""
    pos = text.find(piece)
    tries = 0
    while pos >= 0 and tries < _MAX_ANCHOR_TRIES:
        tries += 1
        yield pos
        pos = text.find(piece, pos + 1)


def find_in_hyphen_reading(ix: IndexedSource, nq: str, starts: Iterable[int] | None = None) -> Evidence | None:
    """Find a hyphenated quote in the reading that keeps line-break hyphens (``well-known``).

    That reading differs from the primary one only where a line-break hyphen was joined, so
    instead of normalizing the whole source a second time, the quote's longest hyphen-free
    piece is located in the primary reading and only a window of the original text around
    each place is normalized with the hyphens kept. A match must lie inside the window, away
    from its cut edges, so the window's normalization agrees with the whole text's there.
    ``starts``: that piece's first occurrences in the primary reading when the caller found
    them already (:func:`_anchor_starts`), else they are looked for here.
    """
    found = _anchor(nq)
    if found is None:
        return None
    anchor, offset = found
    primary, original = ix.primary.text, ix.source.text
    for pos in _occurrences(primary, anchor) if starts is None else starts:
        lo, hi = ix.primary.to_original(max(0, pos - offset), min(len(primary), pos - offset + len(nq)))
        w0, w1 = max(0, lo - _WINDOW_MARGIN), min(len(original), hi + _WINDOW_MARGIN)
        window = normalize(original[w0:w1], keep_break_hyphens=True)
        k = window.text.find(nq)
        while k >= 0:
            inner = (k > 0 or w0 == 0) and (k + len(nq) < len(window.text) or w1 == len(original))
            if inner and on_boundaries(window.text, k, k + len(nq)):
                a, b = window.to_original(k, k + len(nq))
                return source_evidence(ix, a + w0, b + w0)
            k = window.text.find(nq, k + 1)
    return None


_BATCH_ANCHORS = 16  # from this many pieces on, one pass over the text beats a search per piece


def _anchor_starts(
    text: str, quotes: list[str], known: Mapping[str, list[int]] | None = None
) -> dict[str, list[int]]:
    """The first occurrences of many quotes' anchors in one pass (the seed search of the near-miss
    search): each search for an absent piece would read the whole text. Pieces too short for it,
    or too few to pay for the pass, are left to :func:`find_in_hyphen_reading`; ``known``: pieces
    found beforehand (:func:`piece_starts`)."""
    anchors = {a[0] for a in map(_anchor, quotes) if a is not None and len(a[0]) >= MIN_SEED}
    out = {a: known[a][:_MAX_ANCHOR_TRIES] for a in anchors if a in known} if known else {}
    rest = sorted(anchors - out.keys())
    if len(rest) >= _BATCH_ANCHORS:
        out.update(zip(rest, first_hits(text, rest, _MAX_ANCHOR_TRIES), strict=True))
    return out


def _locate(
    patterns: PatternSet, own: list[str], ix: IndexedSource, settled: AbstractSet[str] = frozenset(),
    memo: ScanMemo | None = None, early: Prescan | None = None, known: Mapping[str, list[int]] | None = None,
) -> dict[str, Evidence | int]:
    """Where the patterns occur (on word and number boundaries) in a source: a start in the
    primary reading, or the evidence of a match in another reading. The hyphen-keeping reading
    is consulted only for the source's own quotes that are still missing and hold a hyphen (it
    cannot differ otherwise); the second readings for the own quotes still missing that ``memo``
    does not know to be in none of them."""
    found: dict[str, Evidence | int] = dict(_whole_positions(patterns, ix.primary.text, settled, early))
    if has_break_hyphens(ix.source.text):
        hyphenated = [nq for nq in own if nq not in found and "-" in nq]
        starts = _anchor_starts(ix.primary.text, hyphenated, known)
        for nq in hyphenated:
            piece = _anchor(nq)
            ev = find_in_hyphen_reading(ix, nq, starts.get(piece[0]) if piece is not None else None)
            if ev is not None:
                found[nq] = ev
    missing = [nq for nq in own if nq not in found]
    if missing and (ix.source.annotations or len(ix.source.page_starts) > 1):
        from claimledger.checks.readings import find_in_readings

        absent = memo.absent_from_readings(ix, missing) if memo is not None else set()
        looked = [nq for nq in missing if nq not in absent]
        for nq in looked:
            ev = find_in_readings(ix, nq)
            if ev is not None:
                found[nq] = ev
        if memo is not None:
            memo.note_absent_from_readings(ix, [nq for nq in looked if nq not in found])
    return found
