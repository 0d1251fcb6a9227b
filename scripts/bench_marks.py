"""Measure `mark` and `lint` on a generated 1 MB draft with 2,000 marks (not a test).

    .venv/bin/python scripts/bench_marks.py [--out DIR]

The draft is generated deterministically (seeded): Markdown paragraphs in
English and Japanese, 2,000 marked quotations and figures (half of the quoted
ones are not in the source), filler prose with numbers, code blocks and math.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from claimledger import lint, mark

SOURCE_SENTENCES = [
    f"Finding {i}: adding an independent verification step reduced errors by {i % 90 + 5} percent in cohort {i}."
    for i in range(400)
] + [f"調査{i}では、回答企業の{i % 70 + 10}％が生成AIを業務で使っていると答えた。" for i in range(400)]
FILLER = [
    "The weekly report below summarises what the team saw in the data.",
    "Nothing in this paragraph is a quotation, although it mentions 12 teams and 2024.",
    "この段落は引用ではないが、3つの部署と2024年の数字に触れている。",
    "See Fig. 3 and p. 4 for the details, e.g. the per-day breakdown.",
]


def generate(marks: int = 2000, size: int = 1_000_000, seed: int = 7) -> tuple[str, str, str]:
    rng = random.Random(seed)
    source = "\n".join(SOURCE_SENTENCES) + "\n"
    ledger_claims = [
        "  - {id: N1, kind: number, value: '1,202', sql: 'SELECT 1202'}",
        "  - {id: N2, kind: number, value: '1.2万', sql: 'SELECT 12000'}",
    ]
    ledger = "version: 1\nsources:\n  smith2019: source.txt\nclaims:\n" + "\n".join(ledger_claims) + "\n"
    parts: list[str] = ["---\ntitle: Bench\n---\n\n# Bench draft\n\n"]
    length = 0
    for n in range(marks):
        kind = n % 4
        if kind == 0:
            s = rng.choice(SOURCE_SENTENCES[:400])
            quote = s.split(": ", 1)[1].rstrip(".")
            if n % 8 == 0:
                quote = quote.replace("reduced", "eliminated")
            para = f"Smith reported that “{quote}”[V] [@smith2019, p. {n % 30 + 1}]."
        elif kind == 1:
            s = rng.choice(SOURCE_SENTENCES[400:])
            quote = s.rstrip("。")
            if n % 8 == 1:
                quote = quote.replace("使っている", "使い始めた")
            para = f"別の調査では「{quote}」[V] [@smith2019]。"
        elif kind == 2:
            para = "This week the site received 1,202[V] clicks."
        else:
            para = "回答企業は1.2万[V]社だった。"
        filler = " ".join(rng.choice(FILLER) for _ in range(rng.randint(1, 3)))
        block = f"{para} {filler}\n\n"
        if n % 50 == 0:
            block += "```python\nx = [1, 2, 3]  # not prose [V]\n```\n\n$$ e = mc^2 $$\n\n"
        parts.append(block)
        length += len(block.encode("utf-8"))
    text = "".join(parts)
    pad = ""
    while len((text + pad).encode("utf-8")) < size:
        pad += " ".join(rng.choice(FILLER) for _ in range(8)) + "\n\n"
    return text + pad, source, ledger


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, help="Folder for the generated files (default: a temporary one).")
    args = parser.parse_args()
    folder = args.out or Path(tempfile.mkdtemp(prefix="claimledger-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    draft_text, source, ledger = generate()
    draft, ledger_path = folder / "bench.md", folder / "ledger.yaml"
    draft.write_text(draft_text, encoding="utf-8")
    (folder / "source.txt").write_text(source, encoding="utf-8")
    ledger_path.write_text(ledger, encoding="utf-8")
    size = draft.stat().st_size
    print(f"draft: {draft} ({size:,} bytes, {draft_text.count('[V]') + draft_text.count('[D]'):,} marks)")
    t0 = time.perf_counter()
    result = mark(draft, ledger=ledger_path)
    t1 = time.perf_counter()
    c = result.counts
    in_prose = sum(1 for v in result.verdicts if v.target.mark is not None)
    print(f"mark: {t1 - t0:.2f} s  ({in_prose:,} marks in prose; {c['V']:,} [V], {c['D']:,} [D], "
          f"{c['changed']:,} changed; the rest sit in code blocks and stay untouched)")
    marked = folder / "bench.marked.md"
    marked.write_text(result.text, encoding="utf-8")
    t2 = time.perf_counter()
    before = lint(draft, ledger=ledger_path)
    t3 = time.perf_counter()
    after = lint(marked, ledger=ledger_path)
    t4 = time.perf_counter()
    print(f"lint (original): {t3 - t2:.2f} s  ({len(before.problems):,} problems)")
    print(f"lint (marked):   {t4 - t3:.2f} s  ({len(after.problems):,} problems)")


if __name__ == "__main__":
    main()
