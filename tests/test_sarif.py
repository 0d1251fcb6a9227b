"""SARIF 2.1.0: valid against the official schema; ruleId, level and location mapping."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from claimledger.cli import cli
from claimledger.model.finding import Evidence, Finding, Reason, Status, Tier
from claimledger.model.report import Outcome, Report
from claimledger.output.sarif import sarif_log
from tests.report_helpers import EN_DRAFT, EXAMPLES, JA_DRAFT, en_report, ja_report, place_in_draft

SCHEMA_PATH = Path(__file__).parent / "fixtures" / "sarif-schema-2.1.0.json"


@cache
def _validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif-schema-2.1.0.json") and schema["properties"]["version"]["enum"] == [
        "2.1.0"
    ]
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def _valid(log: dict[str, Any]) -> dict[str, Any]:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in _validator().iter_errors(log)]
    assert errors == []
    return log


def test_cli_sarif_is_schema_valid_and_keeps_the_exit_code() -> None:
    result = CliRunner().invoke(cli, [
        "check", "--ledger", str(EXAMPLES / "en" / "ledger.yaml"), "--metrics", str(EXAMPLES / "en" / "metrics.py"),
        "--format", "sarif",
    ])  # fmt: skip
    assert result.exit_code == 1
    log = _valid(json.loads(result.stdout))
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "claimledger"
    assert run["invocations"][0]["exitCode"] == 1 and run["properties"]["outcome"] == "FAIL"
    # one result per finding that is not verified (4 HIGH, 1 EXPLAINED); verified claims are not results
    got = sorted((r["properties"]["claimId"], r["ruleId"], r["level"]) for r in run["results"])
    assert got == [
        ("C2", "quote_near_miss", "error"),
        ("C3", "quote_misattributed", "error"),
        ("C4", "quote_only_in_hidden_text", "error"),
        ("N3", "result_non_finite", "error"),
        ("N4", "number_mismatch", "note"),
    ]


def test_schema_rejects_a_broken_log() -> None:
    log = sarif_log(en_report())
    log["runs"][0]["results"][0]["level"] = "fatal"
    del log["runs"][0]["tool"]["driver"]["name"]
    assert len(list(_validator().iter_errors(log))) == 2


def test_rules_describe_every_reason_and_results_point_at_them() -> None:
    run = _valid(sarif_log(en_report()))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [rule["id"] for rule in rules]
    assert len(ids) == len(set(ids))
    verified = {"quote_found", "number_match", "reference_verified", "attribution_supported", "dataset_fact_confirmed"}
    assert set(ids) == {r.value for r in Reason} - verified
    for rule in rules:
        assert rule["shortDescription"]["text"].endswith(".") and len(rule["shortDescription"]["text"]) > 10
        assert rule["defaultConfiguration"]["level"] in {"error", "warning", "note"}
    by_id = {rule["id"]: rule for rule in rules}
    assert by_id["quote_near_miss"]["defaultConfiguration"]["level"] == "error"
    assert by_id["source_timeout"]["defaultConfiguration"]["level"] == "warning"
    assert by_id["source_forbidden"]["defaultConfiguration"]["level"] == "note"
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def _finding(claim_id: str, reason: Reason, tier: Tier | None, **kw: Any) -> Finding:
    status = (
        Status.VERIFIED
        if tier is None
        else (Status.EXPLAINED if tier is Tier.EXPLAINED else Status.DISCREPANCY)
    )
    return Finding(claim_id, "literal_quote", status, reason, f"message for {claim_id}", tier=tier, **kw)


def _synthetic(fail_closed: bool = True) -> Report:
    ledger = {"file": None, "line": 12, "in": "ledger"}
    findings = [
        _finding(
            "H", Reason.QUOTE_ABSENT, Tier.HIGH, location={"file": "docs/draft.md", "line": 3, "column": 7}
        ),
        _finding("M", Reason.SOURCE_TIMEOUT, Tier.MED, location=ledger),
        _finding("L", Reason.SOURCE_FORBIDDEN, Tier.LOW, location=ledger),
        _finding(
            "E", Reason.NUMBER_MISMATCH, Tier.EXPLAINED, location=ledger, author_alternative="10% sample"
        ),
        _finding("V", Reason.QUOTE_FOUND, None, location=ledger),
    ]
    return Report(Outcome.FAIL, findings, claims_total=5, fail_closed=fail_closed,
                  reproducibility={"ledger": {"path": str(Path.cwd() / "ledger.yaml")}})  # fmt: skip


def test_level_from_tier() -> None:
    results = _valid(sarif_log(_synthetic()))["runs"][0]["results"]
    assert [(r["properties"]["claimId"], r["level"]) for r in results] == [
        ("H", "error"), ("M", "warning"), ("L", "note"), ("E", "note"),
    ]  # fmt: skip
    assert results[3]["properties"]["authorAlternative"] == "10% sample"


def test_no_fail_closed_reports_high_as_warning() -> None:
    run = _valid(sarif_log(_synthetic(fail_closed=False)))["runs"][0]
    assert run["results"][0]["level"] == "warning" and run["results"][0]["properties"]["tier"] == "HIGH"
    assert run["invocations"][0]["properties"]["failClosed"] is False


def test_draft_line_and_column_and_ledger_line() -> None:
    results = _valid(sarif_log(_synthetic()))["runs"][0]["results"]
    draft = results[0]["locations"][0]["physicalLocation"]
    assert draft["artifactLocation"] == {"uri": "docs/draft.md", "uriBaseId": "%SRCROOT%"}
    assert draft["region"] == {"startLine": 3, "startColumn": 7}
    ledger = results[1]["locations"][0]
    assert ledger["physicalLocation"]["artifactLocation"] == {"uri": "ledger.yaml", "uriBaseId": "%SRCROOT%"}
    assert ledger["physicalLocation"]["region"] == {"startLine": 12}
    assert ledger["message"]["text"] == "claim M in the ledger"


def test_example_claims_point_at_their_ledger_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES.parent)
    report = en_report()
    results = _valid(sarif_log(report))["runs"][0]["results"]
    lines = {f.claim_id: f.location["line"] for f in report.findings if f.location}
    ledger_text = (EXAMPLES / "en" / "ledger.yaml").read_text(encoding="utf-8").splitlines()
    for r in results:
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "examples/en/ledger.yaml"
        line = loc["region"]["startLine"]
        assert line == lines[r["properties"]["claimId"]]
        assert f"id: {r['properties']['claimId']}" in ledger_text[line - 1]


def test_draft_findings_from_the_examples(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    report = place_in_draft(en_report(), EN_DRAFT, "reports/weekly.md")
    results = _valid(sarif_log(report))["runs"][0]["results"]
    c2 = next(r for r in results if r["properties"]["claimId"] == "C2")
    region = c2["locations"][0]["physicalLocation"]["region"]
    line = EN_DRAFT.splitlines()[region["startLine"] - 1]
    assert line[region["startColumn"] - 1 :].startswith(
        "adding an independent verification step reduced errors by 73"
    )
    assert c2["properties"]["nearest"]["page"] == 1 and "37 percent" in c2["properties"]["nearest"]["text"]
    assert c2["properties"]["diff"].endswith("[-73-]{+37+} percent")
    # the ledger outside the current directory is referenced by an absolute file: URI
    n3 = next(r for r in results if r["properties"]["claimId"] == "N3")
    assert n3["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///")


def test_japanese_paths_and_text() -> None:
    report = place_in_draft(ja_report(), JA_DRAFT, "下書き/ダイジェスト.md")
    log = _valid(sarif_log(report))
    results = log["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"%E4%B8%8B%E6%9B%B8%E3%81%8D/%E3%83%80%E3%82%A4%E3%82%B8%E3%82%A7%E3%82%B9%E3%83%88.md"}
    q2 = next(r for r in results if r["properties"]["claimId"] == "Q2")
    assert "生成" in q2["message"]["text"] and q2["level"] == "error"


def test_finding_without_any_location_has_none() -> None:
    f = _finding("X", Reason.QUOTE_ABSENT, Tier.HIGH, nearest=Evidence("s", 0, 3, "abc"))
    run = _valid(sarif_log(Report(Outcome.FAIL, [f], claims_total=1)))["runs"][0]
    assert "locations" not in run["results"][0]
    assert "abc" in run["results"][0]["message"]["text"]


def test_no_claims_is_an_empty_but_valid_run() -> None:
    run = _valid(sarif_log(Report(Outcome.NO_CLAIMS, [], claims_total=0)))["runs"][0]
    assert run["results"] == [] and run["invocations"][0]["exitCode"] == 4


def test_every_reason_code_has_its_own_rule_text() -> None:
    from claimledger.model.finding import Reason
    from claimledger.output.sarif import sarif_log

    rules = sarif_log(Report(Outcome.NO_CLAIMS, [], claims_total=0))["runs"][0]["tool"]["driver"]["rules"]
    texts = {rule["id"]: rule["shortDescription"]["text"] for rule in rules}
    for reason in Reason:
        if reason.tier is not None:
            assert texts[reason.value] == reason.description  # the reason table's own line
