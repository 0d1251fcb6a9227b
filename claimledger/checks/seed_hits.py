"""Where the seeds of the near-miss search occur in a source: the first few starts of each.

A seed is a piece of at least 8 characters of a quote that was not found verbatim
(:func:`claimledger.checks.quote_scan._seeds`); its occurrences vote for the places the
near-miss alignment looks at. :func:`first_hits` gives, for every seed, the starts of its first
``cap`` occurrences in the text (overlapping occurrences included, in text order). It runs in
the optional compiled extension ``claimledger/_cseeds.c`` (one pass: a rolling hash of every
8-character window looked up in a table of the seeds' first 8 characters, confirmed character by
character), about ten times faster than the pure-Python path, an Aho-Corasick automaton whose
every match is counted in Python. The pure-Python path is the fallback (no C compiler at install
time, or ``CLAIMLEDGER_PURE_PYTHON=1``) and the oracle of tests/test_near_miss_index.py.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from types import ModuleType

import ahocorasick

MIN_SEED = 8  # the shortest seed the compiled search takes (every seed is at least this long)


def _load() -> ModuleType | None:
    if os.environ.get("CLAIMLEDGER_PURE_PYTHON", "").strip() not in ("", "0"):
        return None
    try:
        return importlib.import_module("claimledger._cseeds")
    except ImportError:
        return None


_EXT = _load()


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


def first_hits(text: str, seeds: Sequence[str], cap: int, *, compiled: ModuleType | None = None) -> list[list[int]]:
    """For each seed, the starts of its first ``cap`` occurrences in ``text`` (see the module)."""
    ext = compiled if compiled is not None else _EXT
    if ext is None or any(len(s) < MIN_SEED for s in seeds):
        return first_hits_py(text, seeds, cap)
    hits: list[list[int]] = ext.first_hits(text, list(seeds), cap)
    return hits


def compiled() -> ModuleType | None:
    """The compiled extension in use, or None (pure Python)."""
    return _EXT
