"""A bracketed number in a quote is content, never an editorial insertion (found by make eval:
mut-2 ja-023/p2 and ja-049/p2, a changed footnote number verified through the insertion gap)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from claimledger import gate
from claimledger.checks.elisions import split_elided
from claimledger.normalize import normalize_quote

SOURCE_EN = "Across all regions the error rate fell by a third [3] in the second year of the programme.\n"
SOURCE_JA = "調査対象の企業では、導入後に誤りが三分の一減った［3］と報告されている。\n"


@pytest.mark.parametrize(
    "quote",
    ["the error rate fell by a third [6] in the second year", "誤りが三分の一減った[6]と報告されている"],
)
def test_a_bracketed_number_is_not_a_gap(quote: str) -> None:
    assert split_elided(normalize_quote(quote)) is None


@pytest.mark.parametrize(
    ("source", "quote", "verified"),
    [
        (SOURCE_EN, "the error rate fell by a third [6] in the second year of the programme", False),
        (SOURCE_EN, "the error rate fell by a third [3] in the second year of the programme", True),
        (SOURCE_EN, "the error rate fell by a third [...] in the second year of the programme", True),
        (SOURCE_JA, "導入後に誤りが三分の一減った［6］と報告されている", False),
        (SOURCE_JA, "導入後に誤りが三分の一減った［3］と報告されている", True),
    ],
)
def test_a_changed_footnote_number_is_never_verified(
    tmp_path: Path, write_ledger: Callable[..., Path], source: str, quote: str, verified: bool
) -> None:
    (tmp_path / "src.txt").write_text(source, "utf-8")
    ledger = write_ledger(
        f"""
        version: 1
        sources:
          s: src.txt
        claims:
          - id: Q1
            kind: quote
            source: s
            quote: "{quote}"
        """
    )
    report = gate(ledger)
    literal = [f for f in report.findings if f.claim_id == "Q1" and f.check == "literal_quote"]
    assert literal and literal[0].verified is verified, [(f.reason.value, f.message) for f in literal]
