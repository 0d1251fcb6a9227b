"""Page and section locators: is the evidence where the citation says it is?

Read: ``p. 4``, ``pp. 4–5``, ``p. 4f.``, ``S. 4``, ``Seite 4``, ``page 4``,
``4頁``, ``4-5頁``, ``4ページ`` (pages, counted from 1 as a PDF viewer counts
them); ``Section 3``, ``Sec. 3.2``, ``§3``, ``Chapter 2``, ``第3章``,
``第3節`` (sections: the numbered heading and everything up to the next
heading that is not inside it); ``Table 2``, ``Fig. 3``, ``表2``, ``図3``
(the label must be printed in the source, on the evidence's page when the
source has pages).

A wrong locator is HIGH and names the page or heading path where the evidence
is. A locator that cannot be checked (unreadable, a source without pages or
numbered headings, no evidence located) is MED: never silently accepted.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from claimledger._exceptions import SourceError
from claimledger.model.finding import Evidence, Finding, Reason, Status
from claimledger.model.source import Source

if TYPE_CHECKING:
    from claimledger.checks.context import RunContext
    from claimledger.extract.marks import Analysis

CHECK = "locator"

_PAGES = re.compile(
    r"^(?:pp?\.?|pages?|S\.|Seite|Seiten)\s*(?P<a>\d+)(?:\s*(?:[–—\-]{1,2}|~|〜|to)\s*(?P<b>\d+)|\s*(?P<f>ff?)\.?)?$"
    r"|^(?P<ja_a>\d+)(?:\s*[–—\-~〜]\s*(?P<ja_b>\d+))?\s*(?:頁|ページ)$",
    re.IGNORECASE,
)
_SECTION = re.compile(
    r"^(?:(?:sections?|sect?\.|§+|chapters?|ch\.|chap\.)\s*(?P<n>\d+(?:\.\d+)*)\.?|第\s*(?P<ja>\d+)\s*[章節])$",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^(?P<kind>tables?|tab\.|figures?|figs?\.|表|図)\s*(?P<n>\d+)$", re.IGNORECASE)
_HEADING = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:(?:Section|Chapter|§)[ \t]*)?(?:第[ \t]*)?(?P<n>\d+(?:\.\d+)*)(?:[章節])?\.?[ \t]+"
    r"(?P<title>[^\n]{1,100})$",
    re.MULTILINE | re.IGNORECASE,
)


@dataclass(frozen=True)
class Locator:
    """A parsed locator: pages (first, last), a section number, or a table/figure label."""

    text: str
    pages: tuple[int, int] | None = None
    section: str | None = None
    label: tuple[str, str] | None = None  # ("table"|"figure", number)


def parse_locator(text: str) -> Locator | None:
    """The locator ``text`` means, or None when it cannot be read."""
    t = " ".join(unicodedata.normalize("NFKC", text).replace("~", " ").split()).strip(" ,;")
    m = _PAGES.match(t)
    if m:
        if m.group("ja_a"):
            a = int(m.group("ja_a"))
            b = int(m.group("ja_b") or a)
        else:
            a = int(m.group("a"))
            b = int(m.group("b")) if m.group("b") else (a + 1 if m.group("f") == "f" else a)
            if m.group("f") == "ff":
                b = a + 2
        return Locator(text, pages=(a, b)) if 1 <= a <= b else None
    m = _SECTION.match(t)
    if m:
        return Locator(text, section=m.group("n") or m.group("ja"))
    m = _LABEL.match(t)
    if m:
        kind = m.group("kind").lower()
        return Locator(text, label=("table" if kind.startswith(("tab", "表")) else "figure", m.group("n")))
    return None


@dataclass(frozen=True)
class Heading:
    number: str
    title: str
    start: int

    @property
    def label(self) -> str:
        return f"{self.number} {self.title}".strip()


def headings(text: str) -> list[Heading]:
    """Numbered headings of a source: short lines that start with a section number and end without a period."""
    out: list[Heading] = []
    for m in _HEADING.finditer(text):
        title = m.group("title").strip()
        if title.endswith((".", "。", ",", "、")) or len(title) > 90 or not any(ch.isalpha() for ch in title):
            continue
        if re.match(r"^[\d.,%\s]+$", title):
            continue
        out.append(Heading(m.group("n").rstrip("."), title, m.start()))
    return out


def heading_path(heads: list[Heading], offset: int) -> list[Heading]:
    """The chain of headings that holds ``offset`` (``2 Methods > 2.1 Data``)."""
    path: list[Heading] = []
    for h in heads:
        if h.start > offset:
            break
        depth = h.number.count(".")
        path = [p for p in path if p.number.count(".") < depth and h.number.startswith(p.number + ".")]
        path.append(h)
    return path


def _finding(claim_id: str, reason: Reason, message: str, evidence: Evidence | None, loc: str) -> Finding:
    status = Status.DISCREPANCY if reason is Reason.LOCATOR_WRONG else Status.UNVERIFIABLE
    return Finding(claim_id, CHECK, status, reason, message, evidence=evidence, claimed=loc)


def _pages_of(source: Source, ev: Evidence) -> tuple[int, int]:
    first = source.page_of(ev.start) or 1
    last = source.page_of(max(ev.start, ev.end - 1)) or first
    return first, last


def _show_pages(a: int, b: int) -> str:
    return f"p. {a}" if a == b else f"pp. {a}–{b}"


def check_locator(claim_id: str, locator: str, source: Source, evidence: Evidence | None) -> Finding | None:
    """A finding when ``locator`` is wrong (HIGH) or cannot be checked (MED); None when it holds."""
    loc = parse_locator(locator)
    if loc is None:
        return _finding(claim_id, Reason.LOCATOR_UNCHECKED,
                        f"locator {locator!r} cannot be read (write p. 4, pp. 4–5, 4頁, Section 3, Table 2)",
                        evidence, locator)  # fmt: skip
    if evidence is None:
        return _finding(claim_id, Reason.LOCATOR_UNCHECKED,
                        f"locator {locator!r} not checked: the evidence was not found in {source.id}",
                        None, locator)  # fmt: skip
    if loc.pages is not None:
        return _check_pages(claim_id, loc, source, evidence)
    if loc.section is not None:
        return _check_section(claim_id, loc, source, evidence)
    assert loc.label is not None
    return _check_label(claim_id, loc, source, evidence)


def _check_pages(claim_id: str, loc: Locator, source: Source, ev: Evidence) -> Finding | None:
    assert loc.pages is not None
    if not source.page_starts:
        return _finding(claim_id, Reason.LOCATOR_UNCHECKED,
                        f"locator {loc.text!r} not checked: {source.id} has no pages (not a PDF)", ev, loc.text)  # fmt: skip
    first, last = _pages_of(source, ev)
    a, b = loc.pages
    if first <= b and a <= last:
        return None
    count = len(source.page_starts)
    beyond = f" ({source.id} has {count} page{'s' if count != 1 else ''})" if a > count else ""
    return _finding(
        claim_id, Reason.LOCATOR_WRONG,
        f"the locator says {loc.text!r}{beyond}, but the evidence is on {_show_pages(first, last)} of {source.id} "
        f"(pages counted from 1): write {_show_pages(first, last)}",
        ev, loc.text,
    )  # fmt: skip


def _check_section(claim_id: str, loc: Locator, source: Source, ev: Evidence) -> Finding | None:
    assert loc.section is not None
    heads = headings(source.text)
    if not heads:
        return _finding(claim_id, Reason.LOCATOR_UNCHECKED,
                        f"locator {loc.text!r} not checked: {source.id} has no numbered headings", ev, loc.text)  # fmt: skip
    path = heading_path(heads, ev.start)
    if any(h.number == loc.section or h.number.startswith(loc.section + ".") for h in path[-1:]) or any(
        h.number == loc.section for h in path
    ):
        return None
    where = " > ".join(h.label for h in path) if path else "before the first numbered heading"
    exists = any(h.number == loc.section for h in heads)
    note = "" if exists else f" ({source.id} has no section {loc.section})"
    right = f"Section {path[-1].number}" if path else "no section"
    return _finding(
        claim_id, Reason.LOCATOR_WRONG,
        f"the locator says {loc.text!r}{note}, but the evidence is under {where!r}: write {right}",
        ev, loc.text,
    )  # fmt: skip


def _check_label(claim_id: str, loc: Locator, source: Source, ev: Evidence) -> Finding | None:
    assert loc.label is not None
    kind, n = loc.label
    words = r"(?:Table|Tab\.|表)" if kind == "table" else r"(?:Figure|Fig\.|図)"
    places = [m.start() for m in re.finditer(rf"{words}\s*{n}(?!\d)", source.text, re.IGNORECASE)]
    if not places:
        return _finding(claim_id, Reason.LOCATOR_WRONG,
                        f"the locator says {loc.text!r}, but {source.id} prints no {kind} {n}", ev, loc.text)  # fmt: skip
    if not source.page_starts:
        return None
    first, last = _pages_of(source, ev)
    pages = sorted({source.page_of(p) or 1 for p in places})
    if any(first <= p <= last for p in pages):
        return None
    return _finding(
        claim_id, Reason.LOCATOR_WRONG,
        f"the locator says {loc.text!r} (on {_show_pages(pages[0], pages[0])}), but the evidence is on "
        f"{_show_pages(first, last)} of {source.id}",
        ev, loc.text,
    )  # fmt: skip


def draft_locator_findings(analysis: Analysis, ctx: RunContext) -> list[Finding]:
    """Locators in a draft's citations of quotations (``"…" [@smith2019, p. 4]``), checked where the
    quotation was found. A quotation that is not found is reported by its own check, not here."""
    from claimledger.checks.quote import check_quote_text
    from claimledger.extract.attributions import locator_of

    out: list[Finding] = []
    prose = analysis.draft.prose
    for t in analysis.targets:
        if t.kind != "quote" or t.citation is None:
            continue
        locator = locator_of(prose[t.citation.start : t.citation.end])
        if locator is None:
            continue
        line, col = analysis.draft.where(t.start)
        cid = f"draft:{line}:{col}"
        for key in t.keys:
            if key not in ctx.ledger.sources:
                continue
            found = check_quote_text(cid, key, t.text, ctx)
            if found.status is not Status.VERIFIED or found.evidence is None:
                continue
            loaded = ctx.source(key)
            if isinstance(loaded, SourceError):
                continue
            finding = check_locator(cid, locator, loaded.source, found.evidence)
            if finding is not None:
                where = {"file": analysis.draft.path, "line": line, "column": col}
                out.append(dataclasses.replace(finding, location=where))
            break
    return out
