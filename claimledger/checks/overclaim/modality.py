"""Modality, quantifier and negation rules (statement vs quote).

Each rule anchors its cue on a content word (the verb after "may", the noun
after "some", the predicate before 「可能性がある」) and only fires when the
statement uses that same word without the cue. A cue with no anchor in the
statement says nothing about the statement, so it raises nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from claimledger.checks.overclaim._hit import Hit
from claimledger.checks.overclaim._text import (
    Token,
    context_agrees,
    ends_run,
    find_stem,
    is_japanese,
    ja_anchor_after,
    ja_anchor_before,
    next_content_word,
    stem,
    words,
)
from claimledger.checks.overclaim.lexicon import (
    ASSOC_EN,
    ASSOC_JA,
    CAUSAL_EN,
    CAUSAL_JA,
    MODAL_EN,
    MODAL_JA,
    MODAL_SUPPRESS_EN,
    MODAL_SUPPRESS_JA,
    NEGATION_EN,
    NEGATION_JA,
    NOT_NEGATION_EN,
    NOT_NEGATION_JA,
    QUALIFIER_EN,
    QUALIFIER_JA,
    QUANT_EN,
    QUANT_JA,
    VERBAL_NEGATION_EN,
    VERBAL_NEGATION_JA,
)
from claimledger.model.finding import Reason


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    """Overwrite matches with spaces (offsets unchanged)."""
    return pattern.sub(lambda m: " " * len(m.group()), text)


def _anchor_en(text: str, toks: list[Token], cue_end: int) -> Token | None:
    return next_content_word(toks, cue_end, limit=4)


def _occurrences(text: str, anchor: str, ja: bool) -> Iterator[tuple[int, int]]:
    if ja:
        for m in re.finditer(re.escape(anchor), text):
            if ends_run(text, m.end()):
                yield m.span()
    else:
        for tok in find_stem(words(text), stem(anchor)):
            yield tok.start, tok.end


# --- modality ---------------------------------------------------------------------------


def modality_hits(statement: str, quote: str) -> list[Hit]:
    ja = is_japanese(quote)
    suppress = MODAL_SUPPRESS_JA if ja else MODAL_SUPPRESS_EN
    if suppress.search(statement):
        return []
    hits: list[Hit] = []
    toks = words(quote)
    for m in (MODAL_JA if ja else MODAL_EN).finditer(quote):
        anchor = ja_anchor_before(quote, m.start()) if ja else _anchor_en(quote, toks, m.end())
        if anchor is None:
            continue
        a_span = (anchor.start, anchor.end)
        occ = next((o for o in _occurrences(statement, anchor.text, ja) if context_agrees(statement, o, quote, a_span, ja)), None)
        if occ is None:
            continue
        src = (min(m.start(), anchor.start), max(m.end(), anchor.end))
        hits.append(
            Hit(
                Reason.OVERCLAIM_MODALITY, "modality_strengthened",
                occ, statement[occ[0] : occ[1]], src, quote[src[0] : src[1]], "quote",
                f"keep the source's hedge: {quote[src[0]:src[1]]!r}",
                f"the quote hedges it ({m.group()!r}: {quote[src[0]:src[1]]!r}) but the statement asserts "
                f"{statement[occ[0]:occ[1]]!r} outright",
            )
        )  # fmt: skip
        break
    if not hits:
        hits.extend(_causal_hits(statement, quote, ja))
    return hits


def _causal_hits(statement: str, quote: str, ja: bool) -> list[Hit]:
    assoc, causal = (ASSOC_JA, CAUSAL_JA) if ja else (ASSOC_EN, CAUSAL_EN)
    a = assoc.search(quote)
    c = causal.search(statement)
    if a is None or c is None or causal.search(quote) or assoc.search(statement):
        return []
    return [
        Hit(
            Reason.OVERCLAIM_MODALITY, "association_to_causation",
            c.span(), c.group(), a.span(), a.group(), "quote",
            f"say what the source says: {a.group()!r}, not {c.group()!r}",
            f"the quote reports an association ({a.group()!r}) and the statement a cause ({c.group()!r})",
        )
    ]  # fmt: skip


# --- quantifiers ------------------------------------------------------------------------


def _quantifiers(text: str, ja: bool) -> list[tuple[int, int, int, set[str]]]:
    """(level, start, end, anchors) for every quantifier cue; anchors are the words next to it."""
    table = QUANT_JA if ja else QUANT_EN
    out: list[tuple[int, int, int, set[str]]] = []
    taken: list[tuple[int, int]] = []
    toks = words(text)
    for level, pat in table:  # highest level first: "almost all" is taken before "all"
        for m in pat.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            anchors: set[str] = set()
            if ja:
                for tok in (ja_anchor_after(text, m.end()), ja_anchor_before(text, m.start(), 6)):
                    if tok is not None:
                        anchors.add(tok.text)
            else:
                after = next_content_word(toks, m.end(), limit=3)
                if after is not None:
                    anchors.add(stem(after.text))
            taken.append(m.span())
            out.append((level, m.start(), m.end(), anchors))
    # "almost all" sits in level 3 and contains "all": drop the level-4 reading inside it
    return sorted(out, key=lambda t: t[1])


def quantifier_hits(statement: str, quote: str) -> list[Hit]:
    ja = is_japanese(quote)
    q_quants = _quantifiers(quote, ja)
    if not q_quants:
        return []
    s_quants = _quantifiers(statement, ja)
    q_max = max(level for level, *_ in q_quants)
    hits: list[Hit] = []
    for level, s0, s1, anchors in s_quants:
        paired = [q for q in q_quants if q[3] & anchors]
        if paired:
            q = max(paired, key=lambda t: t[0])
            if q[0] >= level:
                continue
        elif level == 4 and q_max < 4:
            # a universal the quote never uses, over a noun the quote limits elsewhere
            anchor_in_quote = any(next(_occurrences(quote, a, ja), None) is not None for a in anchors)
            if not anchor_in_quote:
                continue
            q = max(q_quants, key=lambda t: t[0])
        else:
            continue
        cue = quote[q[1] : q[2]]
        hits.append(
            Hit(
                Reason.OVERCLAIM_QUANTIFIER, "quantifier_broadened",
                (s0, s1), statement[s0:s1], (q[1], q[2]), cue, "quote",
                statement[:s0] + cue + statement[s1:],
                f"the quote says {cue!r} but the statement says {statement[s0:s1]!r}: the quantifier was broadened",
            )
        )  # fmt: skip
    return hits


def qualifier_hits(statement: str, quote: str) -> list[Hit]:
    """An adverbial qualifier of the quote ("usually", 「通常」, 「多くの場合」) dropped by the statement.

    Fires only when the statement restates the qualified words (same anchor, same
    neighbours) and carries no qualifier, quantifier or hedge of its own.
    """
    ja = is_japanese(quote)
    qual = QUALIFIER_JA if ja else QUALIFIER_EN
    if qual.search(statement) or _quantifiers(statement, ja) or (MODAL_SUPPRESS_JA if ja else MODAL_SUPPRESS_EN).search(statement):
        return []
    toks = words(quote)
    for m in qual.finditer(quote):
        if ja:
            anchor = ja_anchor_after(quote, m.end(), 12) or ja_anchor_before(quote, m.start(), 8)
        else:
            anchor = _anchor_en(quote, toks, m.end())
        if anchor is None:
            continue
        a_span = (anchor.start, anchor.end)
        occ = next((o for o in _occurrences(statement, anchor.text, ja) if context_agrees(statement, o, quote, a_span, ja)), None)
        if occ is None:
            continue
        cue = m.group()
        return [
            Hit(
                Reason.OVERCLAIM_QUANTIFIER, "qualifier_dropped",
                occ, statement[occ[0] : occ[1]], m.span(), cue, "quote",
                f"keep the source's qualifier: {cue!r}",
                f"the quote limits it ({cue!r}) but the statement says {statement[occ[0]:occ[1]]!r} without the limit",
            )
        ]  # fmt: skip
    return []


# --- negation ---------------------------------------------------------------------------


def _negations(text: str, ja: bool) -> list[tuple[int, int, Token]]:
    """(cue start, cue end, anchor) for each verbal negation cue with an anchor word."""
    if ja:
        clean = _blank(text, NOT_NEGATION_JA)
        out = []
        for m in VERBAL_NEGATION_JA.finditer(clean):
            anchor = ja_anchor_before(text, m.start(), window=6)
            if anchor is not None:
                out.append((m.start(), m.end(), anchor))
        return out
    clean = _blank(text, NOT_NEGATION_EN)
    toks = words(text)
    out = []
    for m in VERBAL_NEGATION_EN.finditer(clean):
        anchor = next_content_word(toks, m.end(), limit=4)
        if anchor is not None and anchor.low not in _LIGHT_VERBS:
            out.append((m.start(), m.end(), anchor))
    return out


_LIGHT_VERBS = frozenset(["get", "got", "make", "made", "take", "took", "give", "gave", "go", "went", "come", "came", "put", "set", "keep", "kept", "let", "help"])


def _has_negation(text: str, ja: bool) -> bool:
    if ja:
        return NEGATION_JA.search(_blank(text, NOT_NEGATION_JA)) is not None
    return NEGATION_EN.search(_blank(text, NOT_NEGATION_EN)) is not None


def negation_hits(statement: str, quote: str) -> list[Hit]:
    ja = is_japanese(quote)
    hits: list[Hit] = []
    # Polarity is compared only when one side has no negation at all: with negations on both
    # sides, a paraphrase moves them around too easily to tell a flip from a rewording.
    s_neg, q_neg = _has_negation(statement, ja), _has_negation(quote, ja)
    for c0, c1, anchor in _negations(quote, ja) if not s_neg else []:
        for occ in _occurrences(statement, anchor.text, ja):
            if context_agrees(statement, occ, quote, (anchor.start, anchor.end), ja):
                src = (min(c0, anchor.start), max(c1, anchor.end))
                hits.append(
                    Hit(
                        Reason.OVERCLAIM_NEGATION, "negation_dropped",
                        occ, statement[occ[0] : occ[1]], src, quote[src[0] : src[1]], "quote",
                        f"the source negates it: {quote[src[0]:src[1]]!r}",
                        f"the quote says {quote[src[0]:src[1]]!r} (negated) but the statement affirms "
                        f"{statement[occ[0]:occ[1]]!r}",
                    )
                )  # fmt: skip
                break
    for c0, c1, anchor in _negations(statement, ja) if not q_neg else []:
        for occ in _occurrences(quote, anchor.text, ja):
            if context_agrees(statement, (anchor.start, anchor.end), quote, occ, ja):
                span = (min(c0, anchor.start), max(c1, anchor.end))
                hits.append(
                    Hit(
                        Reason.OVERCLAIM_NEGATION, "negation_added",
                        span, statement[span[0] : span[1]], occ, quote[occ[0] : occ[1]], "quote",
                        f"the source affirms it: {quote[occ[0]:occ[1]]!r}",
                        f"the statement negates {statement[span[0]:span[1]]!r} but the quote affirms "
                        f"{quote[occ[0]:occ[1]]!r}",
                    )
                )  # fmt: skip
                break
    return hits
