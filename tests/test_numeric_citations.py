"""Numeric citations ([1], [2–4], [1, 3], ［１］, ^2^, ¹) map through the bibliography's order (issue 16).

The n-th entry of the ledger's bibliography (``references:``, then the ``bibliography:`` files, in
the order they are written) is the source of ``[n]``; a number no entry has is an unlisted
citation (HIGH), never skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger import GateConfig, Reason, Tier, gate
from claimledger.cli import cli
from claimledger.extract.citations import numeric_citations
from tests.refs_fake import Fake
from tests.test_refs_fetch_sources import LEDGER as FETCH_LEDGER
from tests.test_refs_fetch_sources import _draft_checks, fake, pdfs  # noqa: F401 (fixtures)

NUMBERING = {"1": "smith2019", "2": "jones2020", "3": "tanaka2019"}

SMITH = (
    "Remote Work and Output\nJane Smith\n\n"
    "Output per hour fell by about 4% in the first six months. The effect faded after a year.\n"
)
JONES = "Quits and Hiring\nTom Jones\n\nQuits fell by half after the move to remote work; hiring was unchanged.\n"
TANAKA = "在宅勤務と生産性\n田中太郎\n\n移行後6か月の時間当たり生産量は約4%低下した。離職は半減した。\n"

REFERENCES = """references:
  - {key: smith2019, title: "Remote Work and Output", authors: ["Smith, Jane"], year: 2019}
  - {key: jones2020, title: "Quits and Hiring", authors: ["Jones, Tom"], year: 2020}
  - {key: tanaka2019, title: "在宅勤務と生産性", authors: ["田中, 太郎"], year: 2019}
"""


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("Output fell by about 4% [1].", [("smith2019",)]),
        ("Quits fell by half [2–3].", [("jones2020", "tanaka2019")]),  # en dash
        ("Quits fell by half [2-3].", [("jones2020", "tanaka2019")]),  # hyphen
        ("Both say so [1, 3] and [1; 2].", [("smith2019", "tanaka2019"), ("smith2019", "jones2020")]),
        ("Hiring doubled [7].", [("[7]",)]),  # no 7th entry: an unlisted citation, not skipped
        ("Quits fell [2–4].", [("jones2020", "tanaka2019", "[4]")]),
        ("生産量は約4%低下した［１］。", [("smith2019",)]),  # full-width brackets and digit
        ("生産量は約4%低下した[3]。離職は半減した［１、３］。", [("tanaka2019",), ("smith2019", "tanaka2019")]),
        ("Output fell by about 4%.^1^ Quits fell.^2,3^", [("smith2019",), ("jones2020", "tanaka2019")]),
        ("Output fell by about 4%.¹ Quits fell by half.²⁻³", [("smith2019",), ("jones2020", "tanaka2019")]),
        ("As shown[1], output fell.", [("smith2019",)]),
        # not citations: indexing, exponents, intervals, years, link labels and definitions, long runs
        ("The value x[1] and df[2] are inputs.", []),
        ("The area is 12 km² and x² grows.", []),
        ("Scores lie in the range [1, 5] and between [1, 3].", []),
        ("The archive [2019] was reopened.", []),
        ("[1]: https://example.org/smith", []),
        ("Pages [1-90] were scanned.", []),
    ],
)
def test_numeric_citation_forms(text: str, keys: list[tuple[str, ...]]) -> None:
    assert [c.keys for c in numeric_citations(text, NUMBERING)] == keys


def _write(tmp_path: Path, draft: str, bibliography: str = REFERENCES, name: str = "draft.md") -> tuple[Path, Path]:
    (tmp_path / "smith.txt").write_text(SMITH, "utf-8")
    (tmp_path / "jones.txt").write_text(JONES, "utf-8")
    (tmp_path / "tanaka.txt").write_text(TANAKA, "utf-8")
    (tmp_path / name).write_text(draft, "utf-8")
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text(
        "version: 1\nsources: {smith2019: smith.txt, jones2020: jones.txt, tanaka2019: tanaka.txt}\n"
        + bibliography + "claims: []\n",
        "utf-8",
    )
    return tmp_path / name, ledger


def _by_line(report_findings: list) -> set[tuple[int | None, str]]:  # type: ignore[type-arg]
    return {((f.location or {}).get("line"), f.reason.value) for f in report_findings}


def test_an_english_review_with_numeric_citations(tmp_path: Path) -> None:
    draft, ledger = _write(
        tmp_path,
        "# Related work\n\n"
        "Output per hour fell by about 9% in the first six months [1].\n"  # 9%: Smith prints 4%
        "Quits fell by half after the move to remote work [2].\n"  # faithful to Jones
        "Hiring doubled after the move [7].\n"  # there is no 7th entry
        "The effect faded after a year [1–2].\n",
    )
    report = gate(ledger, draft=draft, config=GateConfig(offline=True))
    got = _by_line(report.findings)
    assert (3, "attribution_number_absent") in got
    (absent,) = [f for f in report.findings if f.reason is Reason.ATTRIBUTION_NUMBER_ABSENT]
    assert "smith2019" in absent.message and "'9%'" in absent.message  # [1] is the first entry: Smith
    assert (4, "attribution_meaning_unchecked") in got and not [g for g in got if g[0] == 4 and g[1] != "attribution_meaning_unchecked"]
    (unknown,) = [f for f in report.findings if f.reason is Reason.UNLISTED_CITATION]
    assert unknown.tier is Tier.HIGH and unknown.claimed == "[7]" and (unknown.location or {}).get("line") == 5
    assert "3 entries" in unknown.message
    assert (6, "attribution_meaning_unchecked") in got
    assert report.outcome.value == "FAIL"


def test_a_japanese_review_with_full_width_numeric_citations(tmp_path: Path) -> None:
    draft, ledger = _write(
        tmp_path,
        "# 先行研究\n\n"
        "田中（2019）によれば、時間当たり生産量は約4%低下した［３］。\n"  # faithful
        "時間当たり生産量は約8%低下したと報告されている[3]。\n"  # 8%: the source prints 約4%
        "離職は半減した［９］。\n",  # no 9th entry
    )
    report = gate(ledger, draft=draft, config=GateConfig(offline=True))
    got = _by_line(report.findings)
    assert (3, "attribution_meaning_unchecked") in got and not [g for g in got if g[0] == 3 and g[1] != "attribution_meaning_unchecked"]
    assert (4, "attribution_number_absent") in got
    (unknown,) = [f for f in report.findings if f.reason is Reason.UNLISTED_CITATION]
    assert unknown.claimed == "[9]" and (unknown.location or {}).get("line") == 5 and unknown.tier is Tier.HIGH


def test_the_order_of_a_bibtex_file_is_the_numbering(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(
        "@article{jones2020, title={Quits and Hiring}, author={Jones, Tom}, year={2020}, journal={Labour}}\n\n"
        "@article{smith2019, title={Remote Work and Output}, author={Smith, Jane}, year={2019}, journal={Labour}}\n",
        "utf-8",
    )
    draft, ledger = _write(
        tmp_path, "Output per hour fell by about 9% in the first six months [2].\n", "bibliography: refs.bib\n"
    )
    report = gate(ledger, draft=draft, config=GateConfig(offline=True))
    (absent,) = [f for f in report.findings if f.reason is Reason.ATTRIBUTION_NUMBER_ABSENT]
    assert "smith2019" in absent.message  # [2] is the second entry of refs.bib
    assert not [f for f in report.findings if f.reason is Reason.UNLISTED_CITATION]


def test_without_a_bibliography_a_numeric_citation_is_unlisted(tmp_path: Path) -> None:
    draft, ledger = _write(tmp_path, "Output per hour fell by about 4% in the first six months [1].\n", "")
    result = CliRunner().invoke(cli, ["check", str(draft), "--ledger", str(ledger), "--format", "json"])
    assert result.exit_code == 1, result.output
    (f,) = [f for f in json.loads(result.output)["findings"] if f["reason"] == "unlisted_citation"]
    assert f["tier"] == "HIGH" and f["claimed"] == "[1]" and "no bibliography" in f["message"]


def test_numeric_source_ids_are_their_own_numbers(tmp_path: Path) -> None:
    (tmp_path / "smith.txt").write_text(SMITH, "utf-8")
    (tmp_path / "draft.md").write_text("Output per hour fell by about 9% in the first six months [1].\n", "utf-8")
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text('version: 1\nsources: {"1": smith.txt}\nclaims: []\n', "utf-8")
    report = gate(ledger, draft=tmp_path / "draft.md")
    assert {f.reason for f in report.findings} >= {Reason.ATTRIBUTION_NUMBER_ABSENT}
    assert not [f for f in report.findings if f.reason is Reason.UNLISTED_CITATION]


def test_a_bracketed_number_inside_a_quotation_is_the_source_s_text(tmp_path: Path) -> None:
    draft, ledger = _write(
        tmp_path, 'Smith writes that "the effect faded after a year [3] in every sector" [@smith2019].\n'
    )
    report = gate(ledger, draft=draft, config=GateConfig(offline=True))
    assert not [f for f in report.findings if f.reason is Reason.UNLISTED_CITATION]


def test_audit_and_lint_read_the_bibliography_order_too(tmp_path: Path) -> None:
    """Without the gate (``audit``, ``lint``), [n] still maps through the ledger's bibliography."""
    draft, ledger = _write(
        tmp_path, "Output per hour fell by about 4% in the first six months [1].\nHiring doubled [7].\n"
    )
    text = ledger.read_text("utf-8").replace(
        "claims: []",
        "claims:\n  - {id: A1, kind: attribution, source: smith2019, attributed: \"output per hour fell by about 4%\","
        " location: {line: 1}}",
    )
    ledger.write_text(text, "utf-8")
    result = CliRunner().invoke(cli, ["audit", str(draft), "--ledger", str(ledger), "--format", "json", "--allow", "4%"])
    cited = [f for f in json.loads(result.output)["findings"] if f["reason"] == "unlisted_citation"]
    assert [(f["claimed"], f["location"]["line"]) for f in cited] == [("[7]", 2)], result.output


def test_fetch_sources_follows_numeric_citations(tmp_path: Path, fake: Fake) -> None:  # noqa: F811 (fixture)
    """--fetch-sources: [1] and ［３］ are the 1st and 3rd bibliography entries, whose verified PDFs
    check the quotations (the local fake serves the services and the PDFs)."""
    (tmp_path / "ledger.yaml").write_text(FETCH_LEDGER.split("claims:")[0], "utf-8")
    draft = tmp_path / "draft.md"
    draft.write_text(
        'Vaswani et al. propose a model "based solely on attention mechanisms" [1].\n\n'
        "鈴木らは「誤った引用の九割以上を検出できた」と報告している［３］。\n",
        "utf-8",
    )
    args = ["check", str(draft), "--ledger", str(tmp_path / "ledger.yaml"), "--allow-private-urls", "-f", "json"]
    found = _draft_checks(json.loads(CliRunner().invoke(cli, [*args, "--fetch-sources"]).stdout))
    assert found[1] == "quote_found" and found[3] == "quote_found"
    assert sorted(h for h in fake.hits if h.startswith("/pdf/")) == ["/pdf/1706.03762", "/pdf/2304.01234"]


def test_html_superscripts_in_markdown(tmp_path: Path) -> None:
    """<sup>1</sup> (the tag is not prose, its digits are): a citation, not a figure of the claim."""
    draft, ledger = _write(
        tmp_path,
        "Output per hour fell by about 9% in the first six months.<sup>1</sup>\n\n"
        "Quits fell by half after the move to remote work<sup>2-3</sup>, and hiring doubled.<sup>8</sup>\n\n"
        "`<sup>4</sup>` is code, not a citation.\n",
    )
    report = gate(ledger, draft=draft, config=GateConfig(offline=True))
    got = _by_line(report.findings)
    assert (1, "attribution_number_absent") in got  # [1] -> smith2019, which prints 4%, not 9%
    (unknown,) = [f for f in report.findings if f.reason is Reason.UNLISTED_CITATION]
    assert unknown.claimed == "[8]" and (unknown.location or {}).get("line") == 3
    assert not [f for f in report.findings if f.reason is Reason.UNLISTED_NUMBER and f.claimed in ("1", "2-3", "8")]
