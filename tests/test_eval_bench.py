"""The accuracy benchmark: deterministic generation, every mutation family, a small real run.

Built from a tiny text written for this test (never from ../shared/bench).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from evaluation import mutations as mut
from evaluation.corpus import Document
from evaluation.numbers_bench import Table, build_number_bench, numeric_columns
from evaluation.passages import loose
from evaluation.quote_bench import QuoteBench, build_quote_bench
from evaluation.runner import run_number_bench, run_quote_bench
from evaluation.scoring import tally

EN_A = """Field notes from the harbour survey
The final inspection of the northern breakwater found about 1274 damaged concrete blocks along the outer wall
Engineers estimated that the effluent flow from the old treatment plant may reach 3650 litres every hour in winter
Our well-known harbourmaster said the offshore wind farm would probably double the traffic of service boats by spring
Volunteers counted roughly 4821 seabirds nesting on the cliffs although the weather made the final tally difficult
"""
EN_B = """Minutes of the library committee
The committee agreed that the reading room should stay open until nine in the evening during the examination weeks
Members noted that approximately 2396 books were borrowed last month which is the highest figure since the renovation
A short discussion about the leaking roof ended with a promise to ask the council for an independent structural survey
The treasurer reported that the coffee fund had grown to 5182 coins and suggested buying a second kettle for the staff
"""
JA_A = """港の調査では北側の防波堤で約1274個のブロックが損傷していた。
技術者は古い処理場からの排水が冬には毎時3650リットルに達する可能性があると見積もった。
ボランティアは崖に巣を作る海鳥をおよそ4821羽数えたが天候のために集計は難しかった。
"""
JA_B = """図書館の委員会は試験期間中に閲覧室を夜九時まで開けることに合意した。
先月は約2396冊の本が貸し出され改装以来の最高となったと委員は述べた。
会計係はコーヒー基金が5182枚の硬貨になったと報告しもう一つのやかんを買うことを提案した。
"""


def _docs() -> list[Document]:
    return [
        Document("en-a", "en", EN_A, "test"),
        Document("en-b", "en", EN_B, "test"),
        Document("ja-a", "ja", JA_A, "test"),
        Document("ja-b", "ja", JA_B, "test"),
    ]


def _fingerprint(bench: QuoteBench) -> list[tuple[str, str, str, bool]]:
    return [(c.case_id, c.cite, c.quote, c.must_verify) for c in bench.cases]


def test_same_seed_same_cases_other_seed_other_cases() -> None:
    first, again = build_quote_bench(_docs(), 11), build_quote_bench(_docs(), 11)
    assert _fingerprint(first) == _fingerprint(again)
    assert first.derived == again.derived
    assert _fingerprint(build_quote_bench(_docs(), 12)) != _fingerprint(first)


def test_every_mutation_family_is_produced() -> None:
    families: Counter[tuple[str, str]] = Counter()
    for seed in range(1, 6):
        families.update((c.lang, c.family) for c in build_quote_bench(_docs(), seed).cases)
    en = {fam for lang, fam in families if lang == "en"}
    ja = {fam for lang, fam in families if lang == "ja"}
    assert en == set(mut.MUST_VERIFY) | set(mut.MUST_NOT)
    # no hyphenation or ligatures in Japanese; everything else
    assert ja == (set(mut.MUST_VERIFY) | set(mut.MUST_NOT)) - {
        "ligature_quote", "hyphen_quote", "hyphen_source", "ligature_source",
    }  # fmt: skip


def test_must_not_cases_are_really_absent_and_must_verify_are_typography_only() -> None:
    bench = build_quote_bench(_docs(), 3)
    texts = {d.doc_id: d.text for d in bench.documents}
    for case in bench.cases:
        cited = texts.get(case.cite, bench.derived.get(case.cite, texts[case.doc_id]))
        if not case.must_verify and case.family not in ("too_short", "cut_inside"):  # substrings by design
            assert loose(case.quote) not in loose(cited), case.case_id
        if case.must_verify:
            assert loose(case.quote) in loose(texts[case.doc_id]), case.case_id


def test_small_run_no_false_verify_and_every_must_verify_verified(tmp_path: Path) -> None:
    bench = build_quote_bench(_docs(), 5)
    assert len(bench.cases) >= 30
    outcomes = run_quote_bench(bench, tmp_path)
    assert len(outcomes) == len(bench.cases)
    bad = [(o.case_id, o.reason) for o in outcomes if o.false_verify or o.miss or o.wrong_reason]
    assert bad == []
    by_lang = tally(outcomes)
    assert by_lang["en"].false_verify_rate == 0.0 and by_lang["en"].miss_rate == 0.0
    assert by_lang["ja"].false_verify_rate == 0.0 and by_lang["ja"].miss_rate == 0.0
    reasons = {o.family: o.reason for o in outcomes if o.expect_reason}
    assert reasons == {"misattributed": "quote_misattributed", "too_short": "quote_too_short"}


def test_numbers_small_run(tmp_path: Path) -> None:
    tables = [
        Table("t-a", ["year", "team", "points", "ratio"],
              [["1990", "reds", "1274", "0.37"], ["1991", "blues", "365", "1.25"], ["1992", "greens", "4821", "12.5"]]),
        Table("t-b", ["rank", "score"], [["1", "12.34"], ["2", "56.78"], ["3", "7"], ["4", "0.5"]]),
    ]  # fmt: skip
    assert numeric_columns(tables[0]) == [0, 2, 3]
    bench = build_number_bench(tables, 1)
    assert build_number_bench(tables, 1).cases == bench.cases
    families = {c.family for c in bench.cases}
    assert families == {
        "exact",
        "display_inside",
        "display_outside",
        "relative_inside",
        "relative_outside",
        "digits_swapped",
    }
    outcomes = run_number_bench(bench, tmp_path)
    assert [o.case_id for o in outcomes if o.false_verify or o.miss] == []
    assert tally(outcomes)["en"].n == len(bench.cases)


@pytest.mark.parametrize(
    ("family", "text", "expected"),
    [
        ("digits_swapped", "about 1274 blocks", "about 2174 blocks"),
        ("hedge_dropped", "about 1274 blocks were found", "1274 blocks were found"),
        ("negation_inserted", "the flow may reach 3650", "the flow may not reach 3650"),
    ],
)
def test_mutations_do_what_they_say(family: str, text: str, expected: str) -> None:
    import random

    result = mut.SIMPLE[family](text, "en", random.Random(0))
    if family == "digits_swapped":
        assert result is not None and sorted(result) == sorted(text) and result != text
    else:
        assert result == expected
