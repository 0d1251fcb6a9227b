"""claimledger: a program, not the writer's word, decides what is verified."""

from claimledger._api import gate
from claimledger._config import GateConfig
from claimledger._drafts import LintResult, MarkResult, audit, extract_ledger, lint, mark
from claimledger._exceptions import ClaimledgerError, InputError, LedgerError, SourceError
from claimledger._receipts import verify_receipt
from claimledger._version import __version__
from claimledger.metrics import metric
from claimledger.model import (
    Evidence,
    Finding,
    Ledger,
    NumberClaim,
    Outcome,
    QuoteClaim,
    Reason,
    Report,
    Source,
    Status,
    Tier,
)

__all__ = [
    "ClaimledgerError",
    "Evidence",
    "Finding",
    "GateConfig",
    "InputError",
    "Ledger",
    "LedgerError",
    "LintResult",
    "MarkResult",
    "NumberClaim",
    "Outcome",
    "QuoteClaim",
    "Reason",
    "Report",
    "Source",
    "SourceError",
    "Status",
    "Tier",
    "__version__",
    "audit",
    "extract_ledger",
    "gate",
    "lint",
    "mark",
    "metric",
    "verify_receipt",
]
