"""Marks ([V], [D]) and what they mark; the claims a draft makes.

A mark is ``[V]`` or ``[D]`` placed right after a quotation or a number (spaces
allowed between; after a number, a Japanese counter of up to three characters
may stand between: ``1.2万社[V]``). It is tied to its source by a citation in
the same sentence: the first citation after the quotation, else the last one
before it. A mark that follows neither is an *orphan*.

A draft's claims (:class:`Target`) are: every marked quotation or number,
every quotation with a citation in its sentence (unmarked ones too, when at
least ``min_chars`` long: shorter ones are titles or scare quotes), and
orphan marks.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from claimledger.extract.citations import Citation, find_citations, html_sup_citations, numeric_citations
from claimledger.extract.draft import Draft
from claimledger.extract.mentions import NumberMention, find_mentions, is_structural
from claimledger.extract.quotes import Quotation, find_quotations
from claimledger.extract.sentences import Sentence, SentenceIndex, split_sentences
from claimledger.normalize import is_cjk

MARK_RE = re.compile(r"\[(V|D)\]")
_COUNTER_MAX = 3


@dataclass(frozen=True)
class Mark:
    letter: str  # "V" or "D"
    start: int  # prose span of "[V]"
    end: int


@dataclass(frozen=True)
class Target:
    """One claim in the draft: a quotation, a number, or an orphan mark."""

    kind: str  # "quote", "number", "orphan"
    start: int  # prose span of the quotation (with its marks), the number, or the orphan mark
    end: int
    text: str  # the quotation's inner text, the number as written, or the mark
    mark: Mark | None
    citation: Citation | None
    sentence: Sentence | None
    mention: NumberMention | None = None

    @property
    def keys(self) -> tuple[str, ...]:
        return self.citation.keys if self.citation else ()


class Analysis:
    """Everything read from one draft, computed once."""

    def __init__(
        self,
        draft: Draft,
        *,
        known_keys: set[str] | frozenset[str] = frozenset(),
        min_chars: int = 8,
        numbering: Mapping[str, str] | None = None,
    ):
        self.draft = draft
        self.min_chars = min_chars
        prose = draft.prose
        self.sentences = split_sentences(prose)
        self.sentence_index = SentenceIndex(self.sentences)
        self.citations = find_citations(prose, draft.fmt, known_keys)
        self._cite_starts = [c.start for c in self.citations]
        self.quotations = [q for q in find_quotations(prose, draft.fmt) if not self.in_citation(q.start)]
        self._quote_starts = [q.start for q in self.quotations]
        self.marks = [Mark(m.group(1), m.start(), m.end()) for m in MARK_RE.finditer(prose)]
        if numbering is not None and draft.fmt != "latex":
            self._add_numeric(numbering)

    def _add_numeric(self, numbering: Mapping[str, str]) -> None:
        """Numeric citations ([1], [2–4], ［１］, ^2^, ¹) outside quotations (a [3] inside a quotation is
        the source's own text) and outside other citations."""
        found = numeric_citations(self.draft.prose, numbering)
        if self.draft.fmt == "markdown":
            found += html_sup_citations(self.draft.text, self.draft.prose, self.draft.prose_index, numbering)
        extra = [
            c for c in sorted(found, key=lambda c: c.start)
            if not self.in_citation(c.start) and self.quotation_containing(c.start) is None
        ]  # fmt: skip
        if extra:
            self.citations = sorted([*self.citations, *extra], key=lambda c: c.start)
            self._cite_starts = [c.start for c in self.citations]

    def in_citation(self, offset: int) -> bool:
        i = bisect.bisect_right(self._cite_starts, offset) - 1
        return i >= 0 and offset < self.citations[i].end

    @cached_property
    def mentions(self) -> list[NumberMention]:
        """Figures in the prose that could be claims: not in citations, not structural."""
        prose = self.draft.prose
        return [
            m for m in find_mentions(prose) if not self.in_citation(m.start) and not is_structural(prose, m)
        ]

    def sentence_of(self, offset: int) -> Sentence | None:
        i = self.sentence_index.index_of(offset)
        return self.sentences[i] if i is not None else None

    def citation_for(self, start: int, end: int) -> Citation | None:
        """First citation after ``end`` in the same sentence, else the last one before ``start``."""
        sentence = self.sentence_of(start)
        if sentence is None:
            return None
        i = bisect.bisect_left(self._cite_starts, end)
        if i < len(self.citations) and self.citations[i].start < sentence.end:
            return self.citations[i]
        j = bisect.bisect_left(self._cite_starts, start) - 1
        if j >= 0 and self.citations[j].start >= sentence.start:
            return self.citations[j]
        return None

    def quotation_containing(self, offset: int) -> Quotation | None:
        i = bisect.bisect_right(self._quote_starts, offset) - 1
        if i >= 0 and self.quotations[i].start <= offset < self.quotations[i].end:
            return self.quotations[i]
        return None

    def sentence_text(self, s: Sentence | None) -> str:
        if s is None:
            return ""
        return " ".join(self.draft.prose[s.start : s.end].replace("\u2029", " ").split())

    def statement_text(self, s: Sentence | None) -> str:
        """The sentence as a claim's statement: the writer's marks and citation keys taken out
        (they are not what the sentence claims, and an overclaim rule must not read them)."""
        if s is None:
            return ""
        cut = sorted(
            [(m.start, m.end) for m in self.marks if s.start <= m.start < s.end]
            + [(c.start, c.end) for c in self.citations if s.start <= c.start < s.end]
        )
        prose = self.draft.prose
        parts: list[str] = []
        pos = s.start
        for a, b in cut:
            if a >= pos:
                parts.append(prose[pos:a])
                pos = min(b, s.end)
        parts.append(prose[pos : s.end])
        text = " ".join("".join(parts).replace("\u2029", " ").split())
        return re.sub(r"\s+([,.;:!?、。，．])", r"\1", text)

    @cached_property
    def targets(self) -> list[Target]:
        prose = self.draft.prose
        quote_by_end = {q.end: q for q in self.quotations}
        mention_by_end = {m.end: m for m in self.mentions}
        marked_quotes: dict[int, Mark] = {}
        out: list[Target] = []
        for mark in self.marks:
            j = mark.start
            while j > 0 and prose[j - 1] in " \t\u00a0\u3000":
                j -= 1
            q = quote_by_end.get(j)
            if q is not None and q.start not in marked_quotes:
                marked_quotes[q.start] = mark
                continue
            mention = mention_by_end.get(j) or self._after_counter(j, mention_by_end)
            if mention is not None:
                cit = self.citation_for(mention.start, mention.end)
                out.append(
                    Target("number", mention.start, mention.end, mention.text, mark, cit,
                           self.sentence_of(mention.start), mention)
                )  # fmt: skip
                continue
            out.append(Target("orphan", mark.start, mark.end, f"[{mark.letter}]", mark, None,
                              self.sentence_of(mark.start)))  # fmt: skip
        for q in self.quotations:
            mark_or_none = marked_quotes.get(q.start)
            cit = self.citation_for(q.start, q.end)
            inner = prose[q.inner_start : q.inner_end]
            if mark_or_none is None and (cit is None or _visible_len(inner) < self.min_chars):
                continue
            out.append(Target("quote", q.start, q.end, inner, mark_or_none, cit, self.sentence_of(q.start)))
        out.sort(key=lambda t: t.start)
        return out

    def _after_counter(self, j: int, mention_by_end: dict[int, NumberMention]) -> NumberMention | None:
        prose = self.draft.prose
        k = j
        for _ in range(_COUNTER_MAX):
            if k <= 0 or not _is_counter_char(prose[k - 1]):
                return None
            k -= 1
            if k in mention_by_end:
                return mention_by_end[k]
        return None


def _is_counter_char(ch: str) -> bool:
    return is_cjk(ch) and unicodedata.category(ch).startswith("L")


def _visible_len(text: str) -> int:
    return len("".join(unicodedata.normalize("NFKC", text).split()))
