"""The word-hedge rule: a hedge on a quantity without a number was dropped ("nearly doubled" -> "doubled",
「ほぼ半減」 -> 「半減」). Hedges attached to a number are :mod:`claimledger.checks.overclaim.figures`."""

from __future__ import annotations

from claimledger.checks.overclaim._hit import Hit
from claimledger.checks.overclaim._text import NOT_LOWERED, is_japanese, replace_span
from claimledger.checks.overclaim.lexicon import (
    APPROXIMABLE_EN,
    APPROXIMABLE_JA,
    WORD_HEDGE_EN,
    WORD_HEDGE_JA,
    WORD_HEDGES_EN,
    WORD_HEDGES_JA,
)
from claimledger.model.finding import Reason

# A hit needs a hedge pattern to match a piece of the quote, so the quote holds the first word of one
# of the pattern's alternatives (the English one case-insensitively): without any, no hit.
_HEADS_EN = tuple(dict.fromkeys(w.split("\\s+")[0] for w in WORD_HEDGES_EN))
_HEADS_JA = tuple(dict.fromkeys(WORD_HEDGES_JA))


def may_hold_word_hedge(quote: str, ja: bool) -> bool:
    """False when no piece of ``quote`` can match the word-hedge pattern (of ``ja``'s language)."""
    if ja:
        return any(map(quote.__contains__, _HEADS_JA))  # any(w in quote ...), without a Python frame per word
    if not quote.isascii() and any(c in quote for c in NOT_LOWERED):
        return True
    return any(map(quote.lower().__contains__, _HEADS_EN))


def word_hedge_hits(statement: str, quote: str) -> list[Hit]:
    """A hedge on a non-numeric quantity dropped: "nearly doubled" -> "doubled", 「ほぼ半減」 -> 「半減」."""
    hits: list[Hit] = []
    ja = is_japanese(quote)
    if not may_hold_word_hedge(quote, ja):
        return hits
    pattern = APPROXIMABLE_JA if ja else APPROXIMABLE_EN
    hedge = WORD_HEDGE_JA if ja else WORD_HEDGE_EN
    for m in pattern.finditer(quote):
        h = hedge.search(quote[max(0, m.start() - 25) : m.start()])
        if not h:
            continue
        word = m.group().lower()
        cue_start = m.start() - (min(m.start(), 25) - h.start())
        for sm in pattern.finditer(statement):
            if sm.group().lower() != word:
                continue
            if hedge.search(statement[max(0, sm.start() - 25) : sm.start()]):
                continue
            # the statement keeps the quote's wording around it? then it is the same quantity
            hits.append(
                Hit(
                    Reason.OVERCLAIM_HEDGE_DROPPED, "hedge_dropped",
                    sm.span(), sm.group(), (cue_start, m.end()), quote[cue_start : m.end()], "quote",
                    replace_span(statement, sm.start(), sm.end(), quote[cue_start : m.end()]),
                    f"the quote says {quote[cue_start:m.end()]!r} but the statement says {sm.group()!r}: "
                    "the hedge was dropped",
                )
            )  # fmt: skip
            break
    return hits
