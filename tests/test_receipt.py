"""Receipts: canonical JSON of a mark or check run, and verify-receipt."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import rfc8785
from click.testing import CliRunner

from claimledger import verify_receipt
from claimledger.cli import cli
from tests.conftest import ROOT


@pytest.fixture
def digest(tmp_path: Path) -> Path:
    target = tmp_path / "ja_digest"
    shutil.copytree(ROOT / "examples" / "ja_digest", target)
    return target


def _mark(digest: Path) -> tuple[Path, Path]:
    marked, receipt = digest / "marked.md", digest / "receipt.json"
    res = CliRunner().invoke(cli, ["mark", str(digest / "digest.md"), "--ledger", str(digest / "ledger.yaml"),
                                   "-o", str(marked), "--receipt", str(receipt)])  # fmt: skip
    assert res.exit_code == 0, res.output
    return marked, receipt


def test_mark_receipt_is_canonical_and_complete(digest: Path) -> None:
    _marked, receipt = _mark(digest)
    raw = receipt.read_bytes()
    data = json.loads(raw)
    assert raw == rfc8785.dumps(data)
    assert data["command"] == "mark" and data["tool_version"]
    assert data["draft"]["path"] == "marked.md" and len(data["draft"]["sha256"]) == 64
    assert data["ledger"]["path"] == "ledger.yaml"
    assert set(data["sources"]) == {"shokushu2024", "chosa2024"}
    assert all(len(s["sha256"]) == 64 for s in data["sources"].values())
    assert [m["mark"] for m in data["marks"]].count("D") == 2
    assert len(data["findings"]) == len(data["marks"])
    result = verify_receipt(receipt)
    assert result.ok, result.problems


def test_one_changed_character_in_the_draft_fails(digest: Path) -> None:
    marked, receipt = _mark(digest)
    text = marked.read_text("utf-8")
    marked.write_text(text.replace("調査ダイジェスト", "調査ダイジェスト ", 1), encoding="utf-8")
    result = verify_receipt(receipt)
    assert not result.ok
    assert any("draft marked.md changed" in p for p in result.problems)


def test_a_changed_source_fails(digest: Path) -> None:
    _marked, receipt = _mark(digest)
    src = digest / "sources" / "shokushu2024.html"
    src.write_text(src.read_text("utf-8").replace("12％", "13％"), encoding="utf-8")
    res = CliRunner().invoke(cli, ["verify-receipt", str(receipt)])
    assert res.exit_code == 1
    assert "source shokushu2024: sources/shokushu2024.html changed" in res.output


def test_a_forged_mark_fails(digest: Path) -> None:
    marked, receipt = _mark(digest)
    marked.write_text(marked.read_text("utf-8").replace("約4割を占めた」[D]", "約4割を占めた」[V]"), encoding="utf-8")
    result = verify_receipt(receipt, recheck=False)
    assert any("the draft has [V], the receipt records [D]" in p for p in result.problems)


def test_check_receipt_and_recheck(digest: Path) -> None:
    receipt = digest / "check.json"
    res = CliRunner().invoke(cli, ["check", str(digest / "digest.md"), "--ledger", str(digest / "ledger.yaml"),
                                   "--receipt", str(receipt)])  # fmt: skip
    assert res.exit_code == 1
    data = json.loads(receipt.read_bytes())
    assert data["command"] == "check" and data["outcome"] == "FAIL"
    ok = CliRunner().invoke(cli, ["verify-receipt", str(receipt)])
    assert ok.exit_code == 0, ok.output
    assert "check re-run" in ok.output


@pytest.mark.parametrize("content", [b"not json", b'{"tool": "other"}', b'{"tool": "claimledger", "receipt_version": 1}'])
def test_bad_receipt_exits_2(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(content)
    res = CliRunner().invoke(cli, ["verify-receipt", str(path)])
    assert res.exit_code == 2
    assert "Traceback" not in res.output
