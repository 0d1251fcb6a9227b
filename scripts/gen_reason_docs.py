"""Regenerate the reason-code table in docs/checks.md from the reason table.

    python scripts/gen_reason_docs.py          # rewrite the block between the markers
    python scripts/gen_reason_docs.py --check  # exit 1 when the block is out of date

The table is :mod:`claimledger.model.reasons` (code, tier, explainable,
description, what to do); tests/test_docs.py fails when this block is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from claimledger.model.reasons import Reason

DOC = Path(__file__).resolve().parent.parent / "docs" / "checks.md"
BEGIN = "<!-- BEGIN GENERATED: reasons (scripts/gen_reason_docs.py) -->"
END = "<!-- END GENERATED: reasons -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def _tier(reason: Reason) -> str:
    if reason.tier is None:
        return "— (verified)"
    return f"{reason.tier.value} (explainable)" if reason.explainable else reason.tier.value


def render() -> str:
    """The generated block, markers included."""
    lines = [BEGIN, "| reason | tier | meaning | what to do |", "|---|---|---|---|"]
    for reason in Reason:
        lines.append(f"| `{reason.value}` | {_tier(reason)} | {_cell(reason.description)} | {_cell(reason.action)} |")
    lines.append(END)
    return "\n".join(lines)


def updated(text: str) -> str:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + render() + text[end:]


def main(argv: list[str]) -> int:
    text = DOC.read_text("utf-8")
    new = updated(text)
    if "--check" in argv:
        if new != text:
            print(f"{DOC} is out of date: run python scripts/gen_reason_docs.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
