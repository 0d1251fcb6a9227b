"""The measured operating points of each check, as reports cite them.

``operating_points.json`` (next to this module) is written by ``make eval``
(:mod:`evaluation.run`); this module only reads it. A report cites, for
each check that produced a finding, the benchmark version and the measured
false-verify and miss rates per language.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from typing import Any

FILE = "operating_points.json"


@lru_cache(maxsize=1)
def load_operating_points() -> dict[str, Any] | None:
    """The committed operating points, or None when the file is missing or unreadable."""
    try:
        text = resources.files("claimledger").joinpath(FILE).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("checks"), dict) else None


def cite(checks: Iterable[str]) -> dict[str, Any]:
    """The operating points of ``checks`` (check names as in ``Finding.check``), for a report.

    Checks that were never measured are left out; an empty dict when nothing applies.
    """
    data = load_operating_points()
    if data is None:
        return {}
    measured: dict[str, Any] = data["checks"]
    cited: dict[str, Any] = {}
    for name in sorted(set(checks)):
        per_lang = measured.get(name)
        if not isinstance(per_lang, dict):
            continue
        cited[name] = {
            lang: {k: point.get(k) for k in ("benchmark", "n", "false_verify_rate", "miss_rate")}
            for lang, point in sorted(per_lang.items())
            if isinstance(point, dict)
        }
    if not cited:
        return {}
    return {"benchmark_version": data.get("benchmark_version"), "checks": cited}


def summary_lines(cited: dict[str, Any]) -> list[str]:
    """One Markdown bullet per cited check: ``literal_quote (mut-1): en n 4,000, false-verify 0.00%, miss 0.00%; ja …``."""
    lines: list[str] = []
    checks = cited.get("checks") if isinstance(cited, dict) else None
    if not isinstance(checks, dict):
        return lines
    for name, per_lang in checks.items():
        parts = []
        for lang, p in per_lang.items():
            parts.append(
                f"{lang} n {p.get('n', '?')}, false-verify {_pct(p.get('false_verify_rate'))}, "
                f"miss {_pct(p.get('miss_rate'))} ({p.get('benchmark', '?')})"
            )
        lines.append(f"- `{name}`: " + "; ".join(parts))
    return lines


def _pct(x: object) -> str:
    return f"{100 * x:.2f}%" if isinstance(x, (int, float)) else "not measured"
