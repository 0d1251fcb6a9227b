#!/usr/bin/env python
"""Evaluate the deterministic overclaim rules alone on the verification bench.

Usage::

    .venv/bin/python scripts/eval_overclaim.py                 # all of ../shared/bench, writes docs/accuracy-overclaim.md
    .venv/bin/python scripts/eval_overclaim.py --sample 20 --out /tmp/t.md

How a bench row becomes a rule input (the rules need a statement, a quote and
the source text around the quote; the bench gives a claim and its whole source):

* ``statement`` = each sentence of the bench ``claim`` (summaries have several);
* ``quote`` = the single source sentence (or table row) that best matches the
  claim: content-word stems for English, character bigrams for Japanese
  (Dice overlap). This stands in for the verified quote of a ledger claim;
* ``source_context`` = the source's text from 200 characters before that
  sentence to 200 characters after it, which is what the gate hands the rules;
* prediction: any overclaim finding on any sentence -> ``unsupported``; no finding -> ``supported``.

The rules only look for one kind of error (the sentence says more than its
quote), so most unsupported claims of these sets are out of their reach: the
figure to watch is the false-alarm rate on supported claims, which should stay
low, with the recall on unsupported claims as a by-product. Only ``meta`` is
never read here and ``gold`` never; neither is needed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from claimledger.checks.overclaim import Hit, overclaim_hits  # noqa: E402
from claimledger.checks.overclaim._text import is_japanese, stem, words  # noqa: E402

DEFAULT_BENCH = ROOT.parent / "shared" / "bench"
DEFAULT_OUT = ROOT / "docs" / "accuracy-overclaim.md"
CONTEXT_CHARS = 200
DATASETS = ("summedits", "wice", "tabfact", "jnli", "janli", "jhars")

# Published figures from the bench README (same slices or the closest comparable figure).
PUBLISHED: dict[str, str] = {
    "summedits": "BAcc, mean of our 8 domains: GPT-4 83.2, Claude 2.1 75.6, QAFactEval 67.4, "
    "SummaC-Conv 57.1, DAE 55.4, Llama2-7b 50.4; human 90.6",
    "wice": "LLM-AggreFact BAcc: MiniCheck-InternLM2.5-7B 81.9, GPT-4o 78.5, AlignScore 66.0, "
    "SummaC-ZS 62.8, SummaC-CV 54.3",
    "tabfact": "accuracy, mean(simple, complex): TAPEX 86.8, TAPAS 84.0, Table-BERT 68.7",
    "jnli": "3-way accuracy (not comparable with binary BAcc): Waseda RoBERTa large 0.904, "
    "Tohoku BERT base 0.876; human 0.925 (dev)",
    "janli": "none published for this slice; chance is 50",
    "jhars": "none published (56 rows, for smoke tests only)",
}

_SENT = re.compile(r"[^\n。！？.!?]+(?:[。！？!?]+|\.(?=\s|$)|$)")


@dataclass
class Row:
    dataset: str
    lang: str
    label: str
    source: str
    claim: str


@dataclass
class Tally:
    n: int = 0
    sup: int = 0
    unsup: int = 0
    sup_flagged: int = 0
    unsup_flagged: int = 0
    rules: Counter[str] = field(default_factory=Counter)

    def add(self, label: str, flagged: bool, rules: Iterable[str]) -> None:
        self.n += 1
        if label == "supported":
            self.sup += 1
            self.sup_flagged += flagged
        else:
            self.unsup += 1
            self.unsup_flagged += flagged
        self.rules.update(rules)

    @property
    def recall_supported(self) -> float | None:
        return (self.sup - self.sup_flagged) / self.sup if self.sup else None

    @property
    def recall_unsupported(self) -> float | None:
        return self.unsup_flagged / self.unsup if self.unsup else None

    @property
    def bacc(self) -> float | None:
        a, b = self.recall_supported, self.recall_unsupported
        return None if a is None or b is None else (a + b) / 2

    @property
    def false_alarm(self) -> float | None:
        return self.sup_flagged / self.sup if self.sup else None


def load(bench: Path, datasets: Iterable[str], sample: int | None, seed: int) -> list[Row]:
    rows: list[Row] = []
    for name in datasets:
        path = bench / name / "bench.jsonl"
        if not path.exists():
            continue
        items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if sample is not None:
            items = random.Random(f"{seed}/{name}").sample(items, min(sample, len(items)))
        rows += [Row(name, it["lang"], it["label"], it["source"], it["claim"]) for it in items]
    return rows


def _features(text: str, ja: bool) -> set[str]:
    if ja:
        t = re.sub(r"\s+", "", text)
        return {t[i : i + 2] for i in range(len(t) - 1)}
    return {stem(w.text) for w in words(text) if len(w.text) >= 3} | set(re.findall(r"\d+(?:\.\d+)?", text))


def best_sentence(source: str, claim: str) -> tuple[str, int, int]:
    """The source sentence (or line) that best matches the claim, with its span."""
    ja = is_japanese(claim) or is_japanese(source[:2000])
    target = _features(claim, ja)
    best: tuple[float, int, int] = (-1.0, 0, min(len(source), 300))
    for m in _SENT.finditer(source):
        text = m.group()
        if not text.strip():
            continue
        feats = _features(text, ja)
        if not feats or not target:
            continue
        score = 2 * len(feats & target) / (len(feats) + len(target))
        if score > best[0]:
            lead = len(text) - len(text.lstrip())
            best = (score, m.start() + lead, m.end())
    _, a, b = best
    return source[a:b].strip(), a, b


def claim_sentences(claim: str) -> list[str]:
    """A multi-sentence claim (a summary) is checked one sentence at a time, as the gate would."""
    parts = [m.group().strip() for m in _SENT.finditer(claim)]
    return [p for p in parts if len(p) >= 8] or [claim]


def predict(row: Row) -> list[Hit]:
    hits: list[Hit] = []
    for sentence in claim_sentences(row.claim):
        quote, a, b = best_sentence(row.source, sentence)
        context = row.source[max(0, a - CONTEXT_CHARS) : b + CONTEXT_CHARS]
        hits += overclaim_hits(sentence, quote, context)
    return hits


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def table(tallies: dict[tuple[str, str], Tally]) -> str:
    lines = [
        "| dataset | lang | n | BAcc | recall supported | recall unsupported | false-alarm rate | published (bench README) |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for (ds, lang), t in sorted(tallies.items(), key=lambda kv: DATASETS.index(kv[0][0])):
        lines.append(
            f"| {ds} | {lang} | {t.n} | {_pct(t.bacc)} | {_pct(t.recall_supported)} | "
            f"{_pct(t.recall_unsupported)} | {_pct(t.false_alarm)} | {PUBLISHED.get(ds, '')} |"
        )
    return "\n".join(lines)


def rules_table(tallies: dict[tuple[str, str], Tally]) -> str:
    lines = ["| dataset | lang | findings by rule |", "|---|---|---|"]
    for (ds, lang), t in sorted(tallies.items(), key=lambda kv: DATASETS.index(kv[0][0])):
        rules = ", ".join(f"{r} {c}" for r, c in t.rules.most_common()) or "none"
        lines.append(f"| {ds} | {lang} | {rules} |")
    return "\n".join(lines)


DOC_HEAD = """# Accuracy of the overclaim rules alone

Generated by `scripts/eval_overclaim.py` over `../shared/bench/*/bench.jsonl`; do not edit by hand.

**How a bench row is turned into rule input.** `statement` = each sentence of the bench claim
(SummEdits summaries have several; the row is flagged when any sentence is); `quote` = the one
source sentence (or table row) that best matches the claim (Dice overlap of content-word stems
for English, of character bigrams for Japanese), standing in for a verified quote;
`source_context` = the source from 200 characters before that sentence to 200 after it, as the
gate passes it. Any overclaim finding predicts `unsupported`; no finding predicts `supported`.
The `gold` field is never read.

**How to read it.** The rules look for one kind of error only: a sentence that says more than
its quote (a changed number, a dropped hedge, stronger modality, a broader quantifier, a flipped
negation, a dropped restriction). Most unsupported claims in these sets are wrong in other ways
(wrong entity, invented facts, table arithmetic), which no such rule can see. The rules run on
every quote claim, so the figure that matters is the **false-alarm rate on supported claims**;
the recall on unsupported claims is a by-product. Balanced accuracy near 50 with a low
false-alarm rate is the expected profile; the published systems beside it are full semantic
checkers (LLMs, NLI models) and are not a like-for-like comparison.
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="Markdown file to write ('-' for none)")
    ap.add_argument("--sample", type=int, default=None, help="rows per dataset (default: all)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS))
    ap.add_argument("--show", type=int, default=0, help="print up to N false alarms per dataset")
    args = ap.parse_args(argv)

    rows = load(args.bench, args.datasets, args.sample, args.seed)
    if not rows:
        print(f"no bench rows under {args.bench}", file=sys.stderr)
        return 2
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    shown: Counter[str] = Counter()
    started = time.monotonic()
    for row in rows:
        hits = predict(row)
        rules = [h.rule for h in hits]
        tallies[(row.dataset, row.lang)].add(row.label, bool(rules), rules)
        if rules and row.label == "supported" and shown[row.dataset] < args.show:
            shown[row.dataset] += 1
            for h in hits:
                print(f"[false alarm] {row.dataset}: {h.rule}: {h.statement_text!r} <- {h.source_text!r}", file=sys.stderr)
    elapsed = time.monotonic() - started

    overall = Tally()
    for t in tallies.values():
        overall.n += t.n
        overall.sup += t.sup
        overall.unsup += t.unsup
        overall.sup_flagged += t.sup_flagged
        overall.unsup_flagged += t.unsup_flagged
    body = table(tallies)
    summary = (
        f"All rows: n {overall.n}, false-alarm rate {_pct(overall.false_alarm)}%, "
        f"recall on unsupported {_pct(overall.recall_unsupported)}%, BAcc {_pct(overall.bacc)} "
        f"({elapsed:.1f} s)."
    )
    print(body)
    print()
    print(summary)
    if str(args.out) != "-":
        scope = "all rows" if args.sample is None else f"a sample of {args.sample} rows per dataset (seed {args.seed})"
        doc = (
            f"{DOC_HEAD}\n## Results ({scope})\n\nFigures in percent.\n\n{body}\n\n{summary}\n\n"
            f"## Findings by rule\n\n{rules_table(tallies)}\n"
        )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(doc, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
