"""Allow patterns are untrusted regexes: they run in linear time, never unbounded (issue 14, item 4)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from claimledger._exceptions import InputError
from claimledger.checks.unlisted import compile_allow
from tests.surface_data import http_server

EVIL = "(a+)+b"  # exponential under a backtracking engine: 2^n steps on n a's that end without a b
EVIL_JA = "(あ+)+い"
DRAFT = (
    "# Results\n\n"
    "The memo said “" + "a" * 40 + "” and nothing else.\n\n"
    "報告書には「" + "あ" * 40 + "」とだけ書かれていた。\n"
)
LEDGER = "version: 1\nclaims: []\n"


def _audit(tmp_path: Path, *allow: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    (tmp_path / "ledger.yaml").write_text(LEDGER, encoding="utf-8")
    args = [a for p in allow for a in ("--allow", p)]
    return subprocess.run(
        [sys.executable, "-m", "claimledger", "audit", "draft.md", "--ledger", "ledger.yaml", "--format", "json",
         *args],
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path,
    )  # fmt: skip


def test_a_catastrophic_pattern_runs_in_linear_time_over_the_cli(tmp_path: Path) -> None:
    """Python's re needs 2^40 steps per item here; the audit finishes and reports both quotations."""
    done = _audit(tmp_path, EVIL, EVIL_JA)
    assert done.returncode == 1, done.stderr
    assert done.stdout.count("unlisted_quote") == 2
    assert done.stderr.strip() == ""  # RE2 logs nothing of its own


def test_a_pattern_that_matches_still_allows(tmp_path: Path) -> None:
    done = _audit(tmp_path, "(a+)+", "(あ+)+")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("pattern", [r"(a)\1", r"(?=a)a+", r"(?<!b)a+", "(" * 5 + "a", "a" * 1001])
def test_a_pattern_outside_the_linear_subset_is_a_clear_input_error(tmp_path: Path, pattern: str) -> None:
    with pytest.raises(InputError) as info:
        compile_allow([pattern])
    message = str(info.value)
    assert message.startswith("--allow ")
    if "\\1" in pattern or "(?" in pattern:
        assert "linear time" in message
    done = _audit(tmp_path, pattern)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claimledger: error: --allow"), done.stderr


def test_literal_strings_and_the_usual_patterns_still_work() -> None:
    allow = compile_allow([r"3\.11", "2024", r"\d+ ?(percent|%)", "p. 4", r"(?i)figure \d+", "令和[0-9０-９]+年"])
    assert [p.fullmatch(t) for p, t in zip(allow, ["3.11", "2024", "30 percent", "p. 4", "FIGURE 2", "令和６年"],
                                           strict=True)] == [True] * 6  # fmt: skip
    assert not allow[0].fullmatch("3911")


def test_a_catastrophic_pattern_over_http_answers_quickly(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    body = {"draft": {"text": DRAFT, "format": "markdown"}, "ledger": {"text": LEDGER, "format": "yaml"},
            "allow": [EVIL, EVIL_JA]}  # fmt: skip
    with http_server(root, tmp_path) as url:
        r = httpx.post(url + "/v1/audit", json=body, timeout=60)
        assert r.status_code == 200, r.text
        assert [f["reason"] for f in r.json()["findings"]] == ["unlisted_quote", "unlisted_quote"]
        bad = httpx.post(url + "/v1/audit", json={**body, "allow": [r"(a)\1"]}, timeout=60)
        assert 400 <= bad.status_code < 500 and "linear time" in bad.text
        assert httpx.get(url + "/healthz", timeout=10).status_code == 200
