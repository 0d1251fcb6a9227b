"""The CLI: exit codes, formats, and no traceback on bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from claimledger.cli import cli
from claimledger.schemas import REPORT_SCHEMA_PATH, load
from tests.localserver import Route, serve

ROOT = Path(__file__).parent.parent
FIX = Path(__file__).parent / "fixtures"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def ledger_dir(tmp_path: Path) -> Path:
    shutil.copy(FIX / "hyphenated.pdf", tmp_path / "smith.pdf")
    return tmp_path


GOOD_QUOTE = '  - {id: C1, kind: quote, source: smith, quote: "reduced errors by 37 percent"}\n'
BAD_QUOTE = '  - {id: C2, kind: quote, source: smith, quote: "reduced errors by 73 percent"}\n'


def test_exit_0_pass(ledger_dir: Path, write_ledger: Callable[..., Path]) -> None:
    path = write_ledger("version: 1\nsources: {smith: smith.pdf}\nclaims:\n" + GOOD_QUOTE)
    code, out, _ = invoke("check", "--ledger", str(path))
    assert code == 0 and "PASS" in out and "| C1 |" in out and "p. 1" in out


def test_exit_1_fail_and_json_validates(ledger_dir: Path, write_ledger: Callable[..., Path]) -> None:
    path = write_ledger("version: 1\nsources: {smith: smith.pdf}\nclaims:\n" + GOOD_QUOTE + BAD_QUOTE)
    code, out, _ = invoke("check", "--ledger", str(path), "--format", "json")
    assert code == 1
    report = json.loads(out)
    jsonschema.validate(report, load(REPORT_SCHEMA_PATH))
    assert report["outcome"] == "FAIL" and report["counts"]["HIGH"] == 1 and report["counts"]["verified"] == 1
    c1, c2 = report["findings"]
    assert c1["evidence"]["page"] == 1 and c1["tier"] is None and c1["status"] == "verified"
    assert c2["tier"] == "HIGH" and c2["reason"] == "quote_near_miss"
    sha = report["reproducibility"]["sources"]["smith"]["sha256"]
    assert len(sha) == 64


def test_no_fail_closed_reports_but_does_not_exit_1(ledger_dir: Path, write_ledger: Callable[..., Path]) -> None:
    path = write_ledger("version: 1\nsources: {smith: smith.pdf}\nclaims:\n" + BAD_QUOTE)
    code, out, _ = invoke("check", "--ledger", str(path), "--no-fail-closed")
    assert code == 3
    assert "--no-fail-closed" in out and "HIGH" in out and "FAIL" in out
    code, out, _ = invoke("check", "--ledger", str(path), "--no-fail-closed", "-f", "json")
    assert json.loads(out)["fail_closed"] is False and json.loads(out)["findings"][0]["tier"] == "HIGH"


def test_exit_3_partial_on_a_transient_failure(write_ledger: Callable[..., Path], tmp_path: Path) -> None:
    with serve({"/slow": Route(delay=1.5, body=b"late")}) as server:
        path = write_ledger(f"version: 1\nsources: {{web: '{server.url('/slow')}'}}\nclaims:\n"
                            "  - {id: C1, kind: quote, source: web, quote: 'some long enough quote'}\n")  # fmt: skip
        code, out, _ = invoke("check", "--ledger", str(path), "--allow-private-urls", "--timeout", "0.3",
                              "--cache-dir", str(tmp_path / "c"))  # fmt: skip
    assert code == 3 and "PARTIAL" in out and "MED" in out


def test_low_tier_is_not_gating(write_ledger: Callable[..., Path], tmp_path: Path) -> None:
    with serve({"/paywall": Route(status=402)}) as server:
        path = write_ledger(f"version: 1\nsources: {{web: '{server.url('/paywall')}'}}\nclaims:\n"
                            "  - {id: C1, kind: quote, source: web, quote: 'some long enough quote'}\n")  # fmt: skip
        code, out, _ = invoke("check", "--ledger", str(path), "--allow-private-urls", "--cache-dir", str(tmp_path))
    assert code == 0 and "LOW" in out and "Unverifiable" in out


def test_exit_4_no_claims(write_ledger: Callable[..., Path]) -> None:
    code, out, _ = invoke("check", "--ledger", str(write_ledger("version: 1\nclaims: []\n")))
    assert code == 4 and "NO_CLAIMS" in out and "PASS" not in out


@pytest.mark.parametrize(
    "content",
    ["version: 1\nclaims:\n  - id: C1\n    kind: quote\n", "version: [\n", "{}", "version: 1\nclaims: 5\n"],
)
def test_exit_2_malformed_ledger_without_traceback(write_ledger: Callable[..., Path], content: str) -> None:
    path = write_ledger(content)
    code, out, err = invoke("check", "--ledger", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"claimledger: error: {path}:")
    assert "Traceback" not in err


def test_exit_2_usage_errors(tmp_path: Path) -> None:
    code, _, err = invoke("check")
    assert code == 2 and "--ledger" in err
    code, _, err = invoke("check", "--ledger", str(tmp_path / "missing.yaml"))
    assert code == 2 and "not found" in err
    code, _, err = invoke("check", "--ledger", str(tmp_path), "--format", "xml")
    assert code == 2


def test_output_file_is_written(ledger_dir: Path, write_ledger: Callable[..., Path]) -> None:
    path = write_ledger("version: 1\nsources: {smith: smith.pdf}\nclaims:\n" + GOOD_QUOTE)
    out_file = ledger_dir / "report.json"
    code, out, _ = invoke("check", "--ledger", str(path), "-f", "json", "-o", str(out_file))
    assert code == 0 and out == ""
    assert json.loads(out_file.read_text())["outcome"] == "PASS"


def test_installed_script_runs_the_bundled_examples() -> None:
    exe = Path(sys.executable).parent / "claimledger"
    en = subprocess.run(
        [str(exe), "check", "--ledger", "examples/en/ledger.yaml", "--metrics", "examples/en/metrics.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert en.returncode == 1, en.stderr
    assert "quote_near_miss" in en.stdout and "[-73-]{+37+}" in en.stdout
    ja = subprocess.run(
        [str(exe), "check", "--ledger", "examples/ja/ledger.yaml", "-f", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    report = json.loads(ja.stdout)
    by = {f["claim_id"]: f for f in report["findings"]}
    assert by["Q1"]["status"] == "verified" and by["Q1"]["evidence"]["page"] == 1
    assert by["Q2"]["reason"] == "quote_near_miss" and "{+約+}" in by["Q2"]["diff"]
    assert by["N1"]["status"] == "verified" and by["N2"]["status"] == "verified"
    # the demo shows a quote across a PDF page break and a quote from a page with furigana, verified
    assert by["Q5"]["status"] == "verified" and (by["Q5"]["evidence"]["page"], by["Q5"]["evidence"]["end_page"]) == (1, 2)
    assert by["Q6"]["status"] == "verified" and by["Q6"]["evidence"]["line"] == 10


def test_version_and_help() -> None:
    code, out, _ = invoke("--version")
    assert code == 0 and "claimledger" in out
    code, out, _ = invoke("check", "--help")
    assert code == 0 and "--no-fail-closed" in out and "--metrics" in out
