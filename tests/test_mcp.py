"""The MCP server end to end: `claimledger mcp --root DIR` spawned over stdio by the official
MCP Python client; every tool called, paths confined to the root, errors as tool errors."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from click.testing import CliRunner

from claimledger.cli import cli
from claimledger.schemas import REPORT_SCHEMA_PATH, load
from tests.surface_data import DRAFT, JA_QUOTE, MARKED, SECRET, hostile_layout

SMITH_37 = "adding an independent verification step reduced errors by 37 percent"
SMITH_73 = "adding an independent verification step reduced errors by 73 percent"

CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("check", "check_ledger", {"ledger": "ledger.yaml"}),
    ("check_draft", "check_ledger", {"ledger": "ledger.yaml", "draft": "draft.md"}),
    ("quotes", "verify_quotes", {
        "quotes": [{"id": "Q1", "source": "shokushu", "quote": JA_QUOTE},
                   {"id": "Q2", "source": "smith", "quote": SMITH_73},
                   {"id": "Q3", "source": "shokushu", "quote": "回答者全体の15％だった"}],
        "sources": {"smith": "sources/smith.txt", "shokushu": "sources/shokushu.md"}}),
    ("quotes_ledger", "verify_quotes", {
        "quotes": [{"id": "Q1", "source": "smith", "quote": SMITH_37,
                    "statement": "Adding an independent verification step reduced errors by 50 percent."}],
        "ledger": "ledger.yaml"}),
    ("numbers", "verify_numbers", {
        "numbers": [{"id": "N1", "sql": "SELECT sum(clicks) FROM daily", "value": "1,202"},
                    {"id": "N2", "sql": "SELECT max(clicks) FROM daily", "value": 900}],
        "datasets": {"daily": "data/daily.csv"}}),
    ("numbers_file_sql", "verify_numbers", {
        "numbers": [{"id": "N3", "sql": "SELECT count(*) FROM read_text('/etc/hostname')", "value": 1}],
        "ledger": "ledger.yaml"}),
    ("mark", "mark_draft", {"draft": "draft.md", "ledger": "ledger.yaml"}),
    ("mark_text", "mark_draft", {"draft_text": DRAFT, "ledger": "ledger.yaml"}),
    ("mark_write", "mark_draft", {"draft": "draft.md", "ledger": "ledger.yaml", "write_to": "out/marked.md"}),
    ("lint", "lint_draft", {"draft": "draft.md", "ledger": "ledger.yaml"}),
    ("audit", "audit_summary", {"draft": "draft.md", "ledger": "ledger.yaml"}),
    # paths that try to leave the root
    ("esc_dotdot", "check_ledger", {"ledger": "../outside/ledger.yaml"}),
    ("esc_abs", "check_ledger", {"ledger": "{outside}/ledger.yaml"}),
    ("esc_symlink", "check_ledger", {"ledger": "link/ledger.yaml"}),
    ("esc_source", "verify_quotes", {"quotes": [{"id": "S", "source": "s", "quote": SECRET}],
                                     "sources": {"s": "link/secret.txt"}}),
    ("esc_declared", "check_ledger", {"ledger": "evil.yaml"}),
    ("esc_declared_rel", "check_ledger", {"ledger": "sub/evil.yaml"}),
    ("esc_write", "mark_draft", {"draft": "draft.md", "ledger": "ledger.yaml", "write_to": "../pwned.md"}),
    ("url", "check_ledger", {"ledger": "url.yaml"}),
    # bad input
    ("invalid_ledger", "check_ledger", {"ledger": "bad.yaml"}),
    ("missing", "check_ledger", {"ledger": "nope.yaml"}),
    ("bad_args", "verify_quotes", {"quotes": [{"id": "Q", "source": "smith"}]}),
    ("no_quotes", "verify_quotes", {"quotes": []}),
    ("two_drafts", "lint_draft", {"draft": "draft.md", "draft_text": "x"}),
    ("bad_section", "audit_summary", {"draft": "draft.md", "ledger": "ledger.yaml", "section": "Nope"}),
    # still serving after all of that
    ("after", "check_ledger", {"ledger": "ledger.yaml"}),
]  # fmt: skip


async def _session(root: Path, outside: Path, tmp: Path, errlog: Any) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "claimledger", "mcp", "--root", str(root)],
        env={"CLAIMLEDGER_CACHE_DIR": str(tmp / "cache"), "TMPDIR": str(tmp / "tmp")},
        cwd=str(tmp),
    )
    out: dict[str, Any] = {}
    with anyio.fail_after(120):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            out["tools"] = (await session.list_tools()).tools
            for key, tool, args in CALLS:
                if isinstance(args.get("ledger"), str):
                    args = {**args, "ledger": args["ledger"].replace("{outside}", str(outside))}
                out[key] = await session.call_tool(tool, args)
    return out


@pytest.fixture(scope="module")
def mcp_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("mcp")
    root, outside = hostile_layout(base)
    (base / "tmp").mkdir()
    with (base / "server.log").open("w") as errlog:
        results: dict[str, Any] = anyio.run(_session, root, outside, base, errlog)
    results["root"], results["outside"], results["base"] = root, outside, base
    results["log"] = (base / "server.log").read_text()
    return results


def ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert isinstance(data, dict)
    assert json.loads(result.content[0].text) == data  # the text content carries the same JSON
    return data


def err(result: Any) -> str:
    assert result.is_error
    text: str = result.content[0].text
    return text


def test_lists_the_seven_tools_with_input_schemas(mcp_run: dict[str, Any]) -> None:
    tools = {t.name: t for t in mcp_run["tools"]}
    assert set(tools) == {"verify_quotes", "verify_numbers", "check_ledger", "mark_draft", "lint_draft",
                          "audit_summary", "verify_references"}  # fmt: skip
    quote_item = tools["verify_quotes"].input_schema["$defs"]["QuoteItem"]
    assert set(quote_item["required"]) == {"id", "source", "quote"}
    assert quote_item["additionalProperties"] is False
    assert tools["check_ledger"].input_schema["required"] == ["ledger"]
    assert tools["check_ledger"].annotations.read_only_hint is True
    assert not tools["mark_draft"].annotations or not tools["mark_draft"].annotations.read_only_hint
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40


def test_check_ledger_returns_the_report_envelope(mcp_run: dict[str, Any]) -> None:
    report = ok(mcp_run["check"])
    jsonschema.validate(report, load(REPORT_SCHEMA_PATH))
    assert report["outcome"] == "FAIL" and report["counts"]["verified"] == 3 and report["counts"]["HIGH"] == 1
    by_id = {f["claim_id"]: f for f in report["findings"]}
    assert by_id["C2"]["reason"] == "quote_near_miss" and "[-73-]{+37+}" in by_id["C2"]["diff"].replace(
        " ", ""
    )
    assert by_id["J1"]["status"] == "verified" and by_id["J1"]["evidence"]["text"] == JA_QUOTE
    assert by_id["N1"]["reason"] == "number_match" and by_id["N1"]["expected"] == 1202
    # no absolute path of the server's root in the reply
    assert str(mcp_run["root"]) not in json.dumps(report)
    assert report["reproducibility"]["ledger"]["path"] == "ledger.yaml"


def test_check_ledger_with_draft_reverifies_the_writers_marks(mcp_run: dict[str, Any]) -> None:
    report = ok(mcp_run["check_draft"])
    reasons = {f["reason"] for f in report["findings"] if f["tier"] == "HIGH"}
    assert "mark_not_verified" in reasons
    assert report["reproducibility"]["draft"]["path"] == "draft.md"


def test_verify_quotes_japanese_and_near_miss(mcp_run: dict[str, Any]) -> None:
    report = ok(mcp_run["quotes"])
    by_id = {f["claim_id"]: f for f in report["findings"]}
    assert by_id["Q1"]["status"] == "verified" and by_id["Q1"]["evidence"]["source"] == "shokushu"
    assert by_id["Q2"]["tier"] == "HIGH" and by_id["Q2"]["reason"] == "quote_near_miss"
    assert by_id["Q3"]["tier"] == "HIGH" and by_id["Q3"]["status"] != "verified"
    assert "12％" in by_id["Q3"]["nearest"]["text"]
    assert report["outcome"] == "FAIL"


def test_verify_quotes_runs_the_overclaim_rules_on_a_statement(mcp_run: dict[str, Any]) -> None:
    report = ok(mcp_run["quotes_ledger"])
    reasons = [f["reason"] for f in report["findings"]]
    assert reasons[0] == "quote_found"
    assert "overclaim_number_changed" in reasons[1:], reasons


def test_verify_numbers(mcp_run: dict[str, Any]) -> None:
    report = ok(mcp_run["numbers"])
    by_id = {f["claim_id"]: f for f in report["findings"]}
    assert by_id["N1"]["status"] == "verified"
    assert by_id["N2"]["reason"] == "number_mismatch" and by_id["N2"]["expected"] == 802
    assert report["reproducibility"]["datasets"]["daily"]["sha256"]


def test_sql_cannot_read_files_outside_the_datasets(mcp_run: dict[str, Any]) -> None:
    report = ok(mcp_run["numbers_file_sql"])
    (finding,) = report["findings"]
    assert finding["status"] != "verified" and finding["tier"] == "HIGH"


def test_mark_draft_returns_the_marked_text_and_writes_nothing(mcp_run: dict[str, Any]) -> None:
    data = ok(mcp_run["mark"])
    assert data["marked_text"] == MARKED
    assert (
        data["marks"] == {"V": 1, "D": 1, "changed": 1}
        and data["changed"] is True
        and data["written"] is None
    )
    assert (mcp_run["root"] / "draft.md").read_text(encoding="utf-8") == DRAFT
    assert "outcome" in data and "findings" in data
    inline = ok(mcp_run["mark_text"])
    assert inline["marked_text"] == MARKED


def test_mark_draft_writes_only_when_asked_under_the_root(mcp_run: dict[str, Any]) -> None:
    data = ok(mcp_run["mark_write"])
    assert data["written"] == "out/marked.md"
    assert (mcp_run["root"] / "out" / "marked.md").read_text(encoding="utf-8") == MARKED
    assert [p.name for p in (mcp_run["root"] / "out").iterdir()] == ["marked.md"]  # no temp file left
    assert "path_outside_root" in err(mcp_run["esc_write"])
    assert not (mcp_run["base"] / "pwned.md").exists()


def test_lint_draft(mcp_run: dict[str, Any]) -> None:
    data = ok(mcp_run["lint"])
    lint = data["lint"]
    assert lint["ok"] is False
    (problem,) = lint["problems"]
    assert problem["file"] == "draft.md" and problem["line"] == 4 and problem["reason"] == "mark_not_verified"
    assert lint["lines"][0].startswith("draft.md:4:")


def test_audit_summary(mcp_run: dict[str, Any]) -> None:
    report = ok(mcp_run["audit"])
    assert report["outcome"] == "FAIL"
    assert [f["reason"] for f in report["findings"]] == ["unlisted_quote"]
    assert "bad_section" in mcp_run and "invalid_input" in err(mcp_run["bad_section"])


@pytest.mark.parametrize("key", ["esc_dotdot", "esc_abs", "esc_symlink", "esc_source", "esc_declared",
                                 "esc_declared_rel"])  # fmt: skip
def test_paths_outside_the_root_are_refused(mcp_run: dict[str, Any], key: str) -> None:
    text = err(mcp_run[key])
    assert "path_outside_root" in text and SECRET not in text


def test_url_sources_are_refused_by_default(mcp_run: dict[str, Any]) -> None:
    assert "url_refused" in err(mcp_run["url"])


def test_bad_input_is_a_tool_error_with_a_clear_message(mcp_run: dict[str, Any]) -> None:
    assert "invalid_ledger" in err(mcp_run["invalid_ledger"]) and "bad.yaml:3" in err(
        mcp_run["invalid_ledger"]
    )
    assert "path_not_found" in err(mcp_run["missing"]) and "nope.yaml" in err(mcp_run["missing"])
    assert "quote" in err(mcp_run["bad_args"]).lower()
    assert err(mcp_run["no_quotes"])
    assert "exactly one of" in err(mcp_run["two_drafts"])


def test_server_survives_errors_and_leaves_no_temp_files(mcp_run: dict[str, Any]) -> None:
    assert ok(mcp_run["after"])["outcome"] == "FAIL"
    assert list((mcp_run["base"] / "tmp").iterdir()) == []  # inline drafts were removed
    assert "Traceback" not in mcp_run["log"]


def test_missing_extra_gives_an_install_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp -> ImportError
    monkeypatch.setitem(sys.modules, "mcp.server", None)
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    result = CliRunner().invoke(cli, ["mcp", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert "pip install 'claimledger[mcp]'" in result.stderr


def test_root_must_be_a_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["mcp", "--root", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "no such folder" in result.stderr
    assert os.path.exists(tmp_path)


SLOW_SQL = "SELECT count(*) FROM range(100000000000) t(i) WHERE hash(i) % 7 = 3"


async def _timed_session(root: Path, tmp: Path, errlog: Any) -> dict[str, Any]:
    """Two workers, a 10 s time limit: a slow call and a fast one at once, then one more call."""
    import time

    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "claimledger", "mcp", "--root", str(root), "--workers", "2", "--request-timeout", "10"],
        env={"CLAIMLEDGER_CACHE_DIR": str(tmp / "cache"), "TMPDIR": str(tmp / "tmp")},
        cwd=str(tmp),
    )
    out: dict[str, Any] = {}
    slow_args = {"numbers": [{"id": "N", "sql": SLOW_SQL, "value": 3}], "datasets": {"daily": "data/daily.csv"}}
    with anyio.fail_after(120):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.call_tool("check_ledger", {"ledger": "ledger.yaml"})  # workers up

            async def slow() -> None:
                started = time.monotonic()
                out["slow"] = await session.call_tool("verify_numbers", slow_args)
                out["slow_seconds"] = time.monotonic() - started

            async def fast() -> None:
                await anyio.sleep(0.5)
                out["fast"] = await session.call_tool("check_ledger", {"ledger": "ledger.yaml"})
                out["fast_done_before_slow"] = "slow" not in out

            async with anyio.create_task_group() as tg:
                tg.start_soon(slow)
                tg.start_soon(fast)
            out["after"] = await session.call_tool("check_ledger", {"ledger": "ledger.yaml"})
    return out


def test_a_call_past_the_time_limit_is_stopped_while_others_are_answered(tmp_path: Path) -> None:
    root, _outside = hostile_layout(tmp_path)
    (tmp_path / "tmp").mkdir()
    with (tmp_path / "server.log").open("w") as errlog:
        out: dict[str, Any] = anyio.run(_timed_session, root, tmp_path, errlog)
    message = err(out["slow"])
    assert "timeout: the check took longer than 10 s" in message and "nothing was verified" in message
    assert out["slow_seconds"] < 30  # stopped by the request limit, not by the query's own 30 s limit
    assert out["fast_done_before_slow"]  # the other worker answered meanwhile
    assert ok(out["fast"])["outcome"] == ok(out["after"])["outcome"]  # still serving after the kill
    assert "Traceback" not in (tmp_path / "server.log").read_text()
