"""What checks share during one run: the source index, quote results, datasets, config."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from claimledger._config import GateConfig
from claimledger._exceptions import SourceError
from claimledger.checks.quote_scan import Key, QuoteResult, scan_quotes
from claimledger.load.data import DataStore
from claimledger.load.index import IndexedSource, Reading, read_source
from claimledger.load.sources import resolve_origin
from claimledger.metrics import MetricRegistry, run_registry
from claimledger.model.claim import Ledger

__all__ = ["IndexedSource", "RunContext"]

RETAINED_SOURCES = 2  # indexed sources kept in memory at once; the rest come back from the cache


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
        if isinstance(got, SourceError):
            return got
        assert isinstance(got, IndexedSource)
        self._sources[source_id] = got
        while len(self._sources) > RETAINED_SOURCES:
            self._sources.popitem(last=False)
        return got

    def _read(self, source_id: str, *, lazy: bool) -> IndexedSource | Reading | SourceError:
        try:
            got = read_source(source_id, self.origins[source_id], self.config, lazy=lazy)
        except SourceError as exc:
            self._facts[source_id] = _SourceFacts(None, None, exc)
            return exc
        except Exception as exc:  # a crash in a loader or extractor: this source fails closed, the run goes on
            return self._crashed(source_id, exc)
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

    def uncited_source(self, source_id: str) -> IndexedSource | Unindexed | SourceError:
        """A source for the misattribution search: indexed when it already is (or is cached, or
        costly to extract), else its extracted text, indexed only if the skeleton prefilter lets
        it through (:meth:`Unindexed.index`). Nothing is kept in memory after the call."""
        pinned = self._pinned.get(source_id) or self._sources.get(source_id)
        if pinned is not None:
            return pinned
        facts = self._facts.get(source_id)
        if facts is not None and facts.error is not None:
            return facts.error
        got = self._read(source_id, lazy=True)
        return Unindexed(self, source_id, got) if isinstance(got, Reading) else got

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

    def prefetch_quotes(self, keys: Iterable[Key]) -> None:
        """Locate many (source id, normalized quote) pairs in one pass per source."""
        todo = {k for k in keys if k not in self._quotes and k[0] in self.origins}
        if todo:
            try:
                self._quotes.update(
                    scan_quotes(todo, self.source, list(self.ledger.sources), uncited=self.uncited_source)
                )
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

    def close(self) -> None:
        if self._data is not None:
            self._data.close()
