"""The overclaim rules on a statement that IS the quote (issue 19, per-claim cost): a check on real text.

A quote claim without a ``statement`` stands for itself, and ``overclaim_hits`` then runs only the
statement-vs-quote rules that can fire on two identical texts (``_self_hits`` in
claimledger/checks/overclaim/__init__.py). This script runs both the short path and every rule
(``_pair_hits``) on identical texts cut from ../shared/bench (every sentence of every source and
claim, and spans cut like scripts/bench.py's quotes, English and Japanese, with the text around
them as the source context) and reports any difference. Nothing is downloaded.

    .venv/bin/python scripts/check_self_rules.py [--limit N]

Exit status: 0 no difference, 1 differences (listed), 2 no bench data.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

from claimledger.checks.overclaim import _pair_hits, _self_hits
from claimledger.checks.overclaim.modality import (
    modality_hits,
    negation_hits,
    qualifier_hits,
    quantifier_hits,
)

BENCH = Path(__file__).resolve().parent.parent.parent / "shared" / "bench"
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")


def texts(limit: int) -> list[tuple[str, str]]:
    """(text, context) pairs: sentences and bench-like spans of the bench's sources and claims."""
    rng = random.Random(20261201)
    out: list[tuple[str, str]] = []
    for ds in ("wice", "summedits", "tabfact", "jnli", "janli", "jhars"):
        path = BENCH / ds / "bench.jsonl"
        for n, line in enumerate(path.read_text("utf-8").splitlines()):
            if n >= limit:
                break
            row = json.loads(line)
            for field in ("source", "claim"):
                doc = str(row[field])
                for m in _SENTENCE.finditer(doc):
                    t = m.group().strip()
                    if len(t) >= 4:
                        out.append((t, doc[max(0, m.start() - 200) : m.end() + 200]))
                for _ in range(3):  # spans as scripts/bench.py cuts them (word boundaries, 60..160 chars)
                    start = rng.randrange(0, max(1, len(doc) - 60))
                    end = min(len(doc), start + rng.randint(20, 160))
                    t = doc[start:end].strip()
                    if len(t) >= 4:
                        out.append((t, doc[max(0, start - 200) : end + 200]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=10**9, help="rows per dataset")
    args = ap.parse_args()
    if not BENCH.is_dir():
        print(f"no bench data at {BENCH}", file=sys.stderr)
        return 2
    pairs = texts(args.limit)
    differ = 0
    fired: dict[str, int] = {}
    for t, ctx in pairs:
        full, short = _pair_hits(t, t, ctx), _self_hits(t, ctx)
        for h in full:
            fired[h.rule] = fired.get(h.rule, 0) + 1
        rest = negation_hits(t, t) + quantifier_hits(t, t) + qualifier_hits(t, t) + modality_hits(t, t)
        if full != short or rest:
            differ += 1
            print(f"DIFFERENT: {t!r}\n  all rules: {full}\n  short path: {short}")
    print(f"{len(pairs)} identical statement/quote texts: {differ} differ; rules that fired: {fired or 'none'}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
