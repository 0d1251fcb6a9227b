"""A JSON ledger's claim lines are read from its JSON tokens (claimledger/load/_json_lines.py), and
they are the lines the YAML reading gave: the same where PyYAML composes the text, none where it
refuses it (an escaped emoji), and the YAML path still decides every layout the token reader does
not know to agree on (odd line breaks, tabs, long or split keys, repeated keys, deep nesting)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimledger import LedgerError
from claimledger.load._json_lines import claim_lines
from claimledger.load.ledger import _compose, _positions, parse_ledger

QUOTES = [
    "adding an independent verification step reduced errors by 37 percent",
    'he said "never" twice \\ and left',
    "独立した検証の段階を加えると誤りが37%減った",
    "a/b path, tab\tand newline\nin a value",
    "emoji \U0001f600 and \u00e9 and \u2028 line separator",
    "next line \x85 and bom \ufeff inside",
]


def _yaml_lines(text: str) -> list[int | None]:
    """The claim lines as the YAML reading gave them (the reference): a JSON text composed as YAML,
    None for every claim when PyYAML refuses the text."""
    claims = json.loads(text).get("claims", [])
    try:
        node = _compose(text, "x.json")
    except LedgerError:
        return [None] * len(claims)
    out: dict[tuple[str | int, ...], int] = {}
    if node is not None:
        _positions(node, (), out)
    return [out.get(("claims", i)) for i in range(len(claims))]


def _parsed_lines(text: str) -> list[int | None]:
    return [c.ledger_line for c in parse_ledger(text, "x.json").claims]


def _ledger(rng: random.Random, n: int) -> dict[str, object]:
    sources = {f"s{i}": f"sources/s{i}.txt" for i in range(3)}
    if rng.random() < 0.15:
        sources["k" * rng.choice([200, 260, 1100])] = "sources/long.txt"  # a long key
    claims = [
        {"id": f"Q{i}", "kind": "quote", "source": rng.choice(list(sources)), "quote": rng.choice(QUOTES)}
        for i in range(n)
    ]
    return {"version": 1, "sources": sources, "claims": claims}


_SPACES = [" ", "", "\n", "  \n    ", "\t", "\n\t", "\r\n", "\r\n  ", "\n\n"]


def _layout(value: object, rng: random.Random, ascii_only: bool, depth: int = 0) -> str:
    """JSON with random whitespace between tokens (the layouts a person or another tool writes)."""

    def ws() -> str:
        return rng.choice(_SPACES) if rng.random() < 0.6 else ""

    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            key = json.dumps(k, ensure_ascii=ascii_only)
            if k == "claims" and rng.random() < 0.1:
                key = '"cl\\u0061ims"'  # the same key, escaped
            sep = rng.choice([":", " : ", ":\n", "\n:"]) if rng.random() < 0.1 else rng.choice([":", ": "])
            items.append(f"{ws()}{key}{sep}{ws()}{_layout(v, rng, ascii_only, depth + 1)}{ws()}")
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(f"{ws()}{_layout(v, rng, ascii_only, depth + 1)}{ws()}" for v in value) + "]"
    text = json.dumps(value, ensure_ascii=ascii_only)
    if rng.random() < 0.1:
        text = text.replace("/", "\\/")  # an escape JSON allows and json.dumps never writes
    return text


def test_odd_layouts_give_the_yaml_lines() -> None:
    rng = random.Random(20261201)
    fast = fallback = 0
    for case in range(400):
        ledger = _ledger(rng, rng.randint(0, 6))
        text = _layout(ledger, rng, ascii_only=rng.random() < 0.5)
        if rng.random() < 0.2:
            text = rng.choice(["\n\n", "  \n", "\t", "\r\n"]) + text + rng.choice(["", "\n", "\t\n", " "])
        assert json.loads(text) == ledger
        assert _parsed_lines(text) == _yaml_lines(text), (case, text)
        if claim_lines(text) is None:
            fallback += 1
        else:
            fast += 1
            assert [claim_lines(text).get(i) for i in range(len(ledger["claims"]))] == _yaml_lines(text)  # type: ignore[union-attr, arg-type]
    assert fast > 100 and fallback > 50  # both paths were exercised


@given(
    st.lists(
        st.text(st.characters(blacklist_categories=["Cs"]), max_size=12), min_size=0, max_size=4
    ),
    st.sampled_from([None, 0, 1, 2, "\t"]),
    st.booleans(),
)
def test_json_dumps_layouts_give_the_yaml_lines(quotes: list[str], indent: int | str | None, ascii_only: bool) -> None:
    """Any string a writer can put in a quote, as json.dumps writes it (escaped or not, indented or not)."""
    ledger = {
        "version": 1,
        "sources": {"s": "s.txt"},
        "claims": [{"id": f"Q{i}", "kind": "quote", "source": "s", "quote": q or "x"} for i, q in enumerate(quotes)],
    }
    text = json.dumps(ledger, ensure_ascii=ascii_only, indent=indent)
    assert _parsed_lines(text) == _yaml_lines(text)


def test_lines_of_a_plain_pretty_printed_ledger() -> None:
    text = json.dumps(
        {"version": 1, "sources": {"s": "s.txt"},
         "claims": [{"id": "A", "kind": "quote", "source": "s", "quote": "one two three"},
                    {"id": "B", "kind": "quote", "source": "s", "quote": "four five six"}]},
        indent=2,
    )  # fmt: skip
    assert claim_lines(text) == {0: 7, 1: 13}
    assert _parsed_lines(text) == [7, 13] == _yaml_lines(text)


@pytest.mark.parametrize(
    "text",
    [
        # an escaped emoji: PyYAML refuses the escape of a surrogate, so no claim had a line
        '{"version": 1, "sources": {"s": "s.txt"},\n"claims": [\n{"id": "A", "kind": "quote", "source": "s", "quote": "x \\ud83d\\ude00"}]}',
        # U+2028 and U+0085 are line breaks to YAML
        '{"version": 1, "sources": {"s": "s.txt"},\n"claims": [\n{"id": "A", "kind": "quote", "source": "s", "quote": "a\u2028b"},\n{"id": "B", "kind": "quote", "source": "s", "quote": "c\x85d"}]}',
        # a lone carriage return is a line break to YAML, whitespace to JSON
        '{"version": 1,\r"sources": {"s": "s.txt"},\r"claims": [\r{"id": "A", "kind": "quote", "source": "s", "quote": "abc"}]}',
        # a key whose colon is on the next line
        '{"version": 1, "sources": {"s"\n: "s.txt"},\n"claims": [\n{"id": "A", "kind": "quote", "source": "s", "quote": "abc"}]}',
        # the claims key twice: JSON keeps the second array, YAML's lines were the first array's
        '{"version": 1, "sources": {"s": "s.txt"},\n"claims": [\n\n{"id": "Z", "kind": "quote", "source": "s", "quote": "zz"}],\n"claims": [\n{"id": "A", "kind": "quote", "source": "s", "quote": "abc"}]}',
        # a tab before the top-level object
        '\t{"version": 1, "sources": {"s": "s.txt"},\n"claims": [\n{"id": "A", "kind": "quote", "source": "s", "quote": "abc"}]}',
    ],
)
def test_layouts_the_yaml_path_decides(text: str) -> None:
    assert claim_lines(text) is None
    assert _parsed_lines(text) == _yaml_lines(text)


def test_an_escaped_emoji_still_leaves_the_claims_without_a_line() -> None:
    text = json.dumps({"version": 1, "sources": {"s": "s.txt"},
                       "claims": [{"id": "A", "kind": "quote", "source": "s", "quote": "x \U0001f600"}]}, indent=1)  # fmt: skip
    assert _parsed_lines(text) == [None] == _yaml_lines(text)


def test_deep_nesting_is_still_refused_in_json() -> None:
    deep = '{"version": 1, "notes": ' + "[" * 40 + "]" * 40 + "}"
    assert claim_lines(deep) is None
    with pytest.raises(LedgerError, match="nesting deeper than 32 levels"):
        parse_ledger(deep, "x.json")


def test_a_validation_error_in_json_names_its_line() -> None:
    text = '{\n  "version": 1,\n  "sources": {"s": "s.txt"},\n  "claims": [\n    {"id": "A", "kind": "quote", "source": "s", "quote": "abc def"},\n    {"id": "B", "kind": "quote",\n     "source": "s"}\n  ]\n}\n'
    assert claim_lines(text) is not None  # the token reader would read its lines; the error needs YAML's
    with pytest.raises(LedgerError) as err:
        parse_ledger(text, "x.json")
    assert err.value.line == 6 and err.value.field == "claims[1].quote"


def test_a_json_ledger_does_not_import_yaml(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    path.write_text(json.dumps({"version": 1, "sources": {"s": "s.txt"},
                                "claims": [{"id": "A", "kind": "quote", "source": "s", "quote": "abc def"}]}))  # fmt: skip
    probe = (
        "import sys\nfrom claimledger.load.ledger import load_ledger\n"
        f"ledger = load_ledger({str(path)!r})\n"
        "print(ledger.claims[0].ledger_line, 'yaml' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["1", "False"]
    (tmp_path / "l.yaml").write_text("version: 1\nsources: {s: s.txt}\nclaims:\n  - {id: A, kind: quote, source: s, quote: abc def}\n")
    probe = probe.replace("l.json", "l.yaml")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["4", "True"]


def test_the_ascii_test_is_the_full_test_on_ascii() -> None:
    from claimledger.load._json_lines import _PLAIN_ASCII, _plain

    for cp in range(128):
        assert (_PLAIN_ASCII.search(chr(cp)) is None) == (_plain().search(chr(cp)) is None), cp
