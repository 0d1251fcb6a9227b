"""The unlisted audit (seed 000's closed world): what the draft says that no ledger claim backs.

Every figure, quotation and citation key in the draft (or in one named
section) must be backed by a ledger claim, else it is a HIGH finding with its
line and column:

* a figure is backed by a ledger number claim stating the same figure as
  displayed (12,000 = 1.2万 = 12k; 30% = ３０％; 4倍 = 4x = four times) *and
  tied to that place* (its location, its statement, or its cited passage about
  the same thing: :mod:`claimledger.checks.tie`), or by a ledger quote, from a
  source cited in the same sentence, that prints it about the same thing. A
  figure whose value merely coincides with a claim is unlisted. A figure inside
  a quotation is covered by the quotation;
* a quotation is backed by a ledger quote claim whose quote contains it
  (after normalization); uncited quotations shorter than the minimum quote
  length are titles or scare quotes, not claims;
* a citation key is backed when some ledger claim cites that source.

Not audited: anything inside a citation (keys, years, locators), structural
numbers (list markers, heading numbers, footnote labels, "p. 4", "Fig. 2"),
and whatever an allow pattern matches in full.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from claimledger.checks.quote import strip_outer_quotes
from claimledger.checks.tie import Ties
from claimledger.extract.marks import Analysis
from claimledger.extract.mentions import NumberMention
from claimledger.model.claim import Ledger, NumberClaim, QuoteClaim
from claimledger.model.finding import Finding, Reason, Status
from claimledger.normalize import normalize_quote
from claimledger.reconcile import assign_tier

CHECK = "unlisted_audit"


def compile_allow(patterns: Iterable[str]) -> list[re.Pattern[str]]:
    """Compile allow patterns (regular expressions matched against the whole item)."""
    out: list[re.Pattern[str]] = []
    for p in patterns:
        try:
            out.append(re.compile(p))
        except re.error as exc:
            from claimledger._exceptions import InputError

            raise InputError(f"--allow {p!r} is not a valid regular expression: {exc}") from None
    return out


def read_allow_file(path: str) -> list[str]:
    """One pattern a line; blank lines and lines starting with ``#`` are skipped."""
    from pathlib import Path

    from claimledger._exceptions import InputError

    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the allow file ({exc})") from None
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _allowed(text: str, allow: Sequence[re.Pattern[str]]) -> bool:
    probe = unicodedata.normalize("NFKC", text).strip()
    return any(p.fullmatch(text) or p.fullmatch(probe) for p in allow)


class Auditor:
    def __init__(self, analysis: Analysis, ledger: Ledger) -> None:
        self.analysis = analysis
        self.ledger = ledger
        self.quotes: list[tuple[str, str]] = []  # (source, normalized quote)
        self.passages: dict[str, list[str]] = {}  # source -> its ledger quotes (passages that print figures)
        self.ties = Ties(analysis, [c for c in ledger.claims if isinstance(c, NumberClaim)], set(ledger.sources))
        self.cited_sources: set[str] = set()
        for claim in ledger.claims:
            src = getattr(claim, "source", None)
            if isinstance(src, str):
                self.cited_sources.add(src)
            quote = getattr(claim, "quote", None)
            if isinstance(claim, (QuoteClaim, NumberClaim)) and isinstance(quote, str) and isinstance(src, str):
                self.quotes.append((src, normalize_quote(strip_outer_quotes(quote))))
                self.passages.setdefault(src, []).append(quote)

    def _finding(self, prose_start: int, reason: Reason, text: str, message: str) -> Finding:
        line, col = self.analysis.draft.where(prose_start)
        loc = {"file": self.analysis.draft.path, "line": line, "column": col}
        f = Finding(f"draft:{line}:{col}", CHECK, Status.DISCREPANCY, reason, message, claimed=text, location=loc)
        return assign_tier(f, None)

    def number_backed(self, mention: NumberMention, keys: Sequence[str]) -> bool:
        if self.ties.backing(mention, keys) is not None:
            return True
        return any(self.ties.printed_with_meaning(mention, p) for k in keys for p in self.passages.get(k, ()))

    def quote_backed(self, text: str) -> bool:
        nq = normalize_quote(text)
        return bool(nq) and any(nq in q for _src, q in self.quotes)

    def run(self, allow: Sequence[re.Pattern[str]] = (), span: tuple[int, int] | None = None) -> list[Finding]:
        a = self.analysis
        lo, hi = span if span else (0, len(a.draft.prose))
        findings: list[Finding] = []
        for m in a.mentions:
            if not lo <= m.start < hi or a.quotation_containing(m.start) is not None or _allowed(m.text, allow):
                continue
            cit = a.citation_for(m.start, m.end)
            if self.number_backed(m, cit.keys if cit else ()):
                continue
            what = "date" if m.kind == "date" else "figure"
            findings.append(self._finding(
                m.start, Reason.UNLISTED_NUMBER, m.text,
                f"the {what} {m.text!r} is not backed by any ledger claim (unlisted); add a number claim "
                f"that recomputes it, or remove it{self.ties.why_not(m)}",
            ))  # fmt: skip
        for q in a.quotations:
            inner = a.draft.prose[q.inner_start : q.inner_end]
            if not lo <= q.start < hi or _allowed(inner, allow):
                continue
            cited = a.citation_for(q.start, q.end) is not None
            if not cited and len("".join(inner.split())) < a.min_chars:
                continue
            if self.quote_backed(inner):
                continue
            findings.append(self._finding(
                q.start, Reason.UNLISTED_QUOTE, inner,
                "this quotation is not backed by any ledger quote claim (unlisted); list it in the ledger "
                "with its source so it is checked",
            ))  # fmt: skip
        for c in a.citations:
            if not lo <= c.start < hi:
                continue
            for key, start in zip(c.keys, c.key_starts, strict=True):
                if key in self.cited_sources or key in self.ledger._reference_keys or _allowed(key, allow):
                    continue  # a bibliography key is checked by the reference check, under its own id
                declared = key in self.ledger.sources
                why = ("no ledger claim cites it" if declared
                       else "it is not declared under `sources:` nor in the bibliography (a citation nothing backs)")  # fmt: skip
                findings.append(self._finding(
                    start, Reason.UNLISTED_CITATION, key, f"citation key {key!r} is unlisted: {why}",
                ))  # fmt: skip
        findings.sort(key=lambda f: ((f.location or {}).get("line", 0), (f.location or {}).get("column", 0)))
        return findings
