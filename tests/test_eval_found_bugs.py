"""Bugs the mutation benchmark found in normalization (both made must-verify quotes miss)."""

from __future__ import annotations

import unicodedata

import pytest

from claimledger.normalize import normalize, normalize_quote


@pytest.mark.parametrize(
    ("half_width", "full_width"),
    [("ﾋﾞｰﾁ", "ビーチ"), ("ｶﾞｲﾄﾞﾊﾟﾝ", "ガイドパン"), ("泳いでいるﾗｲﾀﾞｰに", "泳いでいるライダーに")],
)
def test_half_width_voiced_marks_compose(half_width: str, full_width: str) -> None:
    # ﾞ/ﾟ fold to the combining U+3099/U+309A; they must compose with the kana before them
    assert normalize_quote(half_width) == normalize_quote(full_width)
    assert normalize_quote(half_width) == unicodedata.normalize("NFKC", full_width)


def test_half_width_voiced_mark_offsets_map_back() -> None:
    text = "前文 ﾋﾞｰﾁに椅子"
    n = normalize(text)
    pos = n.text.find("ビーチ")
    a, b = n.to_original(pos, pos + 3)
    assert text[a:b] == "ﾋﾞｰﾁ"


@pytest.mark.parametrize(
    "quote",
    ["ｔｈｅ ｃａｔ ｓａｔ", "ｔｈｅ\u3000ｃａｔ\u3000ｓａｔ", "the ｃａｔ sat", "ｔｈｅ\nｃａｔ ｓａｔ"],
)
def test_full_width_latin_keeps_word_spaces(quote: str) -> None:
    assert normalize_quote(quote) == "the cat sat"


def test_whitespace_next_to_japanese_still_vanishes() -> None:
    assert normalize_quote("ＡＩ 技術") == normalize_quote("AI技術")
    assert normalize_quote("調査（\n2024年）") == normalize_quote("調査（2024年）")
    assert normalize_quote("前年の約４\n倍") == normalize_quote("前年の約4倍")
