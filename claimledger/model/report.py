"""The report envelope shared by every output format and surface."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from claimledger.model.finding import Finding, Status, Tier
from claimledger.operating_points import cite

SCHEMA_VERSION = "1.0"


class Outcome(StrEnum):
    PASS = "PASS"
    PARTIAL = "PARTIAL"
    FAIL = "FAIL"
    NO_CLAIMS = "NO_CLAIMS"


EXIT_CODES: dict[Outcome, int] = {
    Outcome.PASS: 0,
    Outcome.FAIL: 1,
    Outcome.PARTIAL: 3,
    Outcome.NO_CLAIMS: 4,
}
EXIT_USAGE = 2


@dataclass
class Report:
    """Outcome, findings and the facts needed to reproduce the run."""

    outcome: Outcome
    findings: list[Finding]
    claims_total: int
    fail_closed: bool = True
    reproducibility: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        counts = {t.value: 0 for t in Tier}
        counts["verified"] = 0
        for f in self.findings:
            if f.status is Status.VERIFIED:
                counts["verified"] += 1
            elif f.tier is not None:
                counts[f.tier.value] += 1
        return counts

    @property
    def operating_points(self) -> dict[str, Any]:
        """Measured false-verify and miss rates (benchmark version, per language) of each check that ran."""
        return cite(f.check for f in self.findings)

    @property
    def exit_code(self) -> int:
        if self.outcome is Outcome.FAIL and not self.fail_closed:
            return EXIT_CODES[Outcome.PARTIAL]
        return EXIT_CODES[self.outcome]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "outcome": self.outcome.value,
            "fail_closed": self.fail_closed,
            "claims_total": self.claims_total,
            "counts": self.counts,
            "findings": [f.to_dict() for f in self.findings],
            "notes": list(self.notes),
            "reproducibility": self.reproducibility,
            "operating_points": self.operating_points,
        }
