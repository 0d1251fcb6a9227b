"""Attributions that cite several sources at once: [@a; @b], \\cite{a,b}, [1, 3] (issue 16).

The rule: a figure or a name passes the deterministic step when at least one cited source (or its
bibliographic record) prints it; a miss names every cited source. With a judge, the attribution is
verified when one cited source supports it (literal evidence, no overclaim), and the finding says
which; when none does, each source's answer stands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from claimledger import GateConfig, Reason, gate
from claimledger.cli import cli
from claimledger.extract.attributions import draft_attribution_claims
from claimledger.extract.draft import parse_draft
from claimledger.extract.marks import Analysis
from claimledger.load.ledger import parse_ledger
from tests.judge_fakes import chat_server, table_policy, verdict

SMITH = (
    "Remote Work and Output\nJane Smith\n\n"
    "Output per hour fell by about 4% in the first six months. The effect faded after a year.\n"
)
JONES = "Quits and Hiring\nTom Jones\n\nQuits fell by 12% after the move to remote work; hiring was unchanged.\n"
TANAKA = "在宅勤務と生産性\n田中太郎\n\n移行後6か月の時間当たり生産量は約4%低下した。\n"
SATO = "在宅勤務と離職\n佐藤花子\n\n在宅勤務への移行後、離職率は12%低下した。\n"


def _workspace(tmp_path: Path, draft: str, name: str = "draft.md", extra: str = "") -> tuple[Path, Path]:
    for file, text in (("smith.txt", SMITH), ("jones.txt", JONES), ("tanaka.txt", TANAKA), ("sato.txt", SATO)):
        (tmp_path / file).write_text(text, "utf-8")
    (tmp_path / name).write_text(draft, "utf-8")
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text(
        "version: 1\nsources: {smith2019: smith.txt, jones2020: jones.txt, tanaka2019: tanaka.txt, sato2020: sato.txt}\n"
        + extra + "claims: []\n",
        "utf-8",
    )
    return tmp_path / name, ledger


def _reasons(findings: list[Any], line: int) -> set[str]:
    return {f.reason.value for f in findings if (f.location or {}).get("line") == line}


def test_every_cited_source_is_searched_for_figures_and_names(tmp_path: Path) -> None:
    draft, ledger = _workspace(
        tmp_path,
        "# Review\n\n"
        # 4% is Smith's, 12% is Jones's: both printed, each in one of the cited sources
        "Output per hour fell by about 4% while quits fell by 12% [@smith2019; @jones2020].\n"
        # Jones is a name only the second source (and its key) gives
        "As Jones notes, hiring was unchanged after the move to remote work [@smith2019; @jones2020].\n"
        # 9% is printed by neither
        "Quits fell by 9% after the move to remote work [@smith2019; @jones2020].\n",
    )
    report = gate(ledger, draft=draft)
    assert _reasons(report.findings, 3) == {"attribution_meaning_unchecked"}
    assert _reasons(report.findings, 4) == {"attribution_meaning_unchecked"}
    assert "attribution_number_absent" in _reasons(report.findings, 5)
    (absent,) = [f for f in report.findings if f.reason is Reason.ATTRIBUTION_NUMBER_ABSENT]
    assert "none of the 2 cited sources" in absent.message and "smith2019 or jones2020" in absent.message
    assert absent.extra["sources"] == ["smith2019", "jones2020"]
    (unchecked,) = [f for f in report.findings if f.reason is Reason.ATTRIBUTION_MEANING_UNCHECKED
                    and (f.location or {}).get("line") == 3]  # fmt: skip
    assert "smith2019 or jones2020" in unchecked.message
    # no unlisted_citation for the second key: the attribution cites it
    assert not [f for f in report.findings if f.reason is Reason.UNLISTED_CITATION]


def test_latex_cite_with_two_keys(tmp_path: Path) -> None:
    draft, ledger = _workspace(
        tmp_path,
        "\\section{Review}\nOutput per hour fell by about 4\\% while quits fell by 12\\% \\citep{smith2019,jones2020}.\n\n"
        "Quits fell by 9\\% after the move \\cite{smith2019, jones2020}.\n",
        name="draft.tex",
    )
    report = gate(ledger, draft=draft)
    assert _reasons(report.findings, 2) == {"attribution_meaning_unchecked"}
    assert "attribution_number_absent" in _reasons(report.findings, 4)


def test_a_japanese_attribution_citing_two_sources(tmp_path: Path) -> None:
    draft, ledger = _workspace(
        tmp_path,
        "# 先行研究\n\n"
        "移行後6か月の時間当たり生産量は約4%低下し、離職率は12%低下した[@tanaka2019; @sato2020]。\n"
        "離職率は20%低下した[@tanaka2019; @sato2020]。\n",
    )
    report = gate(ledger, draft=draft)
    assert _reasons(report.findings, 3) == {"attribution_meaning_unchecked"}
    assert "attribution_number_absent" in _reasons(report.findings, 4)


def test_numeric_citations_with_two_numbers(tmp_path: Path) -> None:
    refs = "references:\n  - {key: smith2019, title: Remote Work and Output}\n  - {key: jones2020, title: Quits and Hiring}\n"
    draft, ledger = _workspace(
        tmp_path,
        "Output per hour fell by about 4% while quits fell by 12% [1, 2].\nQuits fell by 9% after the move [1–2].\n",
        extra=refs,
    )
    report = gate(ledger, draft=draft, config=GateConfig(offline=True))
    assert _reasons(report.findings, 1) == {"attribution_meaning_unchecked"}
    assert "attribution_number_absent" in _reasons(report.findings, 2)


def test_the_key_with_the_locator_is_the_claims_source() -> None:
    ledger = parse_ledger("version: 1\nsources: {smith2019: s.txt, jones2020: j.txt}\nclaims: []\n", "l.yaml")
    text = "Quits fell by 12% after the move [see @smith2019; @jones2020, p. 1].\nOutput fell [@smith2019; @jones2020].\n"
    analysis = Analysis(parse_draft(text, "markdown", "d.md"), known_keys=set(ledger.sources))
    first, second = draft_attribution_claims(analysis, ledger)
    assert (first.source, first.also_cited, first.locator) == ("jones2020", ["smith2019"], "p. 1")
    assert (second.source, second.also_cited, second.locator) == ("smith2019", ["jones2020"], None)


def test_a_ledger_claim_whose_second_source_is_undeclared_fails_closed(tmp_path: Path) -> None:
    _draft, ledger = _workspace(tmp_path, "")
    ledger.write_text(
        "version: 1\nsources: {smith2019: smith.txt}\nclaims:\n"
        "  - {id: A1, kind: attribution, source: smith2019, also_cited: [jonse2020], attributed: \"quits fell by 12%\"}\n",
        "utf-8",
    )
    report = gate(ledger)
    reasons = {f.reason for f in report.findings if f.claim_id == "A1"}
    assert Reason.SOURCE_UNDECLARED in reasons and report.outcome.value != "PASS"


def _ledger_with_claim(tmp_path: Path, attributed: str) -> Path:
    _draft, ledger = _workspace(tmp_path, "")
    ledger.write_text(
        "version: 1\nsources: {smith2019: smith.txt, jones2020: jones.txt}\nclaims:\n"
        f"  - {{id: A1, kind: attribution, source: smith2019, also_cited: [jones2020], attributed: \"{attributed}\"}}\n",
        "utf-8",
    )
    return ledger


def _check_with_judge(tmp_path: Path, ledger: Path, policy: Any) -> dict[str, Any]:
    with chat_server(policy=policy) as srv:
        result = CliRunner().invoke(cli, [
            "check", "--ledger", str(ledger), "--format", "json", "--judge", "openai", "--judge-model", "fake",
            "--judge-url", srv.base_url + "/v1", "--judge-cache", str(tmp_path / "cache.sqlite3"),
        ])  # fmt: skip
        asked = [s for s in srv.seen]
    data: dict[str, Any] = json.loads(result.output)
    data["_asked"] = len(asked)
    data["_exit"] = result.exit_code
    return data


def test_with_a_judge_one_supporting_source_verifies_and_is_named(tmp_path: Path) -> None:
    ledger = _ledger_with_claim(tmp_path, "quits fell by 12% after the move to remote work")
    # the same answer for both requests: its evidence is Jones's text, so only the request about jones2020
    # can be accepted (for smith2019 the quote is not in the source and the answer is discarded)
    answer = verdict("supported", "Quits fell by 12% after the move to remote work", "Jones says so.")
    data = _check_with_judge(tmp_path, ledger, table_policy({"quits fell by 12% after the move to remote work": answer}))
    assert data["_asked"] == 2  # one request per cited source
    judged = [f for f in data["findings"] if f["check"] == "semantic_judge"]
    assert [(f["reason"], f["status"]) for f in judged] == [("attribution_supported", "verified")]
    assert judged[0]["extra"]["supported_by"] == "jones2020"
    assert judged[0]["extra"]["answers"]["smith2019"].startswith("supported (discarded)")
    assert "supported by jones2020" in judged[0]["message"]
    assert data["outcome"] == "PASS" and data["_exit"] == 0


def test_with_a_judge_no_supporting_source_keeps_every_answer(tmp_path: Path) -> None:
    ledger = _ledger_with_claim(tmp_path, "managers preferred office work")
    data = _check_with_judge(
        tmp_path, ledger, table_policy({"managers preferred office work": verdict("not_found", "", "Not addressed.")})
    )
    judged = [f for f in data["findings"] if f["check"] == "semantic_judge"]
    assert sorted((f["reason"], f["tier"], f["extra"]["source"]) for f in judged) == [
        ("judge_not_found", "HIGH", "jones2020"), ("judge_not_found", "HIGH", "smith2019"),
    ]
    assert all(f["message"].startswith(f["extra"]["source"] + ":") for f in judged)
    assert data["outcome"] == "FAIL" and data["_exit"] == 1
