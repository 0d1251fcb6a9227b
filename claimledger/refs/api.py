"""Checking a bibliography on its own (``claimledger refs``, MCP ``verify_references``, HTTP ``/v1/references``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from claimledger._config import DEFAULT_REFS_TIMEOUT
from claimledger._version import __version__
from claimledger.model.report import Report
from claimledger.reconcile import outcome_of, tiered
from claimledger.refs.model import Reference


def check_references(
    references: Sequence[Reference],
    *,
    offline: bool = False,
    timeout: float = DEFAULT_REFS_TIMEOUT,
    allow_private_urls: bool = False,
    cache_dir: Path | None = None,
    refresh: bool = False,
    fail_closed: bool = True,
    progress: Callable[[str, int, int], None] | None = None,
    sources: Mapping[str, Any] | None = None,
) -> Report:
    """A report with one finding per reference (claim_id = its key)."""
    from claimledger.load.fetch import default_cache_dir
    from claimledger.refs import RefSettings, verify_references
    from claimledger.refs.findings import OFFLINE_NOTE, verdict_findings

    settings = RefSettings(
        offline=offline, timeout=timeout, allow_private_urls=allow_private_urls,
        cache_dir=cache_dir or default_cache_dir(), refresh=refresh,
    )  # fmt: skip

    def tick(done: int, total: int, key: str) -> None:
        if progress is not None:
            progress("checking references", done, total)

    findings = tiered(verdict_findings(verify_references(references, settings, tick)))
    report = Report(
        outcome=outcome_of(findings), findings=findings, claims_total=len(references), fail_closed=fail_closed,
        reproducibility={"tool": "claimledger", "tool_version": __version__,
                         "references": {"entries": len(references), "offline": offline, "timeout": timeout,
                                        **({"files": dict(sources)} if sources else {})}},
    )  # fmt: skip
    if offline and references:
        report.notes.append(OFFLINE_NOTE)
    if not fail_closed:
        report.notes.append("--no-fail-closed: HIGH findings are reported as warnings and do not fail the run")
    return report


def check_bibliography(paths: Sequence[Path], **kw: Any) -> Report:
    """Read ``.bib``/CSL-JSON files (an :class:`InputError` when unusable) and check every entry."""
    import hashlib

    from claimledger._exceptions import InputError
    from claimledger.refs.bib import read_bibliography

    refs: list[Reference] = []
    files: dict[str, str] = {}
    seen: dict[str, str] = {}
    for path in paths:
        for ref in read_bibliography(path):
            if ref.key in seen:
                raise InputError(f"{ref.origin}: citation key {ref.key!r} is also defined at {seen[ref.key]}")
            seen[ref.key] = ref.origin
            refs.append(ref)
        files[str(path)] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return check_references(refs, sources=files, **kw)
