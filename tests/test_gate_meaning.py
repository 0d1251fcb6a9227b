"""The gate end to end with the meaning checks: overclaim rules and an independent judge."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from claimledger import Reason, Status, Tier, gate
from claimledger.cli import cli
from tests.judge_fakes import chat_server, verdict

SOURCE_EN = "In the trial, checks reduced errors by about 4 times in text-generating AI systems. Costs rose."
SOURCE_JA = "調査によると、言葉を扱う生成AIの業務利用は前年の約4倍に増えた。"


def _ledger(tmp_path: Path, write_ledger: Callable[..., Path], claims: str) -> Path:
    (tmp_path / "en.txt").write_text(SOURCE_EN, "utf-8")
    (tmp_path / "ja.txt").write_text(SOURCE_JA, "utf-8")
    return write_ledger("version: 1\nsources: {en: en.txt, ja: ja.txt}\nclaims:\n" + claims)


SEED004 = (
    "  - id: E1\n    kind: quote\n    source: en\n    quote: \"reduced errors by about 4 times\"\n"
    "    statement: \"Checks reduced errors by 4 times.\"\n"
    "  - id: J1\n    kind: quote\n    source: ja\n    quote: \"言葉を扱う生成AIの業務利用は前年の約4倍に増えた\"\n"
    "    statement: \"生成AIの業務利用は前年の4倍に増えた。\"\n"
)


def test_overclaims_fail_a_verified_quote(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    report = gate(_ledger(tmp_path, write_ledger, SEED004))
    by: dict[str, list[object]] = {}
    for f in report.findings:
        by.setdefault(f.claim_id, []).append(f)
    for cid in ("E1", "J1"):
        literal = [f for f in by[cid] if f.check == "literal_quote"]  # type: ignore[attr-defined]
        over = [f for f in by[cid] if f.check == "overclaim"]  # type: ignore[attr-defined]
        assert literal[0].status is Status.VERIFIED  # type: ignore[attr-defined]
        assert over and all(f.tier is Tier.HIGH for f in over)  # type: ignore[attr-defined]
    reasons = {f.reason for f in report.findings}
    assert Reason.OVERCLAIM_HEDGE_DROPPED in reasons
    assert report.outcome.value == "FAIL"
    assert "not run" in str(report.reproducibility["semantic_check"])


def test_faithful_statement_passes(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    claims = (
        "  - id: E1\n    kind: quote\n    source: en\n    quote: \"reduced errors by about 4 times\"\n"
        "    statement: \"Checks reduced errors by about 4 times in text-generating AI systems.\"\n"
    )
    report = gate(_ledger(tmp_path, write_ledger, claims))
    assert report.outcome.value == "PASS", [f.message for f in report.findings]


def test_negative_claim_without_search_is_high(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    claims = "  - id: G1\n    kind: negative\n    statement: \"No prior work studies verification gates.\"\n"
    report = gate(_ledger(tmp_path, write_ledger, claims))
    f = report.findings[0]
    assert f.reason is Reason.NEGATIVE_CLAIM_UNSUPPORTED and f.tier is Tier.HIGH


def test_cli_judge_over_a_real_local_server(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    claims = (
        "  - id: E2\n    kind: quote\n    source: en\n    quote: \"reduced errors by about 4 times\"\n"
        "    statement: \"Checks reduced errors by about 4 times in text-generating AI systems.\"\n"
    )
    path = _ledger(tmp_path, write_ledger, claims)
    contradicted = verdict("contradicted", "Costs rose.", "the source says costs rose")
    with chat_server({"E2": [contradicted]}) as server:
        result = CliRunner().invoke(cli, [
            "check", "--ledger", str(path), "-f", "json", "--judge", "openai", "--judge-model", "m",
            "--judge-url", server.base_url + "/v1", "--judge-cache", str(tmp_path / "j.sqlite3"),
        ])  # fmt: skip
        assert server.count == 1
        body = server.seen[0].raw
    report = json.loads(result.stdout)
    assert result.exit_code == 1, result.stderr
    judge = [f for f in report["findings"] if f["reason"] == "judge_contradicted"]
    assert judge and judge[0]["tier"] == "HIGH"
    literal = [f for f in report["findings"] if f["check"] == "literal_quote"]
    assert literal[0]["status"] == "verified"  # the judge adds a finding; it changes nothing else
    assert report["reproducibility"]["semantic_check"]["judge"]["model"] == "m"
    assert "text-generating" in body


def test_cli_judge_needs_a_model(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    path = _ledger(tmp_path, write_ledger, SEED004)
    result = CliRunner().invoke(cli, ["check", "--ledger", str(path), "--judge", "openai"])
    assert result.exit_code == 2 and "--judge-model" in result.stderr


def test_a_crashing_draft_check_or_judge_fails_closed(
    tmp_path: Path, write_ledger: Callable[..., Path], monkeypatch: object
) -> None:
    import pytest

    import claimledger._drafts
    import claimledger.checks.judged

    mp: pytest.MonkeyPatch = monkeypatch  # type: ignore[assignment]
    claims = (
        "  - id: E2\n    kind: quote\n    source: en\n    quote: \"reduced errors by about 4 times\"\n"
        "    statement: \"Checks reduced errors by about 4 times in text-generating AI systems.\"\n"
    )
    path = _ledger(tmp_path, write_ledger, claims)
    draft = tmp_path / "d.md"
    draft.write_text("Nothing to see.\n", "utf-8")

    def boom(*args: object, **kwargs: object) -> object:
        raise RuntimeError("injected")

    mp.setattr(claimledger._drafts, "draft_findings", boom)
    report = gate(path, draft=draft)
    crashed = [f for f in report.findings if f.claim_id == "draft"]
    assert crashed and crashed[0].reason is Reason.CHECK_CRASHED and crashed[0].tier is Tier.HIGH
    assert report.outcome.value == "FAIL"
    assert any(f.claim_id == "E2" and f.status is Status.VERIFIED for f in report.findings)

    mp.undo()
    mp.setattr(claimledger.checks.judged, "semantic_findings", boom)
    from claimledger.judge import make_judge

    judge = make_judge("openai", "m", "http://127.0.0.1:9/v1")
    try:
        report = gate(path, judge=judge)
    finally:
        judge.close()
    failed = [f for f in report.findings if f.claim_id == "judge"]
    assert failed and failed[0].reason is Reason.JUDGE_FAILED and failed[0].tier is Tier.MED
    assert report.outcome.value == "PARTIAL"
