"""Hedges and polarity of attributions: when a sentence of the cited source restates the attributed
text (two thirds of its words or more), the overclaim rules run between them (issue 16, gap 3).

The Japanese deterministic catch rate was 1/148: JNLI/JaNLI/JHARS pairs differ from their sources in
meaning, almost never in a printed figure or a marked name. What a deterministic step can see is a
negation or a hedge the draft drops from the very sentence it paraphrases (「…わけではない」,
「…らしい」, 「もしかしたら…」, 「…と言われている」; "did not", "may").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimledger import Reason, gate
from claimledger.checks.overclaim import overclaim_hits

SOURCE_EN = (
    "Remote Work and Output\nJane Smith\n\n"
    "We study call-centre workers who moved to home working in 2019. "
    "Remote work did not lower output per hour among experienced agents. "
    "For new hires, remote work may reduce the speed of onboarding. "
    "Managers reported more meetings after the move.\n"
)
SOURCE_JA = (
    "在宅勤務と離職\n田中太郎\n\n"
    "本研究はコールセンター従業員を対象に在宅勤務への移行を分析した。"
    "在宅勤務の導入後、ベテラン従業員の離職が増えているわけではない。"
    "新人の習熟はもしかしたら遅れているのかもしれない。"
    "管理職の会議は増えていると言われている。"
    "顧客満足度は移行後も安定しているらしい。\n"
)

CASES = [
    # (id, source, attributed, expected reason or None)
    ("EN-NEG", "en", "remote work lowered output per hour among experienced agents", Reason.OVERCLAIM_NEGATION),
    ("EN-MOD", "en", "for new hires, remote work reduces the speed of onboarding", Reason.OVERCLAIM_MODALITY),
    ("EN-OK1", "en", "remote work did not lower output per hour among experienced agents", None),
    ("EN-OK2", "en", "for new hires, remote work may slow onboarding", None),
    ("EN-FAR", "en", "remote work lowered the quality of meetings", None),  # no sentence restates it
    ("JA-NEG", "ja", "在宅勤務の導入後、ベテラン従業員の離職が増えている", Reason.OVERCLAIM_NEGATION),
    ("JA-ADV", "ja", "新人の習熟は遅れている", Reason.OVERCLAIM_MODALITY),
    ("JA-SAID", "ja", "管理職の会議は増えている", Reason.OVERCLAIM_MODALITY),
    ("JA-RASHII", "ja", "顧客満足度は移行後も安定している", Reason.OVERCLAIM_MODALITY),
    ("JA-OK1", "ja", "ベテラン従業員の離職が増えているわけではない", None),
    ("JA-OK2", "ja", "管理職の会議は増えていると言われている", None),
    ("JA-OK3", "ja", "顧客満足度は移行後も安定しているようだ", None),
]


def _gate(tmp_path: Path, claims: list[tuple[str, str, str]]) -> dict[str, set[Reason]]:
    (tmp_path / "en.txt").write_text(SOURCE_EN, "utf-8")
    (tmp_path / "ja.txt").write_text(SOURCE_JA, "utf-8")
    lines = ["version: 1", "sources: {en: en.txt, ja: ja.txt}", "claims:"]
    for cid, source, attributed in claims:
        lines.append(f'  - {{id: {cid}, kind: attribution, source: {source}, attributed: "{attributed}"}}')
    (tmp_path / "ledger.yaml").write_text("\n".join(lines) + "\n", "utf-8")
    report = gate(tmp_path / "ledger.yaml")
    out: dict[str, set[Reason]] = {cid: set() for cid, _s, _a in claims}
    for f in report.findings:
        if f.reason is not Reason.ATTRIBUTION_MEANING_UNCHECKED:
            out[f.claim_id].add(f.reason)
    return out


def test_a_dropped_negation_or_hedge_in_the_restated_sentence(tmp_path: Path) -> None:
    got = _gate(tmp_path, [(cid, src, text) for cid, src, text, _r in CASES])
    want = {cid: ({reason} if reason else set()) for cid, _s, _t, reason in CASES}
    assert got == want


def test_the_finding_quotes_the_restated_sentence(tmp_path: Path) -> None:
    (tmp_path / "ja.txt").write_text(SOURCE_JA, "utf-8")
    (tmp_path / "ledger.yaml").write_text(
        "version: 1\nsources: {ja: ja.txt}\nclaims:\n"
        '  - {id: A1, kind: attribution, source: ja, attributed: "在宅勤務の導入後、ベテラン従業員の離職が増えている"}\n',
        "utf-8",
    )
    report = gate(tmp_path / "ledger.yaml")
    (f,) = [f for f in report.findings if f.reason is Reason.OVERCLAIM_NEGATION]
    assert f.evidence is not None and "増えているわけではない" in f.evidence.text
    assert f.tier is not None and f.tier.value == "HIGH" and f.extra["source"] == "ja"
    assert report.outcome.value == "FAIL"


def test_with_two_cited_sources_a_faithful_restatement_clears_it(tmp_path: Path) -> None:
    (tmp_path / "en.txt").write_text(SOURCE_EN, "utf-8")
    (tmp_path / "b.txt").write_text("Among experienced agents, remote work lowered output per hour.\n", "utf-8")
    (tmp_path / "ledger.yaml").write_text(
        "version: 1\nsources: {en: en.txt, b: b.txt}\nclaims:\n"
        '  - {id: A1, kind: attribution, source: en, also_cited: [b], '
        'attributed: "remote work lowered output per hour among experienced agents"}\n',
        "utf-8",
    )
    report = gate(tmp_path / "ledger.yaml")
    assert {f.reason for f in report.findings} == {Reason.ATTRIBUTION_MEANING_UNCHECKED}


@pytest.mark.parametrize(
    ("statement", "quote", "rule"),
    [
        # JaNLI-shaped pairs: the cue before a long kana predicate, adverbs and hearsay
        ("ライダーが老人を追いかけている", "ライダーが老人を追いかけているわけではありません", "negation_dropped"),
        ("大人がライダーに跳びついた", "大人がライダーに跳びついたのではない", "negation_dropped"),
        ("サーファーが歌を歌っている", "ひょっとしたらサーファーが歌を歌っている", "modality_strengthened"),
        ("会社員が若者を押した", "会社員が若者を押したと言われている", "modality_strengthened"),
        ("若者が笑っている", "若者が笑っていると信じられている", "modality_strengthened"),
        # factive frames and certainty adverbs keep the content true: no finding
        ("女性が泣いている", "女性が泣いていることが知られている", None),
        ("会社員がスノーボーダーをたたいている", "間違いなく会社員がスノーボーダーをたたいている", None),
        ("ライダーが老人を追いかけているのではないか", "ライダーが老人を追いかけているのではないか", None),
    ],
)
def test_japanese_cues(statement: str, quote: str, rule: str | None) -> None:
    assert [h.rule for h in overclaim_hits(statement, quote)] == ([rule] if rule else [])
