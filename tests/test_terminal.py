"""The terminal: a rich summary when stdout is a terminal, plain Markdown otherwise; progress on stderr."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger.cli import cli
from claimledger.cli._common import _Progress
from claimledger.output import terminal
from claimledger.output.terminal import TerminalProgress, summary_text
from tests.report_helpers import EXAMPLES, ROOT, en_report

COLOR_SGR = re.compile(r"\x1b\[[0-9;]*(?:3[0-7]|38;[0-9;]+|4[0-7]|48;[0-9;]+|9[0-7])m")
EN_ARGS = [
    "check",
    "--ledger",
    str(EXAMPLES / "en" / "ledger.yaml"),
    "--metrics",
    str(EXAMPLES / "en" / "metrics.py"),
]


def test_summary_has_outcome_counts_and_a_table_worst_first() -> None:
    text = summary_text(en_report(), width=160)
    assert "FAIL" in text and "not verified while HIGH findings remain" in text
    assert "9 claims checked: 4 HIGH, 0 MED, 0 LOW, 1 EXPLAINED, 4 verified" in text
    for header in ("ID", "Tier", "Reason", "Where", "Finding"):
        assert header in text
    rows = [line.split()[0] for line in text.splitlines() if re.match(r"^ ?[CN]\d ", line)]
    assert rows == ["N3", "C2", "C3", "C4", "N4", "N1", "N2", "C1", "N5"]  # HIGH, EXPLAINED, verified
    assert "reduced errors by [-73-]{+37+} percent" in text
    assert "nearest (smith2019, p. 1, characters 124–194)" in text
    assert "recomputed 1,202" in text and "ledger line 40" in text
    assert not COLOR_SGR.search(text)
    assert COLOR_SGR.search(summary_text(en_report(), color=True))


def _run_in_pty(args: list[str], env_extra: dict[str, str]) -> tuple[int, str, str]:
    """Run the CLI with stdout on a pseudo-terminal (stderr on a pipe)."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update({"COLUMNS": "150", "TERM": "xterm-256color", **env_extra})
    proc = subprocess.Popen(
        [sys.executable, "-m", "claimledger", *args],
        stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, cwd=ROOT,
    )  # fmt: skip
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            proc.kill()
            raise AssertionError("the CLI did not finish within 60 s")
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.stderr is not None
    with proc.stderr:
        err = proc.stderr.read().decode()
    return proc.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace"), err


def test_terminal_gets_the_rich_summary_in_colour() -> None:
    code, out, err = _run_in_pty(EN_ARGS, {})
    assert code == 1, err
    assert "╭─ claimledger" in out and "9 claims checked" in out
    assert "## claimledger verification report" not in out  # not the Markdown
    assert COLOR_SGR.search(out)
    assert "quote_near_miss" in out and "[-73-]{+37+}" in out


def test_no_color_is_respected() -> None:
    code, out, _ = _run_in_pty(EN_ARGS, {"NO_COLOR": "1"})
    assert code == 1 and "╭─ claimledger" in out
    assert not COLOR_SGR.search(out)


def test_pipes_and_files_get_plain_markdown(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, EN_ARGS)
    assert result.exit_code == 1
    assert result.stdout.startswith("## claimledger verification report")
    assert "\x1b[" not in result.stdout and "╭" not in result.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "claimledger", *EN_ARGS], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 1 and proc.stdout.startswith("## claimledger verification report")
    assert proc.stderr == ""  # no progress on a pipe
    out = tmp_path / "r.md"
    assert CliRunner().invoke(cli, [*EN_ARGS, "-o", str(out)]).exit_code == 1
    assert out.read_text(encoding="utf-8").startswith("## claimledger verification report")


class _FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_after_a_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _FakeTTY()
    progress = TerminalProgress(quiet=False, stream=stream)
    progress("checking claims", 0, 4)  # too early: nothing yet
    assert stream.getvalue() == "" and not progress.shown
    monkeypatch.setattr(terminal, "PROGRESS_DELAY", 0.0)
    for done in range(1, 5):
        progress("loading sources", done, 4)
    progress.close()
    assert progress.shown and "loading sources" in stream.getvalue()


def test_progress_respects_quiet_and_pipes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal, "PROGRESS_DELAY", 0.0)
    quiet, pipe = _FakeTTY(), io.StringIO()
    for progress, stream in ((TerminalProgress(quiet=True, stream=quiet), quiet),
                             (TerminalProgress(quiet=False, stream=pipe), pipe)):  # fmt: skip
        progress("checking claims", 1, 2)
        progress.close()
        assert stream.getvalue() == "" and not progress.shown


def test_progress_has_no_colour_under_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal, "PROGRESS_DELAY", 0.0)
    monkeypatch.setenv("NO_COLOR", "1")
    stream = _FakeTTY()
    progress = TerminalProgress(stream=stream)
    progress("checking claims", 1, 2)
    progress.close()
    assert "checking claims" in stream.getvalue() and not COLOR_SGR.search(stream.getvalue())


def test_cli_progress_is_the_terminal_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    class FakeTTY(io.StringIO):
        def isatty(self) -> bool:
            return True

    quiet = _Progress(quiet=True)
    quiet("checking claims", 1, 2)
    quiet.close()
    assert not isinstance(quiet, TerminalProgress)  # nothing to show: rich is not even loaded
    monkeypatch.setattr("sys.stderr", FakeTTY())
    shown = _Progress(quiet=False)
    assert isinstance(shown, TerminalProgress) and shown.enabled
