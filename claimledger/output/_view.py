"""Small helpers shared by the HTML, SARIF and terminal renderers.

They only *describe* a finding; none of them decides anything about it.
"""

from __future__ import annotations

import re
from typing import Literal

from claimledger.model.finding import Evidence, Finding, Status, Tier

#: Display order of the tiers, worst first; "verified" is not a tier but is shown like one.
TIER_KEYS: tuple[str, ...] = ("HIGH", "MED", "LOW", "EXPLAINED", "verified")

TIER_LABELS: dict[str, str] = {
    "HIGH": "HIGH — discrepancy",
    "MED": "MED — could not check now",
    "LOW": "LOW — unverifiable",
    "EXPLAINED": "EXPLAINED — by the author",
    "verified": "verified",
}

# The PDF loader marks a hyphen that only split a word at a line end with U+FFFE.
PDF_HYPHEN = "\ufffe"

DiffKind = Literal["eq", "del", "ins"]
_DIFF_TOKEN = re.compile(r"\[-(.*?)-\]|\{\+(.*?)\+\}", re.DOTALL)


def tier_key(f: Finding) -> str:
    """``HIGH``/``MED``/``LOW``/``EXPLAINED`` or ``verified``.

    A non-verified finding without a tier is shown as HIGH (fail closed).
    """
    if f.status is Status.VERIFIED:
        return "verified"
    return f.tier.value if f.tier is not None else Tier.HIGH.value


def parse_diff(diff: str) -> list[tuple[DiffKind, str]]:
    """Split an inline ``[-quote-]{+source+}`` diff into equal, deleted and inserted runs."""
    out: list[tuple[DiffKind, str]] = []
    pos = 0
    for m in _DIFF_TOKEN.finditer(diff):
        if m.start() > pos:
            out.append(("eq", diff[pos : m.start()]))
        if m.group(1) is not None:
            out.append(("del", m.group(1)))
        else:
            out.append(("ins", m.group(2)))
        pos = m.end()
    if pos < len(diff):
        out.append(("eq", diff[pos:]))
    return out


def evidence_place(ev: Evidence) -> str:
    """``smith2019, p. 1, characters 124–194``; ``kiji, line 12, col 5``; ``pp. 1–2``."""
    parts = [ev.source]
    if ev.page:
        parts.append(f"pp. {ev.page}–{ev.end_page}" if ev.end_page else f"p. {ev.page}")
    if ev.line is not None:
        parts.append(f"line {ev.line}, col {ev.column}")
    else:
        parts.append(f"characters {ev.start}–{ev.end}")
    return ", ".join(parts)


def location_text(f: Finding) -> str:
    """Where the claim sits: ``draft.md:3:14`` or ``ledger line 40``; empty when unknown."""
    loc = f.location or {}
    line = loc.get("line")
    if not line:
        return ""
    if loc.get("in") == "ledger":
        return f"ledger line {line}"
    name = loc.get("file") or "draft"
    column = loc.get("column")
    return f"{name}:{line}:{column}" if column else f"{name}:{line}"


def is_draft_location(f: Finding) -> bool:
    loc = f.location or {}
    return bool(loc.get("line")) and loc.get("in") != "ledger"


def has_cjk(text: str | None) -> bool:
    """True when the text contains Japanese (or other CJK) characters."""
    if not text:
        return False
    return any(
        "\u3040" <= ch <= "\u30ff"  # hiragana, katakana
        or "\u3400" <= ch <= "\u9fff"  # CJK ideographs
        or "\uff00" <= ch <= "\uffef"  # full-width forms
        or "\u3000" <= ch <= "\u303f"  # CJK punctuation
        for ch in text
    )
