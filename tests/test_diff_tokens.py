"""The word diff's tokenizer (one regex, issue 19) against its character-by-character definition."""

from __future__ import annotations

import random
import re

from claimledger.checks.diff import _CJK_CLASS, tokens, tokens_py, word_diff
from claimledger.normalize import is_cjk


def test_the_separator_class_is_isspace_or_cjk_on_every_code_point() -> None:
    sep = re.compile(f"[\\s{_CJK_CLASS}]")
    wrong = [cp for cp in range(0x110000) if (sep.fullmatch(chr(cp)) is not None) != (chr(cp).isspace() or is_cjk(chr(cp)))]
    assert wrong == []


SAMPLES = [
    "",
    " ",
    "The quick brown fox, 35% of text-generating AI users.",
    "  two  spaces\tand a tab\nand a line\u2028separator\u00a0nbsp\u3000ideographic",
    "言葉を扱う生成AIの利用者の35%が支払う。",
    "mixed 日本語 and English「かぎ括弧」ｆｕｌｌｗｉｄｔｈ ｶﾀｶﾅ 𠀀𪛖 emoji😀 end",
    "\u200b\ufeffinvisible\u00adsoft hyphen\ufffe",
    "ﬁﬂ ligatures, café, naïve, Straße",
]


def test_tokens_equal_the_definition() -> None:
    rng = random.Random(19)
    alphabet = "ab Z9-.,\t\n\u00a0\u2003\u3000\u3001あア漢ｶＡ\u200b😀\U00020000\u0301"
    texts = SAMPLES + ["".join(rng.choice(alphabet) for _ in range(rng.randrange(40))) for _ in range(2000)]
    for text in texts:
        assert tokens(text) == tokens_py(text), text


def test_word_diff_marks_en_and_ja() -> None:
    assert word_diff("the cat sat on the mat", "the cat sat on a mat") == "the cat sat on [-the-]{+a+} mat"
    assert word_diff("生成AIの利用者", "言葉を扱う生成AIの利用者") == "{+言葉を扱う+}生成AIの利用者"
