"""`mark --in-place` never loses an edit made while it runs, and never rewrites a file it would not change.

The edit is made by a real program during the run: the draft cites a URL
source served by a local HTTP server whose handler appends a line to the draft
before it answers, so the line lands after mark has read the draft and before
it writes the result.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger.cli import cli

SOURCE = "Adding an independent verification step reduced errors by 37 percent.\n"
DRAFT = "# Notes\n\nSmith found that “an independent verification step reduced errors by 37 percent”[D] [@smith].\n"
APPENDED = "A line the writer added while mark was running.\n"


@pytest.fixture
def editing_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A source server that appends a line to ``tmp_path/d.md`` each time the source is fetched."""
    draft = tmp_path / "d.md"

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with draft.open("a", encoding="utf-8") as fh:
                fh.write(APPENDED)
            body = SOURCE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/smith.txt", draft
    finally:
        httpd.shutdown()
        httpd.server_close()


def _mark(draft: Path, source: str, tmp_path: Path, *more: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["mark", str(draft), "--source", f"smith={source}", "--allow-private-urls",
                                   "--cache-dir", str(tmp_path / "cache"), "--refresh", *more])  # fmt: skip
    return res.exit_code, res.output


def test_an_edit_made_during_the_run_is_kept_and_the_run_refuses(
    editing_server: tuple[str, Path], tmp_path: Path
) -> None:
    url, draft = editing_server
    draft.write_text(DRAFT, encoding="utf-8")
    code, output = _mark(draft, url, tmp_path, "--in-place")
    assert code == 2, output
    assert "changed while it was being marked" in output and "nothing was written" in output
    assert "Traceback" not in output
    assert draft.read_text("utf-8") == DRAFT + APPENDED  # the edit survives; the stale result was not written
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_file_with_nothing_to_change_is_left_untouched(tmp_path: Path) -> None:
    source = tmp_path / "smith.txt"
    source.write_text(SOURCE, encoding="utf-8")
    draft = tmp_path / "d.md"
    draft.write_text(DRAFT.replace("[D]", "[V]"), encoding="utf-8")
    os.utime(draft, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = draft.stat()
    code, output = _mark(draft, str(source), tmp_path, "--in-place")
    assert code == 0, output
    after = draft.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (
        before.st_ino,
        before.st_mtime_ns,
        before.st_size,
    )
    assert draft.read_text("utf-8") == DRAFT.replace("[D]", "[V]")


def test_a_file_that_needs_marks_is_still_replaced(tmp_path: Path) -> None:
    source = tmp_path / "smith.txt"
    source.write_text(SOURCE, encoding="utf-8")
    draft = tmp_path / "d.md"
    draft.write_text(DRAFT, encoding="utf-8")
    draft.chmod(0o640)
    code, output = _mark(draft, str(source), tmp_path, "--in-place")
    assert code == 0, output
    assert draft.read_text("utf-8") == DRAFT.replace("[D]", "[V]")
    assert draft.stat().st_mode & 0o777 == 0o640


def test_an_edit_saved_between_the_last_comparison_and_the_swap_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window the final comparison left: an edit saved after it and before the new file takes the
    name. Where names can be swapped atomically (Linux), the old file is compared again after the swap
    and the swap undone. The edit is made at that seam by wrapping the real swap."""
    from claimledger import _files

    source = tmp_path / "smith.txt"
    source.write_text(SOURCE, encoding="utf-8")
    draft = tmp_path / "d.md"
    draft.write_text(DRAFT, encoding="utf-8")
    real = _files.exchange
    calls: list[str] = []

    def edit_then_swap(a: str | Path, b: str | Path) -> bool:
        if not calls:
            with draft.open("a", encoding="utf-8") as fh:  # saved in place, just before the swap
                fh.write(APPENDED)
        calls.append(str(a))
        return real(a, b)

    monkeypatch.setattr(_files, "exchange", edit_then_swap)
    code, output = _mark(draft, str(source), tmp_path, "--in-place")
    assert len(calls) == 2, "swapped, found the edit, swapped back"
    assert code == 2 and "changed while it was being marked" in output and "Traceback" not in output
    assert draft.read_text("utf-8") == DRAFT + APPENDED
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_names_are_swapped_in_one_step_on_linux(tmp_path: Path) -> None:
    from claimledger._files import exchange

    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("first")
    b.write_text("second")
    assert exchange(a, b) is True  # the CI machines run Linux with glibc >= 2.28
    assert (a.read_text(), b.read_text()) == ("second", "first")
