"""Which normalizer core runs: the compiled one (``claimledger/_cnormalize.c``) or pure Python.

The compiled extension is optional: ``pip install`` builds it when a C compiler and the Python
headers are there and installs without it otherwise. ``CLAIMLEDGER_PURE_PYTHON=1`` forces the
pure-Python path. The pure-Python normalizer (:func:`claimledger.normalize.normalize_py`) is the
oracle: the C code is a port of it, and every table entry it reads is computed here (:func:`entry`, once
per code point, the first time a text holds it) from the running interpreter's ``unicodedata``
and from the definitions normalize.py hands over (:class:`Definitions`), so the two cannot drift
apart with a Python upgrade.
``claimledger --version`` names the active core. It imports nothing of claimledger but the exceptions.
"""

from __future__ import annotations

import functools
import importlib
import os
import threading
import unicodedata
from array import array
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NamedTuple

from claimledger._exceptions import ClaimledgerError


class Definitions(NamedTuple):
    """What the C core reads from normalize.py."""

    fold: Callable[[int], str]  # code point -> its fold (normalize._FOLD)
    invisible: str  # characters removed (normalize.INVISIBLE)
    drop_ranges: Sequence[tuple[int, int]]  # whitespace next to these vanishes (_SPACE_DROP_RANGES)
    fw_open: frozenset[str]  # a space after these vanishes (_FW_OPEN)
    fw_close: frozenset[str]  # a space before these vanishes (_FW_CLOSE)


def load_extension() -> ModuleType:
    """The compiled module itself (ImportError when it was not built), whatever the environment says."""
    return importlib.import_module("claimledger._cnormalize")


def _load() -> tuple[ModuleType | None, str]:
    if os.environ.get("CLAIMLEDGER_PURE_PYTHON", "").strip() not in ("", "0"):
        return None, "pure Python (CLAIMLEDGER_PURE_PYTHON is set)"
    try:
        ext = load_extension()
    except ImportError as exc:
        return None, f"pure Python (the C core is not built: {exc})"
    return ext, "C (claimledger._cnormalize)"


_EXT, CORE = _load()
_ready: set[int] = set()
# setup() starts the C tables over: it runs once, never while another thread's pass reads them
# (two threads normalizing for the first time at once would otherwise both run it)
_SETUP_LOCK = threading.Lock()


def active(defs: Definitions) -> bool:
    """True when :func:`claimledger.normalize.normalize` runs the compiled core.

    The first call hands the definitions over (the tables are filled lazily, one code point at a
    time, as texts hold them); when that fails (an extension left from another version of the
    source), the pure-Python path runs and :data:`CORE` says why.
    """
    global _EXT, CORE
    if _EXT is not None and id(_EXT) not in _ready:
        with _SETUP_LOCK:
            if _EXT is not None and id(_EXT) not in _ready:
                try:
                    setup(_EXT, defs)
                except Exception as exc:
                    _EXT, CORE = None, f"pure Python (the C core failed to start: {type(exc).__name__}: {exc})"
    return _EXT is not None


def entry(defs: Definitions, cp: int) -> tuple[int, str | None, bool]:
    """How the C core folds the Basic Multilingual Plane code point ``cp``: ``(code point, None,
    combining)`` when it folds to one character, ``(-1, fold, combining)`` when it does not fold
    one to one (an expansion, a combining mark, or a character folding to one): exactly the
    characters normalize.py's ``_special_chars`` treats one by one. The C core asks once per code
    point, the first time a text holds it (``_cnormalize.c`` fold_resolve).
    """
    ch = chr(cp)
    out = defs.fold(cp)
    comb = bool(unicodedata.combining(ch))
    if cp < 0x80:
        if out != ch.lower():  # the ASCII path lowercases; the C core folds with the table
            raise ClaimledgerError(f"fold of U+{cp:04X} is not its lower case")
        return ord(out), None, comb
    if 0xD800 <= cp <= 0xDFFF or not (comb or len(out) != 1 or unicodedata.combining(out)):
        if len(out) != 1:
            raise ClaimledgerError(f"fold of U+{cp:04X} is not one character")
        return ord(out), None, comb
    return -1, out, comb


def setup(ext: ModuleType, defs: Definitions) -> None:
    """Hand the definitions to the extension (once per process; about a millisecond: the fold of
    each code point is computed when a text first holds it, by :func:`entry`)."""
    if any(ord(ch) > 0xFFFF for ch in (*defs.invisible, *defs.fw_open, *defs.fw_close)):
        raise ClaimledgerError("the C core's character flags cover the Basic Multilingual Plane only")
    nfkc: Callable[[str], str] = functools.partial(unicodedata.normalize, "NFKC")
    ext.setup(
        functools.partial(entry, defs), defs.fold, unicodedata.combining, nfkc, defs.invisible,
        "".join(sorted(defs.fw_open)), "".join(sorted(defs.fw_close)), list(defs.drop_ranges),
    )  # fmt: skip
    _ready.add(id(ext))


def run(
    text: str, keep_break_hyphens: bool, defs: Definitions, ext: ModuleType | None = None
) -> tuple[str, array[int], array[int], array[int], bytearray]:
    """The C core on ``text``: the normalized text and the segment map (norm_start, orig_start,
    orig_end, linear). ``ext`` runs a given extension module (the differential test passes it even
    when ``CLAIMLEDGER_PURE_PYTHON`` turns the core off for everything else)."""
    out, ns, os_, oe, lin = _extension(defs, ext).normalize(text, keep_break_hyphens)
    arrays: list[array[int]] = []
    for raw in (ns, os_, oe):
        a = array("q")
        a.frombytes(raw)
        arrays.append(a)
    return out, arrays[0], arrays[1], arrays[2], lin


def run_text(text: str, defs: Definitions, ext: ModuleType | None = None) -> str:
    """The normalized text of :func:`run` alone (for quotes: the segment map is not turned into
    arrays, a quarter of the time)."""
    out: str = _extension(defs, ext).normalize(text, False)[0]
    return out


def _extension(defs: Definitions, ext: ModuleType | None) -> ModuleType:
    """``ext`` set up with ``defs``, or the process's extension; raises when that is not active."""
    if ext is None:
        if not active(defs):
            raise ClaimledgerError(CORE)
        assert _EXT is not None
        return _EXT
    if id(ext) not in _ready:
        setup(ext, defs)
    return ext
