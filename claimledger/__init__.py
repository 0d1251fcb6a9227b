"""claimledger: a program, not the writer's word, decides what is verified.

The public API is ``__all__`` (pinned by tests/test_public_api.py). Plugins
register claim kinds, reasons and checks through :mod:`claimledger.registry`
(see docs/architecture.md).
"""

from claimledger._api import gate
from claimledger._config import GateConfig
from claimledger._drafts import LintResult, MarkResult, audit, extract_ledger, lint, mark
from claimledger._exceptions import (
    ClaimledgerError,
    ConfigError,
    InputError,
    LedgerError,
    PluginError,
    SourceError,
)
from claimledger._version import __version__
from claimledger.metrics import metric
from claimledger.model import (
    ClaimBase,
    Evidence,
    Finding,
    Ledger,
    NegativeClaim,
    NumberClaim,
    Outcome,
    QuoteClaim,
    Reason,
    Report,
    Source,
    Status,
    Tier,
)
from claimledger.receipts import verify_receipt

__all__ = [
    "ClaimBase",
    "ClaimledgerError",
    "ConfigError",
    "Evidence",
    "Finding",
    "GateConfig",
    "InputError",
    "Ledger",
    "LedgerError",
    "LintResult",
    "MarkResult",
    "NegativeClaim",
    "NumberClaim",
    "Outcome",
    "PluginError",
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
