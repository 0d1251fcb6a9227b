"""The Python API. :func:`gate` reads as the pipeline:
load -> checks -> reconcile -> report.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimledger._config import GateConfig
from claimledger._exceptions import InputError, SourceError
from claimledger._gcpause import collector_paused
from claimledger.checks.context import RunContext
from claimledger.checks.quote import quote_key, quote_keys
from claimledger.checks.rules_ahead import start_rules_ahead
from claimledger.model.claim import AttributionClaim, Claim, ClaimBase, Ledger
from claimledger.model.finding import Finding, Offered, Reason, Status
from claimledger.model.report import Report
from claimledger.reconcile import outcome_of, replaced, tiered
from claimledger.registry import run_checks
from claimledger.run import DraftRun, Run, draft_facts, error_text, guarded

if TYPE_CHECKING:
    from claimledger.judge import Judge
    from claimledger.refs.model import Reference
    from claimledger.refs.verdicts import Verdict

Progress = Callable[[str, int, int], None]


def _record_sections(ledger: Ledger, draft: str | Path, fmt: str | None) -> None:
    """For `questions:` with `section:`: the draft headings around each located claim, innermost first."""
    from claimledger.extract.draft import read_draft

    d = read_draft(draft, fmt)
    heads = [(d.line_col(h.raw_start)[0], h.level, h.title) for h in d.headings]
    for claim in ledger.claims:
        if claim.location is None:
            continue
        chain: list[str] = []
        level = 10**6
        for line, lvl, title in reversed(heads):
            if line <= claim.location.line and lvl < level:
                chain.append(title)
                level = lvl
        ledger._claim_sections[claim.id] = chain


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
    if ctx.ledger.question is not None or ctx.ledger.questions or any(c.answers is not None for c in ctx.ledger.claims):
        from claimledger.checks.scope.judge import scope_judge_findings

        scoped, scope_meta = scope_judge_findings(ctx.ledger, ctx, judge, cache_path=cache, draft=draft_text)
        findings.extend(scoped)
        meta = {**meta, "scope_questions": scope_meta} if isinstance(meta, dict) else meta
    return meta


def _place_by_judge(claims: Sequence[Claim], added: list[Finding], ctx: RunContext, findings: list[Finding]) -> None:
    """An attribution's locator that waited for evidence is checked against the judge's verified quote."""
    from claimledger.checks.attribution import judge_placed

    by_id = {c.id: c for c in claims if isinstance(c, AttributionClaim) and c.locator}
    for f in added:
        claim = by_id.get(f.claim_id)
        if claim is None or f.reason is not Reason.ATTRIBUTION_SUPPORTED or f.evidence is None:
            continue
        if f.evidence.source != claim.source:  # supported by another cited source: the locator is source's
            continue
        loaded = ctx.source(claim.source)
        if isinstance(loaded, SourceError):
            continue
        findings[:] = [x for x in findings if not (x.claim_id == claim.id and x.reason is Reason.LOCATOR_UNCHECKED
                                                   and x.extra.get("awaiting_judge"))]  # fmt: skip
        placed = judge_placed(claim, f.evidence, loaded)
        if placed is not None:
            findings.append(_placed(placed, claim))


def _by_source(
    claims: list[Claim], sources: Mapping[str, str], ctx: RunContext, progress: Progress | None
) -> list[Finding]:
    """The findings of every claim, in ledger order, the claims run grouped by the source they cite.

    A check that needs a whole source (an elided quote's segments, a found quote's passage for the
    scope check, a locator) reads it from the run's sources, which keep two in memory: claims that
    alternate between sources loaded one back from the index cache for almost every claim. The
    checks of one claim depend on nothing another claim's checks do, so the order they run in
    changes only the time."""
    # the sources the scan read last are still in memory: their claims first
    rank: dict[str | None, int] = {sid: i for i, sid in enumerate(reversed(list(sources)))}
    order = sorted(range(len(claims)), key=lambda i: rank.get(_cited_source(claims[i]), -1))
    per: list[list[Finding]] = [[] for _ in claims]
    for k, i in enumerate(order):
        if progress:
            progress("checking claims", k, len(claims))
        per[i] = _run_claim(claims[i], ctx)
    return [f for found in per for f in found]


def _cited_source(claim: Claim) -> str | None:
    source = getattr(claim, "source", None)
    return source if isinstance(source, str) else None


def _meaning_unchecked(claims: Sequence[Claim], answered: set[str], why: str | None = None) -> list[Finding]:
    """A MED finding for every attribution whose meaning no judge answered for (never a PASS)."""
    out = []
    for claim in claims:
        if isinstance(claim, AttributionClaim) and claim.id not in answered:
            from claimledger.checks.attribution import meaning_unchecked  # only with an attribution to check
            finding = meaning_unchecked(claim)
            if why:
                finding = dataclasses.replace(finding, message=f"{finding.message} ({why})")
            out.append(_placed(finding, claim))
    return out


def _references(ledger: Ledger, folder: Path, config: GateConfig) -> list[Reference]:
    """The run's bibliography (:func:`claimledger.refs.findings.ledger_references`); a ledger with no
    ``references:``, ``bibliography:``, ``--bib`` file or claim of kind ``reference`` has none, and
    its run does not import the references machinery (~50 ms)."""
    if not (ledger.references or ledger.bibliography_files() or config.bib_files
            or any(getattr(c, "kind", None) == "reference" for c in ledger.claims)):  # fmt: skip
        return []
    from claimledger.refs.findings import ledger_references

    return ledger_references(ledger, folder, config.bib_files)


def _placed(finding: Finding, claim: Claim) -> Finding:
    if finding.location is None and claim.location is not None:
        finding = dataclasses.replace(finding, location=claim.location.model_dump())
    elif finding.location is None and claim.ledger_line is not None:
        finding = dataclasses.replace(finding, location={"file": None, "line": claim.ledger_line, "in": "ledger"})
    return finding


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

    return summary_scope_findings(read_draft(draft, fmt), section, ledger, ctx)


def _run_claim(claim: ClaimBase, ctx: RunContext) -> list[Finding]:
    try:
        raw = run_checks(claim, ctx)
    except Exception as exc:  # a crash in one check must not hide the others: fail closed
        raw = [Finding(
            claim.id, "gate", Status.ERROR, Reason.CHECK_CRASHED,
            f"internal error while checking this claim ({error_text(exc)}); "
            "the claim is not verified — please report this",
        )]  # fmt: skip
    out = []
    line = claim.ledger_line if claim.location is None else None  # read once (a pydantic private attribute)
    offered: Offered | None = None  # frozen: one for all of the claim's findings
    for finding in raw:  # what the claim adds to each finding, in one copy
        changes: dict[str, Any] = {}
        if finding.claimed is None:
            changes["claimed"] = claim.claimed()
        if finding.location is None and claim.location is not None:
            changes["location"] = claim.location.model_dump()
        elif finding.location is None and line is not None:
            changes["location"] = {"file": None, "line": line, "in": "ledger"}
        # what the author offers can only explain a finding that is not verified (a verified one is
        # never tiered: reconcile.tiered keeps it as it is, with no copy)
        if finding.tier is None and finding.offered is None and finding.status is not Status.VERIFIED:
            offered = offered or Offered(claim.author_alternative)
            changes["offered"] = offered
        out.append(replaced(finding, changes) if changes else finding)
    return out


def _check_draft(
    run: Run,
    draft: str | Path,
    findings: list[Finding],
    allow: Sequence[str],
    section: str | None,
    fmt: str | None,
    drafted: list[AttributionClaim],
    records: Mapping[str, str] | None = None,
) -> int:
    """Add a draft's findings (marks re-verified, unlisted audit, its attributions); returns how many
    it examined. The attributions no ledger claim backs are checked and appended to ``drafted``."""
    from claimledger._drafts import draft_findings
    from claimledger.checks.locator import draft_locator_findings
    from claimledger.extract.attributions import covered_by_attributions, draft_attribution_claims
    from claimledger.extract.draft import read_draft

    d = read_draft(draft, fmt)
    ledger = run.ledger
    drun = DraftRun.within(run, d)
    added = covered_by_attributions(draft_findings(drun, allow, section), drun.analysis, ledger)
    added += draft_locator_findings(drun.analysis, run.ctx)
    findings.extend(added)
    span = d.section(section) if section else None
    from claimledger.checks.attribution import cited_record

    for claim in draft_attribution_claims(drun.analysis, ledger):
        record = cited_record(claim, records or {})
        if record:
            claim = claim.model_copy(update={"record": record})
        if span is not None and claim.location is not None:
            line_start = d.prose_index(d.line_starts[claim.location.line - 1])
            if not span[0] <= line_start < span[1]:
                continue
        drafted.append(claim)
        findings.extend(_run_claim(claim, run.ctx))
    return len(added) + len(drafted)


def _fetch_sources(
    run: Run, verdicts: list[Verdict] | Exception, draft: str | Path | None, fmt: str | None
) -> tuple[Run, dict[str, str], dict[str, str]]:
    """``--fetch-sources``: the run with every verified entry's PDF as the source of the quotes citing it
    (in the ledger's claims or the draft's citations)."""
    if isinstance(verdicts, Exception):
        return run, {}, {}
    from claimledger.refs.sources import inferred_sources

    draft_keys: set[str] = set()
    if draft is not None:
        from claimledger.extract.citations import find_citations
        from claimledger.extract.draft import read_draft

        d = read_draft(draft, fmt)
        draft_keys = {k for c in find_citations(d.prose, d.fmt, run.ledger._reference_keys) for k in c.keys}
        if d.fmt != "latex":  # [n]: the n-th bibliography entry
            from claimledger.extract.attributions import ledger_numbering
            from claimledger.extract.citations import numeric_citations

            draft_keys |= {k for c in numeric_citations(d.prose, ledger_numbering(run.ledger)) for k in c.keys}
    inferred = inferred_sources(run.ledger, verdicts, run.config, draft_keys)
    if inferred.sources:
        run = run.with_sources(inferred.sources)
    return run, inferred.sources, inferred.skipped


@collector_paused()
def gate(
    ledger: str | Path | Ledger,
    *,
    config: GateConfig | None = None,
    base_dir: str | Path | None = None,
    progress: Progress | None = None,
    draft: str | Path | None = None,
    sources: Mapping[str, str] | None = None,
    datasets: Mapping[str, str] | None = None,
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
    or overrides source ids (``--source KEY=PATH``), ``datasets`` dataset names.

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
    run = Run.open(ledger, sources=sources, datasets=datasets, config=config, base_dir=base_dir)
    parsed, ctx, config = run.ledger, run.ctx, run.config
    references = _references(parsed, run.folder, config)
    parsed._reference_keys = frozenset(r.key for r in references)
    parsed._reference_order = tuple(r.key for r in references)
    entries: list[ClaimBase] = []
    if references:
        from claimledger.refs.kind import ReferenceClaim, install, verify

        listed = {c.id for c in parsed.claims if isinstance(c, ReferenceClaim)}  # `kind: reference` claims
        entries = [ReferenceClaim.of(r) for r in references if r.key not in listed]  # the bibliography's
    verdicts: list[Verdict] | Exception | None = None
    inferred: dict[str, str] = {}
    skipped: dict[str, str] = {}
    if references and config.fetch_sources:  # verdicts first: only a verified entry may lend its PDF
        verdicts = verify(references, ctx, progress)
        run, inferred, skipped = _fetch_sources(run, verdicts, draft, draft_format)
        parsed, ctx = run.ledger, run.ctx
    records: dict[str, str] = {}
    ledger_claims = list(parsed.claims)
    if references:  # the attribution module (names, mentions, retrieval) only for a bibliography's records
        from claimledger.checks.attribution import record_text, with_records

        records = {r.key: record_text(r.authors, r.title, r.venue, r.year) for r in references}
        ledger_claims = with_records(ledger_claims, records)
    if draft is not None and any(q.section for q in parsed.questions.values()):
        _record_sections(parsed, draft, draft_format)
    findings: list[Finding] = []
    with run:
        if references:  # every entry at once, concurrently; each reference claim's check reads its verdict
            install(ctx, verdicts if verdicts is not None else verify(references, ctx, progress))
        total = len(parsed.claims)
        # the overclaim rules of the found quotes run in a helper process meanwhile (where it pays;
        # forked before a progress bar may start its drawing thread)
        ahead = start_rules_ahead(ctx, parsed.claims, lambda source, quote: quote_key(source, quote, ctx))
        if progress:
            progress("locating quotes", 0, total)
        ctx.prefetch_quotes(quote_keys(parsed.claims, ctx), on_found=ahead.feed if ahead is not None else None)
        findings.extend(_by_source(ledger_claims, parsed.sources, ctx, progress))
        if progress:
            progress("checking claims", total, total)
        for entry in entries:  # the bibliography's entries, claims of kind `reference`
            findings.extend(_run_claim(entry, ctx))
        draft_total = len(entries)
        drafted: list[AttributionClaim] = []
        if draft is not None:
            examined, _ = guarded(
                findings,
                lambda: _check_draft(run, draft, findings, allow, section, draft_format, drafted, records),
                claim_id="draft", check="draft", what="checking the draft",
            )  # fmt: skip
            draft_total += examined or 0
        semantic: object = "not run (no judge configured): meaning was not checked"
        summary: object = None
        claims: list[Any] = [*parsed.claims, *drafted]
        if judge is None:
            findings.extend(_meaning_unchecked(claims, set()))
        else:
            if progress:
                progress("asking the judge", 0, total)
            meta, failed = guarded(
                findings, lambda: _judge_step(claims, ctx, judge, judge_cache, draft, findings, judge_questions),
                claim_id="judge", check="semantic", what="asking the judge", reason=Reason.JUDGE_FAILED,
            )  # fmt: skip
            if failed is not None:
                findings.extend(_meaning_unchecked(claims, set(), "the judge step crashed"))
            semantic = {"error": error_text(failed)} if failed is not None else meta
        if summary_section is not None and draft is not None:
            scoped, _ = guarded(
                findings, lambda: _summary_scope_step(draft, draft_format, summary_section, parsed, ctx),
                claim_id="summary", check="summary_scope", what="checking the summary's scope",
            )  # fmt: skip
            findings.extend(scoped or [])
        if summary_section is not None:
            summary = "not run: summary support needs a judge (--judge)"
            if judge is not None and draft is not None:
                meta, failed = guarded(
                    findings,
                    lambda: _summary_step(draft, draft_format, summary_section, parsed, ctx, judge, judge_cache, findings),
                    claim_id="summary", check="summary_support", what="checking the summary",
                    reason=Reason.JUDGE_FAILED,
                )  # fmt: skip
                summary = {"error": error_text(failed)} if failed is not None else meta
                draft_total += int(summary.get("sentences", 0)) if isinstance(summary, dict) else 0
        refs: dict[str, object] | None = None
        if references:
            refs = {"entries": len(references), "offline": config.offline, "timeout": config.refs_timeout}
            if config.fetch_sources:
                refs["fetch_sources"] = dict(sorted(inferred.items()))
        repro = run.reproducibility(
            draft_facts(draft), semantic_check=semantic, summary_support=summary, references=refs
        )
        findings = tiered(findings)  # reconcile: the one place tiers are assigned
        report = Report(
            outcome=outcome_of(findings),
            findings=findings,
            claims_total=len(parsed.claims) + draft_total,
            fail_closed=config.fail_closed,
            reproducibility=repro.to_dict(),
        )
        if references and config.offline:
            from claimledger.refs.findings import OFFLINE_NOTE

            report.notes.append(OFFLINE_NOTE)
        if config.fetch_sources and (inferred or skipped):
            lent = [f"{k} <- {u}" for k, u in sorted(inferred.items())]
            report.notes.append("--fetch-sources: " + "; ".join(lent + [f"{k}: {why}" for k, why in sorted(skipped.items())]))
    if not config.fail_closed:
        report.notes.append(
            "--no-fail-closed: HIGH findings are reported as warnings and do not fail the run"
        )
    return report
