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
* a citation key is backed when some ledger claim cites that source; a numeric
  citation ``[n]`` stands for the key of the n-th bibliography entry, and a number
  no entry has is unlisted.

Not audited: anything inside a citation (keys, years, locators), structural
numbers (list markers, heading numbers, footnote labels, "p. 4", "Fig. 2"),
labels in headings (a version after a name, "Python 3.12: what changed",
"v2", "バージョン3"; a title in 『』), and whatever an allow pattern matches in
full. Every other figure in a heading, and every figure in the body, is
audited.
"""

from __future__ import annotations

import bisect
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

CHECK = "unlisted_audit"
_UNKNOWN_NUMBER = re.compile(r"\[\d+\]")  # the key of a numeric citation no bibliography entry has


MAX_ALLOW_PATTERN = 1000  # characters in one allow pattern
MAX_ALLOW_PATTERNS = 1000  # allow patterns in one run
MAX_ALLOW_MEMORY = 8 << 20  # bytes RE2 may use for one compiled pattern


class AllowPattern:
    """An allow pattern, matched in full against an item in linear time (RE2: no backtracking).

    The patterns come from the command line, an allow file or an HTTP/MCP request, so they are
    untrusted: Python's ``re`` backtracks (``(a+)+`` on 27 characters holds it for 17 s), RE2
    never does. RE2 syntax is Python's without lookarounds and backreferences; a pattern using
    them is refused with a clear message. A literal string is a pattern that matches itself
    (escape ``.``, ``(`` and the like, or they keep their regex meaning).
    """

    def __init__(self, pattern: str) -> None:
        import re2

        from claimledger._exceptions import InputError

        if len(pattern) > MAX_ALLOW_PATTERN:
            raise InputError(f"--allow pattern of {len(pattern):,} characters: at most {MAX_ALLOW_PATTERN:,}")
        options = re2.Options()
        options.log_errors = False  # the message goes into the InputError, not to stderr
        options.max_mem = MAX_ALLOW_MEMORY
        try:
            self._re = re2.compile(pattern, options)
        except re2.error as exc:
            why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
            hint = ""
            if any(t in pattern for t in ("(?=", "(?!", "(?<=", "(?<!")) or re.search(r"\\[1-9]", pattern):
                hint = " (lookarounds and backreferences are not supported: allow patterns run in linear time)"
            raise InputError(f"--allow {pattern!r} is not a usable regular expression: {why}{hint}") from None
        self.pattern = pattern

    def fullmatch(self, text: str) -> bool:
        return self._re.fullmatch(text) is not None


def compile_allow(patterns: Iterable[str]) -> list[AllowPattern]:
    """Compile allow patterns (RE2 regular expressions matched against the whole item)."""
    out = [AllowPattern(p) for p in patterns]
    if len(out) > MAX_ALLOW_PATTERNS:
        from claimledger._exceptions import InputError

        raise InputError(f"{len(out):,} allow patterns: at most {MAX_ALLOW_PATTERNS:,}")
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


def _allowed(text: str, allow: Sequence[AllowPattern]) -> bool:
    probe = unicodedata.normalize("NFKC", text).strip()
    return any(p.fullmatch(text) or p.fullmatch(probe) for p in allow)


# a version label: "Python 3.12", "Django 5.0.1", "v2", "ver. 3", "version 4", "バージョン3"
_VERSION_BEFORE = re.compile(r"(?:\b[A-Za-z][\w+#.-]*[ \t]|\bv|\bver\.?[ \t]?|\bversion[ \t]|バージョン[ \t]?)$", re.I)
_DOTTED = re.compile(r"\d+(?:\.\d+)+")


def heading_label(prose: str, start: int, end: int, text: str) -> bool:
    """A version label in a heading: a dotted number after a name, or any number after v/version."""
    before = prose[max(0, start - 24) : start]
    if not _VERSION_BEFORE.search(before):
        return False
    if _DOTTED.fullmatch(text):
        return True
    return bool(re.search(r"(?:\bv|\bver\.?[ \t]?|\bversion[ \t]|バージョン[ \t]?)$", before, re.I))


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
            self.cited_sources.update(k for k in getattr(claim, "also_cited", ()) if isinstance(k, str))
            quote = getattr(claim, "quote", None)
            if isinstance(claim, (QuoteClaim, NumberClaim)) and isinstance(quote, str) and isinstance(src, str):
                self.quotes.append((src, normalize_quote(strip_outer_quotes(quote))))
                self.passages.setdefault(src, []).append(quote)

    def _finding(self, prose_start: int, reason: Reason, text: str, message: str) -> Finding:
        line, col = self.analysis.draft.where(prose_start)
        loc = {"file": self.analysis.draft.path, "line": line, "column": col}
        f = Finding(f"draft:{line}:{col}", CHECK, Status.DISCREPANCY, reason, message, claimed=text, location=loc)
        return f

    def number_backed(self, mention: NumberMention, keys: Sequence[str]) -> bool:
        if self.ties.backing(mention, keys) is not None:
            return True
        return any(self.ties.printed_with_meaning(mention, p) for k in keys for p in self.passages.get(k, ()))

    def quote_backed(self, text: str) -> bool:
        nq = normalize_quote(text)
        return bool(nq) and any(nq in q for _src, q in self.quotes)

    def _number_why(self, key: str) -> str:
        entries = len(self.ledger._reference_order)
        if entries:
            return (f"numeric citation {key} is unlisted: the bibliography has {entries} "
                    f"entr{'y' if entries == 1 else 'ies'}, and [n] is the n-th of them (a citation nothing backs)")  # fmt: skip
        return (f"numeric citation {key} is unlisted: no bibliography maps numbers to sources (add `bibliography:` "
                "or `references:` to the ledger: [n] is its n-th entry, whose key names a source)")  # fmt: skip

    def _heading_lines(self) -> set[int]:
        draft = self.analysis.draft
        out = set()
        for h in draft.headings:
            line = bisect.bisect_right(draft.line_starts, h.raw_start)
            out.add(line)
        return out

    def run(self, allow: Sequence[AllowPattern] = (), span: tuple[int, int] | None = None) -> list[Finding]:
        a = self.analysis
        lo, hi = span if span else (0, len(a.draft.prose))
        findings: list[Finding] = []
        headings = self._heading_lines()
        for m in a.mentions:
            if not lo <= m.start < hi or a.quotation_containing(m.start) is not None or _allowed(m.text, allow):
                continue
            line, _col = a.draft.where(m.start)
            if line in headings and heading_label(a.draft.prose, m.start, m.end, m.text):
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
            if a.draft.prose[q.start] == "『" and a.draft.where(q.start)[0] in headings:
                continue  # a title in a heading: 『吾輩は猫である』を読む
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
                if _UNKNOWN_NUMBER.fullmatch(key):
                    findings.append(self._finding(start, Reason.UNLISTED_CITATION, key, self._number_why(key)))
                    continue
                declared = key in self.ledger.sources
                why = ("no ledger claim cites it" if declared
                       else "it is not declared under `sources:` nor in the bibliography (a citation nothing backs)")  # fmt: skip
                findings.append(self._finding(
                    start, Reason.UNLISTED_CITATION, key, f"citation key {key!r} is unlisted: {why}",
                ))  # fmt: skip
        findings.sort(key=lambda f: ((f.location or {}).get("line", 0), (f.location or {}).get("column", 0)))
        return findings
