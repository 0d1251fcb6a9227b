"""The Python API. :func:`gate` reads as the pipeline:
load -> checks -> reconcile -> report.
"""

from __future__ import annotations

import dataclasses
import platform
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from claimledger._config import GateConfig
from claimledger._version import __version__
from claimledger.checks.context import RunContext
from claimledger.checks.numeric import check_number
from claimledger.checks.quote import check_quote_text, quote_keys
from claimledger.load.ledger import load_ledger
from claimledger.metrics import load_metrics_file
from claimledger.model.claim import Ledger, NumberClaim, QuoteClaim
from claimledger.model.finding import Finding, Reason, Status
from claimledger.model.report import Report
from claimledger.reconcile import assign_tier, outcome_of

Progress = Callable[[str, int, int], None]


def _run_claim(claim: QuoteClaim | NumberClaim, ctx: RunContext) -> Finding:
    try:
        if isinstance(claim, QuoteClaim):
            finding = check_quote_text(claim.id, claim.source, claim.quote, ctx)
        else:
            finding = check_number(claim, ctx)
    except Exception as exc:  # a crash in one check must not hide the others: fail closed
        finding = Finding(
            claim.id, "gate", Status.ERROR, Reason.CHECK_CRASHED,
            f"internal error while checking this claim ({type(exc).__name__}: {exc}); "
            "the claim is not verified — please report this",
        )  # fmt: skip
    if finding.claimed is None:
        finding = dataclasses.replace(finding, claimed=claim.quote if isinstance(claim, QuoteClaim) else str(claim.value))
    if claim.location is not None:
        finding = dataclasses.replace(finding, location=claim.location.model_dump())
    elif claim.ledger_line is not None:
        finding = dataclasses.replace(finding, location={"file": None, "line": claim.ledger_line, "in": "ledger"})
    return assign_tier(finding, claim.author_alternative)


def _reproducibility(ledger: Ledger, ctx: RunContext, config: GateConfig) -> dict[str, object]:
    sources: dict[str, object] = {}
    for sid, facts in ctx.source_facts().items():
        entry: dict[str, object] = {"origin": ctx.ledger.sources[sid], "sha256": facts.sha256}
        if facts.error is not None:
            entry["error"] = facts.error.reason
        else:
            entry["media_type"] = facts.media_type
        sources[sid] = entry
    store = ctx.data_loaded
    datasets = {name: {"origin": o, "sha256": store.sha256.get(name) if store else None}
                for name, o in ledger.datasets.items()}  # fmt: skip
    return {
        "tool": "claimledger",
        "tool_version": __version__,
        "python": platform.python_version(),
        "ledger": {"path": ledger._path, "sha256": ledger._sha256},
        "sources": sources,
        "datasets": datasets,
        "config": {
            "min_quote_chars": config.min_quote_chars,
            "default_tolerance": config.default_tolerance,
            "fail_closed": config.fail_closed,
        },
        "semantic_check": "not run (no judge configured)",
    }


def _check_draft(
    draft: str | Path,
    ledger: Ledger,
    ctx: RunContext,
    findings: list[Finding],
    allow: Sequence[str],
    section: str | None,
    fmt: str | None,
) -> int:
    """Add a draft's findings (marks re-verified, unlisted audit); returns how many it examined."""
    from claimledger._drafts import DraftRun, draft_findings
    from claimledger.checks.marks import DraftChecker
    from claimledger.extract.draft import read_draft
    from claimledger.extract.marks import Analysis

    d = read_draft(draft, fmt)
    analysis = Analysis(d, known_keys=set(ledger.sources), min_chars=ctx.config.min_quote_chars)
    run = DraftRun(d, ledger, ledger._path, ctx, analysis, DraftChecker(analysis, ctx))
    added = draft_findings(run, allow, section)
    findings.extend(added)
    return len(added)


def gate(
    ledger: str | Path | Ledger,
    *,
    config: GateConfig | None = None,
    base_dir: str | Path | None = None,
    progress: Progress | None = None,
    draft: str | Path | None = None,
    sources: Mapping[str, str] | None = None,
    allow: Sequence[str] = (),
    section: str | None = None,
    draft_format: str | None = None,
) -> Report:
    """Check every claim of a ledger and return a typed :class:`Report`.

    ``ledger`` is a path to a YAML/JSON ledger or a parsed :class:`Ledger`.
    Paths in the ledger are relative to its folder (or ``base_dir``). Raises
    :class:`~claimledger.InputError` only for unusable input (malformed ledger,
    missing metrics file); everything else becomes a finding.

    With ``draft`` (a .md, .qmd, .tex or text file) the draft is checked too:
    every mark is re-verified (a writer's [V] the program does not confirm is
    HIGH), its cited quotations are checked, and the unlisted audit flags every
    figure, quotation and citation key no ledger claim backs (``allow``:
    patterns to skip; ``section``: audit only that section). ``sources`` adds
    or overrides source ids (``--source KEY=PATH``).
    """
    config = config or GateConfig()
    for path in config.metrics_files:
        load_metrics_file(path)
    if isinstance(ledger, Ledger):
        parsed = ledger
        folder = Path(base_dir) if base_dir else Path.cwd()
    else:
        parsed = load_ledger(ledger)
        folder = Path(base_dir) if base_dir else Path(ledger).resolve().parent
    if sources:
        merged = parsed.model_copy(update={"sources": {**parsed.sources, **sources}})
        merged._path, merged._sha256 = parsed._path, parsed._sha256
        parsed = merged
    ctx = RunContext.create(parsed, folder, config)
    findings: list[Finding] = []
    try:
        total = len(parsed.claims)
        if progress:
            progress("locating quotes", 0, total)
        ctx.prefetch_quotes(quote_keys(parsed.claims))
        for i, claim in enumerate(parsed.claims):
            if progress:
                progress("checking claims", i, total)
            findings.append(_run_claim(claim, ctx))
        if progress:
            progress("checking claims", total, total)
        draft_total = 0
        if draft is not None:
            draft_total = _check_draft(draft, parsed, ctx, findings, allow, section, draft_format)
        report = Report(
            outcome=outcome_of(findings),
            findings=findings,
            claims_total=len(parsed.claims) + draft_total,
            fail_closed=config.fail_closed,
            reproducibility=_reproducibility(parsed, ctx, config),
        )
    finally:
        ctx.close()
    if not config.fail_closed:
        report.notes.append(
            "--no-fail-closed: HIGH findings are reported as warnings and do not fail the run"
        )
    return report
