"""The per-claim cost of a cold quote run (issue 19: the 10 MB x 100,000 quotes row), CPU and wall.

    .venv/bin/python scripts/bench_perclaim.py --mb 10 --quotes 100000
    .venv/bin/python scripts/bench_perclaim.py --mb 10 --quotes 30000 --profile 40   # cProfile table
    /other/tree/.venv/bin/python scripts/bench_perclaim.py ...   # the same workload on another tree

The workload is scripts/bench.py's (documents of 400k characters, its quote mix: half verbatim, a
quarter with PDF artefacts, a quarter mutated), built before the clock starts; then one gate() with
a fresh cache directory (cold). The normalizer core's tables are built before the clock too (once
per process, reported apart by scripts/profile_quotes.py). Prints one JSON line: wall and CPU
seconds of gate() (CPU: this process, time.process_time; the machine may be shared: compare CPU,
and alternate the runs of two trees). With --profile N, cProfile (on CPU time) and the top N
functions by cumulative time on stderr.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench

import claimledger
from claimledger import GateConfig, __version__, gate
from claimledger.normalize import normalize


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--mb", type=float, default=10.0, help="corpus size in millions of characters")
    ap.add_argument("--quotes", type=int, default=100_000)
    ap.add_argument("--profile", type=int, default=0, help="print the top N functions of a cProfile run")
    ap.add_argument("--sort", default="cumulative", help="cProfile sort key (cumulative, tottime)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        docs = bench.build_corpus(work / "docs", int(args.mb * 1e6))
        quotes = bench.make_quotes(docs, args.quotes)
        ledger = bench.quote_ledger(docs, quotes)
        normalize("")  # the normalizer core's tables: once per process, not per claim
        prof = cProfile.Profile(time.process_time) if args.profile else None
        wall, cpu = time.perf_counter(), time.process_time()
        if prof is not None:
            prof.enable()
        report = gate(ledger, config=GateConfig(cache_dir=work / "cache"), base_dir=work / "docs")
        if prof is not None:
            prof.disable()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out = {
        "mb": args.mb, "quotes": args.quotes, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
        "profiled": bool(prof), "findings": len(report.findings), "outcome": report.outcome.value,
        "version": __version__, "package": str(Path(claimledger.__file__).resolve().parent),
    }  # fmt: skip
    print(json.dumps(out))
    if prof is not None:
        pstats.Stats(prof, stream=sys.stderr).sort_stats(args.sort).print_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
