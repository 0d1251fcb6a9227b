"""The attribution benchmark's scoring (make eval): the deterministic step as a detector, and the
judge's balanced accuracy against a fake judge on 127.0.0.1. Synthetic pairs, EN and JA."""

from __future__ import annotations

from pathlib import Path

from claimledger.judge import make_judge
from evaluation.attribution_bench import ANCHORS, Pair, deterministic, render, with_judge
from tests.judge_fakes import chat_server, table_policy, verdict

SRC_EN = "Output per hour fell by about 4% in the first six months. Jane Smith led the study."
SRC_JA = "移行後6か月の時間当たり生産量は約4%低下した。田中氏が調査を率いた。"
PAIRS = [
    Pair("en/1", "wice", "en", SRC_EN, "Output per hour fell by about 4% in the first six months.", True),
    Pair("en/2", "wice", "en", SRC_EN, "Output per hour fell by 9% in the first six months.", False),
    Pair("en/3", "summedits", "en", SRC_EN, "Robert Brown led the study.", False),
    Pair("en/4", "summedits", "en", SRC_EN, "Output per hour rose in the first six months.", False),
    Pair("ja/1", "jnli", "ja", SRC_JA, "移行後6か月の時間当たり生産量は約4%低下した。", True),
    Pair("ja/2", "jnli", "ja", SRC_JA, "時間当たり生産量は約9%低下した。", False),
    Pair("ja/3", "jhars", "ja", SRC_JA, "佐藤氏が調査を率いた。", False),
]


def test_the_deterministic_step_is_scored_as_a_detector() -> None:
    scores = deterministic(PAIRS)
    en, ja = scores["en"], scores["ja"]
    assert (en.unsupported, en.caught, en.supported, en.false_alarms) == (3, 2, 1, 0)  # "rose" needs a judge
    assert (ja.unsupported, ja.caught, ja.supported, ja.false_alarms) == (2, 2, 1, 0)
    assert en.reasons_caught["attribution_number_absent"] == 1 and en.reasons_caught["attribution_name_absent"] == 1
    text = "\n".join(render(scores, 60, None, "not run (no judge)", 7))
    assert "| English (WiCE, SummEdits) | 2/3 (66.7%) | 0/1 (0.0%) |" in text and "seed 7" in text
    assert all(f"{name} {value:.1f}" in text for name, value in ANCHORS)


def test_with_a_judge_balanced_accuracy_is_reported(tmp_path: Path) -> None:
    table = {
        "Output per hour fell by about 4% in the first six months.":
            verdict("supported", "Output per hour fell by about 4% in the first six months"),
        "Output per hour rose in the first six months.":
            verdict("contradicted", "Output per hour fell by about 4% in the first six months"),
        "移行後6か月の時間当たり生産量は約4%低下した。": verdict("supported", "移行後6か月の時間当たり生産量は約4%低下した"),
        # the judge wrongly supports a pair the deterministic step already fails: still not verified
        "時間当たり生産量は約9%低下した。": verdict("supported", "移行後6か月の時間当たり生産量は約4%低下した"),
        "Output per hour fell by 9% in the first six months.": verdict("not_found", ""),
        "Robert Brown led the study.": verdict("not_found", ""),
        "佐藤氏が調査を率いた。": verdict("not_found", ""),
    }  # fmt: skip
    with chat_server(policy=table_policy(table)) as srv:
        judge = make_judge("openai", "fake", srv.base_url + "/v1")
        try:
            result = with_judge(PAIRS, judge, tmp_path)
        finally:
            judge.close()
    assert result == {"en": (100.0, 4), "ja": (100.0, 3)}
    text = "\n".join(render(deterministic(PAIRS), 60, result, "openai fake", 7))
    assert "| English (WiCE, SummEdits) | 4 | 100.0 |" in text
