"""The extraction child: a memory limit, a cap on extracted text, death with its parent, no files left
(issue 14, item 5)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import pytest

from claimledger import GateConfig
from claimledger._exceptions import SourceError
from claimledger.load.html import html_extract
from claimledger.load.index import index_source
from claimledger.load.pdf import pdf_extract
from claimledger.server._core import REQUEST_PREFIX, sweep_stale_request_folders

ROOT = Path(__file__).parent.parent


def expanding_pdf(repeats: int, pages: int = 1, line: str = "Expanding text 0123456789 ") -> bytes:
    """A small PDF whose ``pages`` pages all draw one content stream: ``line`` ``repeats`` times.

    The stream compresses about 1000x and is stored once, so the text grows with pages x repeats
    while the file does not.
    """
    ops = "BT /F1 10 Tf 20 780 Td " + f"({line}) Tj 0 -12 Td " * repeats + "ET"
    stream = zlib.compress(ops.encode("latin-1"), 9)
    kids = " ".join(f"{6 + i} 0 R" for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids.encode(), pages),
        b"<< /Font << /F1 5 0 R >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 3 0 R /Contents 4 0 R >>"] * pages
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_a_pdf_that_expands_past_the_text_cap_is_too_large(tmp_path: Path) -> None:
    data = expanding_pdf(2_000, pages=20)  # ~ 2 KB on disk, ~ 1,000,000 characters of text
    assert len(data) < 20_000
    with pytest.raises(SourceError) as info:
        pdf_extract(data, timeout=60.0, max_chars=100_000)
    assert info.value.reason == "source_too_large" and "--max-source-chars" in str(info.value)
    # through the gate's index, with the limit from the configuration; nothing is cached
    (tmp_path / "big.pdf").write_bytes(data)
    cfg = GateConfig(cache_dir=tmp_path / "cache", max_source_chars=100_000)
    with pytest.raises(SourceError) as again:
        index_source("big", str(tmp_path / "big.pdf"), cfg)
    assert again.value.reason == "source_too_large"
    assert not (tmp_path / "cache" / "index").exists()
    # under the cap it reads
    text, _pages, _hidden = pdf_extract(expanding_pdf(50), timeout=60.0, max_chars=100_000)
    assert "Expanding text" in text


def test_an_html_page_over_the_text_cap_is_too_large() -> None:
    page = "<html><body>" + "<p>見える文章 visible words.</p>" * 20_000 + "</body></html>"
    with pytest.raises(SourceError) as info:
        html_extract(page, timeout=60.0, max_chars=50_000)
    assert info.value.reason == "source_too_large" and "--max-source-chars" in str(info.value)


def test_an_extraction_over_its_memory_limit_is_stopped_and_says_which_limit() -> None:
    """A 14 MB page holds its text several times over while it is read: far more than 48 MB."""
    page = "<html><body><p>" + "visible words " * 1_000_000 + "</p></body></html>"
    with pytest.raises(SourceError) as info:
        html_extract(page, timeout=120.0, memory=48 << 20, max_chars=100_000_000)
    assert info.value.reason in ("source_too_large", "source_unreadable")
    assert "--extract-memory" in str(info.value)
    # a small page within the same limit reads
    visible, _hidden, _extras = html_extract("<p>" + "<i>a</i>" * 1000 + "</p>", timeout=60.0, memory=48 << 20)
    assert visible == "a" * 1000


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        for task in os.listdir(f"/proc/{p}/task") if os.path.isdir(f"/proc/{p}/task") else []:
            try:
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as fh:
                    kids = [int(x) for x in fh.read().split()]
            except OSError:
                kids = []
            found += kids
            todo += kids
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("kind", ["html", "sql"])
def test_children_die_with_their_parent(tmp_path: Path, kind: str) -> None:
    """A parent killed with SIGKILL (no cleanup runs) takes its extraction or SQL child with it."""
    if kind == "html":
        work = """
            from claimledger.load.html import html_extract
            html_extract("<p>x</p>" + "<a b='" * 300_000, timeout=600.0)
        """
    else:
        work = """
            from claimledger import GateConfig
            from claimledger.load.data import DataStore
            DataStore({}, GateConfig(sql_timeout=600.0)).scalar("SELECT len(list_distinct(range(400000000)))")
        """
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(work), encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script)], cwd=ROOT)
    try:
        children: list[int] = []
        for _ in range(600):  # wait (at most a minute) for the child to start
            children = [c for c in _descendants(parent.pid) if _alive(c)]
            if children:
                break
            time.sleep(0.1)
        assert children, "the child never started"
        time.sleep(0.5)  # let it get past its prctl call
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=30)
        for _ in range(300):
            if not any(_alive(c) for c in children):
                break
            time.sleep(0.1)
        assert not any(_alive(c) for c in children), "a child outlived its killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_extraction_writes_no_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.chdir(tmp)
    html_extract("<p>visible</p><div hidden>secret</div>", timeout=60.0)
    pdf_extract(expanding_pdf(10), timeout=60.0)
    with pytest.raises(SourceError):
        html_extract("<a b='" * 200_000, timeout=0.5)  # killed mid-work
    assert list(tmp.iterdir()) == []


def test_request_folders_of_a_killed_server_are_swept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inline request content lives in claimledger-req-<pid>-*; a new server removes those of dead ones."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"{REQUEST_PREFIX}{dead.pid}-abc"
    stale.mkdir()
    (stale / "source0.txt").write_text("inline content of a request")
    live = tmp_path / f"{REQUEST_PREFIX}{os.getpid()}-def"
    live.mkdir()
    other = tmp_path / "claimledger-something-else"
    other.mkdir()
    assert sweep_stale_request_folders() == 1
    assert not stale.exists() and live.exists() and other.exists()
