"""Hostile SQL, PDF, HTML and allow patterns through the CLI, under the default limits.

For each case: a ledger in a temporary folder, one ``claimledger check`` process, its wall time,
the peak resident memory of the whole process tree (the CLI and its SQL and extraction children,
sampled every 20 ms from /proc), the exit code and the finding. Run by
``scripts/bench_hostile.py --limits``; figures are recorded in docs/security.md.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        pass
    return out


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants, in bytes."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += _rss(p)
        todo += _children(p)
    return total


def run_measured(args: list[str], cwd: Path) -> tuple[float, int, subprocess.CompletedProcess[str]]:
    """Run a command; its wall time, the peak RSS of its process tree, and its result."""
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, tree_rss(proc.pid))
            stop.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    start = time.monotonic()
    sampler.start()
    out, err = proc.communicate()
    elapsed = time.monotonic() - start
    stop.set()
    sampler.join()
    return elapsed, peak, subprocess.CompletedProcess(args, proc.returncode, out, err)


def _check(folder: Path, ledger: str, *flags: str) -> tuple[float, int, subprocess.CompletedProcess[str]]:
    (folder / "ledger.yaml").write_text(ledger, encoding="utf-8")
    return run_measured(
        [sys.executable, "-m", "claimledger", "check", "--ledger", "ledger.yaml", "--format", "json", "-q",
         "--cache-dir", str(folder / "cache"), *flags],
        folder,
    )  # fmt: skip


def _finding(done: subprocess.CompletedProcess[str]) -> str:
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return f"no report (exit {done.returncode}): {done.stderr.strip()[-200:]}"
    findings = report.get("findings", [])
    if not findings:
        return "no finding"
    first = findings[0]
    return f"{first['reason']}: {str(first.get('message', ''))[:150]}"


SQL_CASES = {
    "repeat('x', 2e9)": "SELECT length(repeat('x', 2000000000))",
    "list of 2e8": "SELECT sum(len(x)) FROM (SELECT list(range) AS x FROM range(200000000))",
    "list_distinct(range(4e7))": "SELECT len(list_distinct(range(40000000)))",
    "cross join 1e9 x 1e9": "SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range + b.range = 7",
}


def _sql_ledger(sql: str) -> str:
    return (
        "version: 1\ndatasets:\n  d: d.csv\nclaims:\n"
        f"  - id: N1\n    kind: number\n    value: 1\n    sql: \"{sql}\"\n"
        "  - id: N2\n    kind: number\n    value: 60\n    sql: SELECT sum(clicks) FROM d\n"
    )


def sql_cases(folder: Path, sql_timeout: float) -> list[tuple[str, str, float, int, str]]:
    (folder / "d.csv").write_text("day,clicks\n1,10\n2,20\n3,30\n", encoding="utf-8")
    rows = []
    for name, sql in SQL_CASES.items():
        elapsed, peak, done = _check(folder, _sql_ledger(sql), "--sql-timeout", str(sql_timeout))
        rows.append(("SQL", name, elapsed, peak, _finding(done)))
    claims = "".join(
        f"  - id: N{i}\n    kind: number\n    value: {60 + i}\n    sql: SELECT sum(clicks) + {i} FROM d\n"
        for i in range(1000)
    )
    elapsed, peak, done = _check(folder, "version: 1\ndatasets:\n  d: d.csv\nclaims:\n" + claims)
    verified = sum(1 for f in json.loads(done.stdout)["findings"] if f["reason"] == "number_match")
    rows.append(("SQL", "1,000 SQL claims (one SQL process)", elapsed, peak, f"{verified} number_match"))
    return rows


def _source_ledger(name: str) -> str:
    return (f"version: 1\nsources:\n  s: {name}\nclaims:\n"
            "  - {id: Q1, kind: quote, source: s, quote: \"visible words visible\"}\n")  # fmt: skip


def document_cases(folder: Path) -> list[tuple[str, str, float, int, str]]:
    sys.path.insert(0, str(ROOT))
    from tests.test_extract_limits import expanding_pdf

    docs: dict[str, tuple[str, bytes]] = {
        "PDF, 50 pages x 500,000 chars, one stream": ("pages.pdf", expanding_pdf(20_000, pages=50)),
        "PDF, one page of 18 M chars": ("page.pdf", expanding_pdf(700_000)),
        "HTML, 12 MB of elements": ("elements.html", b"<html><body>" + b"<p>visible words</p>" * 600_000),
        "HTML, 17 MB of text in one paragraph": ("text.html", b"<p>" + b"visible words " * 1_200_000 + b"</p>"),
        "HTML, 600 KB of unclosed attributes (quadratic)": ("quadratic.html", b"<p>x</p>" + b"<a b='" * 100_000),
    }
    rows = []
    for case, (name, data) in docs.items():
        (folder / name).write_bytes(data)
        elapsed, peak, done = _check(folder, _source_ledger(name), "--extract-timeout", "20")
        rows.append(("DOC", f"{case} ({len(data) / 1e6:.2f} MB)", elapsed, peak, _finding(done)))
    return rows


def pdf_page_cost(pages: int = 20) -> list[tuple[str, float, int, int]]:
    """Extraction time per page (in-process, no child start) of reportlab reports, EN and JA.

    Each page: dense body text at 9 pt, a running header, a page number; on the "figure" pages
    also an image and a table drawn with lines and a shaded header row (such pages are rendered
    and judged character by character, :mod:`claimledger.load._pdf_ink`; plain pages are not).
    """
    import io

    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen.canvas import Canvas

    from claimledger.load._extract_worker import extract

    pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
    en = "The survey found that adoption of verification tools rose steadily across the sector. "
    ja = "調査によれば、生成AIを業務で使う企業は前年の約4倍に増え、検証の手順も広がった。"
    out = []
    for lang, sentence, font, figures in (("EN", en, "Helvetica", False), ("EN", en, "Helvetica", True),
                                          ("JA", ja, "HeiseiMin-W3", False), ("JA", ja, "HeiseiMin-W3", True)):
        buf = io.BytesIO()
        c = Canvas(buf)
        img = ImageReader(Image.new("RGB", (64, 48), (90, 120, 160)))
        for n in range(pages):
            c.setFont(font, 8)
            c.drawString(36, 815, "Annual Report 2024 / 年次報告")
            c.setFont(font, 9)
            y = 790.0
            while y > 60:
                c.drawString(36, y, (sentence * 3)[: 110 if lang == "EN" else 52])
                y -= 12.5
            if figures:
                c.drawImage(img, 300, 500, width=200, height=150)
                c.setFillColorRGB(0.9, 0.9, 0.9)
                c.rect(36, 300, 500, 14, stroke=0, fill=1)
                c.setFillColorRGB(0, 0, 0)
                c.grid([36, 200, 360, 536], [300, 314, 328, 342])
            c.drawString(290, 30, str(n + 1))
            c.showPage()
        c.save()
        data = buf.getvalue()
        start = time.perf_counter()
        result = extract(data, 10_000)
        elapsed = time.perf_counter() - start
        chars = sum(len(p) for p in result["pages"])
        out.append((f"{lang} {'figure' if figures else 'plain'}", elapsed / pages, chars // pages, len(data)))
    return out


EXTRA_CASES: list[Callable[[Path], list[tuple[str, str, float, int, str]]]] = [document_cases]


def run_limits(sql_timeout: float = 5.0) -> int:
    rows: list[tuple[str, str, float, int, str]] = []
    with tempfile.TemporaryDirectory(prefix="claimledger-hostile-") as tmp:
        folder = Path(tmp)
        rows += sql_cases(folder, sql_timeout)
        for extra in EXTRA_CASES:
            rows += extra(folder)
    out = io.StringIO()
    out.write(f"{'kind':5} {'case':44} {'seconds':>8} {'peak RSS':>9}  finding\n")
    for kind, name, elapsed, peak, finding in rows:
        out.write(f"{kind:5} {name:44} {elapsed:8.1f} {peak / 2**20:6.0f} MB  {finding}\n")
    print(out.getvalue(), end="")
    for lang, per_page, chars, size in pdf_page_cost():
        print(f"PDF   {lang} pages of {chars:,} chars ({size / 1e3:.0f} KB for 20): "
              f"{per_page * 1000:.0f} ms a page to extract and judge visibility")
    return 0
