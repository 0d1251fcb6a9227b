"""A write that fails is a clear message, never a crash (issue 14, item 11)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.localserver import Route, serve

SOURCE = "The trial reduced errors by 37 percent over six months.\n試験では誤りが37％減った。\n"


def _run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimledger", *args], capture_output=True, text=True,
                          timeout=120, check=False, cwd=cwd, env={**os.environ, **(env or {})})  # fmt: skip


@pytest.mark.parametrize("broken", ["file", "device"])
def test_a_failed_url_cache_write_still_checks_from_the_bytes_in_memory(tmp_path: Path, broken: str) -> None:
    if broken == "file":
        cache = tmp_path / "cache"
        cache.mkdir()
        for name in ("objects", "urls", "index", ".lock"):  # a damaged cache: files where folders belong
            (cache / name).mkdir() if name == ".lock" else (cache / name).write_text("not a folder")
    else:
        cache = Path("/dev/full/cache")  # under a character device: no folder can be made
    with serve({"/s.txt": Route(body=SOURCE.encode())}) as server:
        ledger = tmp_path / "ledger.yaml"
        ledger.write_text(
            f"version: 1\nsources: {{s: '{server.url('/s.txt')}'}}\nclaims:\n"
            "  - {id: C1, kind: quote, source: s, quote: \"reduced errors by 37 percent\"}\n"
            "  - {id: J1, kind: quote, source: s, quote: \"試験では誤りが37％減った\"}\n",
            encoding="utf-8",
        )
        done = _run("check", "--ledger", str(ledger), "--format", "json", "--allow-private-urls",
                    "-q", cwd=tmp_path, env={"CLAIMLEDGER_CACHE_DIR": str(cache)})  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert {f["claim_id"]: f["reason"] for f in report["findings"]} == {"C1": "quote_found", "J1": "quote_found"}
    assert report["outcome"] == "PASS"
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("target", ["/dev/full", "/proc/claimledger-report.json", "missing-folder-file"])
def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path: Path, target: str) -> None:
    src = tmp_path / "s.txt"
    src.write_text(SOURCE, encoding="utf-8")
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text(
        "version: 1\nsources: {s: s.txt}\nclaims:\n"
        "  - {id: C1, kind: quote, source: s, quote: \"reduced errors by 37 percent\"}\n",
        encoding="utf-8",
    )
    if target == "missing-folder-file":
        (tmp_path / "blocker").write_text("a file, not a folder")
        target = str(tmp_path / "blocker" / "report.json")
    elif target == "/dev/full":
        try:  # a private "full disk" device: the test never risks the shared /dev/full
            os.mknod(tmp_path / "full", stat.S_IFCHR | 0o666, os.makedev(1, 7))
            target = str(tmp_path / "full")
        except PermissionError:
            pass
    before = Path(target).stat() if "full" in target else None
    done = _run("check", "--ledger", str(ledger), "--format", "json", "-o", target, "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claimledger: error: cannot write the report to"), done.stderr
    assert "Traceback" not in done.stderr
    if before is not None:  # the device is still a device: never replaced by a renamed regular file
        after = Path(target).stat()
        assert (after.st_mode, after.st_rdev) == (before.st_mode, before.st_rdev)
    assert not list(Path(target).parent.glob(".*.tmp")) if Path(target).parent.is_dir() else True


def test_a_receipt_that_cannot_be_written_is_one_line_and_exit_2(tmp_path: Path) -> None:
    src = tmp_path / "s.txt"
    src.write_text(SOURCE, encoding="utf-8")
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text("version: 1\nsources: {s: s.txt}\nclaims:\n"
                      "  - {id: C1, kind: quote, source: s, quote: \"reduced errors by 37 percent\"}\n")  # fmt: skip
    done = _run("check", "--ledger", str(ledger), "-q", "--receipt", "/proc/claimledger-receipt.json",
                "-o", str(tmp_path / "r.md"), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claimledger: error: cannot write the receipt to"), done.stderr
