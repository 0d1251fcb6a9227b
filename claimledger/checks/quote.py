"""Literal quote check: an exact substring of the cited source after normalization.

Found -> verified, with the page and the exact original text. Otherwise the
finding says why: too short, only in hidden text, found in another source
(misattribution), a near miss (nearest passage and word diff), or absent. A
similarity score only ever *describes* a miss; it never verifies.
"""

from __future__ import annotations

import difflib

from claimledger._exceptions import SourceError
from claimledger.checks.context import IndexedSource, RunContext
from claimledger.checks.diff import word_diff
from claimledger.model.finding import Evidence, Finding, Reason, Status
from claimledger.normalize import Normalized, normalize_quote

CHECK = "literal_quote"
NEAR_MISS_MIN_SCORE = 60.0
_WINDOW_LIMIT = 400_000
_OUTER_QUOTES = {'"': '"', "'": "'", "「": "」", "『": "』", "“": "”", "‘": "’"}


def strip_outer_quotes(quote: str) -> str:
    """Remove one pair of quotation marks that wraps the whole quote."""
    q = quote.strip()
    if len(q) >= 2 and q[0] in _OUTER_QUOTES and q[-1] == _OUTER_QUOTES[q[0]]:
        return q[1:-1].strip()
    return q


def _evidence(ix: IndexedSource, norm: Normalized, start: int, end: int) -> Evidence:
    a, b = norm.to_original(start, end)
    src = ix.source
    return Evidence(source=src.id, start=a, end=b, text=src.text[a:b], page=src.page_of(a))


def find_exact(nq: str, ix: IndexedSource) -> Evidence | None:
    """Exact match in either normalized reading of the source."""
    for norm in (ix.primary, ix.alternate):
        if norm is None:
            continue
        pos = norm.text.find(nq)
        if pos >= 0:
            return _evidence(ix, norm, pos, pos + len(nq))
    return None


def nearest_passage(nq: str, ix: IndexedSource) -> tuple[Evidence, float, str] | None:
    """The passage of the source closest to the quote, its score (0-100) and normalized text.

    Cost is bounded: long sources are cut into windows, the best few windows
    are ranked with a fast scorer, and only they are aligned.
    """
    from rapidfuzz import fuzz, process

    text = ix.primary.text
    if not text or not nq:
        return None
    if len(text) <= _WINDOW_LIMIT:
        candidates = [(0, text)]
    else:
        size = max(4 * len(nq), 4000)
        step = size // 2
        windows = [(i, text[i : i + size]) for i in range(0, len(text), step)]
        top = process.extract(nq, [w for _, w in windows], scorer=fuzz.partial_ratio, limit=3)
        candidates = [windows[idx] for _, _, idx in top]
    best: tuple[float, int, int] | None = None
    for offset, chunk in candidates:
        al = fuzz.partial_ratio_alignment(nq, chunk)
        if al is None:
            continue
        if best is None or al.score > best[0]:
            best = (al.score, offset + al.dest_start, offset + al.dest_end)
    if best is None or best[2] <= best[1]:
        return None
    score, start, end = _refine(nq, text, best[1], best[2])
    return _evidence(ix, ix.primary, start, end), score, text[start:end]


def _refine(nq: str, text: str, start: int, end: int) -> tuple[float, int, int]:
    """Move the passage's edges a few characters to fit the quote best (insertions shift windows)."""
    from rapidfuzz import fuzz

    k = max(1, min(8, len(nq) // 4))
    best = (fuzz.ratio(nq, text[start:end]), start, end)
    for ds in range(-k, k + 1):
        s = start + ds
        if s < 0:
            continue
        for de in range(-k, k + 1):
            e = end + de
            if e <= s or e > len(text):
                continue
            score = fuzz.ratio(nq, text[s:e])
            if score > best[0]:
                best = (score, s, e)
    return best


def check_quote_text(
    claim_id: str,
    source_id: str,
    quote: str,
    ctx: RunContext,
    *,
    check: str = CHECK,
) -> Finding:
    """Check that ``quote`` appears in source ``source_id``. Never raises."""
    declared = ctx.ledger.sources
    if source_id not in declared:
        close = difflib.get_close_matches(source_id, list(declared), n=1)
        hint = f" (did you mean {close[0]!r}? ids are never repaired)" if close else ""
        return Finding(
            claim_id, check, Status.UNVERIFIABLE, Reason.SOURCE_UNDECLARED,
            f"source {source_id!r} is not declared under `sources:`{hint}",
        )  # fmt: skip
    loaded = ctx.source(source_id)
    if isinstance(loaded, SourceError):
        return Finding(claim_id, check, Status.UNVERIFIABLE, Reason(loaded.reason), loaded.message)
    nq = normalize_quote(strip_outer_quotes(quote))
    if len(nq) < ctx.config.min_quote_chars:
        return Finding(
            claim_id, check, Status.UNVERIFIABLE, Reason.QUOTE_TOO_SHORT,
            f"quote has {len(nq)} characters after normalization; at least "
            f"{ctx.config.min_quote_chars} are needed for a match to mean anything",
        )  # fmt: skip
    found = find_exact(nq, loaded)
    if found is not None:
        where = f"p. {found.page}" if found.page else f"chars {found.start}-{found.end}"
        return Finding(
            claim_id, check, Status.VERIFIED, Reason.QUOTE_FOUND,
            f"found verbatim in {source_id} ({where})", evidence=found,
        )  # fmt: skip
    if loaded.hidden and nq in loaded.hidden:
        return Finding(
            claim_id, check, Status.DISCREPANCY, Reason.QUOTE_ONLY_IN_HIDDEN_TEXT,
            f"the quote occurs in {source_id} only in text a reader cannot see "
            "(hidden element, script, style or comment)",
        )  # fmt: skip
    elsewhere = _find_elsewhere(nq, source_id, ctx)
    if elsewhere is not None:
        return Finding(
            claim_id, check, Status.DISCREPANCY, Reason.QUOTE_MISATTRIBUTED,
            f"not in the cited source {source_id}, but found verbatim in {elsewhere.source}: "
            "the quote is attributed to the wrong source",
            evidence=elsewhere, extra={"found_in": elsewhere.source},
        )  # fmt: skip
    near = nearest_passage(nq, loaded)
    if near is not None and near[1] >= NEAR_MISS_MIN_SCORE:
        evidence, score, passage = near
        diff = word_diff(nq, passage)
        where = f" on p. {evidence.page}" if evidence.page else ""
        return Finding(
            claim_id, check, Status.DISCREPANCY, Reason.QUOTE_NEAR_MISS,
            f"not found verbatim in {source_id}; the nearest passage{where} differs: {diff}",
            nearest=evidence, diff=diff, extra={"similarity": round(score, 1)},
        )  # fmt: skip
    return Finding(
        claim_id, check, Status.DISCREPANCY, Reason.QUOTE_ABSENT,
        f"the quote does not appear in {source_id}, nor anything close to it",
        nearest=near[0] if near else None,
    )  # fmt: skip


def _find_elsewhere(nq: str, cited: str, ctx: RunContext) -> Evidence | None:
    for other in ctx.ledger.sources:
        if other == cited:
            continue
        loaded = ctx.source(other)
        if isinstance(loaded, SourceError):
            continue
        found = find_exact(nq, loaded)
        if found is not None:
            return found
    return None
