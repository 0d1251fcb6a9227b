"""Which ledger claim backs a figure of the draft: the tie between a place and a claim.

A figure of the draft is backed only by a ledger number claim *about that
statement*, never by one whose value merely coincides. A claim of the same
figure (see :func:`same_number`) is tied to a figure when any of these holds:

1. **location**: the claim's ``location.line`` is the figure's line; among the
   figures of that value on the line it ties the one nearest ``location.column``
   (the first one when no column is given). A ``location.file`` whose file name
   differs from the draft's ties nothing.
2. **statement**: the claim's ``statement``, folded (NFKC, case, whitespace,
   punctuation, marks and citations removed), equals the figure's sentence or a
   part of it (at least :data:`MIN_PART` folded characters), and the statement's
   figure of that value stands at the same position as the draft's figure.
3. **citation and meaning** (a claim backed by ``source`` + ``quote``): the
   figure's sentence cites the claim's source and the words around the figure
   share a content word (English stems, Japanese character bigrams) with the
   words around the figure in the claim's passage. The same meaning test ties a
   figure to a ledger quote of a cited source that prints it (the audit).

Everything else is a coincidence: the figure is unlisted (``mark`` writes
[D], ``audit`` reports it HIGH, ``lint`` fails a [V] on it).
"""

from __future__ import annotations

import contextlib
import os
import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from claimledger.extract.citations import find_citations
from claimledger.extract.marks import MARK_RE, Analysis
from claimledger.extract.mentions import NumberKey, NumberMention, find_mentions, number_key, same_number
from claimledger.model.claim import NumberClaim

MIN_PART = 12  # folded characters a statement needs to tie to a part of a longer sentence
_WINDOW_WORDS = 6  # English content words looked at on each side of a figure
_WINDOW_CHARS = 20  # Japanese characters looked at on each side of a figure
_JA_CONTENT = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff々〆ヵヶ\u30a1-\u30faー]+")
_JA_NUMERAL = frozenset("〇零一二三四五六七八九十百千万億兆")
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_STOP = frozenset(
    """a an the this that these those it its they them their there here of in on at by for to from with
    without into onto over under about as and or but nor so than then also too very much more most less
    least be been being is are was were am do does did have has had will would shall should can could may
    might must not no never any some all each every which who whom whose what when where why how if
    whether while although though because since until upon per via we our us you your he him his she her
    only just even still yet already again such both either neither other another same own one ones
    percent per cent times fold million billion thousand hundred total""".split()  # noqa: SIM905
)


def _stem(word: str) -> str:
    w = word.lower().strip("'-")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 5:
        return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
    return w[:5]


def _dropped(ch: str) -> bool:
    return ch.isspace() or ch == "\u2029" or unicodedata.category(ch).startswith("P")


def fold(text: str, drop: Sequence[tuple[int, int]] = ()) -> tuple[str, list[int]]:
    """``text`` folded for comparison, and for each input index its folded index (-1 when dropped)."""
    keep = [True] * len(text)
    for a, b in drop:
        for i in range(max(0, a), min(b, len(text))):
            keep[i] = False
    out: list[str] = []
    where = [-1] * len(text)
    n = 0
    for i, ch in enumerate(text):
        if not keep[i] or _dropped(ch):
            continue
        folded = unicodedata.normalize("NFKC", ch).casefold()
        folded = "".join(c for c in folded if not _dropped(c))
        if not folded:
            continue
        where[i] = n
        out.append(folded)
        n += len(folded)
    return "".join(out), where


def features(text: str, span: tuple[int, int]) -> set[str]:
    """Content words around ``span`` in ``text``: English stems and Japanese character bigrams."""
    out: set[str] = set()
    toks = [m for m in _EN_WORD.finditer(text) if not (m.start() < span[1] and span[0] < m.end())]
    before = [t for t in toks if t.end() <= span[0]]
    after = [t for t in toks if t.start() >= span[1]]

    def content(t: re.Match[str]) -> bool:
        w = t.group().lower()
        return len(w) >= 3 and w not in _STOP

    for group in (list(reversed(before)), after):
        taken = 0
        for t in group:
            if taken >= _WINDOW_WORDS:
                break
            if content(t):
                out.add(_stem(t.group()))
                taken += 1
    lo, hi = max(0, span[0] - _WINDOW_CHARS), min(len(text), span[1] + _WINDOW_CHARS)
    for seg in (text[lo : span[0]], text[span[1] : hi]):
        for run in _JA_CONTENT.findall(seg):
            run = "".join(c if c not in _JA_NUMERAL else " " for c in run)
            out.update(run[i : i + 2] for i in range(len(run) - 1) if " " not in run[i : i + 2])
    return out


def same_meaning(draft_text: str, draft_span: tuple[int, int], key: NumberKey, passage: str) -> bool:
    """Does some figure of ``passage`` equal to ``key`` speak of what the draft's figure speaks of?"""
    mine = features(draft_text, draft_span)
    if not mine:
        return False
    for pm in find_mentions(passage):
        if same_number(key, pm.key) and mine & features(passage, (pm.start, pm.end)):
            return True
    return False


@dataclass
class _Statement:
    folded: str
    figures: set[int] = field(default_factory=set)  # folded positions of the claim's figure


class Ties:
    """The ties between the figures of one analysed draft and the ledger's number claims."""

    def __init__(
        self, analysis: Analysis, claims: Sequence[NumberClaim], known_keys: Collection[str] = ()
    ) -> None:
        self.analysis = analysis
        self.known_keys = frozenset(known_keys)
        self.claims: list[tuple[NumberClaim, NumberKey]] = []
        for claim in claims:
            key = number_key(claim.value)
            if key is not None:
                self.claims.append((claim, key))
        self._by_line: dict[int, list[NumberMention]] | None = None
        self._located: dict[str, int | None] = {}
        self._statements: dict[str, _Statement | None] = {}
        self._sentences: dict[int, tuple[str, list[int], int]] = {}
        self._clean: dict[int, tuple[str, int]] = {}
        draft_path = analysis.draft.path
        self._draft_name = os.path.basename(draft_path) if draft_path else None

    # ---------------------------------------------------------------- public
    def same_value(self, mention: NumberMention) -> list[NumberClaim]:
        """Ledger number claims stating the same figure as ``mention`` (tied or not)."""
        return [c for c, key in self.claims if same_number(mention.key, key)]

    def backing(self, mention: NumberMention, keys: Sequence[str] = ()) -> NumberClaim | None:
        """The ledger claim tied to this figure of the draft, or None.

        ``keys`` are the citation keys of the figure's sentence (for rule 3).
        """
        candidates = [(c, k) for c, k in self.claims if same_number(mention.key, k)]
        for claim, _key in candidates:
            if claim.location is not None and self._located_start(claim) == mention.start:
                return claim
        for claim, _key in candidates:
            if claim.statement and self._statement_ties(claim, mention):
                return claim
        for claim, _key in candidates:
            if (
                claim.source is not None and claim.quote is not None and claim.source in keys
                and self.printed_with_meaning(mention, claim.quote)
            ):  # fmt: skip
                return claim
        return None

    def printed_with_meaning(self, mention: NumberMention, passage: str) -> bool:
        """``passage`` prints this figure, speaking of the same thing (rule 3)."""
        text, base = self.clean_sentence(mention.start)
        return same_meaning(text, (mention.start - base, mention.end - base), mention.key, passage)

    def why_not(self, mention: NumberMention) -> str:
        """A sentence naming the same-valued claims that are not tied here ('' when none)."""
        others = self.same_value(mention)
        if not others:
            return ""
        names = ", ".join(c.id for c in others[:5]) + (" ..." if len(others) > 5 else "")
        line, _col = self.analysis.draft.where(mention.start)
        return (
            f"; ledger claim {names} states the same value but is not tied to this place (line {line}): "
            "give it `location:` (this line), a `statement:` equal to this sentence, or, for a "
            "`source:` + `quote:` claim, cite that source here about the same thing"
        )

    # ---------------------------------------------------------------- rule 1: location
    def _mentions_by_line(self) -> dict[int, list[NumberMention]]:
        if self._by_line is None:
            by_line: dict[int, list[NumberMention]] = {}
            for m in self.analysis.mentions:
                by_line.setdefault(self.analysis.draft.where(m.start)[0], []).append(m)
            self._by_line = by_line
        return self._by_line

    def _located_start(self, claim: NumberClaim) -> int | None:
        if claim.id in self._located:
            return self._located[claim.id]
        start: int | None = None
        loc = claim.location
        key = number_key(claim.value)
        same_file = loc is not None and (
            loc.file is None or self._draft_name is None or os.path.basename(loc.file) == self._draft_name
        )
        if loc is not None and key is not None and same_file:
            on_line = [m for m in self._mentions_by_line().get(loc.line, []) if same_number(m.key, key)]
            if on_line:
                col = loc.column if "column" in loc.model_fields_set else 1
                best = min(on_line, key=lambda m: (abs(self.analysis.draft.where(m.start)[1] - col), m.start))
                start = best.start
        self._located[claim.id] = start
        return start

    # ---------------------------------------------------------------- rule 2: statement
    def _statement(self, claim: NumberClaim) -> _Statement | None:
        if claim.id in self._statements:
            return self._statements[claim.id]
        result: _Statement | None = None
        text = claim.statement or ""
        key = number_key(claim.value)
        if text.strip() and key is not None:
            drop = [(m.start(), m.end()) for m in MARK_RE.finditer(text)]
            with contextlib.suppress(Exception):  # a statement is free text: never let it break the run
                drop += [
                    (c.start, c.end) for c in find_citations(text, self.analysis.draft.fmt, self.known_keys)
                ]
            folded, where = fold(text, drop)
            figures = {
                where[m.start] for m in find_mentions(text) if same_number(m.key, key) and where[m.start] >= 0
            }
            if folded and figures:
                result = _Statement(folded, figures)
        self._statements[claim.id] = result
        return result

    def _folded_sentence(self, start: int) -> tuple[str, list[int], int] | None:
        s = self.analysis.sentence_of(start)
        if s is None:
            return None
        cached = self._sentences.get(s.start)
        if cached is None:
            drop = self._drop_spans(s.start, s.end)
            folded, where = fold(self.analysis.draft.prose[s.start : s.end], drop)
            cached = (folded, where, s.start)
            self._sentences[s.start] = cached
        return cached

    def _drop_spans(self, lo: int, hi: int) -> list[tuple[int, int]]:
        a = self.analysis
        spans = [(c.start - lo, c.end - lo) for c in a.citations if c.end > lo and c.start < hi]
        spans += [(m.start - lo, m.end - lo) for m in a.marks if m.end > lo and m.start < hi]
        return spans

    def _statement_ties(self, claim: NumberClaim, mention: NumberMention) -> bool:
        st = self._statement(claim)
        sent = self._folded_sentence(mention.start)
        if st is None or sent is None:
            return False
        folded, where, base = sent
        fig = where[mention.start - base]
        if fig < 0:
            return False
        if len(st.folded) < MIN_PART and st.folded != folded:
            return False
        pos = folded.find(st.folded)
        while pos >= 0:
            if fig - pos in st.figures:
                return True
            pos = folded.find(st.folded, pos + 1)
        return False

    # ---------------------------------------------------------------- rule 3: meaning
    def clean_sentence(self, start: int) -> tuple[str, int]:
        """The figure's sentence with citations and marks blanked out (same length), and its offset."""
        s = self.analysis.sentence_of(start)
        if s is None:
            return self.analysis.draft.prose, 0
        cached = self._clean.get(s.start)
        if cached is None:
            chars = list(self.analysis.draft.prose[s.start : s.end])
            for a, b in self._drop_spans(s.start, s.end):
                for i in range(max(0, a), min(b, len(chars))):
                    chars[i] = " "
            cached = ("".join(chars).replace("\u2029", " "), s.start)
            self._clean[s.start] = cached
        return cached
