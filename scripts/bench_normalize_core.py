"""The normalizer's two cores side by side: throughput (Mchar/s) and the cold 100 MB x 10k check.

Builds the same deterministic corpus as scripts/bench.py (the bench's real EN/JA texts with PDF-like
artefacts: U+FFFE hyphenation, ligatures, curly quotes), then

* normalizes every document with the pure-Python core (normalize_py) and the C core (normalize_c),
  both hyphen readings, and counts the documents whose results differ (must be 0);
* runs the cold quote check (scripts/bench.py's `_quotes` run, a fresh process and cache each time)
  with CLAIMLEDGER_PURE_PYTHON=1 and without, interleaved.

    .venv/bin/python scripts/bench_normalize_core.py                    # 100 MB, 10k quotes
    .venv/bin/python scripts/bench_normalize_core.py --mb 10 --quotes 1000 --repeat 1
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench

from claimledger import _normalize_core
from claimledger.normalize import _CORE_DEFINITIONS, Normalized, normalize_c, normalize_py


def key(n: Normalized) -> tuple[str, bytes, bytes, bytes, bytes]:
    return n.text, n.norm_start.tobytes(), n.orig_start.tobytes(), n.orig_end.tobytes(), bytes(n.linear)


def throughput(docs: list[Path]) -> dict[str, float]:
    out: dict[str, float] = {"py_s": 0.0, "c_s": 0.0, "py_keep_s": 0.0, "c_keep_s": 0.0, "chars": 0, "differ": 0}
    for path in docs:
        text = path.read_text("utf-8")
        out["chars"] += len(text)
        for keep, suffix in ((False, ""), (True, "_keep")):
            t0 = time.process_time()  # CPU time: the machine is shared, wall time is noise
            want = normalize_py(text, keep_break_hyphens=keep)
            t1 = time.process_time()
            got = normalize_c(text, keep)
            t2 = time.process_time()
            out[f"py{suffix}_s"] += t1 - t0
            out[f"c{suffix}_s"] += t2 - t1
            out["differ"] += key(want) != key(got)
            del want, got
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--quotes", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=2, help="cold checks per core, interleaved")
    ap.add_argument("--skip-check", action="store_true", help="throughput only")
    args = ap.parse_args()
    if not _normalize_core.active(_CORE_DEFINITIONS):
        print(f"the C core is not active: {_normalize_core.CORE}", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="claimledger-ccore-bench-"))
    try:
        docs = bench.build_corpus(work / "docs", args.mb * 1_000_000)
        print(f"corpus: {len(docs)} documents, {args.mb} MB; load average {os.getloadavg()[0]:.2f}", flush=True)
        tp = throughput(docs)
        mc = tp["chars"] / 1e6
        print(
            "CPU seconds of this process:\n"
            f"normalize, joined reading: pure Python {tp['py_s']:.1f} s ({mc / tp['py_s']:.1f} Mchar/s), "
            f"C {tp['c_s']:.2f} s ({mc / tp['c_s']:.1f} Mchar/s), {tp['py_s'] / tp['c_s']:.1f}x\n"
            f"normalize, hyphen-kept reading: pure Python {tp['py_keep_s']:.1f} s "
            f"({mc / tp['py_keep_s']:.1f} Mchar/s), C {tp['c_keep_s']:.2f} s ({mc / tp['c_keep_s']:.1f} Mchar/s)\n"
            f"documents whose results differ (text or any offset array, either reading): {tp['differ']}",
            flush=True,
        )
        if args.skip_check:
            return 1 if tp["differ"] else 0
        quotes = bench.make_quotes(docs, args.quotes)
        qfile = work / "quotes.json"
        qfile.write_text(json.dumps(quotes, ensure_ascii=False), "utf-8")
        times: dict[str, list[float]] = {"pure": [], "c": []}
        verdicts: dict[str, set[int]] = {"pure": set(), "c": set()}
        for _ in range(args.repeat):
            for core in ("pure", "c"):
                if core == "pure":
                    os.environ["CLAIMLEDGER_PURE_PYTHON"] = "1"
                else:
                    os.environ.pop("CLAIMLEDGER_PURE_PYTHON", None)
                cache = work / "cache"
                shutil.rmtree(cache, ignore_errors=True)
                res = bench.sub("_quotes", "--docs", str(work / "docs"), "--quotes", str(qfile), "--cache", str(cache))
                times[core].append(res["seconds"])
                verdicts[core].add(res["verified"] * 1_000_000 + res["wrong"])
                print(f"  cold check {args.mb} MB x {args.quotes}: {core} {res['seconds']:.1f} s, "
                      f"verified {res['verified']}, wrong {res['wrong']}, peak {res['peak_kb'] / 1024:.0f} MB",
                      flush=True)  # fmt: skip
        os.environ.pop("CLAIMLEDGER_PURE_PYTHON", None)
        p, c = statistics.median(times["pure"]), statistics.median(times["c"])
        print(f"cold check, median of {args.repeat}: pure Python {p:.1f} s, C core {c:.1f} s ({p / c:.2f}x); "
              f"same verdict counts: {verdicts['pure'] == verdicts['c']}; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
        return 1 if tp["differ"] or verdicts["pure"] != verdicts["c"] else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
