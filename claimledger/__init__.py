"""claimledger: a program, not the writer's word, decides what is verified.

The public API is ``__all__`` (pinned by tests/test_public_api.py). Plugins
register claim kinds, reasons and checks through :mod:`claimledger.registry`
(see docs/architecture.md).

The draft-marking API (``mark``, ``lint``, ``audit``, ``extract_ledger`` and their result types)
and ``verify_receipt`` are imported on first use (:func:`__getattr__`): a ledger check does not
load the draft parsers.
"""

from typing import TYPE_CHECKING, Any

from claimledger._api import gate
from claimledger._config import GateConfig
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

if TYPE_CHECKING:
    from claimledger._drafts import LintResult, MarkResult, audit, extract_ledger, lint, mark
    from claimledger.receipts import verify_receipt

_LAZY = {  # public name -> the module that defines it, imported the first time the name is asked for
    **dict.fromkeys(("LintResult", "MarkResult", "audit", "extract_ledger", "lint", "mark"), "claimledger._drafts"),
    "verify_receipt": "claimledger.receipts",
}


def __getattr__(name: str) -> Any:
    """A name of :data:`_LAZY`, imported on first use (PEP 562) and then kept in this module."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
