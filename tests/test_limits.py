"""Resource limits with clear findings, and text a reader cannot see.

A hostile PDF or HTML page is stopped by the extraction time limit, a huge
line is processed in linear time, YAML bombs and deep nesting are refused,
and a quote found only in invisible PDF text is never verified.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from claimledger import GateConfig, LedgerError, Outcome, Reason, Status, Tier, gate
from claimledger._exceptions import SourceError
from claimledger.load import isolate
from claimledger.load.html import html_extract
from claimledger.load.ledger import parse_ledger
from claimledger.load.pdf import pdf_extract, pdf_to_text

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures"


def _ledger(tmp_path: Path, sources: dict[str, str], quotes: list[tuple[str, str, str]]) -> Path:
    lines = ["version: 1", "sources:"] + [f"  {k}: {v}" for k, v in sources.items()] + ["claims:"]
    for cid, src, quote in quotes:
        lines += [f"  - id: {cid}", "    kind: quote", f"    source: {src}", f"    quote: {json.dumps(quote)}"]
    path = tmp_path / "ledger.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- extraction time limit ----------------------------------------------------------------------


def test_a_pdf_that_hangs_the_extractor_is_stopped_and_reported(tmp_path: Path) -> None:
    """form_bomb.pdf: nested form XObjects, 2**28 text draws (scripts/make_fixtures.py)."""
    path = _ledger(
        tmp_path,
        {"bomb": str(FIXTURES / "form_bomb.pdf"), "ok": str(FIXTURES / "hyphenated.pdf")},
        [("B", "bomb", "Visible text on the page"), ("OK", "ok", "reduced errors by 37 percent")],
    )
    start = time.monotonic()
    # 5 s: the bomb needs hours; the good PDF needs under a second, more on a loaded machine
    report = gate(path, config=GateConfig(pdf_timeout=5.0, cache_dir=tmp_path / "cache"))
    assert time.monotonic() - start < 40
    by = {f.claim_id: f for f in report.findings}
    # stopped by its time limit, or (sooner, on a fast machine) by its memory limit: HIGH either way
    assert by["B"].tier is Tier.HIGH and by["B"].status is not Status.VERIFIED
    if by["B"].reason is Reason.SOURCE_EXTRACTION_TIMEOUT:
        assert "--extract-timeout" in by["B"].message
    else:
        assert by["B"].reason in (Reason.SOURCE_TOO_LARGE, Reason.SOURCE_UNREADABLE)
        assert "--extract-memory" in by["B"].message
    assert by["OK"].status is Status.VERIFIED  # the other claim is still checked
    assert report.outcome is Outcome.FAIL


def test_the_stopped_extractor_does_not_outlive_its_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pid_file = tmp_path / "pid"
    sleeper = f"import os,time; open({str(pid_file)!r},'w').write(str(os.getpid())); time.sleep(600)"
    monkeypatch.setattr(isolate, "WORKER_COMMAND", (sys.executable, "-c", sleeper))
    start = time.monotonic()
    with pytest.raises(SourceError) as info:
        pdf_extract((FIXTURES / "hyphenated.pdf").read_bytes(), timeout=1.0)
    assert info.value.reason == "source_extraction_timeout"
    assert time.monotonic() - start < 20
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped


@pytest.mark.parametrize(
    "script",
    ["import sys; sys.stdout.write('not json')", "import os; os._exit(139)", "print('[1, 2]')",
     "import sys; sys.stdin.read(); raise MemoryError"],
)  # fmt: skip
def test_a_crashing_or_garbled_extractor_is_unreadable_not_verified(
    script: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(isolate, "WORKER_COMMAND", (sys.executable, "-c", script))
    with pytest.raises(SourceError) as info:
        pdf_extract((FIXTURES / "hyphenated.pdf").read_bytes(), timeout=20.0)
    if "MemoryError" in script:  # out of memory names the limit to raise
        assert info.value.reason == "source_too_large" and "--extract-memory" in str(info.value)
    else:
        assert info.value.reason == "source_unreadable"


def test_a_quadratic_html_page_is_stopped(tmp_path: Path) -> None:
    """Python 3.11's html.parser needs minutes for this 600 KB page; the child is stopped."""
    page = "<p>The visible claim is here.</p>" + "<a b='" * 100_000
    start = time.monotonic()
    with pytest.raises(SourceError) as info:
        html_extract(page, timeout=1.0)
    assert info.value.reason == "source_extraction_timeout"
    assert time.monotonic() - start < 20


def test_html_extraction_in_the_child_matches_in_process() -> None:
    page = '<p>Visible <b>bold</b> text.</p><div hidden>Secret line.</div><!-- a comment --><p>日本語</p>'
    assert html_extract(page, timeout=20.0) == html_extract(page)


def test_pdf_extraction_in_the_child_matches_in_process() -> None:
    for name in ("hyphenated.pdf", "japanese.pdf", "hidden_text.pdf"):
        data = (FIXTURES / name).read_bytes()
        assert pdf_extract(data, timeout=20.0) == pdf_extract(data)
    text, pages = pdf_to_text((FIXTURES / "hyphenated.pdf").read_bytes(), timeout=20.0)
    assert len(pages) == 2 and "37 percent" in text


def test_page_count_limit_in_the_child() -> None:
    with pytest.raises(SourceError) as info:
        pdf_extract((FIXTURES / "hyphenated.pdf").read_bytes(), max_pages=1, timeout=20.0)
    assert info.value.reason == "source_too_large" and "--max-pdf-pages" in info.value.message


def test_cli_extract_timeout_option(tmp_path: Path) -> None:
    path = _ledger(tmp_path, {"bomb": str(FIXTURES / "form_bomb.pdf")}, [("B", "bomb", "Visible text on the page")])
    done = subprocess.run(
        [sys.executable, "-m", "claimledger", "check", "--ledger", str(path), "-f", "json",
         "--pdf-timeout", "0.5", "--cache-dir", str(tmp_path / "c")],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["findings"][0]["reason"] == "source_extraction_timeout"


# -- invisible PDF text --------------------------------------------------------------------------


HIDDEN_QUOTES = {
    "render mode 3": "the pilot tripled revenue overnight",
    "white on white": "every reviewer endorsed the method",
    "microscopic": "the trial was stopped for benefit",
    "transparent": "nobody saw any side effects",
}


def test_pdf_invisible_text_is_kept_apart() -> None:
    visible, _pages, hidden = pdf_extract((FIXTURES / "hidden_text.pdf").read_bytes())
    assert "the pilot cut costs by 12 percent" in visible
    assert "A second visible sentence closes the page." in visible
    for quote in HIDDEN_QUOTES.values():
        assert quote not in visible and quote in hidden


def test_a_quote_only_in_invisible_pdf_text_is_not_verified(tmp_path: Path) -> None:
    quotes = [("V", "doc", "the pilot cut costs by 12 percent")]
    quotes += [(f"H{i}", "doc", q) for i, q in enumerate(HIDDEN_QUOTES.values())]
    path = _ledger(tmp_path, {"doc": str(FIXTURES / "hidden_text.pdf")}, quotes)
    for run in range(2):  # the second run reads the source index from the cache
        report = gate(path, config=GateConfig(cache_dir=tmp_path / "cache"))
        by = {f.claim_id: f for f in report.findings}
        assert by["V"].status is Status.VERIFIED
        for i in range(len(HIDDEN_QUOTES)):
            f = by[f"H{i}"]
            assert f.reason is Reason.QUOTE_ONLY_IN_HIDDEN_TEXT and f.tier is Tier.HIGH, (run, f)
            assert "invisible" in f.message
        assert report.outcome is Outcome.FAIL


def test_a_pdf_with_only_invisible_text_has_no_text() -> None:
    with pytest.raises(SourceError) as info:
        pdf_extract((FIXTURES / "invisible_only.pdf").read_bytes(), timeout=20.0)
    assert info.value.reason == "source_no_text" and "invisible" in info.value.message


# -- huge inputs -----------------------------------------------------------------------------------


def test_a_50_mb_single_line_source(tmp_path: Path) -> None:
    words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do "
    (tmp_path / "big.txt").write_text(words * (50_000_000 // len(words)) + "the needle sentence at the very end.")
    path = _ledger(
        tmp_path,
        {"big": str(tmp_path / "big.txt")},
        [("Q", "big", "the needle sentence at the very end"), ("A", "big", "an absent sentence, nowhere at all")],
    )
    done = subprocess.run(
        [sys.executable, "-m", "claimledger", "check", "--ledger", str(path), "-f", "json",
         "--cache-dir", str(tmp_path / "c")],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    findings = {f["claim_id"]: f for f in json.loads(done.stdout)["findings"]}
    assert findings["Q"]["status"] == "verified"
    assert findings["A"]["status"] != "verified" and findings["A"]["tier"] == "HIGH"
    assert done.returncode == 1


def test_a_10_mb_single_line_draft_is_marked(tmp_path: Path) -> None:
    (tmp_path / "src.txt").write_text("Smith found that adding a verification step reduced errors by 37 percent.\n")
    (tmp_path / "ledger.yaml").write_text("version: 1\nsources:\n  smith2019: src.txt\nclaims: []\n")
    filler = "The team met on Tuesday and talked about the plan for the next quarter in some detail. " * 60
    good = "Smith found that “adding a verification step reduced errors by 37 percent”[D] [@smith2019]. "
    bad = "Smith also wrote “verification tripled the budget of every newsroom”[V] [@smith2019]. "
    unit = filler + good + bad
    (tmp_path / "draft.md").write_text(unit * (10_000_000 // len(unit)))
    script = textwrap.dedent(f"""
        from claimledger import mark
        r = mark({str(tmp_path / "draft.md")!r}, ledger={str(tmp_path / "ledger.yaml")!r})
        print(r.text.count("[V]"), r.text.count("[D]"), len(r.text))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    n = 10_000_000 // len(unit)
    v, d, size = (int(x) for x in done.stdout.split())
    assert (v, d) == (n, n)  # the writer's marks are swapped: [V] where verified, [D] where not
    assert size == len(unit) * n


def test_crafted_inputs_finish(tmp_path: Path) -> None:
    """387 crafted inputs through every text stage (scripts/bench_hostile.py); the bound is 'finishes'."""
    done = subprocess.run(
        [sys.executable, "scripts/bench_hostile.py", "--chars", "10000", "--quiet"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 unexpected errors" in done.stdout


# -- YAML and JSON bombs ---------------------------------------------------------------------------


BOMBS = {
    "billion laughs": "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nversion: *c\n",
    "merge key alias": "base: &b {version: 1}\n<<: *b\n",
    "deep flow sequence": "[" * 10_000 + "]" * 10_000,
    "deep flow mapping": "a: " + "{b: " * 5_000 + "1" + "}" * 5_000,
    "deep block sequence": "".join("  " * i + "-\n" for i in range(2_000)),
    "33 levels": "version: 1\nclaims: " + "[" * 33 + "]" * 33,
    "huge integer": "version: " + "9" * 5_000,
    "python tag": "version: !!python/object/apply:os.system ['true']",
}


@pytest.mark.parametrize("text", list(BOMBS.values()), ids=list(BOMBS))
def test_yaml_bombs_and_deep_nesting_are_ledger_errors(text: str) -> None:
    with pytest.raises(LedgerError):
        parse_ledger(text, "bomb.yaml")


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"a":' * 5_000 + "1" + "}" * 5_000,
     '{"version": 1, "claims": ' + "[" * 40 + "]" * 40 + "}", '{"version": ' + "9" * 5_000 + "}"],
    ids=["deep array", "deep object", "40 levels", "huge integer"],
)  # fmt: skip
def test_json_bombs_are_ledger_errors(text: str) -> None:
    with pytest.raises(LedgerError):
        parse_ledger(text, "bomb.json")
