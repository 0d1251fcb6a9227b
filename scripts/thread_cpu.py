"""CPU per thread of a cold quote run: where the reading threads, the cache writer and the main
thread spend theirs (issue 19; docs/benchmarks.md, seventh session).

    .venv/bin/python scripts/thread_cpu.py --mb 100 --quotes 10000
    .venv/bin/python scripts/thread_cpu.py --mb 100 --quotes 10000 --half-absent --doc-chars 5000000
    PYTHONPATH=/path/to/other/checkout .venv/bin/python scripts/thread_cpu.py ...   # another tree

A sampling profiler counts a thread that waits for the GIL as busy in the function it waits in, and
cProfile sees one thread (scripts/profile_quotes.py runs with the reading threads off). This script
runs ``gate()`` as a user does (reading threads on) and wraps each stage in ``time.thread_time``,
summed per kind of thread: what each thread really computed. A stage's figure includes the stages
it calls (``after indexing`` holds ``nearest passages`` and ``piece searches``). Wall time and the
process's CPU are those of the run with the wrappers (a few microseconds per call). The workload is
scripts/bench.py's, built from ../shared/bench (nothing is downloaded). Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# stage -> (module, function): each call's thread CPU is added to the stage, per kind of thread
STAGES: dict[str, tuple[str, str]] = {
    "read ahead (all of it)": ("claimledger.checks.context", "_read_ahead"),
    "normalizing": ("claimledger.normalize", "normalize_c"),
    "piece searches": ("claimledger.checks.quote_scan", "piece_starts"),
    "nearest passages": ("claimledger.checks.quote_scan", "nearest_spans"),
    "cache write": ("claimledger.load.index", "_store_quietly"),
    "uncited prefilter (bytes)": ("claimledger.skeleton", "Prefilter.rules_out_utf8"),
    "reading a source (all of read_source)": ("claimledger.checks.context", "read_source"),
    "extracting text": ("claimledger.load.index", "extract"),
    "quote scan": ("claimledger.checks.context", "scan_quotes"),
    "per-claim checks": ("claimledger._api", "_by_source"),
    # the parts of the stages above (docs/benchmarks.md, issue 19, twentieth session)
    "compiled passes (prescan)": ("claimledger.checks.quote_scan", "PatternSet.prescan"),
    "seeds' vote (near misses)": ("claimledger.checks.quote_scan", "_seed_candidates"),
    "scan: recording matches": ("claimledger.checks.quote_scan", "_record"),
    "scan: locating": ("claimledger.checks.quote_scan", "_locate"),
    "scan: elided segments": ("claimledger.checks.quote_scan", "_elided"),
    "scan: nearest passages mapped": ("claimledger.checks.quote_scan", "_nears_of"),
    "scan: the pattern set": ("claimledger.checks.quote_scan", "PatternSet.__init__"),
    "scan: the helper's jobs": ("claimledger.checks.rules_ahead", "RulesAhead.feed"),
    "scan: the memo's notes": ("claimledger.checks.scan_memo", "ScanMemo.note_nearest"),
    "tiering": ("claimledger._api", "tiered"),
    "closing the run": ("claimledger.run", "Run.close"),
}
ENTRY_POINTS = {"claimledger-read-ahead": "read ahead (all of it)", "claimledger-cache-write": "cache write"}
AFTER_INDEXING = "after indexing (passes, pieces, nearest passages)"  # quote_scan._prescan's closure


def thread_kind(name: str) -> str:
    """``claimledger-read-ahead_1`` -> ``claimledger-read-ahead``; ``MainThread`` stays."""
    return name.rsplit("_", 1)[0] if name.startswith("claimledger-") else name


@contextmanager
def per_thread_cpu() -> Iterator[Counter[tuple[str, str]]]:
    """Wrap every stage of STAGES (and the work a reading thread does once a source is indexed) so
    its thread CPU is summed into the yielded counter, keyed by (stage, kind of thread); the
    original functions are put back on exit, even after an error."""
    import importlib

    spent: Counter[tuple[str, str]] = Counter()
    lock = threading.Lock()

    def timed(stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                used = time.thread_time() - t0
                with lock:
                    spent[(stage, thread_kind(threading.current_thread().name))] += used

        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapper

    saved: list[tuple[Any, str, Any]] = []
    try:
        for stage, (module_name, attr) in STAGES.items():
            owner: Any = importlib.import_module(module_name)
            *path, attr = attr.split(".")  # "Class.method" patches the class
            for part in path:
                owner = getattr(owner, part)
            original = getattr(owner, attr)
            saved.append((owner, attr, original))
            setattr(owner, attr, timed(stage, original))
        quote_scan = importlib.import_module("claimledger.checks.quote_scan")
        prescan = quote_scan._prescan
        saved.append((quote_scan, "_prescan", prescan))
        quote_scan._prescan = lambda *a, **k: timed(AFTER_INDEXING, prescan(*a, **k))
        yield spent
    finally:
        for module, attr, original in reversed(saved):
            setattr(module, attr, original)


def measure(run: Callable[[], object]) -> dict[str, Any]:
    """``run()`` (a cold ``gate()``) with its CPU per thread: wall and process CPU seconds, each kind
    of thread's CPU (``threads``) and each stage's per kind of thread (``stages``)."""
    before = {t.ident for t in threading.enumerate()}
    wall0, cpu0 = time.perf_counter(), time.process_time()
    main_cpu0 = time.thread_time()
    with per_thread_cpu() as spent:
        run()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    main_cpu = time.thread_time() - main_cpu0
    stages: dict[str, dict[str, float]] = {}
    for (stage, kind), seconds in sorted(spent.items()):
        stages.setdefault(stage, {})[kind] = round(seconds, 4)
    threads = {thread_kind(threading.current_thread().name): round(main_cpu, 4)}
    # a reading or writing thread's work is all inside its wrapped entry point
    threads.update({kind: round(spent.get((stage, kind), 0.0), 4) for kind, stage in ENTRY_POINTS.items()})
    leftover = {t.name for t in threading.enumerate() if t.ident not in before and t.is_alive()}
    return {"wall_s": round(wall, 4), "cpu_s": round(cpu, 4), "threads": threads, "stages": stages,
            "threads_left_running": sorted(leftover)}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=20, help="corpus size in MB of text")
    ap.add_argument("--quotes", type=int, default=2000)
    ap.add_argument("--doc-chars", type=int, default=None, help="characters per document (default: the bench's)")
    ap.add_argument("--half-absent", action="store_true",
                    help="issue 19's second workload: half the quotes absent from every source")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench  # scripts/bench.py: corpus and quote generators

    if not bench.BENCH.exists():
        print(f"bench data not found at {bench.BENCH} (set CLAIMLEDGER_BENCH_DATA)", file=sys.stderr)
        return 2
    from claimledger import GateConfig, gate

    with tempfile.TemporaryDirectory(prefix="claimledger-threads-") as tmp:
        work = Path(tmp)
        docs = bench.build_corpus(work / "docs", int(args.mb * 1e6), args.doc_chars or bench.DOC_CHARS)
        make = bench.make_half_absent_quotes if args.half_absent else bench.make_quotes
        quotes = make(docs, args.quotes)
        ledger = bench.quote_ledger(docs, quotes)
        out = measure(lambda: gate(ledger, config=GateConfig(cache_dir=work / "cache"), base_dir=work / "docs"))
        shutil.rmtree(work / "docs", ignore_errors=True)
    out.update({"mb": args.mb, "quotes": args.quotes, "half_absent": args.half_absent,
                "load": os.getloadavg()[0]})  # fmt: skip
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
