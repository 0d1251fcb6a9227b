"""Warm vs cold end to end, and the largest source's peak memory, for two trees in alternation.

The two rows of scripts/bench.py that issue 19's "warm >= 10x cold" and "peak memory <= 3x" read
(bench_end_to_end: `claimledger check` on quote claims over generated PDFs, a fresh process per
run; bench_largest_source: one large text source and 1,000 quotes), measured here with the CPU
time of each run next to its wall time (the machine is shared) and, for comparing a change, the
same workload run by several trees in turn (``--tree``: a source tree put first on PYTHONPATH;
its compiled cores must be built in it).

    .venv/bin/python scripts/bench_warm.py --tree before=/path/to/old/tree --tree after=. \
        --pdfs 50 --claims 500 --largest 20000000 --rounds 3

Prints one JSON line per run and a median per tree and figure. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _check(exe: str, ledger: Path, work: Path, cache: Path, env: dict[str, str]) -> tuple[float, float]:
    """One `claimledger check` in a fresh process: wall and CPU seconds."""
    c0, t0 = _child_cpu(), time.perf_counter()
    subprocess.run([exe, "check", "--ledger", str(ledger), "-f", "json", "-o", str(work / "r.json"),
                    "--cache-dir", str(cache), "--quiet"], check=False, env=env)  # fmt: skip
    return time.perf_counter() - t0, _child_cpu() - c0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", default=[], help="name=path of a source tree (repeatable)")
    ap.add_argument("--pdfs", type=int, default=50)
    ap.add_argument("--claims", type=int, default=500)
    ap.add_argument("--largest", type=int, default=20_000_000, help="characters of the single large source (0: skip)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-e2e", action="store_true")
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree) or {"this": str(bench.ROOT)}
    envs = {name: dict(os.environ, PYTHONPATH=str(Path(path).resolve())) for name, path in trees.items()}
    work = Path(tempfile.mkdtemp(prefix="bench-warm-"))
    figures: dict[str, dict[str, list[float]]] = {name: {} for name in trees}

    def record(name: str, row: dict[str, Any]) -> None:
        print(json.dumps({"tree": name, **row}), flush=True)
        for k, v in row.items():
            if isinstance(v, float):
                figures[name].setdefault(k, []).append(v)

    try:
        if not args.skip_e2e:
            # the PDFs and the ledger, exactly as scripts/bench.py builds them (its own cold/warm pair runs once)
            bench.bench_end_to_end(work, args.pdfs, args.claims, rounds=1)
            exe = str(Path(bench.PY).parent / "claimledger")
            for _ in range(args.rounds):
                for name, env in envs.items():
                    cache = work / f"cache-{name}"
                    shutil.rmtree(cache, ignore_errors=True)
                    cold_s, cold_cpu = _check(exe, work / "e2e.json", work, cache, env)
                    warm_s, warm_cpu = _check(exe, work / "e2e.json", work, cache, env)
                    verified = json.loads((work / "r.json").read_text())["counts"]["verified"]
                    record(name, {"cold_s": cold_s, "cold_cpu_s": cold_cpu, "warm_s": warm_s, "warm_cpu_s": warm_cpu,
                                  "ratio": cold_s / warm_s, "cpu_ratio": cold_cpu / warm_cpu, "verified": verified})  # fmt: skip
        if args.largest:
            docs_dir = work / "single"
            docs = bench.build_corpus(docs_dir, args.largest, doc_chars=args.largest)
            quotes = bench.make_quotes(docs, 1000)
            qfile = work / "quotes-single.json"
            qfile.write_text(json.dumps(quotes, ensure_ascii=False), "utf-8")
            text_mem_mb = sys.getsizeof(docs[0].read_text("utf-8")) / 1024 / 1024
            for _ in range(args.rounds):
                for name, env in envs.items():
                    cache = work / f"cache-single-{name}"
                    shutil.rmtree(cache, ignore_errors=True)
                    out = subprocess.run([bench.PY, bench.__file__, "_quotes", "--docs", str(docs_dir), "--quotes",
                                          str(qfile), "--cache", str(cache)],
                                         capture_output=True, text=True, check=True, env=env)  # fmt: skip
                    r = json.loads(out.stdout.strip().splitlines()[-1])
                    run_mb = (r["peak_kb"] - r["baseline_kb"]) / 1024
                    record(name, {"largest_s": float(r["seconds"]), "largest_cpu_s": float(r["cpu_s"]),
                                  "run_mb": run_mb, "text_mem_mb": text_mem_mb, "mem_ratio": run_mb / text_mem_mb,
                                  "wrong": r["wrong"]})  # fmt: skip
        for name, figs in figures.items():
            print(json.dumps({"tree": name, "median": {k: round(statistics.median(v), 3) for k, v in figs.items()}}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
