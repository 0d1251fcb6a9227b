"""Summary support: each summary sentence judged against the draft's body, never the rest of the summary."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from claimledger import gate
from claimledger.cli import cli
from tests.judge_fakes import Reply, Seen, chat_server, verdict

BODY_EN = "Errors fell by 37 percent after an independent check was added to the pipeline."
BODY_JA = "独立した確認を加えると、誤りは37%減った。"
DRAFT = f"""# Report

## Findings

{BODY_EN} {BODY_JA}

## Summary

The independent check cut errors by 37 percent. Errors doubled in every newsroom.
独立した確認で誤りは37%減った。
"""


def policy(seen: Seen) -> Reply:
    msg = seen.user_message
    if "doubled" in msg:
        return verdict("not_found", "", "the body never says errors doubled")
    if "独立した確認で" in msg:
        return verdict("supported", BODY_JA, "the body says so")
    return verdict("supported", BODY_EN, "the body says so")


def _setup(tmp_path: Path, write_ledger: Callable[..., Path]) -> tuple[Path, Path]:
    draft = tmp_path / "report.md"
    draft.write_text(DRAFT, "utf-8")
    return draft, write_ledger("version: 1\nclaims: []\n")


def test_unsupported_summary_sentence_is_a_finding(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    draft, ledger = _setup(tmp_path, write_ledger)
    with chat_server(policy=policy) as server:
        result = CliRunner().invoke(cli, [
            "check", str(draft), "--ledger", str(ledger), "-f", "json", "--judge", "openai",
            "--judge-model", "m", "--judge-url", server.base_url + "/v1", "--summary-section", "Summary",
            "--judge-cache", str(tmp_path / "j.sqlite3"), "--allow", r"\d+ ?(percent|%)",
        ])  # fmt: skip
        requests = [s.user_message for s in server.seen]
    report = json.loads(result.stdout)
    summary = [f for f in report["findings"] if f["check"] == "summary_support"]
    assert len(summary) == 1, summary
    assert "doubled" in summary[0]["claimed"] and summary[0]["tier"] == "HIGH"
    assert summary[0]["location"]["line"] == 9
    assert report["reproducibility"]["summary_support"]["sentences"] == 3
    assert len(requests) == 3
    # each request holds its own summary sentence and never another one
    for msg in requests:
        others = [s for s in ("cut errors by 37 percent", "Errors doubled", "独立した確認で誤りは") if s in msg]
        assert len(others) == 1, msg
    assert result.exit_code == 1


def test_without_a_judge_summary_support_says_not_run(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    draft, ledger = _setup(tmp_path, write_ledger)
    report = gate(ledger, draft=draft, summary_section="Summary", allow=[r".*"])
    assert "not run" in str(report.reproducibility["summary_support"])


def test_unknown_section_is_an_input_error(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    draft, ledger = _setup(tmp_path, write_ledger)
    with chat_server(policy=policy) as server:
        result = CliRunner().invoke(cli, [
            "check", str(draft), "--ledger", str(ledger), "--judge", "openai", "--judge-model", "m",
            "--judge-url", server.base_url + "/v1", "--summary-section", "Conclusions",
        ])  # fmt: skip
    assert result.exit_code == 2 and "no section titled 'Conclusions'" in result.stderr
