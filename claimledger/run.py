"""One run: what gate, mark, lint, audit and both servers share.

* :meth:`Run.open` reads the ledger once, merges the extra sources and datasets
  (``--source KEY=PATH``, a server request's ``sources``/``datasets``) into it once, loads the ``--metrics`` files and opens
  the run context (sources, quote lookups, datasets);
* :func:`guarded` is the one fail-closed wrapper for a step that crashes: the
  step's findings are replaced by one finding saying nothing it would have
  checked is verified (an :class:`~claimledger.InputError` still propagates);
* :meth:`Run.reproducibility` builds the typed :class:`Reproducibility` block
  once, from what the run saw.

A :class:`DraftRun` adds a draft and its analysis to a run (mark, lint, audit,
and ``check DRAFT``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import platform
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from claimledger._config import GateConfig
from claimledger._exceptions import InputError
from claimledger._version import __version__
from claimledger.checks.context import RunContext
from claimledger.checks.quote import quote_key
from claimledger.load.ledger import load_ledger
from claimledger.metrics import run_registry
from claimledger.model.claim import Ledger
from claimledger.model.finding import Finding, Reason, Status
from claimledger.reconcile import tiered

if TYPE_CHECKING:  # a draft's modules are imported by DraftRun when a draft is read (a ledger check needs none)
    from claimledger.checks.marks import DraftChecker, Verdict
    from claimledger.extract.draft import Draft
    from claimledger.extract.marks import Analysis

LedgerArg = str | Path | Ledger | None
T = TypeVar("T")


def replaced(ledger: Ledger, **fields: Any) -> Ledger:
    """A copy of ``ledger`` with ``fields`` replaced (its path and hash kept: they name what was read)."""
    if not fields:
        return ledger
    merged = ledger.model_copy(update=fields)
    merged._path, merged._sha256 = ledger._path, ledger._sha256
    return merged


def with_sources(
    ledger: Ledger, sources: Mapping[str, str] | None, datasets: Mapping[str, str] | None = None
) -> Ledger:
    """``ledger`` with ``sources`` and ``datasets`` added or overriding its own (its path and hash kept).

    The one place extra inputs join a ledger: ``--source KEY=PATH`` on the command line, the
    ``sources`` and ``datasets`` of a server request."""
    update: dict[str, Any] = {}
    if sources:
        update["sources"] = {**ledger.sources, **{k: str(v) for k, v in sources.items()}}
    if datasets:
        update["datasets"] = {**ledger.datasets, **{k: str(v) for k, v in datasets.items()}}
    return replaced(ledger, **update)


def read_ledger(ledger: LedgerArg, base_dir: str | Path | None = None) -> tuple[Ledger, Path, str | None]:
    """The ledger (an empty one for None), the folder its paths are relative to, and its path as given."""
    if ledger is None:
        return Ledger(version=1), Path(base_dir) if base_dir else Path.cwd(), None
    if isinstance(ledger, Ledger):
        return ledger, Path(base_dir) if base_dir else Path.cwd(), ledger._path
    parsed = load_ledger(ledger)
    return parsed, Path(base_dir) if base_dir else Path(ledger).resolve().parent, str(ledger)


def crashed(claim_id: str, check: str, reason: Reason, message: str) -> Finding:
    """The finding for a step that crashed: not verified (HIGH or, for a judge, MED, once tiered), with the
    error named."""
    return Finding(claim_id, check, Status.ERROR, reason, message)


def error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def guarded(
    findings: list[Finding], step: Callable[[], T], *, claim_id: str, check: str, what: str,
    reason: Reason = Reason.CHECK_CRASHED,
) -> tuple[T | None, BaseException | None]:  # fmt: skip
    """Run ``step``; if it crashes, add the fail-closed finding and return ``(None, the error)``.

    An :class:`InputError` is the user's to fix and propagates unchanged.
    """
    try:
        return step(), None
    except InputError:
        raise
    except Exception as exc:  # fail closed: whatever the step would have checked is not verified
        message = (
            f"internal error while {what} ({error_text(exc)}); nothing this step would have checked "
            "is verified — please report this"
        )
        findings.append(crashed(claim_id, check, reason, message))
        return None, exc


@dataclass
class Reproducibility:
    """What a run saw, to reproduce it: tool, inputs with their SHA-256, settings, what was not run."""

    ledger: dict[str, Any]
    sources: dict[str, Any]
    datasets: dict[str, Any]
    config: dict[str, Any]
    draft: dict[str, Any] | None = None
    semantic_check: object = "not run (no judge configured): meaning was not checked"
    summary_support: object = None  # only reported when a summary section was asked for
    references: dict[str, Any] | None = None  # only reported when the ledger has a bibliography
    tool_version: str = __version__
    python: str = field(default_factory=platform.python_version)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tool": "claimledger",
            "tool_version": self.tool_version,
            "python": self.python,
            "ledger": self.ledger,
            "sources": self.sources,
            "datasets": self.datasets,
            "config": self.config,
            "draft": self.draft,
            "semantic_check": self.semantic_check,
        }
        if self.summary_support is not None:
            out["summary_support"] = self.summary_support
        if self.references is not None:
            out["references"] = self.references
        return out


def draft_facts(draft: str | Path | None) -> dict[str, Any] | None:
    """The draft's path and SHA-256 (None when unreadable), for the reproducibility block."""
    if draft is None:
        return None
    try:
        sha: str | None = hashlib.sha256(Path(draft).read_bytes()).hexdigest()
    except OSError:
        sha = None
    return {"path": str(draft), "sha256": sha}


@dataclass
class Run:
    """A ledger with its extra sources merged, the folder its paths are relative to, and the run context."""

    ledger: Ledger
    ledger_path: str | None
    folder: Path
    ctx: RunContext

    @classmethod
    def open(
        cls,
        ledger: LedgerArg,
        *,
        sources: Mapping[str, str] | None = None,
        datasets: Mapping[str, str] | None = None,
        config: GateConfig | None = None,
        base_dir: str | Path | None = None,
    ) -> Run:
        config = config or GateConfig()
        metrics = run_registry(config.metrics_files)  # this run's own metrics: no lock, no leak
        parsed, folder, path = read_ledger(ledger, base_dir)
        parsed = with_sources(parsed, sources, datasets)
        return cls(parsed, path, folder, RunContext.create(parsed, folder, config, metrics))

    @property
    def config(self) -> GateConfig:
        return self.ctx.config

    def with_sources(self, sources: Mapping[str, str]) -> Run:
        """This run with ``sources`` added to the ledger (``--fetch-sources``): a new context, the same metrics.
        Call before any claim is checked; this run's context is closed."""
        merged = with_sources(self.ledger, sources)
        merged._reference_keys = self.ledger._reference_keys
        merged._reference_order = self.ledger._reference_order
        self.close()
        return Run(merged, self.ledger_path, self.folder,
                   RunContext.create(merged, self.folder, self.config, self.ctx.metrics))  # fmt: skip

    def close(self) -> None:
        self.ctx.close()

    def __enter__(self) -> Run:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def reproducibility(self, draft: dict[str, Any] | None = None, **notes: object) -> Reproducibility:
        """The typed reproducibility block of this run (``notes``: semantic_check, summary_support)."""
        ctx, config = self.ctx, self.config
        sources: dict[str, Any] = {}
        for sid, facts in ctx.source_facts().items():
            entry: dict[str, Any] = {"origin": ctx.ledger.sources[sid], "sha256": facts.sha256}
            if facts.error is not None:
                entry["error"] = facts.error.reason
            else:
                entry["media_type"] = facts.media_type
            sources[sid] = entry
        store = ctx.data_loaded
        datasets = {name: {"origin": o, "sha256": store.sha256.get(name) if store else None}
                    for name, o in self.ledger.datasets.items()}  # fmt: skip
        return Reproducibility(
            ledger={"path": self.ledger._path, "sha256": self.ledger._sha256},
            sources=sources,
            datasets=datasets,
            config={
                "min_quote_chars": config.min_quote_chars,
                "default_tolerance": config.default_tolerance,
                "fail_closed": config.fail_closed,
            },
            draft=draft,
            **notes,  # type: ignore[arg-type]
        )


def _read_reference_order(run: Run) -> None:
    """The bibliography's key order for numeric citations ([n] = the n-th entry) when the gate has
    not read it (``mark``, ``lint``, ``audit``). A bibliography that cannot be read leaves it empty:
    every [n] is then unlisted, and ``check`` reports the bibliography's own error."""
    ledger = run.ledger
    if ledger._reference_order or not (ledger.references or ledger.bibliography or run.config.bib_files):
        return
    from claimledger.refs.findings import ledger_references

    try:
        ledger._reference_order = tuple(r.key for r in ledger_references(ledger, run.folder, run.config.bib_files))
    except (InputError, OSError):
        return


@dataclass
class DraftRun:
    """A run plus a draft and its analysis: what mark, lint, audit and ``check DRAFT`` share."""

    draft: Draft
    run: Run
    analysis: Analysis
    checker: DraftChecker

    @classmethod
    def open(
        cls,
        draft: str | Path | Draft,
        ledger: LedgerArg = None,
        sources: Mapping[str, str] | None = None,
        config: GateConfig | None = None,
        fmt: str | None = None,
        datasets: Mapping[str, str] | None = None,
    ) -> DraftRun:
        from claimledger.extract.draft import Draft, read_draft

        run = Run.open(ledger, sources=sources, datasets=datasets, config=config)
        d = draft if isinstance(draft, Draft) else read_draft(draft, fmt)
        return cls.within(run, d)

    @classmethod
    def within(cls, run: Run, draft: Draft) -> DraftRun:
        """A draft checked inside an open run (``check DRAFT``)."""
        from claimledger.checks.marks import DraftChecker
        from claimledger.extract.attributions import ledger_numbering
        from claimledger.extract.marks import Analysis

        _read_reference_order(run)
        known = set(run.ledger.sources) | set(run.ledger._reference_keys)  # bibliography keys, set by gate
        analysis = Analysis(
            draft, known_keys=known, min_chars=run.config.min_quote_chars, numbering=ledger_numbering(run.ledger)
        )
        return cls(draft, run, analysis, DraftChecker(analysis, run.ctx))

    @property
    def ledger(self) -> Ledger:
        return self.run.ledger

    @property
    def ledger_path(self) -> str | None:
        return self.run.ledger_path

    @property
    def ctx(self) -> RunContext:
        return self.run.ctx

    def verdicts(self) -> list[Verdict]:
        """Every draft claim's verdict, its finding tiered (:func:`claimledger.reconcile.tiered`)."""
        keys = [quote_key(k, t.text) for t in self.analysis.targets if t.kind == "quote" for k in t.keys]
        self.ctx.prefetch_quotes(keys)
        verdicts = self.checker.verdicts()
        findings = tiered(v.finding for v in verdicts)
        return [dataclasses.replace(v, finding=f) for v, f in zip(verdicts, findings, strict=True)]

    def close(self) -> None:
        self.run.close()
