"""Exactness of the quote engine across speed work (issue 19): same verdicts, same spans.

Runs the `make bench` quote workloads (scaled down by default) through ``gate()``, cold and
then warm (from the index cache), and records for every claim its status, reason, message,
evidence span and nearest-passage (near-miss) span. ``record`` writes them to a JSON file;
``compare`` records again and lists every claim whose record differs from a saved baseline.

    .venv/bin/python scripts/compare_exact.py record  -o /tmp/exact-main.json     # on the old code
    .venv/bin/python scripts/compare_exact.py compare -b /tmp/exact-main.json     # on the new code

``--scale`` multiplies every workload's size (1.0: about 2 minutes on one core). Workloads are
built by the functions of scripts/bench.py from ../shared/bench (nothing is downloaded).
Exit status: 0 identical, 1 differences (listed), 2 usage or data error.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # scripts/bench.py: corpus and quote generators

# name -> (corpus chars, chars per document, quotes, quote maker, share of quotes citing a wrong source)
WORKLOADS: dict[str, tuple[int, int, int, str, float]] = {
    # the bench's 10 MB rows (25 documents of 400k characters)
    "corpus10m_q1k": (10_000_000, bench.DOC_CHARS, 1_000, "mixed", 0.0),
    "corpus10m_q10k": (10_000_000, bench.DOC_CHARS, 10_000, "mixed", 0.0),
    # issue 19's half-absent workload (20 files of 5 MB, scaled: 20 files of 500k characters)
    "halfabsent": (10_000_000, 500_000, 4_000, "half_absent", 0.0),
    # misattribution: a fifth of the quotes cite another document than the one they come from
    "misattributed": (4_000_000, 200_000, 2_000, "mixed", 0.2),
    # many uncited sources (the 1 GB x 1k row, scaled): the misattribution search reads them all
    "uncited": (20_000_000, bench.DOC_CHARS, 60, "mixed", 0.0),
    # one large source (the bench's largest-source row, scaled)
    "single": (12_000_000, 12_000_000, 1_000, "mixed", 0.0),
    # short sources (below the full-search limit for near misses: whole-text alignment)
    "short": (1_000_000, 40_000, 1_000, "half_absent", 0.1),
}


def _quotes(docs: list[Path], n: int, maker: str, wrong_share: float, name: str) -> list[dict[str, Any]]:
    quotes = bench.make_half_absent_quotes(docs, n) if maker == "half_absent" else bench.make_quotes(docs, n)
    rng = random.Random(f"{bench.SEED}/exact/{name}")
    for q in quotes:
        if wrong_share and rng.random() < wrong_share and len(docs) > 1:
            q["source"] = f"d{rng.randrange(len(docs)):05d}"
    return quotes


def _span(ev: Any) -> list[Any] | None:
    if ev is None:
        return None
    return [ev.source, ev.start, ev.end, [list(s) for s in ev.spans], ev.reading, ev.page, ev.line, ev.column]


def _records(report: Any) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for f in report.findings:
        key = f"{f.claim_id}/{f.check}"
        out[key] = {
            "status": f.status.value,
            "reason": f.reason.value,
            "message": f.message,
            "evidence": _span(f.evidence),
            "nearest": _span(f.nearest),
            "diff": f.diff,
            "similarity": f.extra.get("similarity"),
        }
    return out


def run_workload(name: str, scale: float, work: Path) -> dict[str, Any]:
    from claimledger import GateConfig, gate

    total, per_doc, n, maker, wrong = WORKLOADS[name]
    total, per_doc, n = int(total * scale), max(1000, int(per_doc * scale)), max(10, int(n * scale))
    docs_dir = work / name
    docs = bench.build_corpus(docs_dir, total, doc_chars=min(per_doc, total))
    quotes = _quotes(docs, n, maker, wrong, name)
    ledger = bench.quote_ledger(docs, quotes)
    cache = work / f"cache-{name}"
    runs = []
    for label in ("cold", "warm"):
        t0 = time.perf_counter()
        report = gate(ledger, config=GateConfig(cache_dir=cache), base_dir=docs_dir)
        runs.append((label, time.perf_counter() - t0, _records(report)))
    shutil.rmtree(docs_dir, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    cold, warm = runs[0][2], runs[1][2]
    differ = sorted(k for k in cold.keys() | warm.keys() if cold.get(k) != warm.get(k))
    counts: dict[str, int] = {}
    for r in cold.values():
        counts[r["reason"]] = counts.get(r["reason"], 0) + 1
    print(f"  {name}: {len(docs)} docs, {len(quotes)} quotes; cold {runs[0][1]:.2f}s, warm {runs[1][1]:.2f}s; "
          f"{counts}" + (f"; COLD AND WARM DIFFER on {len(differ)} claims" if differ else ""), flush=True)  # fmt: skip
    return {"claims": cold, "warm_differs": differ, "cold_s": runs[0][1], "warm_s": runs[1][1]}


def record(names: list[str], scale: float) -> dict[str, Any]:
    out: dict[str, Any] = {"scale": scale, "workloads": {}}
    with tempfile.TemporaryDirectory(prefix="claimledger-exact-") as tmp:
        for name in names:
            out["workloads"][name] = run_workload(name, scale, Path(tmp))
    return out


def compare(base: dict[str, Any], new: dict[str, Any]) -> int:
    bad = 0
    for name, b in base["workloads"].items():
        n = new["workloads"].get(name)
        if n is None:
            continue
        keys = b["claims"].keys() | n["claims"].keys()
        diffs = sorted(k for k in keys if b["claims"].get(k) != n["claims"].get(k))
        print(f"{name}: {len(keys)} claims, {len(diffs)} differ; cold {b['cold_s']:.2f}s -> {n['cold_s']:.2f}s, "
              f"warm {b['warm_s']:.2f}s -> {n['warm_s']:.2f}s")  # fmt: skip
        for k in diffs[:20]:
            print(f"  {k}\n    was: {b['claims'].get(k)}\n    now: {n['claims'].get(k)}")
        if n["warm_differs"]:
            print(f"  cold and warm runs differ on {len(n['warm_differs'])} claims: {n['warm_differs'][:10]}")
        bad += len(diffs) + len(n["warm_differs"])
    print("IDENTICAL" if bad == 0 else f"DIFFERENT: {bad}")
    return 0 if bad == 0 else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["record", "compare"])
    ap.add_argument("-o", "--output", type=Path, help="record: where to write the records")
    ap.add_argument("-b", "--baseline", type=Path, help="compare: the records of the old code")
    ap.add_argument("--scale", type=float, default=None, help="multiply every workload's size (default 1.0)")
    ap.add_argument("--only", nargs="*", choices=sorted(WORKLOADS), help="run only these workloads")
    args = ap.parse_args()
    if not bench.BENCH.exists():
        print(f"bench data not found at {bench.BENCH} (set CLAIMLEDGER_BENCH_DATA)", file=sys.stderr)
        return 2
    if args.mode == "record":
        if args.output is None:
            ap.error("record needs -o FILE")
        res = record(args.only or list(WORKLOADS), args.scale or 1.0)
        args.output.write_text(json.dumps(res, ensure_ascii=False), "utf-8")
        print(f"wrote {args.output}")
        return 0
    if args.baseline is None:
        ap.error("compare needs -b FILE")
    base = json.loads(args.baseline.read_text("utf-8"))
    scale = args.scale or base["scale"]
    if scale != base["scale"]:
        print(f"the baseline was recorded at --scale {base['scale']}", file=sys.stderr)
        return 2
    res = record(args.only or list(base["workloads"]), scale)
    if args.output is not None:
        args.output.write_text(json.dumps(res, ensure_ascii=False), "utf-8")
    return compare(base, res)


if __name__ == "__main__":
    sys.exit(main())
