"""Differential fuzz of the skeleton prefilter (claimledger/skeleton.py, issue 19 item 5).

For every generated text ``t`` (half from tests/normalize_cases.py, half from
scripts/fuzz_normalize.py's PDF-like generator: ligatures, ß, full-width forms, U+FFFE, soft
hyphens, zero-width characters, combining marks, NFKC expansions, CJK, astral characters) checks

* ``of_raw(t)`` in C == ``of_raw_py(t)`` == ``of_normalized(normalize_py(t).text)``
  == ``of_normalized(normalize_c(t).text)`` (the invariant the prefilter rests on), and
* a piece cut at random from ``normalize(t).text`` is never ruled out by ``Prefilter`` (C and
  pure Python, and from the text's UTF-8 bytes): the prefilter never says "cannot occur" where a
  quote occurs;
* the skeleton of bytes (claimledger/_cutf8skel.c) equals its definition ``of_utf8_py`` on the
  text's UTF-8 encoding (with and without a byte-order mark, with and without the Aozora stop
  characters) and on a corrupted copy (bytes replaced, inserted or cut: None exactly when
  CPython's decoder rejects them).

    .venv/bin/python scripts/fuzz_skeleton.py --cases 1000000 --jobs 2

Deterministic for a given --seed. Prints the first counterexamples as Python literals and exits 1
when there are any.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def _chunk(args: tuple[int, int, int]) -> tuple[int, list[tuple[str, str]]]:
    seed, start, count = args
    from fuzz_normalize import case as pdf_like

    from claimledger import _normalize_core, skeleton
    from claimledger.load.text import AOZORA_MARKS
    from claimledger.normalize import normalize_c, normalize_py
    from tests.normalize_cases import case as special

    ext = _normalize_core.load_extension()
    utf8 = skeleton.utf8_core()
    if utf8 is None:
        raise SystemExit("claimledger._cutf8skel is not built: pip install -e .")
    bad: list[tuple[str, str]] = []
    for i in range(start, start + count):
        rng = random.Random(f"{seed}/{i}")
        text = special(rng) if i % 2 else pdf_like(rng)
        norm = normalize_py(text).text
        got = (skeleton.of_raw(text, ext=ext), skeleton.of_raw_py(text), skeleton.of_normalized(norm),
               skeleton.of_normalized(normalize_c(text, ext=ext).text))  # fmt: skip
        if len(set(got)) != 1:
            bad.append((text, "skeleton"))
            continue
        data = text.encode("utf-8", "surrogatepass")
        corrupt = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(corrupt) + 1)
            op = rng.randrange(3)
            if op == 0 and at < len(corrupt):
                corrupt[at] = rng.randrange(256)
            elif op == 1:
                corrupt[at:at] = bytes([rng.randrange(0x80, 0x100)])
            else:
                del corrupt[at : at + 1]
        for b in (data, b"\xef\xbb\xbf" + data, bytes(corrupt)):
            for stop in ("", AOZORA_MARKS):
                if utf8.skeleton_utf8(b, stop) != skeleton.of_utf8_py(b, stop):
                    bad.append((repr(b), f"skeleton_utf8 (stop {stop!r})"))
        if norm:
            a = rng.randrange(len(norm))
            piece = norm[a : a + rng.randrange(1, 60)]
            pf = skeleton.Prefilter([piece])
            if not (pf.may_contain(text, ext=ext) and pf.may_contain(text, ext=None)) or pf.rules_out_utf8(data):
                bad.append((text, f"prefilter rules out {piece!r}"))
    return count, bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--show", type=int, default=10)
    args = ap.parse_args()
    step = 5_000
    tasks = [(args.seed, s, min(step, args.cases - s)) for s in range(0, args.cases, step)]
    t0 = time.perf_counter()
    done, bad = 0, []
    with multiprocessing.Pool(args.jobs) as pool:
        for count, diffs in pool.imap(_chunk, tasks):
            done += count
            bad.extend(diffs)
            if done % 100_000 < step:
                print(
                    f"  {done:,} cases, {len(bad)} counterexamples, {time.perf_counter() - t0:.0f}s",
                    flush=True,
                )
    print(f"{done:,} cases: {len(bad)} counterexamples ({time.perf_counter() - t0:.0f}s, seed {args.seed})")
    for text, what in bad[: args.show]:
        print(f"  {text!r}: {what}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
