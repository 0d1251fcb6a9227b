"""The scan's answers for quotes not found verbatim, remembered across runs (issue 19: a warm run
must not redo them; only the source index was cached).

A quote missing from its cited source's primary reading costs two searches on every run: the
second readings of the source (a PDF's body without its running headers, furigana: building them
is most of the cost) and the nearest passage (an alignment). Both are pure functions of the
source's index (the same normalized text, readings and offsets: :func:`claimledger.load.index.index_key`
names them), of the normalized quote and of the code that searches. The key of an answer is the
SHA-256 of all of these:

* the source's index key digest (its bytes, media type, reading code and options);
* the normalized quote;
* :func:`memo_fingerprint`: the SHA-256 over the source of every file the two searches run
  (:data:`MEMO_FILES`, the compiled cores' C sources included), the Python, Unicode database and
  rapidfuzz versions;
* which answer (``readings`` or ``near``) and the store's format version.

Stored: that the quote is in no second reading (a quote found in one is not stored: its evidence is
computed again), and the nearest passage as its score and span in the primary reading
(:func:`claimledger.checks.quote_scan.nearest_spans`), or that there is none. The store is one SQLite file in the cache directory (``scan/v1.sqlite``), used
when the index cache is. Every row carries a SHA-256 over its key and payload; a row that fails it,
does not parse, holds a span outside the source's text or a score outside 0-100, and any error of
the store, counts as not stored: the search runs again. An answer stands only for the search's own
answer on the same input and code; the nearest passage never verifies anything, and "in no second
reading" can only leave a quote unverified, never verify it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import platform
import unicodedata
from collections.abc import Iterable
from json.encoder import encode_basestring_ascii as _json_str
from pathlib import Path
from typing import TYPE_CHECKING

from claimledger._config import GateConfig
from claimledger._files import digest_files
from claimledger.checks._rowstore import CheckedRows, run_rows
from claimledger.checks.evidence import evidence_at
from claimledger.load.index import IndexedSource, index_key
from claimledger.model.finding import Evidence

if TYPE_CHECKING:
    from claimledger.checks.context import RunContext

STORE_VERSION = 1
_PACKAGE = Path(__file__).resolve().parents[1]  # claimledger/
# the code the second readings and the nearest-passage search run (load/index.py's reading code is
# in the index key); tests/test_scan_memo.py traces both searches and fails on a file missing here
MEMO_FILES = (
    "checks/scan_memo.py",
    "checks/quote_scan.py",
    "checks/readings.py",
    "checks/seed_hits.py",
    "checks/boundaries.py",
    "checks/evidence.py",
    "normalize.py",
    "_normalize_core.py",
    "_cnormalize.c",
    "_cseeds.c",
    "_cnear.c",
    "_lazytable.h",
    "textmap.py",
    "model/finding.py",
    "model/source.py",
)

Near = tuple[Evidence, float, str]


@functools.cache
def memo_fingerprint() -> str:
    """SHA-256 over the searches' code (see the module docstring)."""
    digest = hashlib.sha256()
    digest_files(digest, _PACKAGE, MEMO_FILES)
    digest.update(
        f"python {platform.python_version()}; unicode {unicodedata.unidata_version}; "
        f"rapidfuzz {_rapidfuzz_version()}".encode()
    )
    return digest.hexdigest()


def _rapidfuzz_version() -> str:
    """rapidfuzz's version, read from its installed metadata: the compiled near-miss search does not
    import rapidfuzz, and importing it only to read ``__version__`` cost a run ~13 ms. The same
    string as ``rapidfuzz.__version__`` (tests/test_scan_memo.py), so the memo's keys are unchanged."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rapidfuzz")
    except PackageNotFoundError:  # (installed without metadata: ask the module itself)
        import rapidfuzz

        return str(rapidfuzz.__version__)


def answer_key(index_digest: str, what: str, nq: str) -> str:
    fields = [STORE_VERSION, memo_fingerprint(), what, index_digest, nq]
    # ASCII JSON: every string, a lone surrogate included, is written exactly and unambiguously
    return hashlib.sha256(json.dumps(fields).encode("ascii")).hexdigest()


def answer_keys(index_digest: str, what: str, quotes: Iterable[str]) -> dict[str, str]:
    """``{answer_key(index_digest, what, nq): nq}`` for many quotes: the JSON of the fields before the
    quote is written once (a list's JSON is its items' JSON joined by ", " within brackets)."""
    head = json.dumps([STORE_VERSION, memo_fingerprint(), what, index_digest])[:-1] + ", "
    sha = hashlib.sha256
    # (the encoder json.dumps uses for a string, without its per-call set-up)
    return {sha(f"{head}{_json_str(nq)}]".encode("ascii")).hexdigest(): nq for nq in quotes}


def near_payload(near: tuple[float, int, int] | None) -> str:
    """``json.dumps(None if near is None else list(near))``: a finite float score and two ints are
    written as json.dumps writes them (``repr``), without its per-call set-up; anything else by
    json.dumps itself."""
    if near is None:
        return "null"
    score, start, end = near
    if type(score) is float and math.isfinite(score) and type(start) is int and type(end) is int:
        return f"[{score!r}, {start}, {end}]"
    return json.dumps(list(near))


class ScanMemo(CheckedRows):
    """Answers of earlier runs (read one source at a time) and of this run (written by :meth:`close`)."""

    TABLE = "answers"

    def __init__(self, path: Path, config: GateConfig) -> None:
        super().__init__(path)
        self.config = config

    def _digest(self, ix: IndexedSource) -> str:
        """The source's index key (remembered by :func:`index_key` itself: the reading thread asked first)."""
        return index_key(ix.source.sha256, ix.source.media_type, self.config).digest

    def absent_from_readings(self, ix: IndexedSource, quotes: Iterable[str]) -> set[str]:
        """The quotes an earlier search found in none of the source's second readings."""
        keys = answer_keys(self._digest(ix), "readings", quotes)
        return {keys[k] for k, payload in self._get(list(keys)).items() if payload == '"absent"'}

    def note_absent_from_readings(self, ix: IndexedSource, quotes: Iterable[str]) -> None:
        self._new.update(dict.fromkeys(answer_keys(self._digest(ix), "readings", quotes), '"absent"'))

    def nearest(self, ix: IndexedSource, quotes: list[str]) -> dict[str, Near | None]:
        """The nearest passage an earlier search found for each quote it answered (None: no passage)."""
        keys = answer_keys(self._digest(ix), "near", quotes)
        text = ix.primary.text
        out: dict[str, Near | None] = {}
        for key, payload in self._get(list(keys)).items():
            try:
                stored = json.loads(payload)
            except ValueError:
                continue
            if stored is None:
                out[keys[key]] = None
                continue
            if not (isinstance(stored, list) and len(stored) == 3):
                continue
            score, start, end = stored
            if not (type(start) is int and type(end) is int and 0 <= start < end <= len(text)):
                continue
            if not (type(score) in (int, float) and math.isfinite(score) and 0 <= score <= 100):
                continue
            out[keys[key]] = (evidence_at(ix, ix.primary, start, end), float(score), text[start:end])
        return out

    def note_nearest(self, ix: IndexedSource, answers: dict[str, tuple[float, int, int] | None]) -> None:
        """This run's nearest passages (score, start, end in the primary reading; None: no passage)."""
        for key, nq in answer_keys(self._digest(ix), "near", answers).items():
            near = answers[nq]
            self._new[key] = near_payload(near)


def memo_path(cache_dir: Path) -> Path:
    return cache_dir / "scan" / f"v{STORE_VERSION}.sqlite"


_MEMO = "scan_memo"  # RunContext.shared: this run's ScanMemo (None: the index cache is off)


def run_memo(ctx: RunContext) -> ScanMemo | None:
    """The run's memo (opened at first use, written when the run closes), or None without the index cache."""
    memo = run_rows(ctx, _MEMO, lambda d: ScanMemo(memo_path(d), ctx.config))
    return memo if isinstance(memo, ScanMemo) else None
