"""scripts/thread_cpu.py: the CPU of a cold run per kind of thread and per stage (issue 19)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from claimledger import GateConfig, gate
from claimledger.checks import context as context_mod
from claimledger.checks import quote_scan
from claimledger.model.claim import Ledger, QuoteClaim
from tests.scripts_loader import load_script

EN = ("The committee reported that independent verification reduced errors by a third in the first year. "
      "Weather in the region stayed mild, and the survey team finished its rounds ahead of schedule. ")  # fmt: skip
JA = "調査の結果、生成AIの利用者は三年間で約四倍に増えたと報告書は述べている。地域の天候は穏やかだった。"


def _script() -> ModuleType:
    return load_script("thread_cpu")


def _ledger(folder: Path) -> Ledger:
    sources = {}
    for i in range(4):  # long enough to be normalized on a reading thread, EN and JA
        path = folder / f"s{i}.txt"
        path.write_text((EN if i % 2 == 0 else JA) * 400, "utf-8")
        sources[f"s{i}"] = str(path)
    uncited = folder / "s4.txt"  # nobody cites it: tested from its bytes for the two quotes found nowhere
    uncited.write_text("An unrelated report on harbour traffic and the tides of the northern coast. " * 400, "utf-8")
    sources["s4"] = str(uncited)
    claims = [
        QuoteClaim(id="q0", kind="quote", source="s0", quote="independent verification reduced errors by a third"),
        QuoteClaim(id="q1", kind="quote", source="s1", quote="生成AIの利用者は三年間で約四倍に増えた"),
        QuoteClaim(id="q2", kind="quote", source="s2", quote="independent verification reduced errors by a half"),
        QuoteClaim(id="q3", kind="quote", source="s3", quote="生成AIの利用者は三年間で約五倍に増えた"),
    ]
    return Ledger(version=1, sources=sources, claims=claims)


def test_each_stage_is_counted_on_the_thread_that_ran_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script()
    monkeypatch.setattr(context_mod, "READ_AHEAD", True)
    monkeypatch.setattr(context_mod, "READ_AHEAD_MIN_BYTES", 0)
    ledger = _ledger(tmp_path)
    report: list[object] = []
    out = script.measure(lambda: report.append(gate(ledger, config=GateConfig(cache_dir=tmp_path / "c"))))
    findings = {f.claim_id: f.reason.value for f in report[0].findings if f.check == "literal_quote"}  # type: ignore[attr-defined]
    assert findings == {"q0": "quote_found", "q1": "quote_found", "q2": "quote_near_miss", "q3": "quote_near_miss"}
    stages, threads = out["stages"], out["threads"]
    # the sources after the first are read, normalized and searched on the reading threads
    assert stages["read ahead (all of it)"]["claimledger-read-ahead"] > 0
    assert stages["normalizing"]["claimledger-read-ahead"] > 0
    assert "claimledger-read-ahead" in stages[script.AFTER_INDEXING]
    assert "claimledger-read-ahead" in stages["reading a source (all of read_source)"]
    assert "claimledger-read-ahead" in stages["extracting text"]
    # a method (Class.method) is a stage too: the uncited source is ruled out from its bytes
    assert set(stages["uncited prefilter (bytes)"]) <= {"MainThread", "claimledger-read-ahead"}
    # the scan and the per-claim checks run on the main thread only; every source is cached once
    assert set(stages["quote scan"]) == {"MainThread"} and set(stages["per-claim checks"]) == {"MainThread"}
    assert set(stages["cache write"]) == {"claimledger-cache-write"}
    # a stage is part of its thread's work, and the threads' work part of the process's CPU
    for stage, per_kind in stages.items():
        for kind, seconds in per_kind.items():
            assert 0 <= seconds <= threads[kind] + 1e-3, (stage, kind)
    assert sum(threads.values()) <= out["cpu_s"] + 0.05
    assert out["threads_left_running"] == []


def test_the_functions_are_put_back_after_the_run_even_when_it_fails() -> None:
    script = _script()
    from claimledger.skeleton import Prefilter

    before = (quote_scan._prescan, quote_scan.nearest_spans, context_mod.scan_quotes, context_mod._read_ahead,
              Prefilter.rules_out_utf8)  # fmt: skip

    def crash() -> None:
        assert quote_scan.nearest_spans is not before[1]  # wrapped while the run goes on
        assert Prefilter.rules_out_utf8 is not before[4]
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        script.measure(crash)
    after = (quote_scan._prescan, quote_scan.nearest_spans, context_mod.scan_quotes, context_mod._read_ahead,
             Prefilter.rules_out_utf8)  # fmt: skip
    assert after == before


def test_thread_kinds_drop_the_worker_number() -> None:
    script = _script()
    assert script.thread_kind("claimledger-read-ahead_1") == "claimledger-read-ahead"
    assert script.thread_kind("claimledger-cache-write_0") == "claimledger-cache-write"
    assert script.thread_kind("MainThread") == "MainThread"
