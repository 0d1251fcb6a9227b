"""Where the time of a cold quote run goes: gate() under cProfile, summed into the stages of
issue 19's profile table (docs/benchmarks.md).

    .venv/bin/python scripts/profile_quotes.py --mb 20 --quotes 2000
    PYTHONPATH=/path/to/old/checkout .venv/bin/python scripts/profile_quotes.py ...   # another tree

The workload is scripts/bench.py's (documents of 400k characters, the bench's quote mix).
Times are CPU seconds of the process (the machine may be shared), under cProfile, which
inflates stages made of many small Python calls. Sources are read on the profiled thread
(CLAIMLEDGER_READ_AHEAD=0); the index cache's writer thread is not seen. Stages are cProfile cumulative
times of the functions that do each job (a call from another function of the same stage counted
once; several names per stage, so older trees are profiled alike), so they overlap a
little (evidence mapping is also counted inside the near-miss search); "the rest" is the
total minus the stages. The normalizer core's tables (once per process) are built before the
profile starts and reported apart, in CPU seconds without cProfile (normalizer_setup_cpu_s).
Prints JSON.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# cProfile sees only the thread it runs in: sources are read on this one (no read-ahead thread),
# and the overclaim rules too (no helper process, checks/rules_ahead.py); the index cache's writer
# thread is not seen (its cost is not in the table)
os.environ.setdefault("CLAIMLEDGER_READ_AHEAD", "0")
os.environ.setdefault("CLAIMLEDGER_RULES_AHEAD", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench

# stage -> the functions (file suffix, name) whose time is the stage; several entries when the
# function moved or was split between versions (so two trees can be compared with the same script).
# A stage's time is the cumulative time of its functions' calls that do not come from another of
# its functions (a function that calls another of the list is not counted twice).
STAGES: dict[str, tuple[tuple[str, str], ...]] = {
    "reading and normalizing sources": (
        ("load/index.py", "read_source"), ("load/index.py", "index"), ("load/index.py", "index_source"),
    ),
    "cache write": (("load/index.py", "_store"),),
    "verbatim scan (first occurrences)": (("checks/quote_scan.py", "first_positions"), ("checks/quote_scan.py", "prescan")),
    "scan tables built": (("checks/quote_scan.py", "__init__"),),
    "near-miss search": (
        ("checks/quote_scan.py", "nearest_passages"), ("checks/quote_scan.py", "nearest_spans"),
        ("checks/quote_scan.py", "_nears_of"),
    ),
    "mapping offsets back (evidence_at)": (
        ("checks/quote_scan.py", "evidence_at"), ("checks/evidence.py", "evidence_at"),
        ("checks/evidence.py", "source_evidence"), ("checks/evidence.py", "source_evidences"),
    ),
    "elided quotes": (("checks/elisions.py", "find_elided"),),
    "word diffs": (("checks/diff.py", "word_diff"),),
    "overclaim rules": (("checks/builtin.py", "overclaim"),),
    "normalizing quotes": (("claimledger/normalize.py", "normalize_quote"),),
}  # fmt: skip
OVERLAPPING = ("mapping offsets back (evidence_at)", "elided quotes")  # counted inside other stages too


def stage_time(stats: dict[Any, Any], places: tuple[tuple[str, str], ...]) -> float:
    """The cumulative time of the calls to the functions of ``places`` made from outside them."""

    def ours(func: tuple[str, int, str]) -> bool:
        file, _line, fn = func
        return any(file.endswith(p) and fn == f for p, f in places)

    total = 0.0
    for func, (_cc, _nc, _tt, ct, callers) in stats.items():
        if ours(func):
            # per caller: (calls, primitive calls, own time, cumulative time); no caller: the root
            total += sum(c[3] for caller, c in callers.items() if not ours(caller)) if callers else ct
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=20)
    ap.add_argument("--quotes", type=int, default=2000)
    ap.add_argument("--doc-chars", type=int, default=bench.DOC_CHARS, help="characters per document")
    ap.add_argument("--half-absent", action="store_true",
                    help="issue 19's second workload: half the quotes absent from every source")
    args = ap.parse_args()
    from claimledger import GateConfig, gate

    with tempfile.TemporaryDirectory(prefix="claimledger-prof-") as tmp:
        work = Path(tmp)
        docs = bench.build_corpus(work / "docs", int(args.mb * 1e6), args.doc_chars)
        make = bench.make_half_absent_quotes if args.half_absent else bench.make_quotes
        quotes = make(docs, args.quotes)
        ledger = bench.quote_ledger(docs, quotes)
        # The normalizer core's tables are built once per process, at the first normalize() call
        # (65,536 code points folded in Python). Built here, outside the profile: under cProfile
        # their one small Python call per code point takes ~25x their real time, and they were
        # charged to whichever stage normalized first (issue 19: "normalizing quotes" 18 %).
        from claimledger.normalize import normalize

        t_setup = time.process_time()
        normalize("")
        setup = time.process_time() - t_setup
        # CPU time of this process: the machine is shared, wall time would measure the neighbours
        prof = cProfile.Profile(time.process_time)
        t0 = time.process_time()
        prof.enable()
        gate(ledger, config=GateConfig(cache_dir=work / "cache"), base_dir=work / "docs")
        prof.disable()
        total = time.process_time() - t0
        shutil.rmtree(work / "docs", ignore_errors=True)
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    cum: dict[str, float] = {}
    for name, places in STAGES.items():
        cum[name] = stage_time(stats, places)
    profiled = max(v[3] for v in stats.values())
    # reading a source includes its cache write when that is not left to the writer thread
    cum["reading and normalizing sources"] = max(0.0, cum["reading and normalizing sources"] - cum["cache write"])
    rest = profiled - sum(v for k, v in cum.items() if k not in OVERLAPPING)
    out = {
        "mb": args.mb, "quotes": args.quotes, "doc_chars": args.doc_chars, "half_absent": args.half_absent,
        "cpu_s": total, "normalizer_setup_cpu_s": round(setup, 3), "load": os.getloadavg()[0], "profiled_s": profiled,
        "stages": {k: {"s": round(v, 3), "share": round(v / profiled, 4)} for k, v in cum.items()},
        "rest": {"s": round(rest, 3), "share": round(rest / profiled, 4)},
    }  # fmt: skip
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
