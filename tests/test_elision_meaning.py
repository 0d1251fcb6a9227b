"""An omission or a bracketed insertion may not take a negation, a modal or a qualifier out of a quote.

Every segment of `"the new treatment was [...] effective"` is literally in a source that says "the new
treatment was not found to be effective": the literal match alone verified it, PASS, with the
finding inverted (found while reviewing the mutation benchmark's elided quotes). An elided quote is
now verified only when the source text its omissions stand for holds no negation, modal or qualifier
the quote leaves out, and each insertion carries the same kinds of cue as the text it replaces.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from claimledger import gate
from claimledger.checks.elisions import meaning_cues, split_elided
from claimledger.model.finding import Reason, Status
from claimledger.normalize import normalize_quote

EN = (
    "In the 2019 trial the new treatment was not found to be effective against the placebo in adults. "
    "The new drug may reduce relapse in some patients with the milder form of the disease. "
    "Side effects were usually mild and passed within a week for most of the volunteers. "
    "The programme, which not only began in spring but also ran in three regions, reduced reporting "
    "errors by 37 percent. Iain went back in [after the 2015 election], I knew that he was going to win.\n"
)
JA = (
    "この方法は、費用の点では従来の方法より優れているとは言えないが、作業時間を大幅に短縮できることが示された。"
    "この制度は地方の中小企業の負担を軽減する可能性があると指摘されている。"
    "調査では、導入企業のうち半数以上が、業務の効率が上がったと答えた。"
    "この発表によれば同社は［二〇一五年に］新工場を稼働させたと発表した。\n"
)

CASES = [
    # (id, language, quote, verified, what the finding names)
    ("E1", "en", "the new treatment was [...] effective against the placebo", False, "negation"),
    ("E2", "en", "the new treatment [was found to be] effective against the placebo", False, "negation"),
    ("E3", "en", "the new treatment [was not shown to be] effective against the placebo", True, None),
    ("E4", "en", "The new drug [...] reduce relapse in some patients with the milder form", False, "modal"),
    ("E5", "en", "Side effects were … mild and passed within a week", False, "qualifier"),
    ("E6", "en", "The programme, which [...] reduced reporting errors by 37 percent", True, None),  # "not only"
    ("E7", "en", "[Never] reduced reporting errors by 37 percent", False, "negation"),  # an insertion adds one
    ("E8", "en", "[The programme] reduced reporting errors by 37 percent", True, None),
    # a figure put in the source's mouth (found by make bench: a source's own "[after the 2015 election]")
    ("E9", "en", "Iain went back in [after the forty election], I knew that he was going", False, "figure"),
    ("E10", "en", "Iain went back in [after the 2015 election], I knew that he was going", True, None),
    ("E11", "en", "Iain went back in [after the election], I knew that he was going", True, None),
    ("J4", "ja", "この発表によれば同社は［二〇一九年に］新工場を稼働させたと発表した", False, "figure"),
    ("J5", "ja", "この発表によれば同社は［二〇一五年に］新工場を稼働させたと発表した", True, None),
    ("J1", "ja", "この方法は、費用の点では従来の方法より優れている（中略）作業時間を大幅に短縮できることが示された", False, "negation"),
    ("J2", "ja", "この制度は地方の中小企業の負担を軽減する（中略）と指摘されている", False, "modal"),
    ("J3", "ja", "導入企業のうち半数以上が（中略）業務の効率が上がったと答えた", True, None),
]


@pytest.fixture
def report(tmp_path: Path, write_ledger: Callable[..., Path]) -> dict[str, object]:
    (tmp_path / "en.txt").write_text(EN, "utf-8")
    (tmp_path / "ja.txt").write_text(JA, "utf-8")
    claims = "\n".join(
        f"  - {{id: {cid}, kind: quote, source: {lang}, quote: {json.dumps(quote, ensure_ascii=False)}}}"
        for cid, lang, quote, _, _ in CASES
    )
    ledger = write_ledger(f"version: 1\nsources: {{en: en.txt, ja: ja.txt}}\nclaims:\n{claims}\n")
    out = gate(ledger)
    return {f.claim_id: f for f in out.findings if f.check == "literal_quote"}


@pytest.mark.parametrize(("cid", "verified", "kind"), [(c[0], c[3], c[4]) for c in CASES], ids=[c[0] for c in CASES])
def test_an_elision_that_drops_a_negation_modal_or_qualifier_is_not_verified(
    report: dict[str, object], cid: str, verified: bool, kind: str | None
) -> None:
    f = report[cid]
    assert f.verified is verified, (f.reason.value, f.message)  # type: ignore[attr-defined]
    if not verified:
        assert f.status is Status.DISCREPANCY  # type: ignore[attr-defined]
        assert f.reason is Reason.QUOTE_ELISION_DROPS_MEANING and f.extra["dropped"] == kind  # type: ignore[attr-defined]
        assert f.evidence is not None and f.evidence.reading == "elided"  # type: ignore[attr-defined]
        assert f.extra["cue"] in f.message  # type: ignore[attr-defined]


def test_the_cues_come_from_the_overclaim_lexicon_in_both_languages() -> None:
    assert meaning_cues("was not found to be") == {"negation": "not"}
    assert meaning_cues("not only began in spring but also") == {}
    assert meaning_cues("may") == {"modal": "may"} and meaning_cues("usually") == {"qualifier": "usually"}
    assert meaning_cues("とは言えないが、")["negation"].startswith("とは言え")
    assert meaning_cues("可能性がある") == {"modal": "可能性がある"}
    assert meaning_cues("、業務の") == {}


def test_insertions_are_assigned_to_their_gaps() -> None:
    q = split_elided(normalize_quote("[The study] found that costs [...] fell [by half] in the second year"))
    assert q is not None
    assert q.segments == ("found that costs", "fell", "in the second year")
    assert q.gaps == ("elide", "insert") and q.gap_insertions == ("", "by half") and q.edge_insertions == ("the study",)


def test_elided_quotes_are_answered_while_their_source_is_loaded(
    tmp_path: Path, write_ledger: Callable[..., Path], source_reads: list[str]
) -> None:
    """The scan looks for an elided quote's segments while its cited source is loaded: the literal
    check does not read the source again (only two indexed sources stay in memory; with claims that
    alternate between three sources, every elided quote used to load its source back from the cache)."""

    third = "A third source about something else entirely, long enough to be a source of its own.\n"
    (tmp_path / "en.txt").write_text(EN, "utf-8")
    (tmp_path / "ja.txt").write_text(JA, "utf-8")
    (tmp_path / "other.txt").write_text(third, "utf-8")
    rows = []
    for i, (cid, lang, quote, _, _) in enumerate(CASES):
        rows.append(f"  - {{id: {cid}, kind: quote, source: {lang}, quote: {json.dumps(quote, ensure_ascii=False)}}}")
        rows.append(f"  - {{id: X{i}, kind: quote, source: other, quote: \"a third source about something else\"}}")
    ledger = write_ledger("version: 1\nsources: {en: en.txt, ja: ja.txt, other: other.txt}\nclaims:\n"
                          + "\n".join(rows) + "\n")  # fmt: skip
    out = gate(ledger)
    assert sorted(source_reads) == ["en", "ja", "other"]  # each read once, by the scan
    got = {f.claim_id: f for f in out.findings if f.check == "literal_quote"}
    for cid, _, _, verified, kind in CASES:
        assert got[cid].verified is verified, cid
        if kind is not None:
            assert got[cid].extra["dropped"] == kind
