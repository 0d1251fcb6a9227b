"""``Finding.to_dict`` builds the report's dict field by field (the generic ``dataclasses.asdict``
recursion was most of writing a JSON report) and gives exactly what ``asdict`` gave: the same keys
in the same order, equal values, copies rather than shared dicts, and the ``asdict`` route itself
for anything that is not plain JSON data (an enum or a dataclass in ``extra``, a subclass)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from claimledger import gate
from claimledger.model.finding import Evidence, Finding, Offered, Reason, Status, Tier, _plain_dict

ROOT = Path(__file__).resolve().parent.parent


def _reference(f: Finding) -> dict[str, Any]:
    """The dict as ``to_dict`` made it before (asdict, then the same edits)."""
    out = asdict(f)
    del out["offered"]
    out["status"] = f.status.value
    out["reason"] = f.reason.value
    out["tier"] = f.tier.value if f.tier else None
    for key in ("evidence", "nearest"):
        if isinstance(out.get(key), dict):
            out[key]["spans"] = [list(span) for span in out[key].get("spans", ())]
    return out


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a == b
    assert list(a) == list(b)
    assert json.dumps(a, ensure_ascii=False, indent=2, default=repr) == json.dumps(b, ensure_ascii=False, indent=2, default=repr)


@dataclass(frozen=True)
class _Point:
    x: int
    y: int


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))
json_data = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=5), inner, max_size=3),
    ),
    max_leaves=8,
)
odd = st.sampled_from([Reason.NUMBER_MISMATCH, _Point(1, 2), frozenset({1}), Status.VERIFIED])
evidence = st.builds(
    Evidence, st.text(max_size=6), st.integers(0, 99), st.integers(0, 99), st.text(max_size=12),
    st.none() | st.integers(1, 9), st.none() | st.integers(1, 9), st.none() | st.integers(1, 9),
    st.none() | st.integers(1, 9), st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=3).map(tuple),
    st.none() | st.sampled_from(["pdf_body", "furigana", "elided"]),
)  # fmt: skip


@given(
    st.sampled_from(list(Status)), st.sampled_from(list(Reason)), st.none() | st.sampled_from(list(Tier)),
    st.none() | evidence, st.none() | evidence, st.none() | st.floats(allow_nan=False),
    st.none() | st.dictionaries(st.text(max_size=5), json_data, max_size=3),
    st.dictionaries(st.text(max_size=5), json_data | odd, max_size=4),
    st.none() | st.builds(Offered, st.none() | st.text(max_size=5)),
)  # fmt: skip
def test_to_dict_is_what_asdict_gave(
    status: Status, reason: Reason, tier: Tier | None, ev: Evidence | None, near: Evidence | None,
    expected: float | None, location: dict[str, Any] | None, extra: dict[str, Any], offered: Offered | None,
) -> None:  # fmt: skip
    f = Finding("C1", "literal", status, reason, "msg", tier, ev, near, "diff", expected, "claimed", "alt",
                location, extra, offered)  # fmt: skip
    got = f.to_dict()
    _same(got, _reference(f))
    if location is not None:
        assert got["location"] is not location  # a copy, as asdict made it
    assert got["extra"] is not extra


def test_a_subclass_takes_the_asdict_route() -> None:
    @dataclass(frozen=True)
    class Tagged(Finding):
        tag: str = "t"

    f = Tagged("C1", "literal", Status.VERIFIED, Reason.QUOTE_FOUND, "ok")
    got = f.to_dict()
    assert got["tag"] == "t"
    _same(got, _reference(f))


def test_the_findings_of_the_examples_give_the_same_dicts(tmp_path: Path) -> None:
    from claimledger import GateConfig

    config = GateConfig(cache_dir=tmp_path / "cache", metrics_files=(ROOT / "examples/en/metrics.py",))
    seen = plain = 0
    for ledger, draft in (("en", None), ("ja", None), ("attribution", None), ("ja_digest", "digest.md")):
        folder = ROOT / "examples" / ledger
        report = gate(folder / "ledger.yaml", config=config, draft=folder / draft if draft else None)
        for f in report.findings:
            _same(f.to_dict(), _reference(f))
            seen += 1
            plain += _plain_dict(f) is not None
    assert seen > 30 and plain > seen // 2  # most findings take the field-by-field route
