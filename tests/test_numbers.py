"""Displayed values in English and Japanese, and their precision."""

from __future__ import annotations

import pytest

from claimledger.numbers import find_numbers, parse_kanji, parse_value


@pytest.mark.parametrize(
    ("text", "value", "half", "unit"),
    [
        ("1,234", 1234, 0.5, None),
        ("1,202", 1202, 0.5, None),
        ("12.5%", 12.5, 0.05, "%"),
        ("11.7%", 11.7, 0.05, "%"),
        ("12%", 12, 0.5, "%"),
        ("３０％", 30, 0.5, "%"),
        ("１，２３４", 1234, 0.5, None),
        ("1.2万", 12000, 500, None),
        ("3億", 3e8, 0.5e8, None),
        ("1億2000万", 1.2e8, 5000, None),
        ("5千", 5000, 500, None),
        ("12k", 12000, 500, None),
        ("3.4M", 3.4e6, 0.05e6, None),
        ("2bn", 2e9, 0.5e9, None),
        ("$1.2 million", 1.2e6, 0.05e6, "USD"),
        ("$1,200,000", 1.2e6, 0.5, "USD"),
        ("-5%", -5, 0.5, "%"),
        ("\u22125%", -5, 0.5, "%"),
        ("▲5", -5, 0.5, None),
        ("4倍", 4, 0.5, "x"),
        ("4x", 4, 0.5, "x"),
        ("1,200円", 1200, 0.5, "JPY"),
        ("¥3億", 3e8, 0.5e8, "JPY"),
        ("三十", 30, 0.5, None),
        ("二千五百", 2500, 0.5, None),
        ("four", 4, 0.5, None),
        ("twenty-one", 21, 0.5, None),
        ("0.117", 0.117, 0.0005, None),
        ("2.5 percent", 2.5, 0.05, "%"),
        ("3 pp", 3, 0.5, "pp"),
    ],
)
def test_parse_value(text: str, value: float, half: float, unit: str | None) -> None:
    parsed = parse_value(text)
    assert parsed is not None
    assert parsed.value == pytest.approx(value)
    assert parsed.half_unit == pytest.approx(half)
    assert parsed.unit == unit


@pytest.mark.parametrize("text", ["abc", "", "twelve apples and pears", "1.2.3", "%", "万"])
def test_unreadable_values_are_none(text: str) -> None:
    assert parse_value(text) is None


def test_yaml_numbers_have_no_display_precision() -> None:
    parsed = parse_value(0.117)
    assert parsed is not None and parsed.half_unit is None
    assert parse_value(float("nan")) is None
    assert parse_value(True) is None


@pytest.mark.parametrize(
    ("display", "inside", "outside"),
    [
        ("12%", [11.5, 12.0, 12.5], [11.4, 12.6]),
        ("11.7%", [11.65, 11.7, 11.75], [11.6, 11.8]),
        ("1,202", [1201.5, 1202.4], [1200.0, 1204.0]),
        ("1.2万", [11500, 12499], [11000, 13000]),
    ],
)
def test_display_precision(display: str, inside: list[float], outside: list[float]) -> None:
    parsed = parse_value(display)
    assert parsed is not None
    for x in inside:
        assert parsed.covers(x, 0.0), x
    for x in outside:
        assert not parsed.covers(x, 0.0), x


def test_relative_tolerance_and_zero() -> None:
    parsed = parse_value(1000)
    assert parsed is not None
    assert parsed.covers(1004.9, 0.005)
    assert not parsed.covers(1006, 0.005)
    zero = parse_value(0)
    assert zero is not None and zero.covers(0.0, 0.005)
    assert not zero.covers(float("inf"), 0.5)


def test_kanji_numerals() -> None:
    assert parse_kanji("一億二千万") == 120_000_000
    assert parse_kanji("二〇二四") == 2024
    assert parse_kanji("十") == 10
    assert parse_kanji("abc") is None


def test_find_numbers_in_mixed_text() -> None:
    text = "売上は1億2000万円、前年比３０％増。Revenue rose 12.5% to $1.2 million in 2019; COVID19 v2"
    found = {m.text: m.value.value for m in find_numbers(text)}
    assert found["1億2000万円"] == 1.2e8
    assert found["３０％"] == 30
    assert found["12.5%"] == 12.5
    assert found["$1.2 million"] == 1.2e6
    assert found["2019"] == 2019
    assert not any(k == "19" for k in found)  # COVID19 is a name, not a figure
    for m in find_numbers(text):
        assert text[m.start : m.end] == m.text


def test_a_kanji_numeral_longer_than_any_value_is_no_number() -> None:
    """310 kanji digits are more than a float holds: it was an OverflowError (the claim's check
    crashed, failing closed); now it is no number at all, as a value above MAX_VALUE_CHARS is."""
    from claimledger.numbers import MAX_VALUE_CHARS, find_kanji_numbers, find_numbers

    for text in ("九" * 400 + "人", "三" * 310, "約" + "九" * (MAX_VALUE_CHARS + 1) + "倍"):
        assert find_kanji_numbers(text) == [] and find_numbers(text, kanji=True) == []
    longest = find_kanji_numbers("九" * MAX_VALUE_CHARS + "人")
    assert len(longest) == 1 and longest[0].value.value == float("9" * MAX_VALUE_CHARS)


def test_parse_value_remembers_a_string_s_answer_and_it_is_the_parse_s_own() -> None:
    """parse_value remembers the parse of a string (figures repeat across a run's quotes): asked
    again, and asked after many other strings, it answers what a fresh parse answers, English and
    Japanese; a str subclass is parsed afresh and answers the same."""
    from claimledger.numbers import _parse_text

    class Shown(str):
        pass

    raws = ["11.7%", "約680万人", "4x", "$8.2m", "1,234", "三割", "about 4", "two", "n/a", "", "-3.5 pp", "2019",
            "４倍", "1.2億円", "100", "0.5", "12 percent", "1e400", "−7"]  # fmt: skip
    fresh = [_parse_text.__wrapped__(r) for r in raws]
    for _ in range(3):
        assert [parse_value(r) for r in raws] == fresh
    assert [parse_value(Shown(r)) for r in raws] == fresh
    assert parse_value("11.7%") is parse_value("11.7%")  # one frozen Value shared
