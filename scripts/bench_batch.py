"""Batch throughput: jobs per second on 1 and 2 local workers and on Ray, over one shared corpus.

    python scripts/bench_batch.py [--jobs 1000] [--corpus-mb 100] [--out docs/scaling.json]

Generates N drafts (EN/JA mix, 5-20 claims each: quotes against the shared corpus, a number
recomputed from a shared CSV) with tests/batch_jobs.py, then runs `claimledger batch` over them,
each configuration in a fresh process with a cold index cache of its own. Prints a table and
writes the figures (with the load average) to --out; docs/scaling.md quotes them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.batch_jobs import write_jobs  # noqa: E402


def run(jobs: Path, out: Path, cache: Path, engine: str, workers: int, ray_tmp: Path) -> dict[str, object]:
    env = {**os.environ, "CLAIMLEDGER_CACHE_DIR": str(cache), "RAY_TMPDIR": str(ray_tmp)}
    summary = out.with_suffix(".summary.json")
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "claimledger", "batch", str(jobs), "-o", str(out), "--engine", engine,
         "--workers", str(workers), "--summary", str(summary), "-q"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"batch failed ({proc.returncode}): {proc.stderr[-2000:]}")
    s = json.loads(summary.read_text("utf-8"))
    return {"engine": engine, "workers": workers, "jobs": s["jobs"], "batch_seconds": s["seconds"],
            "wall_seconds": round(wall, 2), "jobs_per_second": s["jobs_per_second"],
            "outcomes": s["outcomes"], "loadavg": os.getloadavg()}  # fmt: skip


def write_doc(result: dict[str, object]) -> None:
    """The measured table of docs/scaling.md, between its markers."""
    doc = ROOT / "docs" / "scaling.md"
    rows = result["rows"]
    assert isinstance(rows, list)
    table = [
        f"{result['jobs']} drafts (EN/JA, 5-20 claims each) over a shared "
        f"{int(result['corpus_bytes']) / 1e6:.0f} MB corpus, {result['cores']} cores, each configuration "  # type: ignore[call-overload]
        "in a fresh process with a cold index cache:",
        "",
        "| engine | workers | jobs/s | seconds | load average (1 min) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        table.append(f"| {r['engine']} | {r['workers']} | {r['jobs_per_second']:.2f} | {r['batch_seconds']:.1f} | "
                     f"{r['loadavg'][0]:.1f} |")  # fmt: skip
    table += ["", f"2 workers / 1 worker: {result['scaling_2_vs_1']}x; Ray / local on the same cores: "
              f"{result['ray_vs_local_2']}; identical result lines on every engine: {result['identical_lines']}."]  # fmt: skip
    text = doc.read_text("utf-8")
    start, end = "<!-- measured:start -->", "<!-- measured:end -->"
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    doc.write_text(head + start + "\n" + "\n".join(table) + "\n" + end + tail, "utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--corpus-mb", type=float, default=100.0, help="size of the shared corpus (two sources)")
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "scaling.json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="clbatch", dir="/tmp"))
    try:
        per_side_kb = int(args.corpus_mb * 1024 / 4)  # two files, filler on both sides of the text
        t0 = time.perf_counter()
        write_jobs(work, args.jobs, seed=11, claims=(5, 20), malformed=0, filler_kb=per_side_kb)
        corpus_bytes = sum(p.stat().st_size for p in (work / "corpus").iterdir())
        print(f"{args.jobs} jobs over a {corpus_bytes / 1e6:.0f} MB corpus generated in {time.perf_counter() - t0:.1f} s")
        configs = [("local", 1), ("local", 2)] + ([] if args.no_ray else [("ray", 2)])
        rows = []
        lines: dict[str, list[str]] = {}
        for engine, workers in configs:
            name = f"{engine}-{workers}"
            cache = work / f"cache-{name}"
            out = work / f"{name}.jsonl"
            row = run(work / "jobs", out, cache, engine, workers, work / "ray")
            rows.append(row)
            lines[name] = sorted(out.read_text("utf-8").splitlines(), key=lambda s: json.loads(s)["job"]["index"])
            print(f"{name:8s} {row['jobs_per_second']:7.2f} jobs/s  ({row['batch_seconds']:.1f} s; load {row['loadavg'][0]:.1f})")
        base = rows[0]["jobs_per_second"]
        result = {
            "jobs": args.jobs, "corpus_bytes": corpus_bytes, "claims_per_job": [5, 20], "cores": os.cpu_count(),
            "rows": rows,
            "scaling_2_vs_1": round(float(rows[1]["jobs_per_second"]) / float(base), 2) if base else None,  # type: ignore[arg-type]
            "ray_vs_local_2": (round(float(rows[2]["jobs_per_second"]) / float(rows[1]["jobs_per_second"]), 2)  # type: ignore[arg-type]
                               if len(rows) > 2 and rows[1]["jobs_per_second"] else None),
            "identical_lines": len({json.dumps(v) for v in lines.values()}) == 1,
        }  # fmt: skip
        print(f"2 workers / 1 worker: {result['scaling_2_vs_1']}x; ray / local on 2 cores: {result['ray_vs_local_2']}; "
              f"identical results: {result['identical_lines']}")
        args.out.write_text(json.dumps(result, indent=2) + "\n", "utf-8")
        write_doc(result)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
