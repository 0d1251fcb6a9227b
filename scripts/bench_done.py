"""The rows of issue 19's "Done when", measured the way it asks: each run a fresh process with a
cold cache, claimledger, `grep -F -f` and the naive gate interleaved, three rounds, the median,
the load average recorded before every run.

    .venv/bin/python scripts/bench_done.py                      # full sizes (long: 1 GB of text)
    .venv/bin/python scripts/bench_done.py --scale 0.1 -o /tmp/done.json
    .venv/bin/python scripts/bench_done.py --rows 100m_10k halfabsent

Rows (sizes before --scale): 100m_10k (100 MB, 250 documents, 10,000 quotes), halfabsent
(20 files of 5 MB, 10,000 quotes of which half are absent from every source), 10m_100k
(10 MB, 100,000 quotes), 1g_1k (1 GB, 2,500 documents, 1,000 quotes), largest (one source,
1,000 quotes: peak RSS above the process baseline against the source's text and file size),
warm (the 100m_10k ledger run three times on one cache: a plain UTF-8 source is cached the second time
it is read, so the second run writes its entries and the third is the warm one). The naive gate is measured on a sample of
quotes and extrapolated linearly, as in `make bench`. Workloads come from scripts/bench.py.
Prints one JSON object; with -o also writes it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench

ROWS: dict[str, tuple[int, int, int, str]] = {
    # name: (corpus characters, characters per document, quotes, quote maker)
    "100m_10k": (100_000_000, bench.DOC_CHARS, 10_000, "mixed"),
    "halfabsent": (100_000_000, 5_000_000, 10_000, "half_absent"),
    "10m_100k": (10_000_000, bench.DOC_CHARS, 100_000, "mixed"),
    "1g_1k": (1_000_000_000, bench.DOC_CHARS, 1_000, "mixed"),
}


def _load() -> float:
    return os.getloadavg()[0]


TREES: dict[str, str | None] = {"this": None}  # name -> source tree put first on PYTHONPATH (--tree)


def _ours(docs_dir: Path, qfile: Path, cache: Path, tree: str | None = None, *, fresh: bool = True) -> dict[str, Any]:
    if fresh:
        shutil.rmtree(cache, ignore_errors=True)
    saved = os.environ.get("PYTHONPATH")
    if tree is not None:
        os.environ["PYTHONPATH"] = tree
    try:
        load = _load()
        out = bench.sub("_quotes", "--docs", str(docs_dir), "--quotes", str(qfile), "--cache", str(cache))
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    out["load"] = load
    return out


def _per_tree(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "ours_s": statistics.median(r["ours_s"] for r in runs),
        "ours_cpu": statistics.median(r["ours_cpu"] for r in runs),
        "vs_grep": statistics.median(r["ours_s"] / max(r["grep_s"], 1e-9) for r in runs),
        "vs_naive": statistics.median(r["naive_s"] / r["ours_s"] for r in runs),
        "vs_grep_cpu": statistics.median(r["ours_cpu"] / max(r["grep_cpu"], 1e-9) for r in runs),
        "vs_naive_cpu": statistics.median(r["naive_cpu"] / r["ours_cpu"] for r in runs),
        "peak_mb": statistics.median(r["peak_mb"] for r in runs),
        "run_mb": statistics.median(r["run_mb"] for r in runs),
        "wrong": max(r["wrong"] for r in runs),
    }


def quote_row(work: Path, name: str, scale: float, rounds: int, naive_limit: int) -> dict[str, Any]:
    total, per_doc, n, maker = ROWS[name]
    total, per_doc, n = int(total * scale), max(1000, int(per_doc * scale)), max(10, int(n * scale))
    docs_dir = work / f"docs-{name}"
    docs = bench.build_corpus(docs_dir, total, doc_chars=min(per_doc, total))
    quotes = bench.make_half_absent_quotes(docs, n) if maker == "half_absent" else bench.make_quotes(docs, n)
    qfile = work / f"quotes-{name}.json"
    qfile.write_text(json.dumps(quotes, ensure_ascii=False), "utf-8")
    norm_docs = bench.normalized_corpus(docs, work / f"norm-{name}")
    limit = bench.naive_sample(n, total, naive_limit)
    runs: dict[str, list[dict[str, Any]]] = {t: [] for t in TREES}
    for r in range(rounds):
        ours = {t: _ours(docs_dir, qfile, work / f"cache-{name}", tree) for t, tree in TREES.items()}
        load_g = _load()
        grep_s = bench.grep_floor(norm_docs, quotes, work)
        grep_cpu = bench.GREP_CPU[-1]
        load_n = _load()
        naive = bench.sub("_naive", "--docs", str(docs_dir), "--quotes", str(qfile), "--limit", str(limit))
        naive_s = naive["seconds"] / naive["measured"] * n
        naive_cpu = naive["cpu_s"] / naive["measured"] * n
        for t, o in ours.items():
            runs[t].append({
                "ours_s": o["seconds"], "ours_cpu": o["cpu_s"], "grep_s": grep_s, "grep_cpu": grep_cpu,
                "naive_s": naive_s, "naive_cpu": naive_cpu, "naive_measured": naive["measured"],
                "peak_mb": o["peak_kb"] / 1024, "run_mb": (o["peak_kb"] - o["baseline_kb"]) / 1024,
                "wrong": o["wrong"], "verified": o["verified"],
                "load": [round(o["load"], 2), round(load_g, 2), round(load_n, 2)],
            })  # fmt: skip
            print(f"  {name} round {r + 1} [{t}]: ours {o['seconds']:.2f}s ({o['cpu_s']:.2f}s CPU), grep {grep_s:.2f}s "
                  f"({grep_cpu:.2f}s CPU), naive {naive_s:.1f}s ({naive_cpu:.1f}s CPU), load {o['load']:.1f}",
                  flush=True)  # fmt: skip
    shutil.rmtree(docs_dir, ignore_errors=True)
    shutil.rmtree(work / f"norm-{name}", ignore_errors=True)
    shutil.rmtree(work / f"cache-{name}", ignore_errors=True)
    first = next(iter(runs.values()))
    return {
        "row": name, "corpus_mb": total / 1e6, "docs": len(docs), "quotes": n, "rounds": runs,
        "grep_s": statistics.median(r["grep_s"] for r in first),
        "grep_cpu": statistics.median(r["grep_cpu"] for r in first),
        "naive_s": statistics.median(r["naive_s"] for r in first),
        "naive_cpu": statistics.median(r["naive_cpu"] for r in first),
        "trees": {t: _per_tree(rs) for t, rs in runs.items()},
    }  # fmt: skip


def warm_row(work: Path, scale: float, rounds: int) -> dict[str, Any]:
    total, _per_doc, n, _ = ROWS["100m_10k"]
    total, n = int(total * scale), max(10, int(n * scale))
    docs_dir = work / "docs-warm"
    docs = bench.build_corpus(docs_dir, total)
    qfile = work / "quotes-warm.json"
    qfile.write_text(json.dumps(bench.make_quotes(docs, n), ensure_ascii=False), "utf-8")
    runs: dict[str, list[dict[str, Any]]] = {t: [] for t in TREES}
    for _ in range(rounds):
        for t, tree in TREES.items():
            cache = work / "cache-warm"
            cold = _ours(docs_dir, qfile, cache, tree)
            warm = _ours(docs_dir, qfile, cache, tree, fresh=False)
            third = _ours(docs_dir, qfile, cache, tree, fresh=False)
            runs[t].append({"cold_s": cold["seconds"], "warm_s": warm["seconds"], "cold_cpu": cold["cpu_s"],
                            "warm_cpu": warm["cpu_s"], "third_s": third["seconds"], "third_cpu": third["cpu_s"],
                            "load": [cold["load"], warm["load"], third["load"]]})  # fmt: skip
            print(f"  warm [{t}]: cold {cold['seconds']:.2f}s ({cold['cpu_s']:.2f}s CPU), second {warm['seconds']:.2f}s "
                  f"({warm['cpu_s']:.2f}s CPU), third {third['seconds']:.2f}s ({third['cpu_s']:.2f}s CPU)", flush=True)  # fmt: skip
    shutil.rmtree(docs_dir, ignore_errors=True)
    shutil.rmtree(work / "cache-warm", ignore_errors=True)
    return {"row": "warm", "corpus_mb": total / 1e6, "quotes": n, "rounds": runs, "trees": {
        t: {"cold_over_warm": statistics.median(r["cold_s"] / r["warm_s"] for r in rs),
            "cold_over_warm_cpu": statistics.median(r["cold_cpu"] / r["warm_cpu"] for r in rs),
            "cold_over_third": statistics.median(r["cold_s"] / r["third_s"] for r in rs),
            "cold_over_third_cpu": statistics.median(r["cold_cpu"] / r["third_cpu"] for r in rs)}
        for t, rs in runs.items()}}  # fmt: skip


def largest_row(work: Path, scale: float, rounds: int) -> dict[str, Any]:
    out: dict[str, Any] = {"row": "largest", "trees": {}}
    saved = os.environ.get("PYTHONPATH")
    for t, tree in TREES.items():
        if tree is not None:
            os.environ["PYTHONPATH"] = tree
        try:
            runs = [bench.bench_largest_source(work, int(100_000_000 * scale)) for _ in range(rounds)]
        finally:
            if saved is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = saved
        for r in runs:
            print(f"  largest [{t}]: {r['seconds']:.2f}s, {r['run_mb']:.0f} MB above baseline", flush=True)
        mid = sorted(runs, key=lambda r: r["run_mb"])[len(runs) // 2]
        out["trees"][t] = {**mid, "vs_text": mid["run_mb"] / mid["text_mem_mb"],
                           "vs_file": mid["run_mb"] / mid["source_mb"], "rounds": runs}  # fmt: skip
    return out


def compile_trees() -> None:
    """Every measured tree compiled first (:func:`bench.compile_package`): a tree with up-to-date
    ``__pycache__`` and one without are otherwise not compared on the same terms."""
    for tree in TREES.values():
        bench.compile_package(Path(tree) if tree is not None else bench.ROOT)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every size (corpus, documents, quotes)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rows", nargs="*", default=[*ROWS, "largest", "warm"])
    ap.add_argument("--naive-limit", type=int, default=200, help="naive quotes measured per 10 MB of corpus")
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                    help="measure claimledger from this source tree (first on PYTHONPATH) instead of this "
                         "checkout; repeat to compare trees interleaved (name this checkout too: --tree now=.)")
    ap.add_argument("-o", "--output", type=Path)
    args = ap.parse_args()
    if args.tree:
        TREES.clear()
        for spec in args.tree:
            name, _, path = spec.partition("=")
            TREES[name] = str(Path(path).resolve())
    if not bench.BENCH.exists():
        print(f"bench data not found at {bench.BENCH}", file=sys.stderr)
        return 2
    compile_trees()
    res: dict[str, Any] = {"scale": args.scale, "rounds": args.rounds, "date": time.strftime("%Y-%m-%d %H:%M"),
                           "python": sys.version.split()[0], "cores": os.cpu_count(), "rows": []}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="claimledger-done-") as tmp:
        work = Path(tmp)
        for name in args.rows:
            if name in ROWS:
                res["rows"].append(quote_row(work, name, args.scale, args.rounds, args.naive_limit))
            elif name == "warm":
                res["rows"].append(warm_row(work, args.scale, args.rounds))
            elif name == "largest":
                res["rows"].append(largest_row(work, args.scale, args.rounds))
    text = json.dumps(res, indent=1)
    if args.output:
        args.output.write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
