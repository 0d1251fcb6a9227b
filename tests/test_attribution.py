"""Attribution claims ("Smith (2019) shows X"): the deterministic figures-and-names step and
"meaning not checked" without a judge. English and Japanese."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from claimledger import Reason, Status, Tier, gate
from claimledger.extract.names import find_names

SOURCE_EN = (
    "Remote Work and Output: Evidence from Call Centres\n"
    "Jane Smith, University of Leeds\n\n"
    "We study 1,204 call-centre workers who moved to home working on July 15, 2019. "
    "Output per hour fell by about 4% in the first six months. "
    "The effect faded after a year, and quits fell by half."
)
SOURCE_JA = (
    "在宅勤務と生産性\n田中 花子（東京大学）\n\n"
    "本研究はコールセンター従業員1,204人を対象に、2019年の在宅勤務移行を分析した。"
    "移行後6か月の時間当たり生産量は約4%低下した。その効果は1年後に消えた。"
)


def _ledger(tmp_path: Path, write_ledger: Callable[..., Path], claims: str) -> Path:
    (tmp_path / "smith.txt").write_text(SOURCE_EN, "utf-8")
    (tmp_path / "tanaka.txt").write_text(SOURCE_JA, "utf-8")
    return write_ledger("version: 1\nsources: {smith2019: smith.txt, tanaka2019: tanaka.txt}\nclaims:\n" + claims)


def _claim(cid: str, source: str, attributed: str, statement: str | None = None, extra: str = "") -> str:
    out = f"  - id: {cid}\n    kind: attribution\n    source: {source}\n    attributed: {attributed!r}\n"
    if statement:
        out += f"    statement: {statement!r}\n"
    return out + extra


def _by(report: object, cid: str) -> list[object]:
    return [f for f in report.findings if f.claim_id == cid]  # type: ignore[attr-defined]


def test_faithful_attribution_without_a_judge_is_meaning_not_checked(
    tmp_path: Path, write_ledger: Callable[..., Path]
) -> None:
    claims = _claim("A1", "smith2019", "output per hour fell by about 4% in the first six months",
                    "Smith (2019) finds that output per hour fell by about 4% in the first six months.")
    claims += _claim("A2", "tanaka2019", "移行後6か月の時間当たり生産量は約4%低下した",
                     "田中ら（2019）は、移行後6か月の時間当たり生産量は約4%低下したと報告した。")
    report = gate(_ledger(tmp_path, write_ledger, claims))
    assert report.outcome.value == "PARTIAL", [f.message for f in report.findings]
    assert report.exit_code == 3
    for cid in ("A1", "A2"):
        (only,) = _by(report, cid)
        assert only.reason is Reason.ATTRIBUTION_MEANING_UNCHECKED  # type: ignore[attr-defined]
        assert only.tier is Tier.MED  # type: ignore[attr-defined]
        assert "--judge" in only.message  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("cid", "source", "attributed", "statement", "reason", "missing"),
    [
        ("E1", "smith2019", "output per hour fell by 7% in the first six months", None,
         Reason.ATTRIBUTION_NUMBER_ABSENT, "7%"),
        ("E2", "smith2019", "output fell for 2,400 workers", None, Reason.ATTRIBUTION_NUMBER_ABSENT, "2,400"),
        ("E3", "smith2019", "output per hour fell, as the Kessler estimator shows",
         None, Reason.ATTRIBUTION_NAME_ABSENT, "Kessler"),
        ("E4", "smith2019", "output per hour fell",
         "Smith and Brown (2019) find that output per hour fell.", Reason.ATTRIBUTION_NAME_ABSENT, "Brown"),
        ("J1", "tanaka2019", "生産量は約7%低下した", None, Reason.ATTRIBUTION_NUMBER_ABSENT, "7%"),
        ("J2", "tanaka2019", "生産量はクラウドワークス社で低下した", None, Reason.ATTRIBUTION_NAME_ABSENT, "クラウドワークス"),
        ("J3", "tanaka2019", "生産量は低下した", "佐藤ら（2019）は生産量は低下したと報告した。",
         Reason.ATTRIBUTION_NAME_ABSENT, "佐藤"),
    ],
)
def test_figures_and_names_the_source_never_prints_are_high(
    tmp_path: Path, write_ledger: Callable[..., Path], cid: str, source: str, attributed: str,
    statement: str | None, reason: Reason, missing: str,
) -> None:  # fmt: skip
    report = gate(_ledger(tmp_path, write_ledger, _claim(cid, source, attributed, statement)))
    hits = [f for f in _by(report, cid) if f.reason is reason]  # type: ignore[attr-defined]
    assert hits, [f.message for f in _by(report, cid)]  # type: ignore[attr-defined]
    assert hits[0].tier is Tier.HIGH
    assert missing in hits[0].message
    assert hits[0].nearest is not None and hits[0].nearest.source == source  # the nearest passage is shown
    assert report.outcome.value == "FAIL"


def test_a_dropped_hedge_on_a_printed_figure_is_an_overclaim(
    tmp_path: Path, write_ledger: Callable[..., Path]
) -> None:
    claims = _claim("E1", "smith2019", "output per hour fell by 4% in the first six months")
    claims += _claim("J1", "tanaka2019", "時間当たり生産量は4%低下した")
    report = gate(_ledger(tmp_path, write_ledger, claims))
    for cid in ("E1", "J1"):
        over = [f for f in _by(report, cid) if f.reason is Reason.OVERCLAIM_HEDGE_DROPPED]  # type: ignore[attr-defined]
        assert over and over[0].tier is Tier.HIGH, [f.message for f in _by(report, cid)]  # type: ignore[attr-defined]
        assert over[0].evidence is not None and "4" in over[0].evidence.text


def test_names_in_the_bibliographic_record_or_key_are_fine(
    tmp_path: Path, write_ledger: Callable[..., Path]
) -> None:
    claims = _claim("E1", "smith2019", "quits fell by half",
                    "In the Journal of Labor Economics, Smith and Brown (2019) report that quits fell by half.",
                    "    record: \"Smith, J. and Brown, K. (2019). Remote work. Journal of Labor Economics 37(2).\"\n")
    report = gate(_ledger(tmp_path, write_ledger, claims))
    reasons = {f.reason for f in _by(report, "E1")}  # type: ignore[attr-defined]
    assert reasons == {Reason.ATTRIBUTION_MEANING_UNCHECKED}, [f.message for f in report.findings]


def test_an_undeclared_source_is_high_with_did_you_mean(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    report = gate(_ledger(tmp_path, write_ledger, _claim("E1", "smith2018", "output fell")))
    undeclared = [f for f in report.findings if f.reason is Reason.SOURCE_UNDECLARED]
    assert undeclared and undeclared[0].tier is Tier.HIGH and "smith2019" in undeclared[0].message
    assert report.outcome.value == "FAIL"


def test_an_author_alternative_explains_a_derived_figure(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    alt = "    author_alternative: \"602 is half of the 1,204 workers the paper studies (our arithmetic)\"\n"
    report = gate(_ledger(tmp_path, write_ledger, _claim("E1", "smith2019", "602 workers quit", None, alt)))
    absent = [f for f in report.findings if f.reason is Reason.ATTRIBUTION_NUMBER_ABSENT]
    assert absent and absent[0].status is Status.EXPLAINED and absent[0].tier is Tier.EXPLAINED


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Smith and Brown (2019) use DuckDB and the OECD panel.", ["Smith", "Brown", "DuckDB", "OECD"]),
        ("They conclude that remote work lowered output.", []),
        ("However, the Journal of Labor Economics printed it in March.", ["Journal", "Labor", "Economics"]),
        ("MiniCheck scores 75.0 on LLM-AggreFact.", ["MiniCheck", "LLM-AggreFact"]),
        ("田中ら（2019）はスミスの推定量を用いた。", ["田中", "スミス"]),
        ("本研究（2020）では在宅勤務を扱う。", []),
        ("ベッドの上でフルーツを食べるジョン・スミス", ["ジョン・スミス"]),  # loanwords are vocabulary
        ("Adobe Photoshopと併用されることが多い。", ["Adobe", "Photoshop"]),
        ("The GANs and PhDs of Sims-based work in Q4.", ["GAN", "PhD", "Sims"]),
        ("Executive Producer Ted Dintersmith toured New York City.", ["Ted", "Dintersmith", "New", "York"]),
    ],
)
def test_proper_names(text: str, names: list[str]) -> None:
    assert [n.text for n in find_names(text)] == names


@pytest.mark.parametrize(
    ("attributed", "flagged"),
    [
        ("the panel began on 15 July 2019", False),  # the source prints the year (and the date another way)
        ("home working spread in the 2010s", False),  # a decade: any year of it
        ("1. output per hour fell", False),  # a list marker, not a figure
        ("home working spread in 2021", True),  # a year the source never prints
        ("output fell by about 4% for 1,300 workers", True),
    ],
)
def test_dates_decades_and_list_markers(
    tmp_path: Path, write_ledger: Callable[..., Path], attributed: str, flagged: bool
) -> None:
    report = gate(_ledger(tmp_path, write_ledger, _claim("E1", "smith2019", attributed)))
    absent = [f for f in report.findings if f.reason is Reason.ATTRIBUTION_NUMBER_ABSENT]
    assert bool(absent) is flagged, [f.message for f in report.findings]


def test_names_in_the_bibliography_entry_count(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    from claimledger import GateConfig

    refs = ("references:\n  - key: smith2019\n    title: Remote work and output\n"
            "    authors: [\"Smith, Jane\", \"Okafor, Chidi\"]\n    year: 2019\n")  # fmt: skip
    claims = _claim("E1", "smith2019", "quits fell by half", "Smith and Okafor (2019) report that quits fell by half.")
    claims += _claim("E2", "smith2019", "quits fell by half", "Smith and Brown (2019) report that quits fell by half.")
    (tmp_path / "smith.txt").write_text(SOURCE_EN.replace("Jane Smith", "J. S."), "utf-8")
    ledger = write_ledger("version: 1\nsources: {smith2019: smith.txt}\n" + refs + "claims:\n" + claims)
    report = gate(ledger, config=GateConfig(offline=True))
    absent = [(f.claim_id, f.extra.get("name")) for f in report.findings if f.reason is Reason.ATTRIBUTION_NAME_ABSENT]
    assert absent == [("E2", "Brown")]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # nationality and regional words say where, not who: never names the source must print
        ("In 2022, 61% of small Canadian retailers sold goods online.", []),
        ("Most Canadians and Australians shop online, Smith finds.", ["Smith"]),
        ("A Franco-German panel and a Sub-Saharan sample, as Müller reports.", ["Müller"]),
        ("Japanese firms, unlike Korean ones, cut hours, as Tanaka and the OECD report.", ["Tanaka", "OECD"]),
        # real names next to them still count
        ("The Canadian survey of Statistics Canada, as Brown (2020) notes.", ["Statistics", "Canada", "Brown"]),
        ("カナダの研究では、アメリカ人の多くがスミス氏の推定量を用いた。", ["スミス"]),
        ("日本等の先進国では、田中らの手法と米国等の手法が比べられた。", ["田中"]),
        ("ドイツの研究によれば、ウッドリッジの推定量は偏る。", ["ウッドリッジ"]),
    ],
)
def test_demonyms_and_places_are_not_names(text: str, names: list[str]) -> None:
    assert [n.text for n in find_names(text)] == names


def test_a_nationality_word_is_no_false_alarm_but_a_missing_name_still_is(
    tmp_path: Path, write_ledger: Callable[..., Path]
) -> None:
    """Red-team false alarm (issue 16): 'Canadian' was reported as a name its source never prints."""
    (tmp_path / "retail.txt").write_text(
        "Retail Trade Survey 2022\n\nIn 2022, 61% of small retailers in Canada sold goods online.\n", "utf-8"
    )
    (tmp_path / "ja.txt").write_text("2022年、カナダの小規模小売業者の61%がオンラインで販売した。\n", "utf-8")
    claims = _claim("C1", "retail", "61% of small Canadian retailers sold goods online in 2022")
    claims += _claim("C2", "retail", "61% of small Canadian retailers sold goods online, as Kessler shows")
    claims += _claim("C3", "ja", "カナダの研究では小規模小売業者の61%がオンラインで販売した")
    ledger = write_ledger("version: 1\nsources: {retail: retail.txt, ja: ja.txt}\nclaims:\n" + claims)
    report = gate(ledger)
    names = {(f.claim_id, f.extra.get("name")) for f in report.findings if f.reason is Reason.ATTRIBUTION_NAME_ABSENT}
    assert names == {("C2", "Kessler")}
