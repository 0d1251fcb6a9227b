"""The draft-level API: :func:`mark`, :func:`lint`, :func:`audit`, :func:`extract_ledger`,
:func:`verify_receipt`, and the draft findings that :func:`claimledger.gate` merges.

Every mark in a draft is computed here, never read: the writer's [V] is
discarded and replaced by the program's verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimledger._config import GateConfig
from claimledger._exceptions import InputError
from claimledger.checks.marks import Verdict, mark_not_verified
from claimledger.checks.unlisted import Auditor, compile_allow
from claimledger.extract.draft import Draft, parse_draft, read_draft
from claimledger.extract.ledger_out import render_ledger
from claimledger.extract.marks import Analysis
from claimledger.model.claim import Ledger
from claimledger.model.finding import Finding, Reason
from claimledger.model.report import Outcome, Report
from claimledger.reconcile import outcome_of, tiered
from claimledger.run import DraftRun, LedgerArg, draft_facts, read_ledger

__all__ = [
    "DraftRun",
    "LintProblem",
    "LintResult",
    "MarkResult",
    "apply_marks",
    "audit",
    "audit_findings",
    "draft_findings",
    "drafted_ledger",
    "extract_ledger",
    "lint",
    "lint_problems",
    "mark",
    "parse_source_pairs",
    "program_marks",
]


def parse_source_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """``KEY=PATH`` pairs (``--source``) to a mapping; paths made absolute from the current folder."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, path = pair.partition("=")
        if not sep or not key.strip() or not path.strip():
            raise InputError(f"--source {pair!r}: expected KEY=PATH (e.g. smith2019=sources/smith2019.pdf)")
        path = path.strip()
        out[key.strip()] = path if path.lower().startswith(("http://", "https://")) else str(Path(path).resolve())
    return out


def apply_marks(draft: Draft, verdicts: Sequence[Verdict]) -> str:
    """The draft's raw text with each verdict's mark written (replaced or inserted); nothing else changes."""
    text = draft.text
    edits: list[tuple[int, int, str]] = []
    for v in verdicts:
        new = f"[{v.letter}]"
        if v.target.mark is not None:
            a, b = draft.raw_pos(v.target.mark.start), draft.raw_end(v.target.mark.end)
            if text[a:b] in ("[V]", "[D]"):
                edits.append((a, b, new))
        else:
            at = draft.raw_end(v.target.end)
            edits.append((at, at, new))
    parts: list[str] = []
    pos = 0
    for a, b, new in sorted(edits):
        if a < pos:
            continue
        parts += [text[pos:a], new]
        pos = b
    parts.append(text[pos:])
    return "".join(parts)


@dataclass
class MarkResult:
    """The marked text, each verdict, and a report of the findings behind the marks."""

    text: str
    original: str
    verdicts: list[Verdict]
    report: Report

    @property
    def changed(self) -> bool:
        return self.text != self.original

    @property
    def counts(self) -> dict[str, int]:
        out = {"V": 0, "D": 0, "changed": 0}
        for v in self.verdicts:
            out[v.letter] += 1
            if v.writer_letter != v.letter:
                out["changed"] += 1
        return out


def _report(findings: list[Finding], claims: int, run: DraftRun) -> Report:
    facts = {**(draft_facts(run.draft.path) or {}), "format": run.draft.fmt}
    repro = run.run.reproducibility(facts, semantic_check="not run (marks are literal)")
    findings = tiered(findings)  # reconcile: the one place tiers are assigned
    return Report(outcome_of(findings), findings, claims, run.ctx.config.fail_closed, repro.to_dict())


def mark(
    draft: str | Path | Draft,
    *,
    ledger: LedgerArg = None,
    sources: Mapping[str, str] | None = None,
    config: GateConfig | None = None,
    fmt: str | None = None,
    datasets: Mapping[str, str] | None = None,
) -> MarkResult:
    """Recompute every mark of a draft: [V] only where the program verifies, [D] otherwise."""
    run = DraftRun.open(draft, ledger, sources, config, fmt, datasets)
    try:
        verdicts = run.verdicts()
        findings = [v.finding for v in verdicts]
        report = _report(findings, len(verdicts), run)
    finally:
        run.close()
    return MarkResult(apply_marks(run.draft, verdicts), run.draft.text, verdicts, report)


@dataclass(frozen=True)
class LintProblem:
    file: str
    line: int
    column: int
    reason: Reason
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message} [{self.reason.value}]"


@dataclass
class LintResult:
    problems: list[LintProblem]
    verdicts: list[Verdict]

    @property
    def ok(self) -> bool:
        return not self.problems


def lint_problems(verdicts: Sequence[Verdict], file: str) -> list[LintProblem]:
    out: list[LintProblem] = []
    for v in verdicts:
        t = v.target
        if t.mark is None:
            if t.kind == "quote":
                keys = ", ".join(t.keys)
                out.append(LintProblem(file, v.line, v.column, Reason.MARK_MISSING,
                                       f"quotation cited to {keys} has no mark; run `claimledger mark`"))  # fmt: skip
            continue
        if t.mark.letter == "V" and v.letter != "V":
            line, col = v.line, v.column
            f = v.finding
            what = "mark [V] marks nothing" if t.kind == "orphan" else f"[V] does not re-verify ({f.reason.value})"
            out.append(LintProblem(file, line, col, Reason.MARK_NOT_VERIFIED if t.kind != "orphan"
                                   else Reason.MARK_ORPHAN, f"{what}: {f.message}"))  # fmt: skip
    return out


def lint(
    draft: str | Path | Draft,
    *,
    ledger: LedgerArg = None,
    sources: Mapping[str, str] | None = None,
    config: GateConfig | None = None,
    fmt: str | None = None,
    datasets: Mapping[str, str] | None = None,
) -> LintResult:
    """Problems that make a draft's marks dishonest: a [V] that does not re-verify, an unmarked cited quote."""
    run = DraftRun.open(draft, ledger, sources, config, fmt, datasets)
    try:
        verdicts = [v for v in run.verdicts() if v.target.mark is not None or v.target.kind == "quote"]
    finally:
        run.close()
    return LintResult(lint_problems(verdicts, run.draft.path or "<draft>"), verdicts)


def audit(
    draft: str | Path | Draft,
    *,
    ledger: LedgerArg,
    allow: Sequence[str] = (),
    section: str | None = None,
    config: GateConfig | None = None,
    fmt: str | None = None,
    sources: Mapping[str, str] | None = None,
    datasets: Mapping[str, str] | None = None,
) -> Report:
    """The unlisted audit alone: figures, quotations and citation keys no ledger claim backs."""
    run = DraftRun.open(draft, ledger, sources, config, fmt, datasets)
    try:
        findings = audit_findings(run, allow, section)
        report = _report(findings, len(run.analysis.mentions) + len(run.analysis.quotations), run)
    finally:
        run.close()
    if not findings:
        report.outcome = Outcome.PASS
        report.notes.append("unlisted audit: every figure, quotation and citation key is backed by the ledger")
    return report


def audit_findings(run: DraftRun, allow: Sequence[str], section: str | None) -> list[Finding]:
    span = None
    if section:
        span = run.draft.section(section)
        if span is None:
            names = ", ".join(repr(h.title) for h in run.draft.headings) or "none"
            raise InputError(f"section {section!r} not found in {run.draft.path} (headings: {names})")
    return Auditor(run.analysis, run.ledger).run(compile_allow(allow), span)


def draft_findings(run: DraftRun, allow: Sequence[str] = (), section: str | None = None) -> list[Finding]:
    """What ``check DRAFT`` adds to the ledger's findings: mark re-verification and the audit.

    A draft claim backed by a ledger claim is reported by that claim; only a
    writer's [V] it does not confirm is added. Other draft claims report their
    own check. An orphan [V] is a finding; an orphan [D] is harmless.
    """
    findings: list[Finding] = []
    own: set[tuple[int, int]] = set()
    for v in run.verdicts():
        t = v.target
        if t.kind == "orphan" and v.writer_letter != "V":
            continue
        if v.writer_letter == "V" and v.letter != "V":
            findings.append(mark_not_verified(v))
        elif v.backing is None:
            findings.append(v.finding)
        own.add((v.line, v.column))
    for f in audit_findings(run, allow, section):
        loc = f.location or {}
        if f.reason is Reason.UNLISTED_NUMBER and (loc.get("line"), loc.get("column")) in own:
            continue
        findings.append(f)
    return findings


def extract_ledger(
    draft: str | Path | Draft,
    *,
    ledger: LedgerArg = None,
    sources: Mapping[str, str] | None = None,
    min_quote_chars: int = 8,
    fmt: str | None = None,
) -> str:
    """The YAML ledger implied by a draft's quotations, citations and figures."""
    parsed, _folder, _path = read_ledger(ledger)
    d = draft if isinstance(draft, Draft) else read_draft(draft, fmt)
    from claimledger.extract.attributions import numbering_of

    merged = {**parsed.sources, **dict(sources or {})}
    analysis = Analysis(
        d, known_keys=set(merged), min_chars=min_quote_chars, numbering=numbering_of(merged, parsed._reference_order)
    )
    return render_ledger(analysis, merged, dict(parsed.datasets))


def drafted_ledger(
    draft: str | Path,
    sources: Mapping[str, str] | None,
    *,
    min_quote_chars: int = 8,
    fmt: str | None = None,
) -> Ledger:
    """The ledger ``extract`` would write for a draft, parsed: what ``check`` and ``audit`` use when
    no ledger is given but sources are (``--source KEY=PATH``). Figures get a placeholder metric,
    so they fail closed (metric_unknown) until a real ledger backs them."""
    from claimledger.load.ledger import parse_ledger

    if not sources:
        raise InputError(
            "no ledger: give --ledger LEDGER, or the sources the draft cites with --source KEY=PATH "
            "(the claims are then drafted from the draft, as `claimledger extract` does)"
        )
    text = extract_ledger(draft, sources=sources, min_quote_chars=min_quote_chars, fmt=fmt)
    return parse_ledger(text, f"<claims drafted from {draft}>")


def program_marks(text: str, fmt: str, path: str | None = None) -> list[dict[str, Any]]:
    """Every mark in a draft text: line, column, letter, and the kind of thing it marks."""
    analysis = Analysis(parse_draft(text, fmt, path))
    out: list[dict[str, Any]] = []
    for t in analysis.targets:
        if t.mark is None:
            continue
        line, col = analysis.draft.where(t.mark.start)
        out.append({"line": line, "column": col, "mark": t.mark.letter, "kind": t.kind, "text": t.text})
    return out

