"""Literal quote check: an exact substring of the cited source after normalization.

Found -> verified, with the page and the exact original text. Otherwise the
finding says why: too short, only in hidden text, found in another source
(misattribution), a near miss (nearest passage and word diff), or absent. A
similarity score only ever *describes* a miss; it never verifies.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from claimledger.checks.boundaries import find_whole
from claimledger.checks.context import RunContext
from claimledger.checks.diff import word_diff
from claimledger.checks.elisions import ElidedQuote, split_elided
from claimledger.checks.evidence import evidence_at
from claimledger.checks.quote_scan import Elided, find_in_hyphen_reading
from claimledger.load.index import IndexedSource
from claimledger.model.finding import Evidence, Finding, Reason, Status
from claimledger.normalize import has_break_hyphens, normalize_quote

CHECK = "literal_quote"
NEAR_MISS_MIN_SCORE = 60.0
_OUTER_QUOTES = {'"': '"', "'": "'", "「": "」", "『": "』", "“": "”", "‘": "’"}


def strip_outer_quotes(quote: str) -> str:
    """Remove one pair of quotation marks that wraps the whole quote."""
    q = quote.strip()
    if len(q) >= 2 and q[0] in _OUTER_QUOTES and q[-1] == _OUTER_QUOTES[q[0]]:
        return q[1:-1].strip()
    return q


def find_exact(nq: str, ix: IndexedSource) -> Evidence | None:
    """Exact match of a normalized quote in either normalized reading of one source."""
    pos = find_whole(ix.primary.text, nq)
    if pos >= 0:
        return evidence_at(ix, ix.primary, pos, pos + len(nq))
    if "-" in nq and has_break_hyphens(ix.source.text):
        found = find_in_hyphen_reading(ix, nq)
        if found is not None:
            return found
    if ix.source.annotations or len(ix.source.page_starts) > 1:
        from claimledger.checks.readings import find_in_readings

        return find_in_readings(ix, nq)
    return None


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
    nq = normalized_quote(quote, ctx)
    long_enough = len(nq) >= ctx.config.min_quote_chars
    result = ctx.quote_result(source_id, nq) if long_enough else None
    error = result.error if result is not None else ctx.source_error(source_id)
    if error is not None:
        return Finding(claim_id, check, Status.UNVERIFIABLE, Reason(error.reason), error.message)
    if result is None:
        return Finding(
            claim_id, check, Status.UNVERIFIABLE, Reason.QUOTE_TOO_SHORT,
            f"quote has {len(nq)} characters after normalization; at least "
            f"{ctx.config.min_quote_chars} are needed for a match to mean anything",
        )  # fmt: skip
    found = result.found
    if found is not None:
        how = {
            "furigana": " (with its furigana reading in brackets)",
            "pdf_body": " across a page break (running header, page number, caption or footnote set aside)",
        }.get(found.reading or "", "")
        return Finding(
            claim_id, check, Status.VERIFIED, Reason.QUOTE_FOUND,
            f"found verbatim in {source_id} ({found.where()}){how}", evidence=found,
        )  # fmt: skip
    elided = split_elided(nq)
    if elided is not None:
        finding = _check_elided(claim_id, source_id, elided, ctx, check, result.elided)
        if finding is not None:
            return finding
    if result.in_hidden:
        return Finding(
            claim_id, check, Status.DISCREPANCY, Reason.QUOTE_ONLY_IN_HIDDEN_TEXT,
            f"the quote occurs in {source_id} only in text a reader cannot see "
            "(hidden HTML element, script, style or comment; invisible, white or tiny PDF text; "
            "a review comment in a Word file)",
        )  # fmt: skip
    if result.elsewhere is not None:
        elsewhere = result.elsewhere
        return Finding(
            claim_id, check, Status.DISCREPANCY, Reason.QUOTE_MISATTRIBUTED,
            f"not in the cited source {source_id}, but found verbatim in {elsewhere.source}: "
            "the quote is attributed to the wrong source",
            evidence=elsewhere, extra={"found_in": elsewhere.source},
        )  # fmt: skip
    near = result.near
    if near is not None and near[1] >= NEAR_MISS_MIN_SCORE:
        evidence, score, passage = near
        diff = word_diff(nq, passage)
        where = f" on p. {evidence.page}" if evidence.page else ""
        return Finding(
            claim_id, check, Status.DISCREPANCY, Reason.QUOTE_NEAR_MISS,
            f"not found verbatim in {source_id}; the nearest passage{where} differs: {diff}",
            nearest=evidence, diff=diff, extra={"similarity": round(score, 1)},
        )  # fmt: skip
    if near is not None:
        evidence, score, _passage = near
        where = f" ({evidence.where()})"
        return Finding(
            claim_id, check, Status.DISCREPANCY, Reason.QUOTE_ABSENT,
            f"the quote does not appear in {source_id}; the most similar passage{where} is only "
            f"{score:.0f}% alike, shown for orientation, not as a near miss",
            nearest=evidence, extra={"similarity": round(score, 1)},
        )  # fmt: skip
    return Finding(
        claim_id, check, Status.DISCREPANCY, Reason.QUOTE_ABSENT,
        f"the quote does not appear in {source_id}, nor anything close to it",
    )  # fmt: skip


def _check_elided(
    claim_id: str, source_id: str, quote: ElidedQuote, ctx: RunContext, check: str, scanned: Elided | None
) -> Finding | None:
    """An elided quote: verified when every segment is found in order in one passage; None to
    report the quote as any other miss. ``scanned``: where the scan found its segments while the
    source was loaded (checks/quote_scan.py)."""
    short = [s for s in quote.segments if len(s) < ctx.config.min_quote_chars]
    if short:
        return Finding(
            claim_id, check, Status.UNVERIFIABLE, Reason.QUOTE_TOO_SHORT,
            f"elided quote: the segment {short[0]!r} has {len(short[0])} characters after normalization; "
            f"each segment needs at least {ctx.config.min_quote_chars} for a match to mean anything",
        )  # fmt: skip
    if scanned is None:  # the scan looks for every missing elided quote in its loaded source
        return None
    found, cut = scanned.found, scanned.dropped
    if found is None:
        return None
    if cut is not None:
        kind, cue, gap = cut
        if kind == "figure":
            what = (f"its bracketed insertion has the figure {cue!r}, which the source text it stands for, "
                    f"{gap!r}, does not" if gap else f"its bracketed insertion adds the figure {cue!r}")  # fmt: skip
        elif gap:
            what = f"the source text it leaves out, {gap!r}, holds the {kind} {cue!r}"
        else:
            what = f"its bracketed insertion adds the {kind} {cue!r}, which the source does not have there"
        return Finding(
            claim_id, check, Status.DISCREPANCY, Reason.QUOTE_ELISION_DROPS_MEANING,
            f"elided quote: every segment is in {source_id} ({found.where()}), but {what}; "
            "an omission or insertion may not change what the source says",
            evidence=found, extra={"elided": True, "dropped": kind, "cue": cue, "insertions": list(quote.insertions)},
        )  # fmt: skip
    listed = f"; bracketed insertions: {', '.join(repr(i) for i in quote.insertions)}" if quote.insertions else ""
    return Finding(
        claim_id, check, Status.VERIFIED, Reason.QUOTE_FOUND,
        f"found in {source_id} ({found.where()}) as an elided quote: {len(quote.segments)} segments, "
        f"each verbatim, in order, in one passage{listed}",
        evidence=found,
        extra={"elided": True, "segments": len(quote.segments), "insertions": list(quote.insertions)},
    )  # fmt: skip


def normalized_quote(quote: str, ctx: RunContext | None = None) -> str:
    """``normalize_quote(strip_outer_quotes(quote))``, remembered for the run with ``ctx`` (a pure
    function of the string: the batched scan, the literal check and the overclaim rules each look
    the same quote up, three normalizations a claim before)."""
    if ctx is None:
        return normalize_quote(strip_outer_quotes(quote))
    memo = ctx.normalized_quotes
    nq = memo.get(quote)
    if nq is None:  # (a quote whose normalization raises is not remembered: it raises again)
        nq = memo[quote] = normalize_quote(strip_outer_quotes(quote))
    return nq


def quote_key(source_id: str, quote: str, ctx: RunContext | None = None) -> tuple[str, str]:
    """The (source, normalized quote) pair a quote is looked up by (remembered for the run with ``ctx``)."""
    return source_id, normalized_quote(quote, ctx)


def quote_keys(claims: Iterable[object], ctx: RunContext | None = None) -> list[tuple[str, str]]:
    """The lookups a ledger's quote-bearing claims need, for one batched pass. With ``ctx``, a
    quote shorter than ``min_quote_chars`` after normalization is left out: its check reports it
    too short without a lookup (:func:`check_quote_text`), and looking for a few characters in
    every source costs a search of each (a check that still asks for one looks it up then)."""
    keys: list[tuple[str, str]] = []
    shortest = ctx.config.min_quote_chars if ctx is not None else 0
    for claim in claims:
        source = getattr(claim, "source", None)
        quote = getattr(claim, "quote", None)
        if isinstance(source, str) and isinstance(quote, str):
            try:
                key = quote_key(source, quote, ctx)
            except Exception:
                continue
            if len(key[1]) >= shortest:
                keys.append(key)
    return keys
