"""Run benchmark cases through the real gate (:func:`claimledger.gate`), one ledger per group."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from claimledger._api import gate
from claimledger._config import GateConfig
from claimledger.model.claim import Ledger, NumberClaim, QuoteClaim
from claimledger.model.finding import Finding, Status
from evaluation.numbers_bench import GROUP_SIZE as NUMBER_GROUP
from evaluation.numbers_bench import NumberBench, write_csv
from evaluation.quote_bench import QuoteBench, QuoteCase, write_sources
from evaluation.scoring import Outcome

Progress = Callable[[str], None]


def config_for(workdir: Path) -> GateConfig:
    """No network, the index cache inside the work folder (never the user's cache)."""
    return GateConfig(cache_dir=workdir / "cache", index_cache=True)


def run_quote_bench(bench: QuoteBench, workdir: Path, progress: Progress | None = None) -> list[Outcome]:
    outcomes: list[Outcome] = []
    cases_by_doc: dict[str, list[QuoteCase]] = {}
    for case in bench.cases:
        cases_by_doc.setdefault(case.doc_id, []).append(case)
    config = config_for(workdir)
    for gi, group in enumerate(bench.groups):
        folder = workdir / f"quotes-{gi:03d}"
        sources = write_sources(bench, group, folder)
        cases = [c for doc_id in group for c in cases_by_doc.get(doc_id, [])]
        claims = [
            QuoteClaim(kind="quote", id=f"Q{i}", source=c.cite, quote=c.quote) for i, c in enumerate(cases)
        ]
        report = gate(Ledger(version=1, sources=sources, claims=claims), config=config, base_dir=folder)
        findings: dict[str, Finding] = {}
        for f in report.findings:  # the claim's own check comes first; overclaim findings follow
            findings.setdefault(f.claim_id, f)
        for i, case in enumerate(cases):
            f = findings[f"Q{i}"]
            outcomes.append(
                Outcome(
                    "literal_quote", case.lang, case.family, case.case_id, case.must_verify,
                    f.status is Status.VERIFIED, f.reason.value, case.expect_reason,
                    "" if case.share_alike else case.quote,
                )
            )  # fmt: skip
        if progress:
            progress(f"literal quote: group {gi + 1}/{len(bench.groups)} ({len(outcomes)} cases)")
    return outcomes


def run_number_bench(bench: NumberBench, workdir: Path, progress: Progress | None = None) -> list[Outcome]:
    outcomes: list[Outcome] = []
    config = config_for(workdir)
    names = {f"t{i}": t for i, t in enumerate(bench.tables)}
    ordered = sorted(names, key=lambda n: int(n[1:]))
    for gi in range(0, len(ordered), NUMBER_GROUP):
        group = ordered[gi : gi + NUMBER_GROUP]
        folder = workdir / f"numbers-{gi // NUMBER_GROUP:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for name in group:
            write_csv(names[name], folder / f"{name}.csv")
        wanted = set(group)
        cases = [c for c in bench.cases if c.table in wanted]
        claims = [
            NumberClaim(kind="number", id=f"N{i}", sql=c.sql, value=c.value, tolerance=c.tolerance)
            for i, c in enumerate(cases)
        ]
        ledger = Ledger(version=1, datasets={n: f"{n}.csv" for n in group}, claims=claims)
        report = gate(ledger, config=config, base_dir=folder)
        findings: dict[str, Finding] = {}
        for f in report.findings:  # the claim's own check comes first; overclaim findings follow
            findings.setdefault(f.claim_id, f)
        for i, case in enumerate(cases):
            f = findings[f"N{i}"]
            detail = f"claimed {case.value!r} (tolerance {case.tolerance}), true {case.truth!r}, {case.sql}"
            outcomes.append(
                Outcome(
                    "numeric_recompute", "en", case.family, case.case_id, case.must_verify,
                    f.status is Status.VERIFIED, f.reason.value, None, detail,
                )
            )  # fmt: skip
        if progress:
            progress(f"numeric recompute: {min(gi + NUMBER_GROUP, len(ordered))}/{len(ordered)} tables")
    return outcomes
