"""The Python API. :func:`gate` reads as the pipeline:
load -> checks -> reconcile -> report.
"""

from __future__ import annotations

import dataclasses
import hashlib
import platform
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimledger._config import GateConfig
from claimledger._exceptions import InputError, SourceError
from claimledger._version import __version__
from claimledger.checks.context import RunContext
from claimledger.checks.numeric import check_number
from claimledger.checks.quote import check_quote_text, quote_key, quote_keys
from claimledger.load.ledger import load_ledger
from claimledger.metrics import load_metrics_file
from claimledger.model.claim import AttributionClaim, Claim, DatasetClaim, Ledger, NumberClaim, QuoteClaim
from claimledger.model.finding import Evidence, Finding, Reason, Status
from claimledger.model.report import Report
from claimledger.reconcile import assign_tier, outcome_of

if TYPE_CHECKING:
    from claimledger.judge import Judge
    from claimledger.refs.model import Reference

Progress = Callable[[str, int, int], None]


def _check_claim(claim: Claim, ctx: RunContext) -> list[Finding]:
    """The deterministic checks of one claim (untiered findings)."""
    if isinstance(claim, QuoteClaim):
        literal = check_quote_text(claim.id, claim.source, claim.quote, ctx)
        found: list[Finding] = [literal]
        if claim.statement:
            from claimledger.checks.overclaim import overclaim_findings

            # the overclaim rules compare the draft's sentence with the quote and,
            # when the quote was found, with the source text around it
            context = None
            if literal.status is Status.VERIFIED:
                context = ctx.quote_result(*quote_key(claim.source, claim.quote)).context
            found += overclaim_findings(claim.id, claim.statement, claim.quote, context)
        if literal.status is Status.VERIFIED:
            found += _scope_check(claim, claim.source, claim.quote, ctx)
        if claim.locator and literal.status is Status.VERIFIED and literal.evidence is not None:
            found += _locator(claim.id, claim.locator, claim.source, literal.evidence, ctx)
        return found
    if isinstance(claim, NumberClaim):
        number = check_number(claim, ctx)
        if claim.source is not None and claim.quote is not None and number.status is Status.VERIFIED:
            return [number, *_scope_check(claim, claim.source, claim.quote, ctx)]
        return [number]
    if isinstance(claim, AttributionClaim):
        from claimledger.checks.attribution import attribution_findings

        return attribution_findings(claim, ctx)
    if isinstance(claim, DatasetClaim):
        from claimledger.checks.dataset import check_dataset

        return check_dataset(claim, ctx)
    from claimledger.checks.negative import negative_claim_findings

    return negative_claim_findings(claim.id, claim.statement, claim.search)


def _scope_check(claim: QuoteClaim | NumberClaim, source: str, quote: str, ctx: RunContext) -> list[Finding]:
    """Does the evidence around the found passage answer the question, for the statement's scope?"""
    from claimledger.checks.scope.check import claim_scope_findings

    question = ctx.ledger.question_for(claim.answers)
    return claim_scope_findings(claim.id, source, quote, claim.statement, question, ctx)


def _locator(claim_id: str, locator: str, source_id: str, evidence: Evidence, ctx: RunContext) -> list[Finding]:
    from claimledger.checks.locator import check_locator

    loaded = ctx.source(source_id)
    if isinstance(loaded, SourceError):
        return []
    finding = check_locator(claim_id, locator, loaded.source, evidence)
    return [finding] if finding is not None else []


def _crashed(claim_id: str, check: str, reason: Reason, exc: Exception, what: str) -> Finding:
    finding = Finding(
        claim_id, check, Status.ERROR, reason,
        f"internal error while {what} ({type(exc).__name__}: {exc}); nothing this step would have "
        "checked is verified — please report this",
    )  # fmt: skip
    return assign_tier(finding, None)


def _judge_step(
    claims: list[Claim], ctx: RunContext, judge: Judge, cache: str | Path | None, draft: str | Path | None,
    findings: list[Finding], questions: str = "template",
) -> object:  # fmt: skip
    from claimledger.checks.judged import semantic_findings

    draft_text = Path(draft).read_text("utf-8", errors="replace") if draft is not None else None
    added, meta = semantic_findings(claims, ctx, judge, cache_path=cache, draft=draft_text, questions=questions)
    findings.extend(added)
    _place_by_judge(claims, added, ctx, findings)
    findings.extend(_meaning_unchecked(claims, {f.claim_id for f in added}, "the judge gave no answer"))
    return meta


def _place_by_judge(claims: Sequence[Claim], added: list[Finding], ctx: RunContext, findings: list[Finding]) -> None:
    """An attribution's locator that waited for evidence is checked against the judge's verified quote."""
    from claimledger.checks.attribution import judge_placed

    by_id = {c.id: c for c in claims if isinstance(c, AttributionClaim) and c.locator}
    for f in added:
        claim = by_id.get(f.claim_id)
        if claim is None or f.reason is not Reason.ATTRIBUTION_SUPPORTED or f.evidence is None:
            continue
        loaded = ctx.source(claim.source)
        if isinstance(loaded, SourceError):
            continue
        findings[:] = [x for x in findings if not (x.claim_id == claim.id and x.reason is Reason.LOCATOR_UNCHECKED
                                                   and x.extra.get("awaiting_judge"))]  # fmt: skip
        placed = judge_placed(claim, f.evidence, loaded)
        if placed is not None:
            findings.append(_placed(placed, claim))


def _meaning_unchecked(claims: Sequence[Claim], answered: set[str], why: str | None = None) -> list[Finding]:
    """A MED finding for every attribution whose meaning no judge answered for (never a PASS)."""
    from claimledger.checks.attribution import meaning_unchecked

    out = []
    for claim in claims:
        if isinstance(claim, AttributionClaim) and claim.id not in answered:
            finding = meaning_unchecked(claim)
            if why:
                finding = dataclasses.replace(finding, message=f"{finding.message} ({why})")
            out.append(_placed(finding, claim))
    return out


def _placed(finding: Finding, claim: Claim) -> Finding:
    if finding.location is None and claim.location is not None:
        finding = dataclasses.replace(finding, location=claim.location.model_dump())
    elif finding.location is None and claim.ledger_line is not None:
        finding = dataclasses.replace(finding, location={"file": None, "line": claim.ledger_line, "in": "ledger"})
    return assign_tier(finding, None)


def _summary_step(
    draft: str | Path, fmt: str | None, section: str, ledger: Ledger, ctx: RunContext, judge: Judge,
    cache: str | Path | None, findings: list[Finding],
) -> dict[str, Any]:  # fmt: skip
    from claimledger.checks.summary import summary_findings
    from claimledger.extract.draft import read_draft

    added, meta = summary_findings(read_draft(draft, fmt), section, ledger, ctx, judge, cache_path=cache)
    findings.extend(added)
    return meta


def _summary_scope_step(
    draft: str | Path, fmt: str | None, section: str, ledger: Ledger, ctx: RunContext
) -> list[Finding]:
    from claimledger.checks.scope.summary import summary_scope_findings
    from claimledger.extract.draft import read_draft

    return [assign_tier(f, None) for f in summary_scope_findings(read_draft(draft, fmt), section, ledger, ctx)]


def _claimed(claim: Claim) -> str:
    if isinstance(claim, QuoteClaim):
        return claim.quote
    if isinstance(claim, NumberClaim):
        return str(claim.value)
    if isinstance(claim, AttributionClaim):
        return claim.attributed
    if isinstance(claim, DatasetClaim):
        return claim.statement or f"dataset {claim.dataset}"
    return claim.statement


def _run_claim(claim: Claim, ctx: RunContext) -> list[Finding]:
    try:
        raw = _check_claim(claim, ctx)
    except Exception as exc:  # a crash in one check must not hide the others: fail closed
        raw = [Finding(
            claim.id, "gate", Status.ERROR, Reason.CHECK_CRASHED,
            f"internal error while checking this claim ({type(exc).__name__}: {exc}); "
            "the claim is not verified — please report this",
        )]  # fmt: skip
    out = []
    for finding in raw:
        if finding.claimed is None:
            finding = dataclasses.replace(finding, claimed=_claimed(claim))
        if finding.location is None and claim.location is not None:
            finding = dataclasses.replace(finding, location=claim.location.model_dump())
        elif finding.location is None and claim.ledger_line is not None:
            finding = dataclasses.replace(
                finding, location={"file": None, "line": claim.ledger_line, "in": "ledger"}
            )
        out.append(finding if finding.tier is not None else assign_tier(finding, claim.author_alternative))
    return out


def _reproducibility(
    ledger: Ledger, ctx: RunContext, config: GateConfig, draft: str | Path | None, semantic: object
) -> dict[str, object]:
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
        "draft": _draft_facts(draft),
        "semantic_check": semantic,
    }


def _draft_facts(draft: str | Path | None) -> dict[str, object] | None:
    if draft is None:
        return None
    try:
        sha = hashlib.sha256(Path(draft).read_bytes()).hexdigest()
    except OSError:
        sha = None
    return {"path": str(draft), "sha256": sha}


def _check_draft(
    draft: str | Path,
    ledger: Ledger,
    ctx: RunContext,
    findings: list[Finding],
    allow: Sequence[str],
    section: str | None,
    fmt: str | None,
    drafted: list[AttributionClaim],
    records: Mapping[str, str] | None = None,
) -> int:
    """Add a draft's findings (marks re-verified, unlisted audit, its attributions); returns how many
    it examined. The attributions no ledger claim backs are checked and appended to ``drafted``."""
    from claimledger._drafts import DraftRun, draft_findings
    from claimledger.checks.locator import draft_locator_findings
    from claimledger.checks.marks import DraftChecker
    from claimledger.extract.attributions import covered_by_attributions, draft_attribution_claims
    from claimledger.extract.draft import read_draft
    from claimledger.extract.marks import Analysis

    d = read_draft(draft, fmt)
    known = set(ledger.sources) | set(ledger._reference_keys)
    analysis = Analysis(d, known_keys=known, min_chars=ctx.config.min_quote_chars)
    run = DraftRun(d, ledger, ledger._path, ctx, analysis, DraftChecker(analysis, ctx))
    added = covered_by_attributions(draft_findings(run, allow, section), analysis, ledger)
    added += draft_locator_findings(analysis, ctx)
    findings.extend(added)
    span = d.section(section) if section else None
    for claim in draft_attribution_claims(analysis, ledger):
        if records and claim.source in records:
            claim = claim.model_copy(update={"record": records[claim.source]})
        if span is not None and claim.location is not None:
            line_start = d.prose_index(d.line_starts[claim.location.line - 1])
            if not span[0] <= line_start < span[1]:
                continue
        drafted.append(claim)
        findings.extend(_run_claim(claim, ctx))
    return len(added) + len(drafted)


def _references_step(
    references: Sequence[Reference], config: GateConfig, progress: Progress | None, findings: list[Finding]
) -> None:
    """Every bibliography entry against the services (claim_id = its citation key)."""
    from claimledger.refs import verify_references
    from claimledger.refs.findings import settings_from, verdict_findings

    def tick(done: int, total: int, key: str) -> None:
        if progress:
            progress("checking references", done, total)

    try:
        verdicts = verify_references(references, settings_from(config), tick)
        findings.extend(verdict_findings(verdicts))
    except Exception as exc:  # fail closed: no reference is verified by a crash
        findings.extend(_crashed(r.key, "reference", Reason.CHECK_CRASHED, exc, "checking references")
                        for r in references)  # fmt: skip


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
    judge: Judge | None = None,
    judge_cache: str | Path | None = None,
    summary_section: str | None = None,
    judge_questions: str = "template",
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

    With ``judge`` (see :func:`claimledger.judge.make_judge`) every quote claim
    with a ``statement`` is also put to an independent judge that never sees the
    draft (Chain-of-Verification). A judge can only add findings; it never turns
    a discrepancy into a verified claim. With a judge, a draft and
    ``summary_section``, every sentence of that section must be supported by
    the rest of the draft or the ledger's statements (summary support).
    ``judge_questions="model"`` has the model write each verification question
    in its own fresh request that holds only the claim (seed 003, Phase 2).

    Attribution claims (from the ledger, and with ``draft`` from every cited
    sentence without a quotation) are verified only by a judge: without one each
    is a MED "meaning not checked" finding, so the outcome is at best PARTIAL.
    """
    if summary_section is not None and draft is None:
        raise InputError("a summary section needs a draft")
    if judge_questions not in ("template", "model"):
        raise InputError(f"judge_questions must be 'template' or 'model', not {judge_questions!r}")
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
    from claimledger.refs.findings import ledger_references

    references = ledger_references(parsed, folder, config.bib_files)
    parsed._reference_keys = frozenset(r.key for r in references)
    from claimledger.checks.attribution import record_text, with_records

    records = {r.key: record_text(r.authors, r.title, r.venue, r.year) for r in references}
    ctx = RunContext.create(parsed, folder, config)
    findings: list[Finding] = []
    try:
        total = len(parsed.claims)
        if progress:
            progress("locating quotes", 0, total)
        ctx.prefetch_quotes(quote_keys(parsed.claims))
        for i, claim in enumerate(with_records(parsed.claims, records)):
            if progress:
                progress("checking claims", i, total)
            findings.extend(_run_claim(claim, ctx))
        if progress:
            progress("checking claims", total, total)
        if references:
            _references_step(references, config, progress, findings)
        draft_total = len(references)
        drafted: list[AttributionClaim] = []
        if draft is not None:
            try:
                draft_total += _check_draft(draft, parsed, ctx, findings, allow, section, draft_format, drafted,
                                            records)
            except InputError:
                raise
            except Exception as exc:  # fail closed: the draft's marks and figures are not verified
                findings.append(_crashed("draft", "draft", Reason.CHECK_CRASHED, exc, "checking the draft"))
        semantic: object = "not run (no judge configured): meaning was not checked"
        summary: object = None
        if judge is None:
            findings.extend(_meaning_unchecked([*parsed.claims, *drafted], set()))
        else:
            if progress:
                progress("asking the judge", 0, total)
            try:
                semantic = _judge_step([*parsed.claims, *drafted], ctx, judge, judge_cache, draft, findings,
                                       judge_questions)
            except InputError:
                raise
            except Exception as exc:  # an infrastructure failure: never a pass
                findings.append(_crashed("judge", "semantic", Reason.JUDGE_FAILED, exc, "asking the judge"))
                findings.extend(_meaning_unchecked([*parsed.claims, *drafted], set(), "the judge step crashed"))
                semantic = {"error": f"{type(exc).__name__}: {exc}"}
        if summary_section is not None and draft is not None:
            try:
                findings.extend(_summary_scope_step(draft, draft_format, summary_section, parsed, ctx))
            except InputError:
                raise
            except Exception as exc:  # fail closed: the summary's scope is not verified
                findings.append(_crashed("summary", "summary_scope", Reason.CHECK_CRASHED, exc, "checking the summary's scope"))
        if summary_section is not None:
            summary = "not run: summary support needs a judge (--judge)"
            if judge is not None and draft is not None:
                try:
                    summary = _summary_step(draft, draft_format, summary_section, parsed, ctx, judge, judge_cache, findings)
                except InputError:
                    raise
                except Exception as exc:
                    findings.append(
                        _crashed("summary", "summary_support", Reason.JUDGE_FAILED, exc, "checking the summary")
                    )
                    summary = {"error": f"{type(exc).__name__}: {exc}"}
                draft_total += int(summary.get("sentences", 0)) if isinstance(summary, dict) else 0
        report = Report(
            outcome=outcome_of(findings),
            findings=findings,
            claims_total=len(parsed.claims) + draft_total,
            fail_closed=config.fail_closed,
            reproducibility=_reproducibility(parsed, ctx, config, draft, semantic),
        )
        if summary is not None:
            report.reproducibility["summary_support"] = summary
        if references and config.offline:
            report.notes.append("--offline: no reference was looked up; every entry is LOW 'not checked'")
        if references:
            report.reproducibility["references"] = {
                "entries": len(references), "offline": config.offline, "timeout": config.refs_timeout,
            }  # fmt: skip
    finally:
        ctx.close()
    if not config.fail_closed:
        report.notes.append(
            "--no-fail-closed: HIGH findings are reported as warnings and do not fail the run"
        )
    return report
