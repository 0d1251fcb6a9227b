"""reconcile.replaced: ``dataclasses.replace`` for findings without a call of ``__init__`` (issue 19,
per-claim cost: two copies per finding, the claim's additions and the tier). It must build the same
finding: every field the same object, the same type, equal, and frozen like any other."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimledger.model.finding import Evidence, Finding, Offered, Reason, Status, Tier
from claimledger.reconcile import replaced, tiered

_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "claim_id": st.text(max_size=5),
    "check": st.sampled_from(["literal_quote", "overclaim", "scope"]),
    "status": st.sampled_from(list(Status)),
    "reason": st.sampled_from(list(Reason)[:20]),
    "message": st.text(max_size=20),
    "tier": st.none() | st.sampled_from(list(Tier)),
    "evidence": st.none() | st.builds(Evidence, source=st.just("s"), start=st.integers(0, 9), end=st.integers(9, 20), text=st.text(max_size=5)),
    "diff": st.none() | st.text(max_size=5),
    "expected": st.none() | st.floats(allow_nan=False),
    "claimed": st.none() | st.text(max_size=5),
    "author_alternative": st.none() | st.text(max_size=5),
    "location": st.none() | st.just({"file": None, "line": 3, "in": "ledger"}),
    "extra": st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    "offered": st.none() | st.builds(Offered, st.none() | st.text(max_size=5)),
}


def _finding(draw: st.DrawFn) -> Finding:
    base = Finding("c1", "literal_quote", Status.VERIFIED, Reason.QUOTE_FOUND, "found")
    return dataclasses.replace(base, **{k: draw(v) for k, v in _VALUES.items() if draw(st.booleans())})


@given(st.data())
def test_replaced_builds_what_dataclasses_replace_builds(data: st.DataObject) -> None:
    finding = _finding(data.draw)
    names = data.draw(st.lists(st.sampled_from(sorted(_VALUES)), unique=True))
    changes = {name: data.draw(_VALUES[name]) for name in names}
    fast, slow = replaced(finding, changes), dataclasses.replace(finding, **changes)
    assert type(fast) is Finding and fast == slow and repr(fast) == repr(slow)
    for f in dataclasses.fields(Finding):
        assert getattr(fast, f.name) is getattr(slow, f.name), f.name
    assert vars(fast) == vars(slow) and list(vars(fast)) == list(vars(slow))
    assert fast is not finding and vars(finding) == vars(dataclasses.replace(finding))  # the original untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.message = "changed"  # type: ignore[misc]


def test_a_name_that_is_not_a_field_is_refused_as_by_dataclasses() -> None:
    finding = Finding("c1", "literal_quote", Status.VERIFIED, Reason.QUOTE_FOUND, "found")
    with pytest.raises(TypeError):
        replaced(finding, {"not_a_field": 1})


def test_a_subclass_goes_through_its_own_init() -> None:
    @dataclasses.dataclass(frozen=True)
    class Noted(Finding):
        note: str = ""

        def __post_init__(self) -> None:
            object.__setattr__(self, "note", self.note.upper())

    noted = Noted("c1", "literal_quote", Status.VERIFIED, Reason.QUOTE_FOUND, "found", note="a")
    out = replaced(noted, {"note": "b"})
    assert type(out) is Noted and out.note == "B"


def test_tiered_findings_are_those_of_dataclasses_replace() -> None:
    findings = [
        Finding("c1", "literal_quote", Status.DISCREPANCY, Reason.QUOTE_ABSENT, "absent", offered=Offered("because")),
        Finding("c2", "numeric", Status.DISCREPANCY, Reason.NUMBER_MISMATCH, "off", offered=Offered("rounded to the nearest whole percent")),
        Finding("c3", "literal_quote", Status.VERIFIED, Reason.QUOTE_FOUND, "found", offered=Offered(None)),
        Finding("c4", "literal_quote", Status.ERROR, Reason.CHECK_CRASHED, "crashed"),
    ]
    out = tiered(findings)
    assert [f.tier for f in out] == [Tier.HIGH, Tier.EXPLAINED, None, Tier.HIGH]
    assert all(type(f) is Finding and f.offered is None for f in out)
    assert out[1].status is Status.EXPLAINED and "explained by the author" in out[1].message
