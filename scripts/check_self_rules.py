"""The overclaim rules on a statement that IS the quote (issue 19, per-claim cost): a check on real text.

A quote claim without a ``statement`` stands for itself, and ``overclaim_hits`` then runs only the
statement-vs-quote rules that can fire on two identical texts (``_self_hits`` in
claimledger/checks/overclaim/__init__.py). This script runs both the short path and every rule
(``_pair_hits``) on identical texts cut from ../shared/bench (every sentence of every source and
claim, and spans cut like scripts/bench.py's quotes, English and Japanese, with the text around
them as the source context) and reports any difference. Nothing is downloaded.

    .venv/bin/python scripts/check_self_rules.py [--limit N]
    /any/tree/.venv/bin/python scripts/check_self_rules.py --digest    # on two trees: same line?

``--digest`` runs ``overclaim_hits`` and ``around_hits`` (the source-context rules) on every
(statement, quote, context) triple built from the same texts (the statement: the text itself, the
text without its first word, the bench row's claim) and prints one SHA-256 over all the hits, to
compare two trees (it uses only what older trees have too).

Exit status: 0 no difference, 1 differences (listed), 2 no bench data.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from pathlib import Path

from claimledger.checks.overclaim import overclaim_hits
from claimledger.checks.overclaim.around import around_hits
from claimledger.checks.overclaim.modality import (
    modality_hits,
    negation_hits,
    qualifier_hits,
    quantifier_hits,
)

BENCH = Path(__file__).resolve().parent.parent.parent / "shared" / "bench"
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")


def texts(limit: int) -> list[tuple[str, str, str]]:
    """(text, context, claim) triples: sentences and bench-like spans of the bench's sources and
    claims, with the bench row's claim."""
    rng = random.Random(20261201)
    out: list[tuple[str, str, str]] = []
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
                        out.append((t, doc[max(0, m.start() - 200) : m.end() + 200], str(row["claim"])))
                for _ in range(3):  # spans as scripts/bench.py cuts them (word boundaries, 60..160 chars)
                    start = rng.randrange(0, max(1, len(doc) - 60))
                    end = min(len(doc), start + rng.randint(20, 160))
                    t = doc[start:end].strip()
                    if len(t) >= 4:
                        out.append((t, doc[max(0, start - 200) : end + 200], str(row["claim"])))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=10**9, help="rows per dataset")
    ap.add_argument("--digest", action="store_true", help="print a digest of every rule's hits (compare trees)")
    args = ap.parse_args()
    if not BENCH.is_dir():
        print(f"no bench data at {BENCH}", file=sys.stderr)
        return 2
    triples = texts(args.limit)
    if args.digest:
        digest, n = hashlib.sha256(), 0
        for t, ctx, claim in triples:
            for statement in (t, t.split(" ", 1)[-1], claim):
                hits = overclaim_hits(statement, t, ctx) + around_hits(statement, t, ctx)
                digest.update(repr((statement, t, ctx, hits)).encode())
                n += 1
        print(f"{n} (statement, quote, context) triples: {digest.hexdigest()}")
        return 0
    from claimledger.checks.overclaim import _pair_hits, _self_hits

    pairs = [(t, ctx) for t, ctx, _ in triples]
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
