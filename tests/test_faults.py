"""Fault injection: every check, loader and backend in turn raises, times out or returns garbage.

For each fault the gate must still return a report (or a clean input error),
the outcome must never be PASS, every claim must still be reported, and
nothing may be written half-way (reports, marked drafts, caches). The number
of faults injected is counted and printed (``pytest -s``).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from claimledger import GateConfig, Outcome, Report, Status, gate
from claimledger._exceptions import SourceError
from claimledger.judge.types import JudgeError, JudgeRequest, JudgeVerdict
from claimledger.load import fetch
from claimledger.load.data import QueryError

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
INJECTED: list[str] = []


@pytest.fixture(scope="module", autouse=True)
def _count() -> Iterator[None]:
    yield
    print(f"\n{len(INJECTED)} faults injected in tests/test_faults.py")


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    (tmp_path / "paper.txt").write_text("Adding an independent verification step reduced errors by 37 percent.\n")
    (tmp_path / "page.html").write_text("<p>Errors fell in 2-3 weeks; the baseline was 1,202 clicks.</p>")
    (tmp_path / "daily.csv").write_text("day,clicks\n1,600\n2,602\n")
    (tmp_path / "ledger.yaml").write_text(
        "version: 1\n"
        "sources:\n"
        "  paper: paper.txt\n"
        "  page: page.html\n"
        f"  pdf: {FIXTURES / 'hyphenated.pdf'}\n"
        "datasets:\n  daily: daily.csv\n"
        "claims:\n"
        "  - id: Q1\n    kind: quote\n    source: paper\n"
        "    quote: reduced errors by 37 percent\n"
        "    statement: Verification reduced errors by 37 percent.\n"
        "  - id: Q2\n    kind: quote\n    source: pdf\n    quote: independent verification step reduced errors\n"
        "  - id: Q3\n    kind: quote\n    source: page\n    quote: Errors fell in 2-3 weeks\n"
        "  - id: N1\n    kind: number\n    value: '1,202'\n    sql: SELECT sum(clicks) FROM daily\n"
        "  - id: N2\n    kind: number\n    value: '37%'\n    source: paper\n"
        "    quote: reduced errors by 37 percent\n"
    )
    return tmp_path / "ledger.yaml"


CLAIMS = {"Q1", "Q2", "Q3", "N1", "N2"}


def config(tmp_path: Path) -> GateConfig:
    return GateConfig(cache_dir=tmp_path / "cache", pdf_timeout=20.0, sql_timeout=2.0)


def test_baseline_passes(ledger: Path, tmp_path: Path) -> None:
    """Without faults every claim verifies, so each fault below is what makes the run fail."""
    report = gate(ledger, config=config(tmp_path))
    assert report.outcome is Outcome.PASS, [(f.claim_id, f.reason, f.message) for f in report.findings]
    assert {f.claim_id for f in report.findings} == CLAIMS


# -- the faults -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    target: str  # "module:attribute" or "module:Class.method"
    mode: str  # raise | timeout | garbage-*
    make: Callable[[Callable[..., Any]], Callable[..., Any]]

    @property
    def id(self) -> str:
        return f"{self.target.split(':')[1]}-{self.mode}"


def raising(exc: BaseException) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def make(_orig: Callable[..., Any]) -> Callable[..., Any]:
        def fault(*args: Any, **kwargs: Any) -> Any:
            raise exc

        return fault

    return make


def returning(value: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def make(_orig: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *args, **kwargs: value

    return make


def garbling(transform: Callable[[Any], Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *args, **kwargs: transform(orig(*args, **kwargs))

    return make


def _garbled_pdf(result: tuple[str, tuple[int, ...], str]) -> tuple[str, tuple[int, ...], str]:
    text, _pages, hidden = result
    return text[::-1], (10**9,), hidden  # reversed text, a page start past the end


FAULTS = [
    # loaders
    Fault("claimledger.checks.context:read_source", "raise", raising(RuntimeError("disk on fire"))),
    Fault("claimledger.checks.context:read_source", "oserror", raising(OSError(5, "I/O error"))),
    Fault("claimledger.checks.context:read_source", "timeout",
          raising(SourceError("source_timeout", "timed out fetching"))),
    Fault("claimledger.checks.context:read_source", "memory", raising(MemoryError())),
    Fault("claimledger.load.sources:pdf_extract", "raise", raising(ValueError("pdfium exploded"))),
    Fault("claimledger.load.sources:pdf_extract", "timeout",
          raising(SourceError("source_extraction_timeout", "stopped after 1s"))),
    Fault("claimledger.load.sources:pdf_extract", "garbage-empty", returning(("", (), ""))),
    Fault("claimledger.load.sources:pdf_extract", "garbage-reversed", garbling(_garbled_pdf)),
    Fault("claimledger.load.sources:html_extract", "raise", raising(RecursionError("too deep"))),
    Fault("claimledger.load.sources:html_extract", "garbage-hidden-only", returning(("", "Errors fell in 2-3 weeks"))),
    Fault("claimledger.load.sources:decode_text", "raise", raising(UnicodeDecodeError("utf-8", b"x", 0, 1, "bad"))),
    Fault("claimledger.load.sources:decode_text_utf8", "raise", raising(UnicodeDecodeError("utf-8", b"x", 0, 1, "bad"))),
    Fault("claimledger.load.index:read_bytes", "raise", raising(PermissionError(13, "Permission denied"))),
    Fault("claimledger.load.index:read_bytes", "garbage-empty", returning((b"", ""))),
    Fault("claimledger.load.index:read_bytes", "garbage-binary", returning((bytes(range(256)) * 64, "image/png"))),
    # datasets
    Fault("claimledger.load.data:DataStore.scalar", "raise", raising(RuntimeError("duckdb segfault"))),
    Fault("claimledger.load.data:DataStore.scalar", "timeout",
          raising(QueryError("metric_error", "query stopped after the 2s time limit"))),
    Fault("claimledger.load.data:DataStore.scalar", "garbage-nan", returning(math.nan)),
    Fault("claimledger.load.data:DataStore.scalar", "garbage-inf", returning(math.inf)),
    Fault("claimledger.load.data:DataStore.scalar", "garbage-str", returning("1,202")),
    Fault("claimledger.load.data:DataStore.scalar", "garbage-none", returning(None)),
    Fault("claimledger.load.data:DataStore.__init__", "raise", raising(RuntimeError("cannot open duckdb"))),
    # checks
    Fault("claimledger.checks.builtin:check_quote_text", "raise", raising(RuntimeError("check crashed"))),
    Fault("claimledger.checks.builtin:check_quote_text", "timeout", raising(TimeoutError("check took too long"))),
    Fault("claimledger.checks.builtin:check_number", "raise", raising(ZeroDivisionError("division by zero"))),
    Fault("claimledger.checks.numeric:check_quote_text", "raise", raising(KeyError("evidence"))),
    Fault("claimledger.checks.numeric:find_numbers", "garbage-empty", returning([])),
    Fault("claimledger.checks.numeric:parse_value", "garbage-none", returning(None)),
    Fault("claimledger.checks.overclaim.rules:overclaim_findings", "raise", raising(IndexError("rule crashed"))),
    Fault("claimledger.checks.context:scan_quotes", "raise", raising(RuntimeError("automaton crashed"))),
    Fault("claimledger.checks.context:scan_quotes", "garbage-empty", returning({})),
    Fault("claimledger.checks.context:scan_quotes", "garbage-type", returning(None)),
    Fault("claimledger.checks.quote:normalize_quote", "raise", raising(RuntimeError("normalizer crashed"))),
    Fault("claimledger.load.index:normalize", "raise", raising(RuntimeError("normalizer crashed"))),
]


def _patch(monkeypatch: pytest.MonkeyPatch, fault: Fault) -> None:
    module_name, attr = fault.target.split(":")
    module = __import__(module_name, fromlist=["_"])
    owner: Any = module
    if "." in attr:
        cls, attr = attr.split(".")
        owner = getattr(module, cls)
    monkeypatch.setattr(owner, attr, fault.make(getattr(owner, attr)))
    INJECTED.append(fault.id)


def _assert_fail_closed(report: Report) -> None:
    assert report.outcome is not Outcome.PASS
    assert {f.claim_id for f in report.findings} >= CLAIMS  # every claim is still reported
    for f in report.findings:
        assert f.tier is not None or f.status is Status.VERIFIED


@pytest.mark.parametrize("fault", FAULTS, ids=[f.id for f in FAULTS])
def test_a_fault_never_passes(fault: Fault, ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _patch(monkeypatch, fault)
    cfg = GateConfig(cache_dir=tmp_path / "cache", pdf_timeout=20.0, sql_timeout=2.0, index_cache=False)
    _assert_fail_closed(gate(ledger, config=cfg))


@pytest.mark.parametrize("fault", FAULTS[:8], ids=[f.id for f in FAULTS[:8]])
def test_a_fault_after_a_cached_run_never_passes(
    fault: Fault, ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same loader faults with a warm index cache: the cache never hides a fault it did not see."""
    assert gate(ledger, config=config(tmp_path)).outcome is Outcome.PASS
    _patch(monkeypatch, fault)
    report = gate(ledger, config=config(tmp_path))
    if fault.target.endswith(("pdf_extract", "html_extract")):
        assert report.outcome is Outcome.PASS  # served from the verified cache: the extractor is not called
    else:
        _assert_fail_closed(report)


# -- the judge backend -----------------------------------------------------------------------------


class FaultyJudge:
    kind = "openai"
    model = "faulty"

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        INJECTED.append(f"judge-{self.mode}")
        if self.mode == "raise":
            raise RuntimeError("backend crashed")
        if self.mode == "error":
            raise JudgeError("malformed", "not JSON")
        if self.mode == "timeout":
            raise JudgeError("timeout", "no answer in 1s")
        if self.mode == "slow-timeout":
            time.sleep(0.2)
            raise TimeoutError("read timed out")
        if self.mode == "garbage-verdict":
            return JudgeVerdict("banana", "", "")  # type: ignore[arg-type]
        if self.mode == "garbage-evidence":
            return JudgeVerdict("supported", "a quote that appears nowhere in any source", "trust me")  # type: ignore[arg-type]
        return "not a verdict"  # type: ignore[return-value]


@pytest.mark.parametrize(
    "mode", ["raise", "error", "timeout", "slow-timeout", "garbage-verdict", "garbage-evidence", "garbage-type"]
)
def test_a_faulty_judge_never_passes(mode: str, ledger: Path, tmp_path: Path) -> None:
    report = gate(ledger, config=config(tmp_path), judge=FaultyJudge(mode), judge_cache=tmp_path / "judge.db")
    _assert_fail_closed(report)


# -- nothing written half-way ---------------------------------------------------------------------


def _fail_on_replace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the final rename fail, after the temporary file was fully written."""

    def broken(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fetch.os, "replace", broken)
    INJECTED.append("os.replace")


def _no_temp_files(folder: Path) -> None:
    assert [p for p in folder.rglob("*") if p.name.endswith(".tmp")] == []


def test_a_report_output_is_never_half_written(ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from claimledger.cli import cli as main

    out = tmp_path / "report.json"
    out.write_text("the previous report")
    _fail_on_replace(monkeypatch)
    result = CliRunner().invoke(main, ["check", "--ledger", str(ledger), "-f", "json", "-o", str(out),
                                       "--cache-dir", str(tmp_path / "cache")])  # fmt: skip
    assert result.exit_code != 0
    assert out.read_text() == "the previous report"
    _no_temp_files(tmp_path)


def test_a_marked_draft_is_never_half_written(ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from claimledger.cli import cli as main

    draft = tmp_path / "draft.md"
    draft.write_text("Smith found that “reduced errors by 37 percent”[V] [@paper].\n")
    out = tmp_path / "marked.md"
    out.write_text("the previous marked draft")
    _fail_on_replace(monkeypatch)
    CliRunner().invoke(main, ["mark", str(draft), "--ledger", str(ledger), "-o", str(out)])
    assert out.read_text() == "the previous marked draft"
    assert draft.read_text() == "Smith found that “reduced errors by 37 percent”[V] [@paper].\n"
    _no_temp_files(tmp_path)


def test_the_url_cache_is_never_half_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = fetch.UrlCache(tmp_path / "cache")
    cache.put("https://example.org/a", fetch.Fetched(b"first version", "text/plain", False))
    _fail_on_replace(monkeypatch)
    with pytest.raises(OSError):
        cache.put("https://example.org/a", fetch.Fetched(b"second version", "text/plain", False))
    monkeypatch.undo()
    got = cache.get("https://example.org/a")
    assert got is not None and got.data == b"first version"
    _no_temp_files(tmp_path)


def test_the_index_cache_is_never_half_written(ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import claimledger.load.index as index_module

    def torn(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    _fail_on_replace(monkeypatch)
    monkeypatch.setattr(index_module.os, "replace", torn)
    report = gate(ledger, config=config(tmp_path))  # the cache cannot be written: only slower
    assert report.outcome is Outcome.PASS
    _no_temp_files(tmp_path)
    monkeypatch.undo()
    again = gate(ledger, config=config(tmp_path))
    assert again.outcome is Outcome.PASS


def test_a_killed_run_leaves_no_half_written_report(ledger: Path, tmp_path: Path) -> None:
    """SIGKILL in the middle of writing a large report: the old file or the new one, nothing else."""
    out = tmp_path / "report.json"
    out.write_text("the previous report")
    script = (
        "import os, sys, signal\n"
        "from pathlib import Path\n"
        "import claimledger.load.fetch as f\n"
        "real = f.os.fsync\n"
        "def die(fd):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "f.os.fsync = die\n"
        f"f.atomic_write(Path({str(out)!r}), b'x' * 5_000_000)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], timeout=60, cwd=ROOT)
    INJECTED.append("SIGKILL")
    assert done.returncode == -9
    assert out.read_text() == "the previous report"
    leftovers = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # a killed process cannot clean up: its temporary file may remain, never the target half-written
    for p in leftovers:
        p.unlink()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "daily.csv", "ledger.yaml", "page.html", "paper.txt", "report.json"
    ]  # fmt: skip


def test_faults_were_injected() -> None:
    """Runs last in this file (pytest keeps file order): the harness really injected faults."""
    assert len(INJECTED) >= len(FAULTS)
    assert os.environ.get("PYTEST_XDIST_WORKER") is None or INJECTED
