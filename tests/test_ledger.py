"""Ledger loading: YAML and JSON, errors that name file, line and field."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
import yaml

from claimledger import LedgerError
from claimledger.load.ledger import load_ledger, parse_ledger
from claimledger.model.claim import NumberClaim, QuoteClaim
from claimledger.schemas import LEDGER_SCHEMA_PATH, ledger_schema, load

GOOD = """
version: 1
sources:
  smith2019: sources/smith2019.pdf
datasets:
  daily: data/daily.csv
claims:
  - id: C1
    kind: quote
    source: smith2019
    quote: "adding an independent verification step reduced errors by 37 percent"
    statement: "The draft's sentence"
  - id: N1
    kind: number
    sql: "SELECT sum(clicks) FROM daily"
    value: "11.7%"
    tolerance: 0.005
    author_alternative: "Named reason"
"""


def test_yaml_and_json_give_the_same_ledger(write_ledger: Callable[..., Path]) -> None:
    y = load_ledger(write_ledger(GOOD))
    data = yaml.safe_load(GOOD)
    j = load_ledger(write_ledger(json.dumps(data, ensure_ascii=False, indent=2), name="ledger.json"))
    assert y.model_dump() == j.model_dump()
    assert isinstance(y.claims[0], QuoteClaim)
    assert isinstance(y.claims[1], NumberClaim)
    assert y.claims[0].ledger_line == 7
    assert y.claims[1].ledger_line == 12


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        ("version: 2\n", 1, "version", "1"),
        ("version: 1\nclaims:\n  - id: C1\n    kind: quote\n    source: s\n", 3, "claims[0].quote", "required"),
        ("version: 1\nclaims:\n  - id: C1\n    kind: quot\n", 4, "claims[0].kind", "quot"),
        ("version: 1\nclaims:\n  - id: N1\n    kind: number\n    sql: x\n    value: 1\n    tolerance: -1\n",
         7, "claims[0].tolerance", "greater than or equal"),
        ("version: 1\nclaims:\n  - id: N1\n    kind: number\n    value: 3\n", 3, "claims[0]", "exactly one"),
        ("version: 1\nsurces: {}\n", 2, "surces", "not permitted"),
        ("version: 1\nclaims:\n  - {id: A, kind: quote, source: s, quote: abcdefghij}\n"
         "  - {id: A, kind: quote, source: s, quote: abcdefghij}\n", 1, None, "duplicate claim id"),
    ],
)  # fmt: skip
def test_errors_name_file_line_and_field(
    write_ledger: Callable[..., Path], text: str, line: int, field: str | None, words: str
) -> None:
    path = write_ledger(text)
    with pytest.raises(LedgerError) as info:
        load_ledger(path)
    err = info.value
    assert err.file == str(path)
    assert err.line == line
    if field:
        assert err.field == field
    assert words in str(err)
    assert str(err).startswith(f"{path}:{line}: ")


def test_yaml_syntax_error_has_a_line(write_ledger: Callable[..., Path]) -> None:
    path = write_ledger("version: 1\nclaims:\n  - id: C1\n    quote: [unclosed\n")
    with pytest.raises(LedgerError) as info:
        load_ledger(path)
    assert info.value.line is not None and "invalid YAML" in str(info.value)


def test_json_syntax_error_has_a_line(write_ledger: Callable[..., Path]) -> None:
    path = write_ledger('{\n  "version": 1,\n  "claims": [,]\n}\n', name="l.json")
    with pytest.raises(LedgerError) as info:
        load_ledger(path)
    assert info.value.line == 3


def test_alias_bombs_are_refused(write_ledger: Callable[..., Path]) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n"
    with pytest.raises(LedgerError, match="anchors and aliases"):
        load_ledger(write_ledger(bomb))


def test_deep_nesting_is_refused() -> None:
    deep = "version: 1\nx: " + "[" * 200 + "]" * 200 + "\n"
    with pytest.raises(LedgerError):
        parse_ledger(deep, "deep.yaml")


@pytest.mark.parametrize("content", [b"", b"\xff\xfe\x00garbage", b"- just\n- a list\n"])
def test_unusable_files(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "ledger.yaml"
    path.write_bytes(content)
    with pytest.raises(LedgerError):
        load_ledger(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="not found"):
        load_ledger(tmp_path / "nope.yaml")
    with pytest.raises(LedgerError, match="directory"):
        load_ledger(tmp_path)


def test_published_schema_is_current_and_accepts_the_examples() -> None:
    assert load(LEDGER_SCHEMA_PATH) == json.loads(json.dumps(ledger_schema())), (
        "ledger.schema.json is stale: run python -m claimledger.schemas"
    )
    root = Path(__file__).parent.parent
    for example in sorted(root.glob("examples/*/ledger.yaml")):
        jsonschema.validate(yaml.safe_load(example.read_text("utf-8")), load(LEDGER_SCHEMA_PATH))


def test_schema_rejects_what_the_loader_rejects() -> None:
    bad = {"version": 1, "claims": [{"id": "C1", "kind": "quote", "source": "s"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, load(LEDGER_SCHEMA_PATH))
