"""What checks share during one run: loaded sources (normalized once), datasets, config."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from claimledger._config import GateConfig
from claimledger._exceptions import SourceError
from claimledger.load.data import DataStore
from claimledger.load.sources import load_source, resolve_origin
from claimledger.model.claim import Ledger
from claimledger.model.source import Source
from claimledger.normalize import Normalized, has_break_hyphens, normalize


@dataclass
class IndexedSource:
    """A source with its normalized forms, computed once per run."""

    source: Source
    primary: Normalized
    alternate: Normalized | None
    hidden: str | None


@dataclass
class RunContext:
    ledger: Ledger
    base_dir: Path
    config: GateConfig
    origins: dict[str, str] = field(default_factory=dict)
    _sources: dict[str, IndexedSource | SourceError] = field(default_factory=dict)
    _data: DataStore | None = None

    @classmethod
    def create(cls, ledger: Ledger, base_dir: Path, config: GateConfig) -> RunContext:
        origins = {sid: resolve_origin(o, base_dir) for sid, o in ledger.sources.items()}
        return cls(ledger=ledger, base_dir=base_dir, config=config, origins=origins)

    def source(self, source_id: str) -> IndexedSource | SourceError:
        """Load and normalize a declared source once; later calls reuse it."""
        cached = self._sources.get(source_id)
        if cached is not None:
            return cached
        result: IndexedSource | SourceError
        try:
            src = load_source(source_id, self.origins[source_id], self.config)
            alternate = normalize(src.text, keep_break_hyphens=True) if has_break_hyphens(src.text) else None
            hidden = normalize(src.hidden_text).text if src.hidden_text else None
            result = IndexedSource(src, normalize(src.text), alternate, hidden)
        except SourceError as exc:
            result = exc
        self._sources[source_id] = result
        return result

    def loaded_sources(self) -> dict[str, IndexedSource | SourceError]:
        return dict(self._sources)

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
