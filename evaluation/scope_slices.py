"""The scope rules on the labelled slices of ../shared/bench: how often do they flag real, supported claims?

The red-team benchmark (:mod:`evaluation.redteam`) is in-sample: its
sources and the rules were written together. This is the out-of-sample check
of the rules' false alarms: every row of the slices, with the statement = each
claim sentence and the evidence passage built around the best-matching source
sentence exactly as the overclaim evaluation picks it
(``scripts/eval_overclaim.py``). JHARS rows carry the user's question, which
is passed as the research question. A supported claim that gets a scope issue
is a false alarm; an unsupported one that gets an issue is a hit (most
unsupported rows are wrong in ways no scope slot reads, so the hit rate is
expected to be low).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from claimledger.checks.scope import QuestionScope, build_passage, scope_issues
from evaluation.scoring import Outcome

SCOPE_SETS = ("summedits", "wice", "tabfact", "jnli", "janli", "jhars")


def run_scope(bench: Path, progress: Callable[[str], None] | None = None) -> list[Outcome]:
    from evaluation.slices import overclaim_script

    script = overclaim_script()
    outcomes: list[Outcome] = []
    for name in SCOPE_SETS:
        path = bench / name / "bench.jsonl"
        if not path.exists():
            continue
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            question = (row.get("meta") or {}).get("question")
            q = QuestionScope(question) if isinstance(question, str) and question.strip() else None
            slots: set[str] = set()
            for sentence in script.claim_sentences(row["claim"]):
                _quote, a, b = script.best_sentence(row["source"], sentence)
                passage = build_passage(row["source"], a, b)
                slots |= {f"{i.slot}:{i.severity}" for i in scope_issues(q, sentence, passage)}
            outcomes.append(Outcome(
                "scope", row["lang"], name, row["id"], row["label"] == "supported", not slots,
                ",".join(sorted(slots)) or "no finding",
            ))  # fmt: skip
        if progress:
            progress(f"scope rules: {name} done")
    return outcomes


def table(outcomes: list[Outcome]) -> list[str]:
    lines = [
        "| dataset | lang | supported | flagged (false alarm) | unsupported | flagged (hit) | most frequent slot |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for name in SCOPE_SETS:
        sel = [o for o in outcomes if o.family == name]
        if not sel:
            continue
        sup = [o for o in sel if o.must_verify]
        uns = [o for o in sel if not o.must_verify]
        fa = sum(not o.verified for o in sup)
        hit = sum(not o.verified for o in uns)
        counts: dict[str, int] = {}
        for o in sel:
            if not o.verified:
                for slot in o.reason.split(","):
                    counts[slot] = counts.get(slot, 0) + 1
        top = max(counts, key=lambda k: counts[k]) if counts else "-"
        lines.append(
            f"| {name} | {sel[0].lang} | {len(sup)} | {fa} ({fa / len(sup):.1%}) | {len(uns)} | "
            f"{hit} ({hit / len(uns):.1%}) | {top} |"
        )
    return lines
