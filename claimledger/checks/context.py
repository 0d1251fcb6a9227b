"""What checks share during one run: the source index, quote results, datasets, config."""

from __future__ import annotations

import contextlib
import os
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from claimledger._config import GateConfig
from claimledger._exceptions import SourceError
from claimledger.checks.quote_scan import Key, QuoteResult, scan_quotes
from claimledger.load.data import DataStore
from claimledger.load.index import CacheWriter, IndexedSource, Reading, RuledOut, read_source
from claimledger.load.sources import resolve_origin
from claimledger.metrics import MetricRegistry, run_registry
from claimledger.model.claim import Ledger
from claimledger.skeleton import Prefilter

__all__ = ["IndexedSource", "RunContext"]

RETAINED_SOURCES = 2  # indexed sources kept in memory at once; the rest come back from the cache
# The quote scan reads the next sources on READ_AHEAD_WORKERS threads while it scans the current one
# (the C normalizer and the skeleton run without the GIL). The files read ahead and not yet taken
# hold at most READ_AHEAD_MAX_BYTES in all (a larger file is read in turn), so two of the largest
# sources are never in memory at once; below READ_AHEAD_MIN_BYTES handing a file to a thread costs
# more than reading it (thousands of small files); URLs are never read ahead.
# CLAIMLEDGER_READ_AHEAD=0 turns it off.
READ_AHEAD_MAX_BYTES = 16 * 1024 * 1024
READ_AHEAD_MIN_BYTES = 256 * 1024
READ_AHEAD = (os.cpu_count() or 1) > 1 and os.environ.get("CLAIMLEDGER_READ_AHEAD", "1").strip() != "0"
# two: with one, the scan waited for it most of the time on a corpus of many cited sources
# (normalizing a source costs more than scanning it)
READ_AHEAD_WORKERS = min(2, max(1, (os.cpu_count() or 1)))

Keep = Prefilter  # the prefilter of the misattribution search (may this source hold a pending quote?)


def _read_ahead(
    source_id: str, origin: str, config: GateConfig, keep: Keep | None, store: CacheWriter,
    then: Callable[[IndexedSource], None] | None = None,
) -> IndexedSource | Reading | RuledOut:
    """What :meth:`RunContext.source` (``keep`` None) or :meth:`RunContext.uncited_source` would
    read, on the read-ahead thread: with ``keep``, a reading it lets through is indexed there too.
    ``then(ix)`` runs there on the indexed source (a failure in it is dropped: it only prepares
    what the scan would otherwise do itself)."""
    got = read_source(source_id, origin, config, lazy=keep is not None, store=store, prefilter=keep)
    if isinstance(got, Reading) and keep is not None and keep.may_contain(got.source.text):
        got = got.index()
    if then is not None and isinstance(got, IndexedSource):
        with contextlib.suppress(Exception):
            then(got)
    return got


@dataclass
class _SourceFacts:
    sha256: str | None
    media_type: str | None
    error: SourceError | None


@dataclass
class Unindexed:
    """An uncited source extracted but not normalized (see :meth:`RunContext.uncited_source`)."""

    ctx: RunContext
    source_id: str
    reading: Reading
    ruled_out_by: Keep | None = None  # the prefilter that already said no (on the read-ahead thread)

    @property
    def text(self) -> str:
        """The extracted text (what the skeleton prefilter reads)."""
        return self.reading.source.text

    def index(self) -> IndexedSource | SourceError:
        try:
            return self.reading.index()
        except Exception as exc:  # fails closed like a crash while loading
            return self.ctx._crashed(self.source_id, exc)


@dataclass
class RunContext:
    ledger: Ledger
    base_dir: Path
    config: GateConfig
    origins: dict[str, str] = field(default_factory=dict)
    _sources: OrderedDict[str, IndexedSource] = field(default_factory=OrderedDict)
    _facts: dict[str, _SourceFacts] = field(default_factory=dict)
    _quotes: dict[Key, QuoteResult] = field(default_factory=dict)
    _pinned: dict[str, IndexedSource] = field(default_factory=dict)
    _data: DataStore | None = None
    metrics: MetricRegistry = field(default_factory=run_registry)
    shared: dict[str, object] = field(default_factory=dict)  # what a kind module prefetches for its checks
    normalized_quotes: dict[str, str] = field(default_factory=dict)  # checks.quote.normalized_quote's memo
    _ahead: dict[str, tuple[Future[IndexedSource | Reading | RuledOut], Keep | None, int]] = field(default_factory=dict)
    _pool: ThreadPoolExecutor | None = None
    _sizes: dict[str, int] | None = None  # file sizes of the local sources (_size_of), stat'ed once
    _writer: CacheWriter | None = None  # index cache entries, written in the background; close() waits
    _closers: list[Callable[[], None]] = field(default_factory=list)

    @classmethod
    def create(
        cls, ledger: Ledger, base_dir: Path, config: GateConfig, metrics: MetricRegistry | None = None
    ) -> RunContext:
        """A context for one run; ``metrics`` defaults to the process-wide Python metrics."""
        origins = {sid: resolve_origin(o, base_dir) for sid, o in ledger.sources.items()}
        return cls(ledger=ledger, base_dir=base_dir, config=config, origins=origins,
                   metrics=metrics if metrics is not None else run_registry())  # fmt: skip

    def source(self, source_id: str) -> IndexedSource | SourceError:
        """The indexed source, loaded at most once per run unless evicted (then from the cache)."""
        pinned = self._pinned.get(source_id)
        if pinned is not None:
            return pinned
        cached = self._sources.get(source_id)
        if cached is not None:
            self._sources.move_to_end(source_id)
            return cached
        facts = self._facts.get(source_id)
        if facts is not None and facts.error is not None:
            return facts.error
        got = self._read(source_id, lazy=False)
        while isinstance(got, RuledOut):  # read ahead for the misattribution search and ruled out there
            got = self._read(source_id, lazy=False)
        if isinstance(got, Reading):  # read ahead for the misattribution search: index it now
            got = Unindexed(self, source_id, got).index()
        if isinstance(got, SourceError):
            return got
        self._sources[source_id] = got
        while len(self._sources) > RETAINED_SOURCES:
            self._sources.popitem(last=False)
        return got

    def read_ahead(
        self, source_id: str, keep: Keep | None = None, then: Callable[[IndexedSource], None] | None = None
    ) -> None:
        """Start reading a source the scan will ask for next (:meth:`source`, or with ``keep``
        :meth:`uncited_source`) on the read-ahead thread; results and facts are taken in order.
        ``then(ix)`` runs on that thread once the source is indexed (not when it is read in turn)."""
        if not READ_AHEAD or source_id in self._ahead or source_id in self._pinned or source_id in self._sources:
            return
        facts = self._facts.get(source_id)
        origin = self.origins.get(source_id)
        if (facts is not None and facts.error is not None) or origin is None or "://" in origin:
            return
        size = self._size_of(source_id)
        if size is None:
            return  # read in turn, where the error is reported
        waiting = sum(pending[2] for pending in self._ahead.values())
        if not READ_AHEAD_MIN_BYTES <= size <= READ_AHEAD_MAX_BYTES - waiting:
            return  # too small to pay, or no room: read in turn (or asked again once room is made)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=READ_AHEAD_WORKERS, thread_name_prefix="claimledger-read-ahead")
        job = self._pool.submit(_read_ahead, source_id, origin, self.config, keep, self._cache_writer(), then)
        self._ahead[source_id] = (job, keep, size)

    def _size_of(self, source_id: str) -> int | None:
        """The file size of a local source, for the read-ahead budget (None: not a readable file).

        The first call stats every local source of the ledger at once, before any reading thread
        runs: a ``stat`` on the main thread while they run costs a wait for the GIL (up to the
        switch interval, ~0.25 ms per source on 100 MB x 10k), against a few microseconds here.
        A size only decides whether a file is read ahead; the reading thread reads what is there."""
        if self._sizes is None:
            self._sizes = {}
            for sid, origin in self.origins.items():
                if "://" not in origin:
                    try:
                        self._sizes[sid] = os.stat(origin).st_size
                    except OSError:
                        continue
        return self._sizes.get(source_id)

    def _cache_writer(self) -> CacheWriter:
        if self._writer is None:
            self._writer = CacheWriter()
        return self._writer

    def _read(
        self, source_id: str, *, lazy: bool, keep: Keep | None = None
    ) -> IndexedSource | Reading | RuledOut | SourceError:
        try:
            ahead = self._ahead.pop(source_id, None)
            if ahead is not None:
                got = ahead[0].result()
            else:
                got = read_source(source_id, self.origins[source_id], self.config, lazy=lazy, store=self._cache_writer(),
                                  prefilter=keep)  # fmt: skip
        except SourceError as exc:
            self._facts[source_id] = _SourceFacts(None, None, exc)
            return exc
        except Exception as exc:  # a crash in a loader or extractor: this source fails closed, the run goes on
            return self._crashed(source_id, exc)
        if isinstance(got, RuledOut):
            self._facts[source_id] = _SourceFacts(got.sha256, got.media_type, None)
        else:
            self._facts[source_id] = _SourceFacts(got.source.sha256, got.source.media_type, None)
        return got

    def _crashed(self, source_id: str, exc: Exception) -> SourceError:
        crashed = SourceError(
            "check_crashed",
            f"internal error while loading source {source_id!r} ({type(exc).__name__}: {exc}); "
            "claims citing it are not verified — please report this",
        )
        self._facts[source_id] = _SourceFacts(None, None, crashed)
        return crashed

    def uncited_source(self, source_id: str, keep: Keep | None = None) -> IndexedSource | Unindexed | SourceError | None:
        """A source for the misattribution search: indexed when it already is (or is cached, or
        costly to extract), else its extracted text, indexed only if the skeleton prefilter lets
        it through (:meth:`Unindexed.index`); None when ``keep`` ruled out a plain-text source
        from its bytes (never decoded). Nothing is kept in memory after the call."""
        pinned = self._pinned.get(source_id) or self._sources.get(source_id)
        if pinned is not None:
            return pinned
        facts = self._facts.get(source_id)
        if facts is not None and facts.error is not None:
            return facts.error
        ahead = self._ahead[source_id][1] if source_id in self._ahead else None
        got = self._read(source_id, lazy=True, keep=keep)
        if isinstance(got, RuledOut) and ahead is not None and ahead is not keep:
            got = self._read(source_id, lazy=True, keep=keep)  # read ahead for another prefilter: again
        if isinstance(got, RuledOut):
            return None
        return Unindexed(self, source_id, got, ahead) if isinstance(got, Reading) else got

    def pin_source(self, ix: IndexedSource) -> None:
        """Make an in-memory source (e.g. a draft's body) available by id for this run."""
        self._pinned[ix.source.id] = ix

    def is_pinned(self, source_id: str) -> bool:
        return source_id in self._pinned

    def source_error(self, source_id: str) -> SourceError | None:
        """Why a source cannot be used, or None (loads it when not yet known)."""
        facts = self._facts.get(source_id)
        if facts is None:
            loaded = self.source(source_id)
            return loaded if isinstance(loaded, SourceError) else None
        return facts.error

    def source_facts(self) -> dict[str, _SourceFacts]:
        """SHA-256, media type or error of every source loaded during the run."""
        return dict(self._facts)

    def prefetch_quotes(self, keys: Iterable[Key], on_found: Callable[[str, list[tuple[str, str]]], None] | None = None) -> None:
        """Locate many (source id, normalized quote) pairs in one pass per source (``on_found``: see
        :func:`scan_quotes`)."""
        todo = {k for k in keys if k not in self._quotes and k[0] in self.origins}
        if todo:
            from claimledger.checks.scan_memo import run_memo  # answers of earlier runs

            try:
                found = scan_quotes(todo, self.source, list(self.ledger.sources), uncited=self.uncited_source,
                                    ahead=self.read_ahead, memo=run_memo(self), on_found=on_found)  # fmt: skip
                self._quotes.update(found)
            except Exception as exc:  # the batched scan crashed: every quote it held fails closed
                crashed = SourceError(
                    "check_crashed", f"internal error while locating quotes ({type(exc).__name__}: {exc})"
                )
                self._quotes.update({key: QuoteResult(error=crashed) for key in todo})

    def quote_result(self, source_id: str, normalized_quote: str) -> QuoteResult:
        key = (source_id, normalized_quote)
        if key not in self._quotes:
            self.prefetch_quotes([key])
        return self._quotes[key]

    @property
    def data(self) -> DataStore:
        if self._data is None:
            datasets = {name: resolve_origin(o, self.base_dir) for name, o in self.ledger.datasets.items()}
            self._data = DataStore(datasets, self.config)
        return self._data

    @property
    def data_loaded(self) -> DataStore | None:
        return self._data

    def on_close(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` when the run closes (e.g. a check's store writes what the run learnt)."""
        self._closers.append(fn)

    def close(self) -> None:
        if self._pool is not None:
            for future, _, _ in self._ahead.values():
                future.cancel()
            self._pool.shutdown(wait=True)
            self._pool = None
            self._ahead.clear()
        if self._writer is not None:  # after the verdicts: the index entries still waiting
            self._writer.close()
            self._writer = None
        closers, self._closers = self._closers, []
        for fn in closers:
            with contextlib.suppress(Exception):  # a store that cannot write only costs the next run time
                fn()
        if self._data is not None:
            self._data.close()
