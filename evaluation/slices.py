"""The labelled slices: the overclaim rules alone, and the judge when one is configured.

The overclaim evaluation is the one in ``scripts/eval_overclaim.py`` (its row
loading, quote selection and prediction are reused as they are); here each row
becomes an :class:`Outcome`: "verified" means the rules raised nothing, so a
false verify is an unsupported claim the rules let through, and a miss is a
supported claim they flagged.

The judge runs only when ``CLAIMLEDGER_JUDGE`` names a backend (``openai``,
``anthropic`` or ``nli``) and ``CLAIMLEDGER_JUDGE_MODEL`` its model
(``CLAIMLEDGER_JUDGE_URL`` for an endpoint). Each row is a quote claim: the
quote is the source sentence the overclaim script selects, the statement is the
bench claim. "Verified" means the judge added no finding; a judge failure (MED)
counts as not verified.
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from evaluation.scoring import Outcome

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "eval_overclaim.py"
OVERCLAIM_SETS = ("summedits", "wice", "tabfact", "jnli", "janli", "jhars")
JUDGE_SETS = ("summedits", "wice", "jnli", "janli", "jhars")
Progress = Callable[[str], None]


def overclaim_script() -> ModuleType:
    """``scripts/eval_overclaim.py`` (the overclaim rules' own evaluation), imported by path."""
    loaded = sys.modules.get("eval_overclaim")
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location("eval_overclaim", SCRIPT)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["eval_overclaim"] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def run_overclaim(bench: Path, progress: Progress | None = None) -> list[Outcome]:
    script = overclaim_script()
    rows = script.load(bench, OVERCLAIM_SETS, None, 1234)
    outcomes: list[Outcome] = []
    for i, row in enumerate(rows):
        hits = script.predict(row)
        rules = sorted({h.rule for h in hits})
        outcomes.append(
            Outcome(
                "overclaim", row.lang, row.dataset, f"{row.dataset}#{i}", row.label == "supported",
                not hits, ",".join(rules) or "no finding",
            )
        )  # fmt: skip
        if progress and (i + 1) % 1000 == 0:
            progress(f"overclaim rules: {i + 1}/{len(rows)} rows")
    return outcomes


def judge_settings() -> dict[str, str] | None:
    """The judge named by the environment, or None (then the judge is not run)."""
    kind = os.environ.get("CLAIMLEDGER_JUDGE", "").strip()
    model = os.environ.get("CLAIMLEDGER_JUDGE_MODEL", "").strip()
    if not kind or not model:
        return None
    return {"kind": kind, "model": model, "url": os.environ.get("CLAIMLEDGER_JUDGE_URL", "")}


def run_judge(
    bench: Path, workdir: Path, judge: Any, per_set: int, seed: int, progress: Progress | None = None
) -> list[Outcome]:
    """Judge ``per_set`` rows of each judge-capable slice (seeded sample, sorted by id)."""
    from claimledger.checks.context import RunContext
    from claimledger.checks.judged import semantic_findings
    from claimledger.model.claim import Ledger, QuoteClaim
    from claimledger.model.finding import Status
    from evaluation.runner import config_for

    script = overclaim_script()
    outcomes: list[Outcome] = []
    for name in JUDGE_SETS:
        rows = script.load(bench, (name,), None, seed)
        rows = random.Random(f"{seed}/judge/{name}").sample(rows, min(per_set, len(rows)))
        folder = workdir / f"judge-{name}"
        folder.mkdir(parents=True, exist_ok=True)
        sources: dict[str, str] = {}
        claims: list[QuoteClaim] = []
        for i, row in enumerate(rows):
            (folder / f"s{i}.txt").write_text(row.source, encoding="utf-8")
            sources[f"s{i}"] = f"s{i}.txt"
            quote = script.best_sentence(row.source, row.claim)[0] or row.source[:200]
            claims.append(
                QuoteClaim(kind="quote", id=f"J{i}", source=f"s{i}", quote=quote, statement=row.claim)
            )
        ledger = Ledger(version=1, sources=sources, claims=list(claims))
        ctx = RunContext.create(ledger, folder, config_for(workdir))
        try:
            findings, _meta = semantic_findings(claims, ctx, judge, use_cache=False)
        finally:
            ctx.close()
        flagged: dict[str, str] = {}
        for f in findings:
            if f.status is not Status.VERIFIED:
                flagged.setdefault(f.claim_id, f.reason.value)
        for i, row in enumerate(rows):
            reason = flagged.get(f"J{i}", "no finding")
            outcomes.append(
                Outcome(
                    "semantic_judge", row.lang, name, f"{name}#{i}", row.label == "supported",
                    f"J{i}" not in flagged, reason,
                )
            )  # fmt: skip
        if progress:
            progress(f"judge: {name} ({len(rows)} rows)")
    return outcomes
