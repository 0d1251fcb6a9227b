"""docs/accuracy.md and operating_points.json from the outcomes of one ``make eval`` run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from evaluation.scoring import Outcome, Tally, by_family, tally

MAX_LISTED = 40
PER_FAMILY = 5
LICENCE_NOTE = "(text not shown: CC BY-SA source)"

# Published figures from ../shared/bench/README.md, for the judge-capable slices.
PUBLISHED: dict[str, str] = {
    "summedits": "BAcc, mean of our 8 domains: Human 90.6, GPT-4 83.2, Gemini-pro 77.8, Claude 2.1 75.6, "
    "ChatGPT 72.5, QAFactEval 67.4, SummaC-Conv 57.1, DAE 55.4, Llama2-7b 50.4",
    "wice": "LLM-AggreFact BAcc: MiniCheck-InternLM2.5-7B 81.9, GPT-4-Turbo 80.4, Mistral-Large 2 80.3, "
    "GPT-4o 78.5, Claude-3 Opus 75.0, MiniCheck-Flan-T5-L 72.2, GPT-3.5-Turbo 68.5, AlignScore 66.0, "
    "SummaC-ZS 62.8, QAFactEval 62.5, SummaC-CV 54.3",
    "jnli": "3-way accuracy, not comparable with binary BAcc: Waseda RoBERTa large 0.904, "
    "XLM-RoBERTa large 0.896, Tohoku BERT base 0.876; human 0.925 (dev)",
    "janli": "none published for this slice (chance 50)",
    "jhars": "none published (56 rows; smoke test only)",
    "tabfact": "accuracy, mean(simple, complex): TAPEX 86.8, DecompTAPAS 85.5, TAPAS 84.0, Table-BERT 68.7",
}


def pct(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def operating_points(results: dict[str, tuple[str, list[Outcome]]]) -> dict[str, dict[str, Any]]:
    """check -> lang -> point, for every check that ran (``results``: check -> (benchmark, outcomes))."""
    points: dict[str, dict[str, Any]] = {}
    for check, (benchmark, outcomes) in results.items():
        points[check] = {lang: t.point(benchmark) for lang, t in sorted(tally(outcomes).items())}
    return points


def _confusion(t: Tally, pos: str = "verified", neg: str = "not verified") -> list[str]:
    return [
        f"| expected \\ outcome | {pos} | {neg} |",
        "|---|---:|---:|",
        f"| must verify | {t.tp} | {t.fn} |",
        f"| must not verify | {t.fp} | {t.tn} |",
    ]


def summary_table(results: dict[str, tuple[str, list[Outcome]]]) -> list[str]:
    lines = [
        "| check | lang | benchmark | n | must verify | must not | false-verify rate | miss rate | BAcc |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for check, (benchmark, outcomes) in results.items():
        for lang, t in sorted(tally(outcomes).items()):
            lines.append(
                f"| `{check}` | {lang} | {benchmark} | {t.n:,} | {t.tp + t.fn:,} | {t.fp + t.tn:,} | "
                f"{pct(t.false_verify_rate)} | {pct(t.miss_rate)} | {pct(t.balanced_accuracy, 1)} |"
            )
    return lines


def family_table(outcomes: Sequence[Outcome]) -> list[str]:
    lines = [
        "| lang | family | expected | n | verified | not verified | wrong reason |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    wrong = Counter((o.lang, o.family) for o in outcomes if o.wrong_reason)
    for (lang, fam), t in sorted(
        by_family(outcomes).items(), key=lambda kv: (kv[0][0], kv[1].fp + kv[1].tn > 0, kv[0][1])
    ):
        expected = "verify" if t.tp + t.fn else "not verify"
        lines.append(
            f"| {lang} | {fam} | {expected} | {t.n:,} | {t.tp + t.fp:,} | {t.fn + t.tn:,} | {wrong[(lang, fam)]} |"
        )
    return lines


def failures(outcomes: Sequence[Outcome], limit: int = MAX_LISTED) -> list[str]:
    bad = [o for o in outcomes if o.false_verify or o.miss or o.wrong_reason]
    if not bad:
        return ["None."]
    per_family: Counter[tuple[str, str]] = Counter()
    shown: list[Outcome] = []
    for o in bad:  # at most PER_FAMILY of each (lang, family), so every failing family is shown
        per_family[(o.lang, o.family)] += 1
        if per_family[(o.lang, o.family)] <= PER_FAMILY and len(shown) < limit:
            shown.append(o)
    lines = [f"{len(bad)} failing case(s); at most {PER_FAMILY} shown per language and family:", ""]
    for o in shown:
        what = (
            "false verify"
            if o.false_verify
            else "miss"
            if o.miss
            else f"wrong reason (expected {o.expect_reason})"
        )
        text = repr(o.detail[:160]) if o.detail else LICENCE_NOTE
        lines.append(f"- `{o.case_id}` ({o.lang}, {o.family}): {what}; gate said `{o.reason}`; {text}")
    if len(bad) > len(shown):
        lines.append(f"- … and {len(bad) - len(shown)} more (truncated)")
    return lines


def slice_table(outcomes: Sequence[Outcome], judge: Sequence[Outcome] | None) -> list[str]:
    """Per dataset: n, BAcc, false-verify and miss rates of the rules (and of the judge), published figures."""
    rules = {fam: t for (_lang, fam), t in by_family(outcomes).items()}
    judged = {fam: t for (_lang, fam), t in by_family(judge).items()} if judge else {}
    lines = [
        "| dataset | lang | n | rules BAcc | rules false-verify | rules miss | judge BAcc (n) | published (bench README) |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    langs = {o.family: o.lang for o in outcomes}
    for fam in ("summedits", "wice", "tabfact", "jnli", "janli", "jhars"):
        t = rules.get(fam)
        if t is None:
            continue
        j = judged.get(fam)
        jcell = (
            f"{pct(j.balanced_accuracy, 1)} ({j.n})" if j else ("judge not run" if fam != "tabfact" else "–")
        )
        lines.append(
            f"| {fam} | {langs[fam]} | {t.n:,} | {pct(t.balanced_accuracy, 1)} | {pct(t.false_verify_rate, 1)} | "
            f"{pct(t.miss_rate, 1)} | {jcell} | {PUBLISHED.get(fam, '')} |"
        )
    return lines


def confusion_block(
    title: str, outcomes: Sequence[Outcome], pos: str = "verified", neg: str = "not verified"
) -> list[str]:
    out: list[str] = []
    for lang, t in sorted(tally(outcomes).items()):
        out += ["", f"{title}, {lang}:", "", *_confusion(t, pos, neg)]
    return out
