"""The human report, in the shape of seed 003's example."""

from __future__ import annotations

from claimledger.model.finding import Finding, Status, Tier
from claimledger.model.report import Outcome, Report
from claimledger.numbers import format_number
from claimledger.operating_points import summary_lines

_OUTCOME_TEXT = {
    Outcome.PASS: "PASS — every claim verified",
    Outcome.PARTIAL: "PARTIAL — no HIGH findings, but some claims could not be checked (MED)",
    Outcome.FAIL: "FAIL — not verified while HIGH findings remain",
    Outcome.NO_CLAIMS: "NO_CLAIMS — no verifiable factual claims; nothing was verified",
}
_SECTIONS = [
    (Tier.HIGH, "Discrepancies (HIGH)"),
    (Tier.MED, "Could not check now (MED)"),
    (Tier.LOW, "Unverifiable (LOW)"),
    (Tier.EXPLAINED, "Explained by the author (EXPLAINED)"),
]


def _cell(text: str | None, limit: int = 90) -> str:
    if not text:
        return ""
    one = " ".join(text.replace("\ufffe", "-").split()).replace("|", "\\|")
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _where(f: Finding) -> str:
    ev = f.evidence
    if ev is None:
        return ""
    return f"{ev.source} {ev.where()}"


def _finding_block(f: Finding) -> list[str]:
    loc = ""
    if f.location and f.location.get("line"):
        place = "ledger" if f.location.get("in") == "ledger" else (f.location.get("file") or "draft")
        loc = f" ({place} line {f.location['line']})"
    lines = [f"- **{f.claim_id}**{loc} `{f.reason.value}` — {f.message}"]
    if f.claimed and f.reason.value.startswith("quote"):
        lines.append(f"  - claimed: “{_cell(f.claimed, 200)}”")
    if f.nearest is not None:
        page = f" p. {f.nearest.page}" if f.nearest.page else ""
        lines.append(f"  - nearest passage ({f.nearest.source}{page}): “{_cell(f.nearest.text, 200)}”")
    if f.diff:
        lines.append(f"  - diff (`[-quote-]{{+source+}}`): {_cell(f.diff, 240)}")
    if f.evidence is not None and f.status is not Status.VERIFIED:
        lines.append(f"  - evidence ({_where(f)}): “{_cell(f.evidence.text, 200)}”")
    return lines


def render_markdown(report: Report, title: str = "claimledger verification report") -> str:
    counts = report.counts
    verified = counts["verified"]
    out = [f"## {title}", ""]
    ledger_path = report.reproducibility.get("ledger", {})
    if isinstance(ledger_path, dict) and ledger_path.get("path"):
        out.append(f"**Ledger:** `{ledger_path['path']}`  ")
    out.append(f"**Claims checked:** {report.claims_total}  ")
    tally = ", ".join(
        [f"{verified} verified"] + [f"{counts[t.value]} {t.value}" for t in Tier if counts[t.value]]
    )
    if not report.findings and report.claims_total and report.outcome is Outcome.PASS:
        # the unlisted audit reports nothing when all is backed: "(0 verified)" would read as a failure
        tally = f"{report.claims_total} figures and quotations checked, all backed"
    out.append(f"**Outcome:** {_OUTCOME_TEXT[report.outcome]} ({tally})")
    if not report.fail_closed:
        out.append("")
        out.append("> **Warning:** run with `--no-fail-closed`: HIGH findings below are reported as "
                   "warnings and did not fail the run. They are still HIGH.")  # fmt: skip
    for note in report.notes:
        if "--no-fail-closed" not in note:
            out += ["", f"> {note}"]
    for tier, heading in _SECTIONS:
        group = [f for f in report.findings if f.tier is tier]
        if group:
            out += ["", f"### {heading}", ""]
            for f in group:
                out += _finding_block(f)
    verified_findings = [f for f in report.findings if f.status is Status.VERIFIED]
    if verified_findings:
        out += ["", "### Verified", "", "| ID | Claim | Evidence |", "|----|-------|----------|"]
        for f in verified_findings:
            evidence = _where(f)
            if f.expected is not None:
                evidence = (evidence + "; " if evidence else "") + f"recomputed {format_number(f.expected)}"
            out.append(f"| {f.claim_id} | {_cell(f.claimed)} | {evidence} |")
    points = summary_lines(report.operating_points)
    if points:
        out += ["", "### Operating points", ""]
        out.append(f"Measured on benchmark {report.operating_points.get('benchmark_version')} (docs/accuracy.md):")
        out += points
    repro = report.reproducibility
    out += ["", "### Reproducibility", ""]
    out.append(f"- claimledger {repro.get('tool_version', '?')}; semantic check: {repro.get('semantic_check', '-')}")
    sources = repro.get("sources", {})
    if isinstance(sources, dict):
        for sid, info in sources.items():
            sha = info.get("sha256") if isinstance(info, dict) else None
            out.append(f"- source `{sid}`: sha256 {sha or 'not loaded'}")
    datasets = repro.get("datasets", {})
    if isinstance(datasets, dict):
        for name, info in datasets.items():
            sha = info.get("sha256") if isinstance(info, dict) else None
            out.append(f"- dataset `{name}`: sha256 {sha or 'not loaded'}")
    return "\n".join(out) + "\n"
