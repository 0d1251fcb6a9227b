"""Differential fuzz of the two normalizer cores: prints how many cases differ (must be 0).

Runs the pure-Python normalizer (the oracle, claimledger.normalize.normalize_py) and the compiled
core (claimledger/_cnormalize.c) on deterministic generated texts (tests/normalize_cases.py) and
compares the normalized text and every offset array, in both hyphen readings. Every other batch of
cases holds no character outside the BMP (tests/normalize_cases.py: bmp_case), so the C core's builder
stays one or two bytes wide and its fast path (scan_run) runs. A case counts once per reading.

    .venv/bin/python scripts/normalize_differential.py                  # 1,000,000 cases
    .venv/bin/python scripts/normalize_differential.py --cases 20000 --seed 7

Exit status 1 when any case differs (the first few are printed) or when the C core is not built.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from claimledger import _normalize_core
from claimledger.normalize import _CORE_DEFINITIONS, Normalized, normalize_c, normalize_py
from tests.normalize_cases import cases


def key(n: Normalized) -> tuple[str, list[int], list[int], list[int], bytes]:
    return n.text, n.norm_start.tolist(), n.orig_start.tolist(), n.orig_end.tolist(), bytes(n.linear)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--batch", type=int, default=20_000)
    args = ap.parse_args()
    if not _normalize_core.active(_CORE_DEFINITIONS):
        print(f"the C core is not active: {_normalize_core.CORE}", file=sys.stderr)
        return 1
    t0 = time.perf_counter()
    done = differ = chars = 0
    batch = 0
    while done < args.cases:
        # every other batch holds no character outside the BMP (the builder's one- and two-byte fast path)
        for text in cases(args.seed + batch, min(args.batch, args.cases - done), bmp=batch % 2 == 1):
            chars += len(text)
            for keep in (False, True):
                want = key(normalize_py(text, keep_break_hyphens=keep))
                got = key(normalize_c(text, keep))
                if want != got:
                    differ += 1
                    if differ <= 5:
                        print(f"DIFF keep_break_hyphens={keep} text={text!r}\n  py={want}\n  c ={got}")
            done += 1
        batch += 1
    secs = time.perf_counter() - t0
    print(f"{done:,} cases ({2 * done:,} normalizations, {chars:,} characters), {differ} differences, {secs:.0f} s")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
