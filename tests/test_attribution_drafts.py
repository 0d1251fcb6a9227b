"""Attributions read from drafts: Pandoc, LaTeX and numeric citations, exclusions, and `check DRAFT`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger import Reason, Tier, gate
from claimledger.cli import cli
from claimledger.extract.attributions import (
    attributed_text,
    find_attributions,
    is_excluded,
)
from claimledger.extract.citations import numeric_citations
from claimledger.extract.draft import parse_draft
from claimledger.extract.marks import Analysis

SOURCE = (
    "Remote Work and Output\nJane Smith\n\n"
    "Output per hour fell by about 4% in the first six months. The effect faded after a year."
)

DRAFT_MD = """# Review

Smith (2019) shows that output per hour fell by about 4% in the first six months [@smith2019, p. 2].
They conclude that output rose by 9% [@smith2019].
As "the effect faded after a year" [@smith2019], the loss was short-lived.
We believe remote work is here to stay [@smith2019].
Future research should test other sectors [@smith2019].
In this paper, we define productivity as output per hour [@smith2019].
田中ら（2019）は、時間当たり生産量は約4%低下したと報告した[@tanaka2019]。
今後の課題として他業種での検証が必要である[@tanaka2019]。
"""


def _analysis(text: str, fmt: str = "markdown") -> Analysis:
    return Analysis(parse_draft(text, fmt, "draft"), known_keys={"smith2019", "tanaka2019"})


def test_markdown_attributions_and_exclusions() -> None:
    found = find_attributions(_analysis(DRAFT_MD))
    got = [(a.keys, a.attributed, a.locator) for a in found]
    assert got == [
        (("smith2019",), "output per hour fell by about 4% in the first six months", "p. 2"),
        (("smith2019",), "output rose by 9%", None),
        (("tanaka2019",), "時間当たり生産量は約4%低下した", None),
    ]


def test_latex_citations_with_locators() -> None:
    tex = (
        "\\section{Review}\nAs \\citet[S.~4]{smith2019} argue, quits fell by half.\n"
        "Output per hour fell by about 4\\% \\citep[pp.~4--5]{smith2019}.\n"
    )
    found = find_attributions(_analysis(tex, "latex"))
    assert [a.locator for a in found] == ["S. 4", "pp. 4--5"]
    assert found[0].keys == ("smith2019",)


def test_numeric_citations_map_through_the_numbering() -> None:
    text = "Output fell by about 4% [1]. Quits fell by half [2–3]. See also [1, 3]. Later work [4] disagrees.\n"
    assert find_attributions(_analysis(text)) == []  # no numbering given: [n] is not read at all
    numbering = {"1": "smith2019", "2": "jones2020", "3": "tanaka2019"}
    analysis = Analysis(parse_draft(text, "markdown", "draft"), known_keys={"smith2019"}, numbering=numbering)
    found = find_attributions(analysis)
    assert [a.keys for a in found] == [
        ("smith2019",), ("jones2020", "tanaka2019"), ("smith2019", "tanaka2019"), ("[4]",)
    ]
    (wide,) = numeric_citations("[2-40]", numbering)  # 4..40 have no entry: each is an unlisted [n]
    assert wide.keys == ("jones2020", "tanaka2019", *(f"[{n}]" for n in range(4, 41)))


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("We believe remote work is here to stay.", "opinion"),
        ("In our view, the effect is small.", "opinion"),
        ("筆者は在宅勤務が定着すると考える。", "opinion"),
        ("Future work should test other sectors.", "future work"),
        ("Further research is needed on quits.", "future work"),
        ("今後の課題として他業種での検証が必要である。", "future work"),
        ("We define productivity as output per hour.", "definition"),
        ("Hereafter, WFH means working from home.", "definition"),
        ("本稿では、在宅勤務をテレワークと呼ぶ。", "definition"),
        ("Smith (2019) defines productivity as output per hour.", None),
        ("They conclude that remote work lowered output.", None),
    ],
)
def test_exclusions(sentence: str, why: str | None) -> None:
    assert is_excluded(sentence) == why


@pytest.mark.parametrize(
    ("sentence", "attributed"),
    [
        ("Smith (2019) shows that output fell.", "output fell"),
        ("Smith and Brown (2019) find that quits fell by half.", "quits fell by half"),
        ("They conclude that remote work lowered output.", "remote work lowered output"),
        ("Remote work lowered output per hour.", "Remote work lowered output per hour"),
        ("田中ら（2019）は、生産量は約4%低下したと報告した。", "生産量は約4%低下した"),
        ("生産量は約4%低下した。", "生産量は約4%低下した"),
    ],
)
def test_reporting_frames_are_taken_off(sentence: str, attributed: str) -> None:
    assert attributed_text(sentence) == attributed


def _files(tmp_path: Path, draft: str) -> tuple[Path, Path]:
    (tmp_path / "smith.txt").write_text(SOURCE, "utf-8")
    (tmp_path / "tanaka.txt").write_text("移行後6か月の時間当たり生産量は約4%低下した。", "utf-8")
    (tmp_path / "draft.md").write_text(draft, "utf-8")
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text("version: 1\nsources: {smith2019: smith.txt, tanaka2019: tanaka.txt}\nclaims: []\n", "utf-8")
    return tmp_path / "draft.md", ledger


def test_an_attribution_saying_the_opposite_is_never_pass_without_a_judge(tmp_path: Path) -> None:
    """Issue 16: with a ledger and no judge, an attribution that contradicts its source gave PASS."""
    draft, ledger = _files(tmp_path, "They conclude that remote work raised output per hour [@smith2019].\n")
    report = gate(ledger, draft=draft, allow=[".*"])
    assert report.outcome.value == "PARTIAL" and report.exit_code == 3
    (f,) = [f for f in report.findings if f.reason is Reason.ATTRIBUTION_MEANING_UNCHECKED]
    assert f.tier is Tier.MED and f.location is not None and f.location["line"] == 1
    result = CliRunner().invoke(cli, ["check", str(draft), "--ledger", str(ledger), "--allow", ".*"])
    assert result.exit_code == 3, result.output
    assert "meaning not checked" in result.output and "--judge" in result.output


def test_check_draft_catches_a_figure_and_a_wrong_page(tmp_path: Path) -> None:
    draft, ledger = _files(
        tmp_path,
        "Smith (2019) shows that output per hour fell by 9% in the first six months [@smith2019].\n\n"
        "Tanaka and Ito report that output fell [@tanaka2019].\n",
    )
    result = CliRunner().invoke(cli, ["check", str(draft), "--ledger", str(ledger), "--allow", ".*", "--format", "json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    reasons = {(f["location"]["line"], f["reason"]) for f in data["findings"] if f.get("location")}
    assert (1, "attribution_number_absent") in reasons
    assert (3, "attribution_name_absent") in reasons


def test_a_ledger_attribution_backs_the_draft_sentence(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    draft, _ = _files(tmp_path, "They conclude that output per hour fell by about 4% [@smith2019].\n")
    ledger = write_ledger(
        "version: 1\nsources: {smith2019: smith.txt}\nclaims:\n"
        "  - id: A1\n    kind: attribution\n    source: smith2019\n"
        "    attributed: \"output per hour fell by about 4%\"\n    location: {line: 1}\n"
    )
    report = gate(ledger, draft=draft)
    unchecked = [f.claim_id for f in report.findings if f.reason is Reason.ATTRIBUTION_MEANING_UNCHECKED]
    assert unchecked == ["A1"]  # one claim, not two


def test_extract_writes_attribution_claims(tmp_path: Path) -> None:
    draft, _ = _files(tmp_path, DRAFT_MD)
    result = CliRunner().invoke(cli, ["extract", str(draft)])
    assert result.exit_code == 0, result.output
    assert result.output.count("kind: attribution") == 3
    assert 'locator: "p. 2"' in result.output
    assert "時間当たり生産量は約4%低下した" in result.output


def test_the_audit_leaves_cited_figures_to_the_attribution_check(tmp_path: Path) -> None:
    draft, ledger = _files(
        tmp_path,
        "Output per hour fell by about 4% [@smith2019].\n\n"  # checked against smith2019: printed
        "Our own survey found 37% agree.\n\n"  # no citation: still unlisted
        "Quits fell by 12% [@nobody2020].\n",  # an undeclared key: still unlisted
    )
    report = gate(ledger, draft=draft)
    got = sorted(((f.location or {}).get("line"), f.reason.value) for f in report.findings)
    assert (1, "attribution_meaning_unchecked") in got
    assert (3, "unlisted_number") in got
    assert (5, "unlisted_citation") in got and (5, "unlisted_number") in got
    assert not [g for g in got if g[0] == 1 and g[1].startswith("unlisted")]
    assert not [f for f in report.findings if f.reason is Reason.ATTRIBUTION_NUMBER_ABSENT]


def test_the_demo_example_shows_what_make_demo_promises() -> None:
    root = Path(__file__).parent.parent / "examples" / "attribution"
    report = gate(root / "ledger.yaml", draft=root / "review.md")
    got = {((f.location or {}).get("line"), f.reason.value) for f in report.findings}
    assert (4, "attribution_number_absent") in got and (5, "attribution_name_absent") in got
    assert {(n, "attribution_meaning_unchecked") for n in (3, 4, 5, 6)} <= got
    assert not [g for g in got if g[0] == 7]  # the opinion on line 7 is not a claim
    assert not [g for g in got if g[0] in (3, 6) and g[1] != "attribution_meaning_unchecked"]
    assert report.outcome.value == "FAIL"
