"""The letter-and-digit skeleton of a text: a cheap, exact test that a quote cannot occur in it.

Pass 2 of the quote scan (:func:`claimledger.checks.quote_scan.scan_quotes`) looks for the quotes
not found where they were cited in every source nobody cited. Normalizing each of those sources
with its offset map is what made large corpora slow (issue 19 item 5); this module lets the scan
skip the sources where no such quote can possibly be.

The skeleton keeps, in order, the letters and digits (``str.isalnum``, combining marks excluded)
of the compatibility decomposition (NFKD) of each character:

* ``of_normalized(s)``: per character ``c`` of an already normalized text, the letters and digits
  of ``NFKD(c)`` (``é`` -> ``e``, ``が`` -> ``か``, ``½`` -> ``12``, a space or ``-`` -> nothing).
* ``of_raw(t)``: per character of a raw text, the same taken over its fold
  (``claimledger.normalize._FOLD``: ``ﬁ`` -> ``fi``, ``Ａ`` -> ``a``).

The invariant ``of_raw(t) == of_normalized(normalize(t).text)`` holds because the normalizer only
folds each character with that same table, deletes characters without letters or digits
(whitespace, dashes at line breaks, invisible characters, U+FFFE) and composes a combining mark
with the character before it, and ``NFKD(NFKC(a + m))`` equals ``NFKD(a) + NFKD(m)`` up to the
reordering of combining marks, which the skeleton drops. So when a normalized quote ``q`` occurs
in ``normalize(t).text``, ``of_normalized(q)`` occurs in ``of_raw(t)``: a source whose raw
skeleton holds none of the pending quotes' skeletons cannot hold any of the quotes, and is not
normalized at all. The test is only ever "cannot occur" or "maybe": a maybe loads the source as
before. scripts/fuzz_skeleton.py checks the invariant on a million generated texts;
tests/test_skeleton.py on thousands, both cores.

The compiled core (claimledger/_cnormalize.c) computes ``of_raw`` from a table it fills with
:func:`raw_of_char` (once per code point, the first time a text holds it) and looks for many quotes' anchor windows in one pass (a rolling hash); the pure-Python
path gives identical answers (``CLAIMLEDGER_PURE_PYTHON=1``). When every pending skeleton is at
least ``WINDOW + STRIDE - 1`` long, only the windows of a source's skeleton that start at a
multiple of ``STRIDE`` are hashed (:class:`_Strided`; a quarter of the prefilter's time on the
1 GB bench row): a skeleton that occurs holds all its windows of one phase among them. Either
test only decides which skeletons are then looked for as substrings, so the answer is the same.
"""

from __future__ import annotations

import unicodedata
from array import array
from collections.abc import Iterable
from types import ModuleType

from claimledger import _normalize_core as _core
from claimledger._compiled import compiled
from claimledger._exceptions import ClaimledgerError
from claimledger.normalize import _CORE_DEFINITIONS, _FOLD, INVISIBLE

WINDOW = 16  # skeleton characters hashed per anchor (shorter skeletons are searched directly)
_BASE = 1_000_003  # the rolling hash's multiplier (mod 2**64); the C core uses the same
_MASK = (1 << 64) - 1


def _kept(x: str) -> bool:
    return x.isalnum() and not unicodedata.combining(x)


def _of_normalized_char(ch: str) -> str:
    return "".join(x for x in unicodedata.normalize("NFKD", ch) if _kept(x))


def _of_raw_char(cp: int) -> str:
    return "".join(_of_normalized_char(x) for x in _FOLD[cp])


class _OfNormalized(dict[int, "str | None"]):
    """Code point -> its skeleton, ``None`` for none (``str.translate`` deletes it)."""

    def __missing__(self, cp: int) -> str | None:
        out = _of_normalized_char(chr(cp)) or None
        self[cp] = out
        return out


class _OfRaw(dict[int, "str | None"]):
    def __missing__(self, cp: int) -> str | None:
        out = _of_raw_char(cp) or None
        self[cp] = out
        return out


_OF_NORMALIZED = _OfNormalized()
_OF_RAW = _OfRaw()


def of_normalized(text: str) -> str:
    """The skeleton of normalized text (a normalized quote, a cached source's primary reading)."""
    return text.translate(_OF_NORMALIZED)


def of_raw_py(text: str) -> str:
    """The skeleton of raw (extracted, not normalized) text, in pure Python."""
    return text.translate(_OF_RAW)


def raw_of_char(cp: int) -> str:
    """The skeleton of one raw character (the C core asks for characters outside the BMP)."""
    return _OF_RAW[cp] or ""


_ready: set[int] = set()
_failed: set[int] = set()


def _ext() -> ModuleType | None:
    """The compiled core when it is active and has the skeleton functions (else pure Python: also
    when its skeleton setup fails, as for an extension left from another version of the source)."""
    if not _core.active(_CORE_DEFINITIONS):
        return None
    ext = _core._EXT
    if ext is None or not hasattr(ext, "skeleton") or id(ext) in _failed:
        return None
    if id(ext) not in _ready:
        with _core._SETUP_LOCK:  # once, never while another thread's pass reads the table
            if id(ext) not in _ready and id(ext) not in _failed:
                try:
                    setup(ext)
                except Exception:
                    _failed.add(id(ext))
            if id(ext) in _failed:
                return None
    return ext


def setup(ext: ModuleType) -> None:
    """Hand :func:`raw_of_char` to the C core: it asks once per BMP code point, the first time a
    text holds it, and every time for the others."""
    # what the normalizer deletes must have no skeleton, or the invariant would not hold
    for ch in INVISIBLE:
        if _of_raw_char(ord(ch)):
            raise ClaimledgerError(f"invisible U+{ord(ch):04X} has a skeleton")
    ext.skeleton_setup(raw_of_char)
    _ready.add(id(ext))


_UTF8 = compiled("_cutf8skel")
_utf8_ready: set[int] = set()


def utf8_core() -> ModuleType | None:
    """The compiled skeleton of UTF-8 bytes (claimledger/_cutf8skel.c), set up; None when it was not
    built, or when the compiled skeleton is not active (the pure-Python path decodes instead)."""
    ext = _UTF8
    if ext is None or _ext() is None:
        return None
    if id(ext) not in _utf8_ready:
        ext.setup(raw_of_char)  # asked once per BMP code point, the first time some bytes hold it
        _utf8_ready.add(id(ext))
    return ext


def of_utf8_py(data: bytes, stop: str = "") -> str | None:
    """``of_raw(data.decode("utf-8-sig"))``; None when the bytes are not UTF-8 or their text holds
    a character of ``stop`` (the definition the compiled core is tested against)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if any(ch in text for ch in stop):
        return None
    return of_raw_py(text)


def of_utf8(data: bytes, stop: str = "") -> str | None:
    """:func:`of_utf8_py` without building the decoded text (compiled core), else in pure Python."""
    core = utf8_core()
    return of_utf8_py(data, stop) if core is None else core.skeleton_utf8(data, stop)


def of_raw(text: str, *, ext: ModuleType | None = None) -> str:
    """The skeleton of raw text: ``of_normalized(normalize(text).text)``, without normalizing."""
    if ext is None:
        ext = _ext()
    elif id(ext) not in _ready:
        setup(ext)
    return str(ext.skeleton(text)) if ext is not None else of_raw_py(text)


def window_hash(s: str) -> int:
    """The rolling hash of a window, as the C core computes it."""
    h = 0
    for ch in s:
        h = (h * _BASE + ord(ch)) & _MASK
    return h


STRIDE = WINDOW  # with every long skeleton at least WINDOW + STRIDE - 1 long: one window in STRIDE hashed
_STRIDED_MAX_WINDOWS = 200_000  # beyond this many windows of the quotes, the tiles (one hash each) serve


class _Strided:
    """The tables of the strided test (``_cnormalize.strided_candidates``): a source's skeleton is
    hashed only at the windows that start at a multiple of STRIDE. A skeleton ``sk`` that occurs at
    ``p`` holds, for ``j = -p mod STRIDE``, its windows at ``j, j + STRIDE, ...`` among those: so the
    hashes of every window of every skeleton, and per skeleton and phase ``j`` the indices of its
    windows. Used only when every long skeleton is at least ``WINDOW + STRIDE - 1`` long (each phase
    then has a window) and the quotes have at most ``_STRIDED_MAX_WINDOWS`` windows together."""

    def __init__(self, hashes: bytes, groups: bytes) -> None:
        self.hashes = hashes
        self.groups = groups
        self._prepared: dict[int, object] = {}  # id(extension) -> its strided_prepare(hashes)

    def prepared(self, ext: ModuleType) -> object | None:
        """The extension's filter and hash table of :attr:`hashes`, built at the first text and
        shared by every later one (and by the reading threads: it is read only); None with an
        extension built before ``strided_prepare``."""
        got = self._prepared.get(id(ext))
        if got is None:
            prepare = getattr(ext, "strided_prepare", None)
            if prepare is None:
                return None
            got = self._prepared[id(ext)] = prepare(self.hashes)  # two threads may both build it: same table
        return got

    @classmethod
    def of(cls, long: list[str]) -> _Strided | None:
        if not long or min(len(sk) for sk in long) < WINDOW + STRIDE - 1:
            return None
        if sum(len(sk) - WINDOW + 1 for sk in long) > _STRIDED_MAX_WINDOWS:
            return None
        windows = [all_window_hashes(sk) for sk in long]
        hashes = sorted({h for ws in windows for h in ws})
        index = {h: i for i, h in enumerate(hashes)}
        groups = [len(long)]
        for ws in windows:
            groups.append(STRIDE)
            for j in range(STRIDE):
                phase = [index[h] for h in ws[j::STRIDE]]
                groups += [len(phase), *phase]
        return cls(array("Q", hashes).tobytes(), array("i", groups).tobytes())


def all_window_hashes(s: str) -> list[int]:
    """``[window_hash(s[o : o + WINDOW]) for o in range(len(s) - WINDOW + 1)]``, rolled along ``s``
    (one step per character, not WINDOW)."""
    top = pow(_BASE, WINDOW, _MASK + 1)  # the weight of the character leaving the window
    out: list[int] = []
    h = 0
    for i, ch in enumerate(s):
        h = (h * _BASE + ord(ch)) & _MASK
        if i >= WINDOW:
            h = (h - top * ord(s[i - WINDOW])) & _MASK
        if i >= WINDOW - 1:
            out.append(h)
    return out


class Prefilter:
    """Which raw texts may hold one of a set of normalized quotes (never a false "cannot")."""

    def __init__(self, quotes: Iterable[str]) -> None:
        skeletons = {of_normalized(q) for q in quotes}
        self.everywhere = "" in skeletons  # a quote without letters or digits may be anywhere
        self.short = sorted(s for s in skeletons if 0 < len(s) < WINDOW)
        self.long = sorted(s for s in skeletons if len(s) >= WINDOW)
        # each long skeleton is tiled with windows (the last one flush with its end): where the
        # skeleton occurs, every one of its windows occurs, so a source is searched only for the
        # skeletons all of whose windows it holds (a quote with one word changed rarely is)
        tiles = [
            [window_hash(sk[o : o + WINDOW]) for o in (*range(0, len(sk) - WINDOW, WINDOW), len(sk) - WINDOW)]
            for sk in self.long
        ]
        hashes = sorted({h for t in tiles for h in t})
        index = {h: i for i, h in enumerate(hashes)}
        self._hashes = array("Q", hashes).tobytes()
        self._tiles = [sorted({index[h] for h in t}) for t in tiles]
        self._strided = _Strided.of(self.long)

    def may_contain(self, raw_text: str, *, ext: ModuleType | None = None) -> bool:
        """False only when no quote's normalized form can occur in ``normalize(raw_text).text``."""
        if self.everywhere:
            return True
        if ext is None:
            ext = _ext()
        return self._holds(of_raw(raw_text, ext=ext), ext)

    def rules_out_utf8(self, data: bytes, stop: str = "") -> bool:
        """True only when ``data`` is UTF-8 whose text (``data.decode("utf-8-sig")``) holds a letter
        or digit, none of the characters of ``stop`` (non-ASCII; the reader may change a text
        holding them) and cannot hold any of the quotes: :meth:`may_contain` of that text is False.
        False when it cannot tell without decoding (not UTF-8, a stop character, no compiled core,
        no letter or digit: the reader decides then, as before)."""
        if self.everywhere:
            return False
        core = utf8_core()
        if core is None:
            return False
        skel = core.skeleton_utf8(data, stop)
        return bool(skel) and not self._holds(skel, _ext())

    def _holds(self, skel: str, ext: ModuleType | None) -> bool:
        if any(s in skel for s in self.short):
            return True
        if not self.long:
            return False
        if ext is None:
            return any(s in skel for s in self.long)
        if self._strided is not None and hasattr(ext, "strided_candidates"):
            st = self._strided
            search = getattr(ext, "strided_search", None)  # (None: an extension built before it)
            if search is not None:  # candidates and their confirmation in one pass without the GIL
                prepared = st.prepared(ext)  # (None: an extension built before strided_prepare)
                tail = () if prepared is None else (prepared,)
                return bool(search(skel, WINDOW, STRIDE, st.hashes, st.groups, self.long, *tail))
            maybe = ext.strided_candidates(skel, WINDOW, STRIDE, st.hashes, st.groups)
            return any(self.long[i] in skel for i in maybe)
        hits = ext.window_hits(skel, WINDOW, self._hashes)
        # a skeleton one of whose windows does not occur cannot occur itself
        return any(all(hits[i] for i in t) and s in skel for s, t in zip(self.long, self._tiles, strict=True))
