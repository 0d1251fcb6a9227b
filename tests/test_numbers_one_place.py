"""Every displayed-number form is read by claimledger.numbers: the draft reader (extract/mentions),
the overclaim figure rules and the numeric check read the same value from the same text."""

from __future__ import annotations

import ast
import inspect

import pytest

import claimledger.checks.overclaim.figures as figures
import claimledger.extract.mentions as mentions
from claimledger.checks.overclaim.figures import numbers_in
from claimledger.extract.mentions import find_mentions, number_key, same_number
from claimledger.numbers import (
    COUNTERS,
    MULTIPLIER_WORDS,
    find_kanji_numbers,
    find_multiplier_words,
    find_numbers,
    find_word_numbers,
    parse_english_words,
    parse_value,
)


@pytest.mark.parametrize(
    ("sentence", "figure", "value", "unit"),
    [
        ("Revenue reached $8.2m in 2020.", "$8.2m", 8.2e6, "USD"),
        ("Revenue reached $8.2bn in 2020.", "$8.2bn", 8.2e9, "USD"),
        ("Revenue reached $8.2b in 2020.", "$8.2b", 8.2e9, "USD"),
        ("Revenue reached US$8.2m in 2020.", "US$8.2m", 8.2e6, "USD"),
        ("Sales were €3.1 million last year.", "€3.1 million", 3.1e6, "EUR"),
        ("Sales were €3.1m last year.", "€3.1m", 3.1e6, "EUR"),
        ("Debt stood at £2tn.", "£2tn", 2e12, "GBP"),
        ("売上高は8.2億円だった。", "8.2億円", 8.2e8, "JPY"),
        ("売上高は¥8.2億だった。", "¥8.2億", 8.2e8, "JPY"),
        ("売上高は８．２億円だった。", "８．２億円", 8.2e8, "JPY"),
    ],
)
def test_currency_scales_read_as_the_value_everywhere(sentence: str, figure: str, value: float, unit: str) -> None:
    """`$8.2m` is 8.2 million dollars for every reader (it used to be read as 8.2)."""
    (m,) = [m for m in find_numbers(sentence) if m.text == figure]
    assert m.value.value == pytest.approx(value) and m.value.unit == unit
    (dm,) = [d for d in find_mentions(sentence) if d.text == figure]
    assert dm.key.value == pytest.approx(value) and dm.key.unit == unit
    (n,) = [n for n in numbers_in(sentence) if n.text == figure]
    assert n.value == pytest.approx(value) and n.unit == unit
    parsed = parse_value(figure)
    assert parsed is not None and parsed.value == pytest.approx(value)


def test_a_currency_scale_keeps_its_precision() -> None:
    """$8.2m covers 8.15m-8.25m, so $8.2m backs a ledger value of 8,230,000 but not 8.3 million or 8.2."""
    key = number_key("$8.2m")
    assert key is not None
    assert same_number(key, number_key("$8,230,000"))  # type: ignore[arg-type]
    assert not same_number(key, number_key("$8.3m"))  # type: ignore[arg-type]
    assert not same_number(key, number_key("$8.2"))  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["The pole is 8.2m tall.", "a 5m drop", "5 more people"])
def test_a_lower_case_m_without_a_currency_is_not_a_scale(text: str) -> None:
    """8.2m without a currency may be metres: it is not read as millions."""
    assert all(m.value.value < 100 for m in find_numbers(text))


def test_the_overclaim_rules_see_a_changed_currency_figure() -> None:
    """A statement that turns $8.2m into $9.1m is a changed number (the rule compared 8.2 with 9.1 before,
    and $8.2m with $8.2bn as the same)."""
    hits = figures.number_hits("Revenue was $8.2bn.", "Revenue was $8.2m.")
    assert [h.rule for h in hits] == ["number_changed"]
    assert figures.number_hits("Revenue was $8.2m.", "Revenue was $8.2m.") == []


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("十三羽", 13, None), ("三羽", 3, None), ("二頭", 2, None), ("五社", 5, None),
        ("三つ", 3, None), ("三割", 30, "%"), ("四倍", 4, "x"), ("五パーセント", 5, "%"),
        ("三年", 3, None), ("百円", 100, "JPY"),
    ],
)  # fmt: skip
def test_kanji_numerals_read_the_same_in_drafts_and_sources(text: str, value: float, unit: str | None) -> None:
    """One counter list: a draft's 三羽 is a figure exactly when a source's is."""
    (draft,) = find_mentions(f"庭に{text}がいた。")
    (source,) = find_numbers(f"庭に{text}がいた。", kanji=True)
    assert draft.key.value == source.value.value == value
    assert draft.key.unit == source.value.unit == unit


@pytest.mark.parametrize("text", ["一部の人", "千葉県", "第三章", "十分な量", "万一の場合"])
def test_kanji_in_words_are_not_figures(text: str) -> None:
    assert find_mentions(text) == []
    assert find_numbers(text, kanji=True) == []


def test_a_counter_between_a_number_and_its_hedge_is_read_from_the_one_list() -> None:
    """羽 and 頭 were in one reader's counter list and not in another's: 13羽程度 keeps its hedge everywhere."""
    for counter in ("羽", "頭", "人", "分", "か月"):
        assert counter in COUNTERS
        (m,) = find_numbers(f"13{counter}程度")
        assert m.value.hedge == "程度"
        (n,) = numbers_in(f"13{counter}程度が確認された")
        assert n.hedges == {"approx"}


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("twenty-one cases", [21]),
        ("twenty five euros", [25]),  # the overclaim rules read 20 and 5 before
        ("sixty percent", [60]),  # not read by the overclaim rules before
        ("two million users", [2e6]),  # read by no reader before
        ("one two three", [2, 3]),  # a count, not 1+2+3
        ("twelve fifty", [12, 50]),
        ("two hundred and five", [205]),
        ("one of them", []),
    ],
)
def test_number_words_read_the_same_by_every_reader(text: str, values: list[float]) -> None:
    assert [m.value.value for m in find_word_numbers(text)] == values
    assert [m.key.value for m in find_mentions(text)] == values
    assert [n.value for n in numbers_in(text)] == values


def test_one_multiplier_table() -> None:
    """twice/thrice/doubled/tripled/倍増 and 'a factor of' read their factor from MULTIPLIER_WORDS."""
    assert [(m.text, m.value.value) for m in find_word_numbers("twice as many, thrice more")] == [
        ("twice", MULTIPLIER_WORDS["twice"]), ("thrice", MULTIPLIER_WORDS["thrice"]),
    ]  # fmt: skip
    got = [(m.text, m.value.value, m.value.unit) for m in find_multiplier_words(
        "sales doubled, costs tripled, it quadruples by a factor of four; 売上が倍増した")]  # fmt: skip
    assert got == [("doubled", 2, "x"), ("tripled", 3, "x"), ("quadruples", 4, "x"),
                   ("a factor of four", 4, "x"), ("倍", 2, "x")]  # fmt: skip
    assert parse_value("twice") is not None and parse_value("twice").value == 2  # type: ignore[union-attr]
    assert [(n.text, n.value, n.unit) for n in numbers_in("四倍に増えた、three-fold")] == [
        ("四倍", 4, "x"), ("three-fold", 3, "x"),
    ]  # fmt: skip


def test_kanji_reader_spans() -> None:
    """With with_counter the counter is part of the span (a source passage prints '十三羽')."""
    (a,) = find_kanji_numbers("十三羽がいた", with_counter=True)
    (b,) = find_kanji_numbers("十三羽がいた")
    assert (a.text, b.text) == ("十三羽", "十三")


def test_no_private_number_tables_outside_numbers_py() -> None:
    """The readers of drafts and of the overclaim rules hold no word list, counter list or kanji regex."""
    for module in (mentions, figures):
        tree = ast.parse(inspect.getsource(module))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
        }  # fmt: skip
        strings = [
            n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
        ]  # fmt: skip
        for private in ("twenty", "thrice", "十百", "羽", "か月", "doubl"):
            assert not any(private in s for s in strings), (module.__name__, private)


def test_english_words_reject_two_numbers_in_a_row() -> None:
    assert parse_english_words("twenty one") == 21
    assert parse_english_words("one two") is None
    assert parse_english_words("five hundred thousand") == 500_000
