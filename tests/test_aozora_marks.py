"""Aozora Bunko notation is recognised by its marks (claimledger/load/text.py ``looks_aozora``):
the note mark "［＃" is looked for only after "［" alone is found (a faster search in a UCS-2
text); the answer is the regular expressions' whatever the text holds."""

from __future__ import annotations

import random

from claimledger.load.text import _AOZORA_NOTE, _AOZORA_RUBY, looks_aozora


def _definition(text: str) -> bool:
    head = text[:200_000]
    return bool(_AOZORA_NOTE.search(text)) or len(_AOZORA_RUBY.findall(head)) >= 2


def test_notes_and_ruby_are_recognised_in_japanese_and_never_in_english() -> None:
    assert looks_aozora("吾輩は猫である。［＃「猫」に傍点］名前はまだ無い。")
    assert looks_aozora("｜吾輩《わがはい》は猫《ねこ》である。")
    assert not looks_aozora("吾輩は猫である。［注］名前はまだ無い。")  # a bracket, no note mark
    assert not looks_aozora("A bracket ［ then ＃ apart, and《one》ruby only.")
    assert not looks_aozora("Plain English text with [brackets] and # signs.")


def test_the_answer_is_the_regular_expressions_on_generated_texts() -> None:
    rng = random.Random(20261201)
    pieces = ["［", "＃", "］", "《", "》", "｜", "猫", "ねこ", "cat ", "\n", "［＃", "注記", "x" * 50]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 40)))
        assert looks_aozora(text) == _definition(text), text
