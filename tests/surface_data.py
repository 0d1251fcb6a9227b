"""One small workspace for the surface tests (CLI, API, MCP, HTTP): a ledger, an English
and a Japanese source, a CSV, and a draft whose writer set two [V] marks (one is false)."""

from __future__ import annotations

import textwrap
from pathlib import Path

SMITH = (
    "Results. In our trial, adding an independent verification step reduced errors by 37 percent across all\n"
    "sites, and reviewers reported less fatigue.\n"
)
SHOKUSHU = (
    "# 職種の移り変わり調査\n\n"
    "調査によれば、この1年で職種を変えた人は、回答者全体の12％だった。転職を考えている人はさらに多い。\n"
)
DAILY_CSV = "day,clicks\n2024-01-01,400\n2024-01-02,802\n"

LEDGER = textwrap.dedent("""\
    version: 1
    sources:
      smith: sources/smith.txt
      shokushu: sources/shokushu.md
    datasets:
      daily: data/daily.csv
    claims:
      - id: C1
        kind: quote
        source: smith
        quote: "adding an independent verification step reduced errors by 37 percent"
      - id: C2
        kind: quote
        source: smith
        quote: "adding an independent verification step reduced errors by 73 percent"
      - id: J1
        kind: quote
        source: shokushu
        quote: "この1年で職種を変えた人は、回答者全体の12％だった"
      - id: N1
        kind: number
        sql: "SELECT sum(clicks) FROM daily"
        value: "1,202"
    """)

# the writer marked both quotations [V]; the Japanese one says 15％ where the source says 12％
DRAFT = (
    "# Digest\n\n"
    "Smith found that “adding an independent verification step reduced errors by 37 percent”[V] [@smith].\n"
    "調査によれば「この1年で職種を変えた人は、回答者全体の15％だった」[V] [@shokushu]。\n"
)
MARKED = DRAFT.replace("15％だった」[V]", "15％だった」[D]")

JA_QUOTE = "この1年で職種を変えた人は、回答者全体の12％だった"


def make_workspace(root: Path) -> Path:
    """Write the workspace into ``root`` and return it."""
    (root / "sources").mkdir(parents=True, exist_ok=True)
    (root / "data").mkdir(exist_ok=True)
    (root / "sources" / "smith.txt").write_text(SMITH, encoding="utf-8")
    (root / "sources" / "shokushu.md").write_text(SHOKUSHU, encoding="utf-8")
    (root / "data" / "daily.csv").write_text(DAILY_CSV, encoding="utf-8")
    (root / "ledger.yaml").write_text(LEDGER, encoding="utf-8")
    (root / "draft.md").write_text(DRAFT, encoding="utf-8")
    return root


def finding_keys(envelope: dict[str, object]) -> list[tuple[object, ...]]:
    """What must be the same on every surface: each finding's id, status, tier, reason and evidence."""
    findings = envelope["findings"]
    assert isinstance(findings, list)
    return [
        (f["claim_id"], f["check"], f["status"], f["tier"], f["reason"], f["evidence"], f["nearest"], f["diff"],
         f["expected"], f["claimed"])
        for f in findings
    ]  # fmt: skip


def without_paths(value: object) -> object:
    """The reproducibility block without the keys that name paths (which differ by surface)."""
    if isinstance(value, dict):
        return {k: without_paths(v) for k, v in value.items() if k not in ("path", "origin")}
    if isinstance(value, list):
        return [without_paths(v) for v in value]
    return value
