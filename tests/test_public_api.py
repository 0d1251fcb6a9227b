"""The public API is pinned: a name added to or removed from ``claimledger.__all__`` is a decision."""

from __future__ import annotations

import claimledger
from claimledger._exceptions import ClaimledgerError

PUBLIC = [
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


def test_all_is_pinned_and_sorted() -> None:
    assert claimledger.__all__ == PUBLIC
    assert sorted(PUBLIC) == PUBLIC


def test_every_public_name_exists_and_nothing_else_public_is_exported() -> None:
    for name in PUBLIC:
        assert getattr(claimledger, name) is not None
    star: dict[str, object] = {}
    exec("from claimledger import *", star)
    assert set(star) - {"__builtins__"} == set(PUBLIC)


def test_public_exceptions_are_in_the_tree() -> None:
    errors = [getattr(claimledger, n) for n in PUBLIC if n.endswith("Error")]
    assert len(errors) == 6
    assert all(isinstance(e, type) and issubclass(e, ClaimledgerError) for e in errors)
