"""The overclaim mutation families of `make eval` (evaluation/hedge_bench.py), on text written here."""

from __future__ import annotations

from evaluation.corpus import Document
from evaluation.hedge_bench import FAITHFUL, MUST_FLAG, build_hedge_bench, run_hedge_bench, table

EN = Document(
    "own-en",
    "en",
    "The service was launched in spring. Support staff usually answer every ticket within a working day. "
    "The cluster now runs on about 2,000 servers in three regions. The new cache may reduce latency for "
    "most readers of the site. Operators were pleased with the rollout of the system.",
    "test",
)
JA = Document(
    "own-ja",
    "ja",
    "新しい制度は四月に始まった。\n問い合わせには、通常1日以内に回答する体制を整えた。\n"
    "導入した企業は前年の約2倍に増えている。\n生成AIの導入で生産性が向上するかもしれない。\n男性が公園で犬と遊んでいる。\n",
    "test",
)


def test_families_are_built_from_the_sentences_and_scored() -> None:
    cases = build_hedge_bench([EN, JA], seed=1)
    fams = {(c.lang, c.family.split(" ")[0]) for c in cases}
    for lang in ("en", "ja"):
        for fam in ("hedge_dropped_statement", "hedge_outside_quote", "faithful_attribution", "faithful_quote_with_hedge"):
            assert (lang, fam) in fams, (lang, fam)
    dropped = next(c for c in cases if c.lang == "en" and c.family == "hedge_dropped_statement")
    assert "usually" in dropped.quote and "usually" not in dropped.statement
    cut = next(c for c in cases if c.lang == "en" and c.family == "hedge_outside_quote")
    assert cut.context is not None and cut.quote in cut.context and cut.statement == cut.quote
    outcomes = run_hedge_bench(cases)
    assert len(outcomes) == len(cases)
    for o in outcomes:
        assert o.must_verify is (o.family.split(" ")[0] in FAITHFUL)
        assert o.must_verify or o.family.split(" ")[0] in MUST_FLAG
    # on these clean sentences every must-flag case is flagged and no faithful variant is
    wrong = [(o.family, o.detail) for o in outcomes if o.verified != o.must_verify]
    assert wrong == []
    lines = table(outcomes)
    assert any(line.startswith("| en | 100.0%") for line in lines)


def test_negation_is_never_doubled() -> None:
    doc = Document("own-neg", "en", "The system does not store passwords in plain text at any time of day.", "test")
    assert not [c for c in build_hedge_bench([doc], seed=3) if c.family == "negation_inserted_statement"]
