"""Generated batch jobs (EN and JA) over one shared corpus, for the batch tests and `make bench`.

Each job is a folder with ledger.yaml and draft.md: quote claims against shared sources (some
quotes altered, so some jobs FAIL), a number recomputed from a shared CSV, and a draft whose
figures and quotations the audit reads. Deterministic for a given seed.
"""

from __future__ import annotations

import random
from pathlib import Path

EN_SENTENCES = [
    "Adding an independent verification step reduced errors by 37 percent in the second trial.",
    "The median response time fell from 212 ms to 120 ms after the cache was enabled.",
    "About two thirds of the respondents said they check sources at least once a week.",
    "The survey covered 1,204 newsrooms in 31 countries between March and June.",
    "Errors were most frequent in numbers that had been copied from tables by hand.",
    "Reviewers flagged fabricated citations in 18 percent of the generated reports.",
]
JA_SENTENCES = [
    "調査によれば、この1年で職種を変えた人は回答者全体の12％だった。",
    "生成AIを業務で使う企業は前年の約2倍に増えた。",
    "回答企業は1.2万社で、そのうち30％が全社で導入済みである。",
    "検証手順を加えたところ、誤りは37％減少した。",
    "引用の誤りは、表から手で写した数値に最も多く見られた。",
    "記者の3分の2が、週に一度以上は出典を確認すると答えた。",
]


def write_corpus(root: Path, filler_kb: int = 4) -> Path:
    """The shared corpus: two text sources (EN, JA) padded with filler, and a CSV."""
    corpus = root / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    words = ["the", "of", "and", "a", "to", "in", "is", "was", "for", "on", "that", "with", "by", "as", "at", "from"]
    filler = " ".join(rng.choice(words) for _ in range(filler_kb * 180))
    (corpus / "report_en.txt").write_text(filler + "\n\n" + "\n".join(EN_SENTENCES) + "\n\n" + filler + "\n", "utf-8")
    ja_filler = "これは本文とは関係のない文です。" * (filler_kb * 20)
    (corpus / "report_ja.txt").write_text(ja_filler + "\n" + "\n".join(JA_SENTENCES) + "\n" + ja_filler + "\n", "utf-8")
    rows = ["week,clicks,impressions"] + [f"{'this' if i % 2 else 'prev'},{100 + i * 7},{1000 + i * 11}" for i in range(14)]
    (corpus / "daily.csv").write_text("\n".join(rows) + "\n", "utf-8")
    return corpus


def write_jobs(
    root: Path, n: int, seed: int = 1, *, claims: tuple[int, int] = (2, 4), malformed: int = 1, filler_kb: int = 4
) -> list[Path]:
    """``n`` job folders under ``root/jobs``; the last ``malformed`` of them have a broken ledger."""
    write_corpus(root, filler_kb)
    rng = random.Random(seed)
    out = []
    for i in range(n):
        folder = root / "jobs" / f"job{i:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        if i >= n - malformed:
            (folder / "ledger.yaml").write_text("version: 1\nclaims:\n  - id: Q1\n    kind: quote\n    source: [\n", "utf-8")
            out.append(folder / "ledger.yaml")
            continue
        ja = i % 3 == 2
        pool = JA_SENTENCES if ja else EN_SENTENCES
        source = "report_ja" if ja else "report_en"
        lines = ["version: 1", "sources:", f"  {source}: ../../corpus/{source}.txt",
                 "datasets:", "  daily: ../../corpus/daily.csv", "claims:"]  # fmt: skip
        draft = []
        for k in range(rng.randint(*claims)):
            sentence = rng.choice(pool).rstrip("。.")
            if rng.random() < 0.15:  # an altered quote: not in the source
                sentence = sentence.replace("37", "73").replace("12", "15").replace("2倍", "3倍").replace("120", "102")
            quote = sentence.replace('"', "'")
            lines += [f"  - id: Q{k}", "    kind: quote", f"    source: {source}", f'    quote: "{quote}"']
            draft.append(f"「{quote}」[@{source}]。" if ja else f'The report says "{quote}" [@{source}].')
        total = sum(100 + j * 7 for j in range(14) if j % 2)
        value = total if rng.random() < 0.9 else total + 50
        lines += ["  - id: N1", "    kind: number", "    sql: \"SELECT sum(clicks) FROM daily WHERE week = 'this'\"",
                  f'    value: "{value:,}"']  # fmt: skip
        (folder / "ledger.yaml").write_text("\n".join(lines) + "\n", "utf-8")
        (folder / "draft.md").write_text("\n\n".join(draft) + "\n", "utf-8")
        out.append(folder / "ledger.yaml")
    return out
