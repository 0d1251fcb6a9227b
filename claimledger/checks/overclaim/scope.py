"""Scope rules: a restricting modifier of the quoted noun phrase dropped in the statement
(言葉を扱う生成AI -> 生成AI, "text-generating AI" -> "AI").

Dropping a modifier is harmless in an existential sentence ("a red car is
parked" -> "a car is parked") and an overclaim in a statistical or general one
("35% of text-generating AI users" -> "35% of AI users"). The rule therefore
only looks at quotes that state a figure or a quantity.
"""

from __future__ import annotations

import functools
import re

from claimledger.checks.overclaim._hit import Hit
from claimledger.checks.overclaim._text import (
    JA_BOUNDARY_CHARS,
    InnerCues,
    Token,
    is_content_char,
    is_hiragana,
    is_japanese,
    ja_runs,
    stem,
    stems_in,
    words,
)
from claimledger.checks.overclaim.figures import numbers_in
from claimledger.checks.overclaim.lexicon import (
    EN_NP_BOUNDARY,
    JA_NON_RESTRICTIVE,
    JA_NON_RESTRICTIVE_PREFIX,
    NON_RESTRICTIVE_EN,
    QUANT_EN,
    QUANT_JA,
    RESTRICTIVE_EN,
)
from claimledger.model.finding import Reason

# Hiragana after which a Japanese noun starts without a modifier of its own.
_JA_PARTICLES = frozenset("はがをにへともやでか")


@functools.lru_cache(maxsize=4096)
def states_quantity(text: str) -> bool:
    """A figure with a unit (%, x, 割, pp) or a quantifier: the kind of sentence scope matters in."""
    if any(n.unit in ("%", "x", "pp") for n in numbers_in(text)):
        return True
    ja = is_japanese(text)
    # a quantifier's pattern matches only where the text holds a piece of it (InnerCues)
    return (_QUANT_CUES_JA if ja else _QUANT_CUES_EN).may_match(text) and any(
        p.search(text) for _, p in (QUANT_JA if ja else QUANT_EN)
    )


_QUANT_CUES_EN = InnerCues(p for _, p in QUANT_EN)
_QUANT_CUES_JA = InnerCues(p for _, p in QUANT_JA)


def _ja_statement_starts(statement: str, run: Token) -> bool:
    """The statement's noun run stands alone: nothing modifies it."""
    if run.start == 0:
        return True
    prev = statement[run.start - 1]
    return prev in JA_BOUNDARY_CHARS or prev in _JA_PARTICLES


def ja_modifier_before(text: str, pos: int) -> tuple[int, str] | None:
    """The modifying clause directly before ``pos`` (言葉を扱う before 生成AI), or None.

    The clause runs back to punctuation or to a topic/subject particle; it
    must end in an attributive form (扱う, 向けの, 大きな) or be the head of a
    compound, and contain a content word.
    """
    if pos == 0:
        return None
    prev = text[pos - 1]
    if prev in JA_BOUNDARY_CHARS or (prev in _JA_PARTICLES and prev != "の"):
        return None
    if not (is_hiragana(prev) or is_content_char(prev)):
        return None
    lo = max(0, pos - 16)
    segment = text[lo:pos]
    cut = -1
    for m in re.finditer(r"[、。，．,.!?！？「」『』（）()\s]|[はがも](?!ー)", segment):
        cut = m.end()
    modifier = segment[cut:] if cut >= 0 else segment
    start = pos - len(modifier)
    if not modifier or JA_NON_RESTRICTIVE.match(modifier):
        return None
    if not any(is_content_char(ch) for ch in modifier):
        return None
    return start, modifier


def ja_mentions(statement: str, modifier: str) -> bool:
    """Does the statement keep any content of the modifier (a word, or two characters of one)?"""
    for word in _ja_content_words(modifier):
        if word in statement:
            return True
        if any(word[i : i + 2] in statement for i in range(len(word) - 1)):
            return True
    return False


def _ja_content_words(text: str) -> list[str]:
    return [r.text for r in ja_runs(text, min_len=1) if len(r.text) >= 2 or "\u3400" <= r.text <= "\u9fff"]


def _ja_hits(statement: str, quote: str) -> list[Hit]:
    hits: list[Hit] = []
    q_runs = ja_runs(quote)
    for run in ja_runs(statement):
        if not _ja_statement_starts(statement, run):
            continue
        for q in q_runs:
            if q.text.endswith(run.text) and len(q.text) - len(run.text) >= 2:
                mod_start, modifier = q.start, q.text[: len(q.text) - len(run.text)]
                if JA_NON_RESTRICTIVE_PREFIX.match(modifier):
                    continue
                span = (q.start, q.end)
            elif q.text == run.text or (q.text.startswith(run.text) and len(run.text) >= 3):
                found = ja_modifier_before(quote, q.start)
                if found is None:
                    continue
                mod_start, modifier = found
                span = (mod_start, q.start + len(run.text))
            else:
                continue
            if ja_mentions(statement, modifier):
                continue
            hits.append(scope_hit(statement, run, quote, span, modifier, "quote"))
            break
    return hits


def en_modifier_before(text: str, toks: list[Token], index: int) -> Token | None:
    """A restricting modifier directly before token ``index`` (a hyphenated compound,
    a listed restrictive adjective, or a capitalised word inside the sentence)."""
    if index == 0:
        return None
    prev = toks[index - 1]
    gap = text[prev.end : toks[index].start]
    if gap.strip():
        return None
    low = prev.low
    if low in EN_NP_BOUNDARY or low in NON_RESTRICTIVE_EN:
        return None
    head = toks[index].text
    if head[:1].isupper() and not head.isupper():
        return None  # part of a name (Floating Bridge, Father Juan)
    if "-" in low and not low.endswith("-"):
        return prev
    if low in RESTRICTIVE_EN:
        return prev
    before = text[: prev.start].rstrip()
    sentence_start = not before or before[-1] in ".!?:\"'“(\n"
    if prev.text[:1].isupper() and not sentence_start and not prev.text.isupper():
        return prev
    return None


def _en_hits(statement: str, quote: str) -> list[Hit]:
    hits: list[Hit] = []
    s_toks, q_toks = words(statement), words(quote)
    s_stems = stems_in(statement)
    at: dict[str, list[int]] = {}  # the quote's tokens by their lower case, in order
    for j, q in enumerate(q_toks):
        at.setdefault(q.low, []).append(j)
    for i, tok in enumerate(s_toks):
        if tok.low in EN_NP_BOUNDARY or len(tok.low) < 2 or tok.low not in at:
            continue
        if i > 0:
            gap = statement[s_toks[i - 1].end : tok.start]
            if not gap.strip() and s_toks[i - 1].low not in EN_NP_BOUNDARY:
                continue  # the statement has its own modifier here
        for j in at[tok.low]:
            q = q_toks[j]
            mod = en_modifier_before(quote, q_toks, j)
            if mod is None or stem(mod.text) in s_stems or mod.low in statement.lower():
                continue
            hits.append(scope_hit(statement, tok, quote, (mod.start, q.end), mod.text, "quote"))
            break
    return hits


def scope_hit(statement: str, tok: Token, src: str, span: tuple[int, int], modifier: str, where: str) -> Hit:
    ja = is_japanese(modifier)
    sep = "" if ja else " "
    where_words = "quote" if where == "quote" else "source next to the quote"
    return Hit(
        Reason.OVERCLAIM_SCOPE if where == "quote" else Reason.OVERCLAIM_QUOTE_OMITS_HEDGE,
        "scope_dropped" if where == "quote" else "quote_omits_scope",
        (tok.start, tok.end),
        tok.text,
        span,
        src[span[0] : span[1]],
        where,
        statement[: tok.start] + modifier + sep + statement[tok.start :],
        f"the {where_words} restricts it to {src[span[0] : span[1]]!r} but the statement says "
        f"{tok.text!r}: the scope was widened",
    )


def scope_hits(statement: str, quote: str) -> list[Hit]:
    if not (states_quantity(quote) and states_quantity(statement)):
        return []
    return _ja_hits(statement, quote) if is_japanese(quote) else _en_hits(statement, quote)
