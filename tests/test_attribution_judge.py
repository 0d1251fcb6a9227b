"""Attributions with a judge: a local fake judge (a real HTTP server on 127.0.0.1 speaking the
OpenAI chat protocol) answers from a table keyed by claim text. Each outcome is asserted through
the CLI, the MCP tool (`claimledger mcp --judge ...`) and the HTTP endpoint (`claimledger serve
--judge ...`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from click.testing import CliRunner

from claimledger.cli import cli
from tests.judge_fakes import Reply, chat_server, claim_text_of, is_question_request, table_policy, verdict
from tests.surface_data import http_server

SOURCE = (
    "Remote Work and Output\n\n"
    "We study call-centre workers who moved to home working. "
    "Output per hour fell by about 4% in the first six months. "
    "The effect faded after a year, and quits fell by half.\n"
)
SOURCE_JA = "在宅勤務と生産性\n\n移行後6か月の時間当たり生産量は約4%低下した。その効果は1年後に消えた。離職は半減した。\n"

CASES: dict[str, tuple[str, str, Reply]] = {
    # id: (source, attributed, the judge's answer)
    "SUP": ("en", "quits fell by half", verdict("supported", "quits fell by half", "The source says so.")),
    "SUPJA": ("ja", "効果は1年後に消えた", verdict("supported", "その効果は1年後に消えた", "ソースのとおり。")),
    "INV": ("en", "the effect faded after a year",
            verdict("supported", "the effect vanished within a few months", "invented")),
    "CON": ("en", "output per hour rose in the first six months",
            verdict("contradicted", "Output per hour fell by about 4% in the first six months", "It fell.")),
    "CONJA": ("ja", "時間当たり生産量は上昇した",
              verdict("contradicted", "移行後6か月の時間当たり生産量は約4%低下した", "低下している。")),
    "OVR": ("en", "home working always lowers output per hour",
            verdict("overclaim", "Output per hour fell by about 4% in the first six months", "Only at first.")),
    "NF": ("en", "managers preferred office work", verdict("not_found", "", "The source does not address it.")),
    "MAL": ("en", "call-centre workers moved to home working", Reply("I think it is probably true.")),
    # supported, literal evidence, but the attributed text drops the source's hedge: not verified
    "HEDGE": ("en", "output per hour fell in the first six months by 4 percent",
              verdict("supported", "Output per hour fell by about 4% in the first six months", "close enough")),
}  # fmt: skip

EXPECTED: dict[str, tuple[str, str, str | None]] = {
    # id: (reason, status, tier)
    "SUP": ("attribution_supported", "verified", None),
    "SUPJA": ("attribution_supported", "verified", None),
    "INV": ("judge_evidence_not_in_source", "error", "MED"),
    "CON": ("judge_contradicted", "discrepancy", "HIGH"),
    "CONJA": ("judge_contradicted", "discrepancy", "HIGH"),
    "OVR": ("judge_overclaim", "discrepancy", "HIGH"),
    "NF": ("judge_not_found", "discrepancy", "HIGH"),
    "MAL": ("judge_failed", "error", "MED"),
    "HEDGE": ("overclaim_hedge_dropped", "discrepancy", "HIGH"),
}


def _workspace(root: Path, ids: list[str] | None = None, extra: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "en.txt").write_text(SOURCE, "utf-8")
    (root / "ja.txt").write_text(SOURCE_JA, "utf-8")
    lines = ["version: 1", "sources: {en: en.txt, ja: ja.txt}", "claims:"]
    for cid in ids or list(CASES):
        source, attributed, _ = CASES[cid]
        lines += [f"  - id: {cid}", "    kind: attribution", f"    source: {source}",
                  f"    attributed: {json.dumps(attributed, ensure_ascii=False)}"]  # fmt: skip
    (root / "ledger.yaml").write_text("\n".join(lines) + "\n" + extra, "utf-8")
    return root / "ledger.yaml"


def _policy() -> Any:
    return table_policy({attributed: reply for _s, attributed, reply in CASES.values()})


def _semantic(findings: list[dict[str, Any]]) -> dict[str, tuple[str, str, str | None]]:
    out: dict[str, tuple[str, str, str | None]] = {}
    for f in findings:
        if f["check"] in ("semantic_judge",) and f["claim_id"] in CASES:
            out[f["claim_id"]] = (f["reason"], f["status"], f["tier"])
    return out


def test_every_judge_outcome_through_the_cli(tmp_path: Path) -> None:
    ledger = _workspace(tmp_path / "ws")
    with chat_server(policy=_policy()) as srv:
        result = CliRunner().invoke(cli, [
            "check", "--ledger", str(ledger), "--format", "json", "--judge", "openai", "--judge-model", "fake",
            "--judge-url", srv.base_url + "/v1", "--judge-cache", str(tmp_path / "cache.sqlite3"),
        ])  # fmt: skip
    data = json.loads(result.output)
    assert result.exit_code == 1 and data["outcome"] == "FAIL"
    got = _semantic(data["findings"])
    assert got == {k: v for k, v in EXPECTED.items() if k != "HEDGE"} | {"HEDGE": got.get("HEDGE", ("?", "?", None))}
    hedge = [f for f in data["findings"] if f["claim_id"] == "HEDGE"]
    assert {"overclaim_hedge_dropped"} <= {f["reason"] for f in hedge}
    assert all(f["status"] != "verified" for f in hedge)
    # verified only with the evidence found literally, and the evidence is the source's text
    sup = [f for f in data["findings"] if f["claim_id"] == "SUP" and f["status"] == "verified"]
    assert sup and sup[0]["evidence"]["text"] == "quits fell by half"
    # no attribution is reported as "meaning not checked" when the judge answered
    assert not [f for f in data["findings"] if f["reason"] == "attribution_meaning_unchecked"]


def test_a_supported_attribution_alone_passes_and_an_explained_one_is_explained(tmp_path: Path) -> None:
    alt = ("  - id: CON2\n    kind: attribution\n    source: en\n"
           "    attributed: \"output per hour rose in the first six months\"\n"
           "    author_alternative: \"the 2021 erratum of the paper reports a 2% rise (Table 3, corrected)\"\n")  # fmt: skip
    ledger = _workspace(tmp_path / "ws", ["SUP", "SUPJA"])
    with chat_server(policy=_policy()) as srv:
        args = ["check", "--ledger", str(ledger), "--format", "json", "--judge", "openai", "--judge-model", "fake",
                "--judge-url", srv.base_url + "/v1", "--judge-cache", str(tmp_path / "c.sqlite3")]
        passed = CliRunner().invoke(cli, args)
        _workspace(tmp_path / "ws", ["SUP"], alt)
        explained = CliRunner().invoke(cli, args)
    assert passed.exit_code == 0, passed.output
    assert json.loads(passed.output)["outcome"] == "PASS"
    data = json.loads(explained.output)
    (con,) = [f for f in data["findings"] if f["claim_id"] == "CON2" and f["check"] == "semantic_judge"]
    assert con["reason"] == "judge_contradicted" and con["tier"] == "EXPLAINED" and data["outcome"] == "PASS"


def test_model_questions_come_from_a_fresh_request_that_sees_only_the_claim(tmp_path: Path) -> None:
    ledger = _workspace(tmp_path / "ws", ["SUP", "SUPJA"])
    draft = tmp_path / "ws" / "draft.md"
    draft.write_text("# Notes\n\nOur own opinion is that remote work is fine.\n", "utf-8")
    questions = {"quits fell by half": "By how much did quits change, according to the source?",
                 "効果は1年後に消えた": "ソースによれば、効果はいつ消えたか？"}  # fmt: skip
    with chat_server(policy=table_policy({a: r for _s, a, r in CASES.values()}, questions)) as srv:
        result = CliRunner().invoke(cli, [
            "check", str(draft), "--ledger", str(ledger), "--format", "json", "--allow", ".*",
            "--judge", "openai", "--judge-model", "fake", "--judge-url", srv.base_url + "/v1",
            "--judge-cache", str(tmp_path / "c.sqlite3"), "--judge-questions", "model",
        ])  # fmt: skip
        seen = list(srv.seen)
    assert json.loads(result.output)["outcome"] == "PASS", result.output
    asked = [s for s in seen if is_question_request(s)]
    judged = [s for s in seen if not is_question_request(s)]
    assert len(asked) == 2 and len(judged) == 2
    for s in asked:
        assert len(s.body["messages"]) == 2  # system + one user message: no history
        assert "opinion" not in s.raw and "Output per hour" not in s.raw  # neither the draft nor the source
    for s in judged:
        assert questions[claim_text_of(s)] in s.user_message


def test_a_bad_model_question_is_med_never_verified(tmp_path: Path) -> None:
    ledger = _workspace(tmp_path / "ws", ["SUP"])
    with chat_server(policy=table_policy({a: r for _s, a, r in CASES.values()}, {"quits fell by half": "```"})) as srv:
        result = CliRunner().invoke(cli, [
            "check", "--ledger", str(ledger), "--format", "json", "--judge", "openai", "--judge-model", "fake",
            "--judge-url", srv.base_url + "/v1", "--judge-questions", "model",
        ])  # fmt: skip
    data = json.loads(result.output)
    assert result.exit_code == 3 and data["outcome"] == "PARTIAL"
    reasons = {f["reason"] for f in data["findings"] if f["claim_id"] == "SUP"}
    assert reasons == {"judge_failed"}  # MED: the meaning is not verified


def test_every_judge_outcome_through_the_http_endpoint(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _workspace(root)
    with chat_server(policy=_policy()) as srv, http_server(
        root, tmp_path, "--judge", "openai", "--judge-model", "fake", "--judge-url", srv.base_url + "/v1"
    ) as url:
        r = httpx.post(url + "/v1/check", json={"ledger": "ledger.yaml"}, timeout=120)
    data = r.json()
    report = data.get("report", data)
    got = _semantic(report["findings"])
    assert {k: v for k, v in got.items() if k != "HEDGE"} == {k: v for k, v in EXPECTED.items() if k != "HEDGE"}
    assert report["outcome"] == "FAIL"


async def _mcp(root: Path, tmp: Path, judge_url: str) -> Any:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "claimledger", "mcp", "--root", str(root), "--judge", "openai", "--judge-model", "fake",
              "--judge-url", judge_url],
        env={"CLAIMLEDGER_CACHE_DIR": str(tmp / "cache"), "TMPDIR": str(tmp)},
        cwd=str(tmp),
    )  # fmt: skip
    with anyio.fail_after(120), (tmp / "mcp.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await session.call_tool("check_ledger", {"ledger": "ledger.yaml"})


def test_every_judge_outcome_through_the_mcp_tool(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _workspace(root)
    with chat_server(policy=_policy()) as srv:
        result = anyio.run(_mcp, root, tmp_path, srv.base_url + "/v1")
    assert not result.is_error, result.content[0].text
    report = result.structured_content
    got = _semantic(report["findings"])
    assert {k: v for k, v in got.items() if k != "HEDGE"} == {k: v for k, v in EXPECTED.items() if k != "HEDGE"}
    assert report["outcome"] == "FAIL"


@pytest.mark.parametrize("surface", ["serve", "mcp"])
def test_a_server_judge_needs_a_model(tmp_path: Path, surface: str) -> None:
    result = CliRunner().invoke(cli, [surface, "--root", str(tmp_path), "--judge", "openai"])
    assert result.exit_code == 2 and "--judge-model" in result.output


def test_a_locator_waits_for_the_judge_evidence(tmp_path: Path) -> None:
    """Without a figure, an attribution's locator is checked against the judge's literal evidence quote."""
    from tests.test_locators_datasets import PAGES_EN, _pdf

    root = tmp_path / "ws"
    root.mkdir()
    _pdf(root / "en.pdf", PAGES_EN)
    claims = ""
    for cid, loc in (("P2", "p. 3"), ("P1", "p. 1")):
        claims += (f"  - id: {cid}\n    kind: attribution\n    source: en\n"
                   f"    attributed: \"quits fell by half\"\n    locator: {loc!r}\n")  # fmt: skip
    ledger = root / "ledger.yaml"
    ledger.write_text("version: 1\nsources: {en: en.pdf}\nclaims:\n" + claims, "utf-8")
    policy = table_policy({"quits fell by half": verdict("supported", "quits fell by half", "says so")})
    with chat_server(policy=policy) as srv:
        result = CliRunner().invoke(cli, [
            "check", "--ledger", str(ledger), "--format", "json", "--judge", "openai", "--judge-model", "fake",
            "--judge-url", srv.base_url + "/v1", "--judge-cache", str(tmp_path / "c.sqlite3"),
        ])  # fmt: skip
    data = json.loads(result.output)
    by = {(f["claim_id"], f["reason"]) for f in data["findings"]}
    assert ("P2", "attribution_supported") in by and ("P1", "attribution_supported") in by
    assert ("P1", "locator_wrong") in by and ("P2", "locator_wrong") not in by
    assert not [f for f in data["findings"] if f["reason"] == "locator_unchecked"]
    wrong = next(f for f in data["findings"] if f["reason"] == "locator_wrong")
    assert "p. 3" in wrong["message"] and wrong["tier"] == "HIGH"


def test_timeouts_and_refusals_are_med_never_verified(tmp_path: Path) -> None:
    ledger = _workspace(tmp_path / "ws", ["SUP", "SUPJA"])
    table = {
        "quits fell by half": Reply(content=None, refusal="I can't help with that."),
        "効果は1年後に消えた": Reply(verdict("supported", "その効果は1年後に消えた").content, delay=3.0),
    }
    with chat_server(policy=table_policy(table)) as srv:
        result = CliRunner().invoke(cli, [
            "check", "--ledger", str(ledger), "--format", "json", "--judge", "openai", "--judge-model", "fake",
            "--judge-url", srv.base_url + "/v1", "--judge-timeout", "0.5", "--judge-cache", str(tmp_path / "c.sqlite3"),
        ])  # fmt: skip
    data = json.loads(result.output)
    assert result.exit_code == 3 and data["outcome"] == "PARTIAL"
    got = {f["claim_id"]: f for f in data["findings"] if f["check"] == "semantic_judge"}
    assert got["SUP"]["reason"] == "judge_failed" and got["SUP"]["extra"]["failure"] == "refusal"
    assert got["SUPJA"]["reason"] == "judge_failed" and got["SUPJA"]["extra"]["failure"] == "timeout"
    assert all(f["tier"] == "MED" for f in got.values())
    assert not [f for f in data["findings"] if f["status"] == "verified"]
