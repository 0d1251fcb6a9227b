"""A self-contained HTML report: one file, no network, works offline.

The draft (when there is one) is shown with every claim highlighted by tier;
otherwise the claims are listed as the ledger has them. Clicking a highlight
(or pressing ``j``/``k``) shows the evidence beside it: the exact source text
with its page and position, the nearest passage and a word diff for a near
miss, the recomputed value for a number.

Everything that comes from a draft, a ledger or a source is untrusted and is
escaped by Jinja2's autoescaping; the page's own script and style are pinned
by hash in a Content-Security-Policy, so nothing else runs or loads.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import jinja2

from claimledger.model.finding import Evidence, Finding
from claimledger.model.report import Outcome, Report
from claimledger.numbers import format_number
from claimledger.output._view import (
    PDF_HYPHEN,
    TIER_KEYS,
    TIER_LABELS,
    DiffKind,
    evidence_place,
    has_cjk,
    is_draft_location,
    location_text,
    parse_diff,
    tier_key,
)

_OUTCOME_TEXT = {
    Outcome.PASS: "every claim verified",
    Outcome.PARTIAL: "no HIGH findings, but some claims could not be checked now (MED)",
    Outcome.FAIL: "not verified while HIGH findings remain",
    Outcome.NO_CLAIMS: "no verifiable factual claims; nothing was verified",
}
_SENTENCE_END = frozenset(".!?。！？\n")
_MAX_GUESSED_SPAN = 300
_SEARCH_WINDOW = 400


@dataclass
class _Passage:
    """A piece of source text, split so a PDF line-break hyphen can be shown as such."""

    place: str
    parts: list[tuple[bool, str]]  # (is_pdf_hyphen, text)
    lang: str | None


@dataclass
class _Item:
    idx: int
    finding: Finding
    tier: str
    tier_label: str
    where: str
    claimed_lang: str | None
    message_lang: str | None
    evidence: _Passage | None
    nearest: _Passage | None
    diff: list[tuple[DiffKind, str]] | None
    expected: str | None
    extra: list[tuple[str, str]]
    in_draft: bool = False
    refpair: list[tuple[str, str, str]] | None = None  # (field, the reference says, the record says)
    record_from: str = ""


@dataclass
class _Mark:
    start: int
    end: int
    idxs: list[int] = field(default_factory=list)
    tier: str = "verified"  # the worst tier of its findings: a HIGH is never shown green


def _passage(ev: Evidence | None) -> _Passage | None:
    if ev is None:
        return None
    parts: list[tuple[bool, str]] = []
    for i, chunk in enumerate(ev.text.split(PDF_HYPHEN)):
        if i:
            parts.append((True, "-"))
        if chunk:
            parts.append((False, chunk))
    return _Passage(evidence_place(ev), parts, "ja" if has_cjk(ev.text) else None)


def _lang(text: str | None) -> str | None:
    return "ja" if has_cjk(text) else None


_REF_FIELDS = ("title", "authors", "year", "venue", "doi", "arxiv")


def _refpair(f: Finding) -> tuple[list[tuple[str, str, str]] | None, str]:
    """A reference finding's entry and the service's record, field by field."""
    given, record = f.extra.get("reference"), f.extra.get("record")
    if f.check != "reference" or not isinstance(given, dict):
        return None, ""
    rec = record if isinstance(record, dict) else {}
    rows = [(k, str(given.get(k, "")), str(rec.get(k, ""))) for k in _REF_FIELDS if given.get(k) or rec.get(k)]
    extra_rows = [(k, "", str(rec[k])) for k in ("type", "retracted", "updates") if rec.get(k)]
    source = f"{rec.get('service', '')} {rec.get('id', '')}".strip() if rec else "no record"
    return rows + extra_rows, source


def _item(idx: int, f: Finding) -> _Item:
    tier = tier_key(f)
    refpair, record_from = _refpair(f)
    shown = {k: v for k, v in f.extra.items() if not (refpair is not None and k in ("reference", "record"))}
    extra = [(str(k), ", ".join(map(str, v)) if isinstance(v, list) else str(v))
             for k, v in sorted(shown.items()) if v not in (None, [], "")]  # fmt: skip
    return _Item(
        idx=idx,
        finding=f,
        tier=tier,
        tier_label=TIER_LABELS[tier],
        where=location_text(f),
        claimed_lang=_lang(f.claimed),
        message_lang=_lang(f.message),
        evidence=_passage(f.evidence),
        nearest=_passage(f.nearest),
        diff=parse_diff(f.diff) if f.diff else None,
        expected=format_number(f.expected) if f.expected is not None else None,
        extra=extra,
        refpair=refpair,
        record_from=record_from,
    )


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _span(draft: str, starts: list[int], f: Finding) -> tuple[int, int] | None:
    """Where a finding's claim sits in the draft text, or None when it cannot be placed.

    The location gives the start (1-based line and column, in characters); the end is
    ``end_line``/``end_column`` when given, else the claimed text found at (or just
    after) the start, else the rest of the sentence.
    """
    loc = f.location or {}
    line, column = loc.get("line"), loc.get("column") or 1
    if not isinstance(line, int) or not isinstance(column, int) or not 1 <= line <= len(starts):
        return None
    line_start = starts[line - 1]
    start = min(line_start + max(column, 1) - 1, _line_end(draft, line_start))
    end_line, end_column = loc.get("end_line"), loc.get("end_column")
    if isinstance(end_line, int) and isinstance(end_column, int) and 1 <= end_line <= len(starts):
        end = min(starts[end_line - 1] + max(end_column, 1) - 1, len(draft))
        if end > start:
            return start, end
    for needle in (f.claimed, f.extra.get("statement")):
        if isinstance(needle, str) and needle.strip():
            found = draft.find(needle, line_start, start + len(needle) + _SEARCH_WINDOW)
            if found >= 0:
                return found, found + len(needle)
    end = start
    limit = min(len(draft), start + _MAX_GUESSED_SPAN)
    while end < limit and draft[end] not in _SENTENCE_END:
        end += 1
    if end < len(draft) and draft[end] in _SENTENCE_END and draft[end] != "\n":
        end += 1
    if end == start:
        if start >= len(draft):
            return None
        end = start + 1
    return start, end


_QUOTE_CHECKS = ("literal_quote",)
_MIN_PLACED_QUOTE = 8


def _quoted_span(draft: str, f: Finding) -> tuple[int, int] | None:
    """Where the draft prints a ledger quote claim's quote verbatim (its first place), if it does."""
    if f.check not in _QUOTE_CHECKS or not isinstance(f.claimed, str):
        return None
    quote = f.claimed.strip()
    if len(quote) < _MIN_PLACED_QUOTE:
        return None
    at = draft.find(quote)
    return (at, at + len(quote)) if at >= 0 else None


def _draft_segments(draft: str, items: list[_Item]) -> list[tuple[str, _Mark | None]]:
    """The draft cut into plain text and highlighted marks (overlapping claims share a mark)."""
    starts = _line_starts(draft)
    spans: list[tuple[int, int, int]] = []
    for item in items:
        if not is_draft_location(item.finding):
            continue
        span = _span(draft, starts, item.finding)
        if span is not None:
            spans.append((span[0], span[1], item.idx))
            item.in_draft = True
    # a ledger claim whose quote the draft prints verbatim is shown where the draft prints it
    quoted = {it.finding.claim_id: _quoted_span(draft, it.finding) for it in items if not it.in_draft}
    for item in items:
        span = quoted.get(item.finding.claim_id)
        if not item.in_draft and span is not None:
            spans.append((span[0], span[1], item.idx))
            item.in_draft = True
    spans.sort(key=lambda s: (s[0], -s[1], s[2]))
    marks: list[_Mark] = []
    for start, end, idx in spans:
        if marks and start < marks[-1].end:
            marks[-1].end = max(marks[-1].end, end)
            marks[-1].idxs.append(idx)
        else:
            marks.append(_Mark(start, end, [idx]))
    rank = {key: i for i, key in enumerate(TIER_KEYS)}
    tiers = {item.idx: item.tier for item in items}
    for mark in marks:
        mark.tier = min((tiers[i] for i in mark.idxs), key=lambda t: rank.get(t, 0))
    segments: list[tuple[str, _Mark | None]] = []
    pos = 0
    for mark in marks:
        if mark.start > pos:
            segments.append((draft[pos : mark.start], None))
        segments.append((draft[mark.start : mark.end], mark))
        pos = mark.end
    if pos < len(draft):
        segments.append((draft[pos:], None))
    return segments


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("claimledger.output", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return env


def _asset(name: str) -> str:
    return resources.files("claimledger.output").joinpath("templates", name).read_text(encoding="utf-8")


def render_html(report: Report, draft_text: str | None = None, draft_name: str | None = None) -> str:
    """Render the report as one self-contained HTML page.

    With ``draft_text`` the draft is shown with each located claim highlighted;
    findings that cannot be placed in it (ledger-only claims) are listed below it.
    Without a draft, every finding is listed in ledger order.
    """
    items = [_item(i, f) for i, f in enumerate(report.findings)]
    segments = _draft_segments(draft_text, items) if draft_text is not None else None
    order = [m.idxs for _, m in segments or [] if m is not None]
    flat_order = [i for idxs in order for i in idxs]
    listed = [item for item in items if not item.in_draft]
    flat_order += [item.idx for item in listed]
    by_idx = {item.idx: item for item in items}
    counts = report.counts
    ledger = report.reproducibility.get("ledger")
    ledger_path = ledger.get("path") if isinstance(ledger, dict) else None
    sources: list[tuple[str, str]] = []
    raw_sources = report.reproducibility.get("sources")
    if isinstance(raw_sources, dict):
        for sid, info in raw_sources.items():
            sha = info.get("sha256") if isinstance(info, dict) else None
            sources.append((str(sid), str(sha) if sha else "not loaded"))
    script = _asset("report.js")
    style = _asset("report.css")
    csp = (
        "default-src 'none'; img-src data:; "
        f"style-src {_csp_hash(style)}; script-src {_csp_hash(script)}; "
        "base-uri 'none'; form-action 'none'"
    )
    context: dict[str, Any] = {
        "report": report,
        "outcome": report.outcome.value,
        "outcome_text": _OUTCOME_TEXT[report.outcome],
        "counts": counts,
        "tiers": [(key, TIER_LABELS[key], counts.get(key, 0)) for key in TIER_KEYS],
        "items": items,
        "by_idx": by_idx,
        "listed": listed,
        "segments": segments,
        "draft_name": draft_name,
        "draft_lang": _lang(draft_text),
        "order": " ".join(str(i) for i in flat_order),
        "ledger_path": ledger_path,
        "sources": sources,
        "tool_version": report.reproducibility.get("tool_version", "?"),
        "semantic_check": report.reproducibility.get("semantic_check", "-"),
        "script": script,
        "style": style,
        "csp": csp,
    }
    return _environment().get_template("report.html.j2").render(context)
