"""Property-based fuzzing of the parsers an attacker feeds directly: values, numbers in text, ledgers.

(Normalization and its offset map: tests/test_normalize.py and tests/test_unicode_attacks.py; mark
rewriting: tests/test_marks_property.py. Coverage-guided fuzzing with atheris: fuzz/, ``make fuzz``.)
"""

from __future__ import annotations

import contextlib
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimledger import LedgerError
from claimledger.load.ledger import parse_ledger
from claimledger.numbers import find_numbers, parse_value

NUMBERISH = st.lists(st.sampled_from([*list("0123456789,.-+%$€¥ 万億兆千百十一二三倍x×kKMBeE％１２３．，"), "million", "percent", " times", "four", "hundred", "and"]),
                     max_size=40).map("".join)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(max_size=300), NUMBERISH, st.integers(), st.floats(allow_nan=True)))
def test_parse_value_never_raises(raw: str | int | float) -> None:
    value = parse_value(raw)
    if value is not None:
        assert value.value == value.value  # not NaN
        assert abs(value.value) != float("inf")


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(max_size=300), NUMBERISH))
def test_find_numbers_spans_match_the_text(text: str) -> None:
    previous_end = 0
    for m in find_numbers(text):
        assert text[m.start : m.end] == m.text
        assert previous_end <= m.start < m.end <= len(text)
        previous_end = m.end


yaml_scalars = st.one_of(st.text(max_size=20), st.integers(), st.floats(), st.booleans(), st.none())
yaml_values = st.recursive(
    yaml_scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=30,
)
LEDGER_KEYS = ["version", "sources", "datasets", "metrics", "claims", "id", "kind", "quote", "source", "value",
               "sql", "metric", "tolerance", "scale", "statement", "author_alternative", "location"]  # fmt: skip
ledgerish = st.dictionaries(st.sampled_from(LEDGER_KEYS), yaml_values, max_size=6)
yaml_syntax = st.lists(st.sampled_from([*list("ab:-[]{}&*!|>'\"#%@`,?\n  \t0123"), "version: 1\n", "claims:\n", "  - id: Q\n", "    kind: quote\n", "!!python/object ", "&a ", "*a ", "<<: "]),
                       max_size=120).map("".join)  # fmt: skip


def _only_ledger_errors(text: str, is_json: bool) -> None:
    with contextlib.suppress(LedgerError):
        parse_ledger(text, "fuzz.json" if is_json else "fuzz.yaml", is_json=is_json)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(yaml_syntax, st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1"))),
       st.booleans())  # fmt: skip
def test_the_ledger_loader_raises_only_ledger_errors_on_text(text: str, is_json: bool) -> None:
    _only_ledger_errors(text, is_json)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ledgerish, st.lists(ledgerish, max_size=4))
def test_the_ledger_loader_raises_only_ledger_errors_on_structures(top: dict[str, object], claims: list[object]) -> None:
    doc = {"version": 1, **top, "claims": claims}
    text = json.dumps(doc, default=str)
    _only_ledger_errors(text, True)
    _only_ledger_errors(text, False)  # JSON is YAML too


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from([b"", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf"]))
def test_decode_text_raises_only_source_errors(data: bytes, bom: bytes) -> None:
    """Found by fuzz/fuzz_sources.py: a UTF-16 byte-order mark followed by invalid UTF-16."""
    from claimledger._exceptions import SourceError
    from claimledger.load.text import decode_text

    try:
        assert isinstance(decode_text(bom + data), str)
    except SourceError as exc:
        assert exc.reason == "source_unreadable"
