"""Where the seeds of the near-miss search occur in a source: the first few starts of each.

A seed is a piece of at least 8 characters of a quote that was not found verbatim
(:func:`claimledger.checks.quote_scan._seeds`); its occurrences vote for the places the
near-miss alignment looks at. :func:`first_hits` gives, for every seed, the starts of its first
``cap`` occurrences in the text (overlapping occurrences included, in text order). It runs in
the optional compiled extension ``claimledger/_cseeds.c`` (one pass: a rolling hash of every
8-character window looked up in a table of the seeds' first 8 characters, confirmed character by
character; or, where a sample of the text shows it pays, a Wu-Manber pass that looks only at the
windows the seeds' trigrams allow, a few in ten for tens of seeds), about ten times faster than the
pure-Python path, an Aho-Corasick automaton whose every match is counted in Python. The pure-Python
path is the fallback (no C compiler at install time, or ``CLAIMLEDGER_PURE_PYTHON=1``) and the
oracle of tests/test_near_miss_index.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import ahocorasick

from claimledger._compiled import compiled as _compiled_module

MIN_SEED = 8  # the shortest seed the compiled search takes (every seed is at least this long)


_EXT = _compiled_module("_cseeds")


def first_hits_py(text: str, seeds: Sequence[str], cap: int) -> list[list[int]]:
    """The pure-Python search: one Aho-Corasick pass, each seed's matches kept up to ``cap``."""
    out: list[list[int]] = [[] for _ in seeds]
    if not seeds or not text or cap <= 0:
        return out
    automaton = ahocorasick.Automaton()
    index: dict[str, list[int]] = {}
    for i, seed in enumerate(seeds):
        index.setdefault(seed, []).append(i)
    for seed in index:
        automaton.add_word(seed, seed)
    automaton.make_automaton()
    for end, seed in automaton.iter(text):
        first = out[index[seed][0]]
        if len(first) < cap:
            first.append(end - len(seed) + 1)
    for idx in index.values():
        for i in idx[1:]:
            out[i] = list(out[idx[0]])
    return out


def first_hits(
    text: str, seeds: Sequence[str], cap: int, *, compiled: ModuleType | None = None
) -> list[list[int]]:
    """For each seed, the starts of its first ``cap`` occurrences in ``text`` (see the module)."""
    ext = compiled if compiled is not None else _EXT
    if ext is None or any(len(s) < MIN_SEED for s in seeds):
        return first_hits_py(text, seeds, cap)
    hits: list[list[int]] = ext.first_hits(text, list(seeds), cap)
    return hits


_FIND_EACH = 32  # up to this many distinct seeds, the pure-Python path searches for each with str.find
FIND_FEW = 4  # up to this many seeds, str.find for each reads less than a compiled pass over every window


class FirstStarts:
    """Many seeds looked for in many texts: ``self(text)`` is ``{i: start of the first occurrence of
    seeds[i]}`` for the seeds that occur in ``text`` (the verbatim scan of every quote).

    The compiled table (``_cseeds.prepare``) is built once and hashes windows of the seeds' first
    ``k`` characters (every seed at least that long), or with ``stride`` > 1 the ``k``-character
    windows at each seed's first ``stride`` offsets, so a pass reads one window of the text in
    ``stride`` (every seed at least ``k + stride - 1`` long): the answer depends on neither, only
    the speed (with 100,000 quotes most 8-character windows of a text begin some quote, few
    16-character ones do). Without the compiled search, with a seed shorter than ``k`` or with
    ``compiled=False``, an Aho-Corasick automaton built once reports every match to Python (or,
    for a few seeds, ``str.find`` looks for each)."""

    def __init__(self, seeds: Sequence[str], k: int = MIN_SEED, *, stride: int = 1, compiled: bool = True) -> None:
        self.seeds = list(seeds)
        ext = _EXT if compiled else None
        usable = (
            ext is not None
            and MIN_SEED <= k <= 64
            and 1 <= stride <= 64
            and all(len(s) >= k + stride - 1 for s in self.seeds)
        )
        self.compiled = usable
        self._table = ext.prepare(self.seeds, k, stride) if usable and ext is not None else None
        self._automaton = None
        # a few seeds (the quotes under 8 characters): one str.find each beats an automaton that
        # reports every match of "of the" to Python
        if self._table is None and len(set(self.seeds)) > _FIND_EACH:
            self._automaton = ahocorasick.Automaton()
            for i, seed in enumerate(self.seeds):
                if seed not in self._automaton:  # a repeated seed: its first index answers
                    self._automaton.add_word(seed, i)
            self._automaton.make_automaton()

    def __call__(self, text: str, skip: bytearray | None = None) -> dict[int, int]:
        """``skip``: one byte per seed; the seeds whose byte is nonzero are not looked for."""
        if not self.seeds or not text:
            return {}
        if self._table is not None:
            assert _EXT is not None
            starts: dict[int, int] = _EXT.first_starts(self._table, text, skip)
            return starts
        if self._automaton is None:
            found = {i: text.find(seed) for i, seed in enumerate(self.seeds) if skip is None or not skip[i]}
            return {i: at for i, at in found.items() if at >= 0}
        first: dict[int, int] = {}
        n = len(self._automaton)
        seeds = self.seeds
        for end, i in self._automaton.iter(text):
            if i not in first:
                first[i] = end - len(seeds[i]) + 1
                if len(first) == n:
                    break
        if len(set(seeds)) < len(seeds):  # every index of a repeated seed
            at = {seeds[i]: pos for i, pos in first.items()}
            first = {i: at[s] for i, s in enumerate(seeds) if s in at}
        if skip is not None:
            first = {i: pos for i, pos in first.items() if not skip[i]}
        return first


def compiled() -> ModuleType | None:
    """The compiled extension in use, or None (pure Python)."""
    return _EXT
