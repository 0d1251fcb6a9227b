"""Pure data: claims, sources, findings and reports. No I/O here."""

from claimledger.model.claim import (
    Claim,
    ClaimBase,
    Ledger,
    NegativeClaim,
    NumberClaim,
    QuoteClaim,
)
from claimledger.model.finding import Evidence, Finding, Reason, Status, Tier
from claimledger.model.report import Outcome, Report
from claimledger.model.source import Source

__all__ = [
    "Claim",
    "ClaimBase",
    "Evidence",
    "Finding",
    "Ledger",
    "NegativeClaim",
    "NumberClaim",
    "Outcome",
    "QuoteClaim",
    "Reason",
    "Report",
    "Source",
    "Status",
    "Tier",
]
