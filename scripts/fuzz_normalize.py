"""Differential fuzz of the normalizer against its frozen oracle (issue 19).

Generates random strings rich in what the normalizer treats specially (whitespace runs and
line breaks, break hyphens, U+FFFE, soft hyphens and other invisible characters, CJK and
full-width forms around spaces, combining marks, ligatures, superscripts, case-folding
oddities, astral characters, random code points) and compares, for both hyphen readings,
the text and all four offset arrays of ``claimledger.normalize.normalize`` (or ``--impl``)
with ``claimledger._normalize_reference.normalize``.

    .venv/bin/python scripts/fuzz_normalize.py --cases 1000000 --jobs 2
    .venv/bin/python scripts/fuzz_normalize.py --impl mypkg.module:normalize --cases 100000

Deterministic for a given --seed. Prints the first differences (as Python literals, ready to
become regression tests) and exits 1 when there are any.
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from typing import Any

ATOMS: list[tuple[float, list[str]]] = [
    (30, list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")),
    (6, list("0123456789")),
    (6, list(".,;:!?'\"()[]{}%$&*/+=<>#@_|~`^\\")),
    (14, [" ", " ", " ", "  ", "   "]),
    (8, ["\n", "\n", "\r\n", "\r", "\t", "\x0b", "\x0c", "\x85", "\xa0", "\u2003", "\u3000", "\u2028",
         "\u2029", "\u202f", "\u205f", "\u1680", "\x1c", " \n ", "\n\n", "\t\n"]),
    (6, ["-", "-", "\u2010", "\u2011", "\u2013", "\u2014", "\u2212", "-\n", "\u2010\n", "- \n", "-\r\n"]),
    (5, ["\ufffe", "\ufffe\n", "\u00ad", "\u00ad\n", "\u200b", "\u200c", "\u200d", "\ufeff", "\u202e",
         "\u2066", "\u180e", "\u2060", "\u200e"]),
    (12, [*list("日本語の調査結果はです。、「」『』・ー漢字カタカナひらがな"), "\U00020000", "\U0002a6d6"]),
    (6, [*list("（）［］｛｝，．％：！？ＡＢｔｈｅ１２３０＄～＂＇"), "\uff61", "\uff64", "\uff65"]),
    (3, [*list("ｶｷｸﾞﾟｧｯｰ"), "\uff9e", "\uff9f"]),
    (4, ["\u0301", "\u0308", "\u0327", "\u3099", "\u309a", "\u20dd", "\u0345", "\u1dc0"]),
    (5, [*list("ﬁﬂﬀﬃﬅﬆ²³₂½①⑴㍿㌔™℃Å℡"), "\u2474", "\u00bc"]),
    (6, [*list("ßİıſKÅςΣσǅǈŉΐΰẞᏸᏹꭰꭱﬓև"), "\u1e9e", "\u0130", "\u0345"]),
    (4, [*list("“”„‟″«»＂‘’‚‛′＇"), "\u2033", "\u201b"]),
    (3, ["😀", "𝐀", "𝔄", "\U0001f1ef", "\U0001d7ce", "\U0001f600\u200d\U0001f600", "\U000e0001"]),
    (3, ["\u1100", "\u1161", "\u11a8", "가", "ㄱ", "ㅏ", "\u3131"]),
    (3, ["é", "e\u0301", "Å", "A\u030a", "ñ", "n\u0303", "ỗ", "\u0390"]),
    (2, ["<random BMP>"]),
    (1, ["<random any>"]),
]
_WEIGHTS = [w for w, _ in ATOMS]


def _atom(rng: random.Random) -> str:
    choices = rng.choices(ATOMS, weights=_WEIGHTS)[0][1]
    a = rng.choice(choices)
    if a == "<random BMP>":
        cp = rng.randrange(0x80, 0x10000)
        return "" if 0xD800 <= cp <= 0xDFFF else chr(cp)
    if a == "<random any>":
        cp = rng.randrange(0x80, 0x110000)
        return "" if 0xD800 <= cp <= 0xDFFF else chr(cp)
    return a


def case(rng: random.Random) -> str:
    n = rng.choice((0, 1, 2, 3, 5, 8, 12, 20, 30, 40, 60, 120))
    parts = [_atom(rng) for _ in range(n)]
    if rng.random() < 0.3:  # words: runs of letters so hyphen joins and word spaces happen
        parts = [p + "".join(rng.choice("etaoinshrdlu") for _ in range(rng.randrange(1, 6))) if p.isalpha()
                 else p for p in parts]  # fmt: skip
    return "".join(parts)


def _load(spec: str) -> Callable[..., Any]:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name or "normalize")  # type: ignore[no-any-return]


def _arrays(n: Any) -> tuple[str, list[int], list[int], list[int], bytes]:
    return n.text, list(n.norm_start), list(n.orig_start), list(n.orig_end), bytes(n.linear)


def _chunk(args: tuple[str, int, int, int]) -> tuple[int, list[tuple[str, bool, str]]]:
    spec, seed, start, count = args
    from claimledger._normalize_reference import normalize as oracle

    impl = _load(spec)
    bad: list[tuple[str, bool, str]] = []
    for i in range(start, start + count):
        text = case(random.Random(f"{seed}/{i}"))
        for keep in (False, True):
            try:
                want = _arrays(oracle(text, keep_break_hyphens=keep))
            except Exception as exc:  # the oracle's own crash: the candidate must crash alike
                want = ("<crash>", [], [], [], repr(type(exc)).encode())  # type: ignore[assignment]
            try:
                got = _arrays(impl(text, keep_break_hyphens=keep))
            except Exception as exc:
                got = ("<crash>", [], [], [], repr(type(exc)).encode())  # type: ignore[assignment]
            if got != want:
                field = ["text", "norm_start", "orig_start", "orig_end", "linear"][
                    next(k for k in range(5) if got[k] != want[k])
                ]
                bad.append((text, keep, field))
    return count, bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--impl", default="claimledger.normalize:normalize", help="module:function to test")
    ap.add_argument("--show", type=int, default=10, help="differences to print")
    args = ap.parse_args()
    step = 5_000
    tasks = [(args.impl, args.seed, s, min(step, args.cases - s)) for s in range(0, args.cases, step)]
    t0 = time.perf_counter()
    done, bad = 0, []
    with multiprocessing.Pool(args.jobs) as pool:
        for count, diffs in pool.imap(_chunk, tasks):
            done += count
            bad.extend(diffs)
            if done % 100_000 < step:
                print(f"  {done:,} cases, {len(bad)} differences, {time.perf_counter() - t0:.0f}s", flush=True)
    print(f"{done:,} cases x 2 hyphen readings against the oracle: {len(bad)} differences "
          f"({time.perf_counter() - t0:.0f}s, seed {args.seed}, impl {args.impl})")  # fmt: skip
    for text, keep, field in bad[: args.show]:
        print(f"  {text!r} keep_break_hyphens={keep}: {field} differs")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
