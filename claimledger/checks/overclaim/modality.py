"""Modality, quantifier and negation rules (statement vs quote).

Each rule anchors its cue on a content word (the verb after "may", the noun
after "some", the predicate before 「可能性がある」) and only fires when the
statement uses that same word without the cue. A cue with no anchor in the
statement says nothing about the statement, so it raises nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from claimledger.checks.overclaim._hit import Hit
from claimledger.checks.overclaim._text import (
    Token,
    context_agrees,
    ends_run,
    find_stem,
    is_content_word,
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


_JA_DETERMINERS = frozenset(["一部の", "多くの", "ほとんどの", "大半の", "大部分の"])
_JA_AMOUNT = re.compile(r"多い|多かった|多数|少ない|少数|一部|大半|大部分|ほとんど|多く")
_JA_ADVERB_MODALS = frozenset(
    ["おそらく", "恐らく", "たぶん", "多分", "もしかしたら", "もしかすると", "ひょっとしたら", "ひょっとすると"]
)


# A hedge or a qualifier (the patterns _locally_hedged looks for), compiled once.
_LOCAL_SUPPRESS_EN = re.compile(MODAL_EN.pattern + "|" + QUALIFIER_EN.pattern, re.I)
_LOCAL_SUPPRESS_JA = re.compile(MODAL_JA.pattern + "|" + QUALIFIER_JA.pattern, re.I)


def _locally_hedged(statement: str, occ: tuple[int, int], ja: bool) -> bool:
    """A hedge or qualifier stands right next to this word of the statement."""
    suppress = _LOCAL_SUPPRESS_JA if ja else _LOCAL_SUPPRESS_EN
    if ja:
        window = statement[max(0, occ[0] - 8) : occ[1] + 14]
    else:
        toks = words(statement)
        idx = next((i for i, t in enumerate(toks) if t.start <= occ[0] < t.end + 1), None)
        if idx is None:
            return True
        lo, hi = toks[max(0, idx - 4)].start, toks[min(len(toks) - 1, idx + 1)].end
        window = statement[lo:hi]
    return suppress.search(window) is not None


def modality_hits(statement: str, quote: str) -> list[Hit]:
    ja = is_japanese(quote)
    if (MODAL_JA if ja else MODAL_EN).search(quote) is None and (ASSOC_JA if ja else ASSOC_EN).search(quote) is None:
        return []  # every hit is anchored on a hedge or an association word of the quote
    suppress = MODAL_SUPPRESS_JA if ja else MODAL_SUPPRESS_EN
    local = False
    if suppress.search(statement):
        # the statement hedges or attributes something: only a hedge it has fewer of than the quote,
        # over a word it restates with no hedge next to it, is dropped
        modal = MODAL_JA if ja else MODAL_EN
        if len(modal.findall(statement)) >= len(modal.findall(quote)):
            return []
        local = True
    hits: list[Hit] = []
    toks = words(quote)
    for m in (MODAL_JA if ja else MODAL_EN).finditer(quote):
        if ja and m.group() in _JA_ADVERB_MODALS:  # おそらく上がっている: the predicate follows
            anchor = (
                ja_anchor_after(quote, m.end(), 12) or ja_anchor_before(quote, m.start())
                or _ja_loose_after(quote, m.end())
            )  # fmt: skip
        else:
            anchor = ja_anchor_before(quote, m.start()) if ja else _anchor_en(quote, toks, m.end())
        if anchor is None:
            continue
        a_span = (anchor.start, anchor.end)
        occ = next((o for o in _occurrences(statement, anchor.text, ja) if context_agrees(statement, o, quote, a_span, ja)), None)
        if occ is None or (local and _locally_hedged(statement, occ, ja)):
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
    if not hits and not local:
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


def _quantifiers(text: str, ja: bool) -> list[tuple[int, int, int, frozenset[str]]]:
    """(level, start, end, anchors) for every quantifier cue; anchors are the words next to it.
    A fresh list; the cues are remembered (the quantifier and qualifier rules read the same texts)."""
    return list(_quantifiers_of(text, ja))


@functools.lru_cache(maxsize=4096)
def _quantifiers_of(text: str, ja: bool) -> tuple[tuple[int, int, int, frozenset[str]], ...]:
    table = QUANT_JA if ja else QUANT_EN
    out: list[tuple[int, int, int, frozenset[str]]] = []
    taken: list[tuple[int, int]] = []
    toks: list[Token] | None = None  # tokenized at the first English cue
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
                if toks is None:
                    toks = words(text)
                after = next_content_word(toks, m.end(), limit=3)
                if after is not None:
                    anchors.add(stem(after.text))
            taken.append(m.span())
            out.append((level, m.start(), m.end(), frozenset(anchors)))
    # "almost all" sits in level 3 and contains "all": drop the level-4 reading inside it
    return tuple(sorted(out, key=lambda t: t[1]))


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
    if qual.search(quote) is None:
        return []  # every hit is anchored on a qualifier of the quote
    local = False
    if qual.search(statement) or _quantifiers(statement, ja) or (MODAL_SUPPRESS_JA if ja else MODAL_SUPPRESS_EN).search(statement):
        # the statement qualifies something: only a qualifier it has fewer of than the quote,
        # over a word it restates with no qualifier or hedge next to it, is dropped
        if len(qual.findall(statement)) >= len(qual.findall(quote)):
            return []
        local = True
    toks = words(quote)
    for m in qual.finditer(quote):
        if ja and m.group() in _JA_DETERMINERS and (_quantifiers(statement, ja) or _JA_AMOUNT.search(statement)):
            continue  # 多くの学生 -> 学生は多い: the amount is said another way
        if ja:
            anchor = (
                ja_anchor_after(quote, m.end(), 12) or ja_anchor_before(quote, m.start(), 8)
                or _ja_loose_after(quote, m.end())
            )  # fmt: skip
        else:
            anchor = _anchor_en(quote, toks, m.end())
            if anchor is None:
                before = [t for t in toks if t.end <= m.start() and is_content_word(t)]
                anchor = before[-1] if before and m.start() - before[-1].end < 30 else None
        if anchor is None:
            continue
        a_span = (anchor.start, anchor.end)
        occ = next((o for o in _occurrences(statement, anchor.text, ja) if context_agrees(statement, o, quote, a_span, ja)), None)
        if occ is None or (local and _locally_hedged(statement, occ, ja)):
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
    """(cue start, cue end, anchor) for each verbal negation cue with an anchor word (a fresh list;
    the cues are remembered: the negation rule reads each text up to three times)."""
    return list(_negations_of(text, ja))


@functools.lru_cache(maxsize=4096)
def _negations_of(text: str, ja: bool) -> tuple[tuple[int, int, Token], ...]:
    if ja:
        clean = _blank(text, NOT_NEGATION_JA)
        out: list[tuple[int, int, Token]] = []
        for m in VERBAL_NEGATION_JA.finditer(clean):
            # 「追いかけているわけではない」「跳びついたのではない」: the clause before the cue is negated
            window = 12 if m.group().startswith(("わけ", "のでは", "んでは")) else 6
            anchor = ja_anchor_before(text, m.start(), window=window) or _ja_kana_predicate(text, m.start())
            if anchor is not None:
                out.append((m.start(), m.end(), anchor))
        return tuple(out)
    clean = _blank(text, NOT_NEGATION_EN)
    toks = words(text) if VERBAL_NEGATION_EN.search(clean) else []  # tokens only for a text with a cue
    out = []
    for m in VERBAL_NEGATION_EN.finditer(clean):
        anchor = next_content_word(toks, m.end(), limit=6)
        if (anchor is None or anchor.low in _LIGHT_VERBS) and (
            _AUX_BEFORE.search(text, 0, m.start()) or m.group().lower() in ("cannot", "n't")
        ):
            # "the insolation is not about the same as ...": the negated auxiliary's subject
            before = [t for t in toks if t.end <= m.start() and is_content_word(t) and t.low not in _LIGHT_VERBS]
            anchor = before[-1] if before and m.start() - before[-1].end < 40 else None
        if anchor is not None:
            out.append((m.start(), m.end(), anchor))
    return tuple(out)


_AUX_BEFORE = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|will|would|can|could|should|may|might|must)\s+$", re.I
)
_LIGHT_VERBS = frozenset(["get", "got", "make", "made", "take", "took", "give", "gave", "go", "went", "come", "came", "put", "set", "keep", "kept", "let", "help"])


def _ja_loose_after(text: str, pos: int) -> Token | None:
    """The three characters after an adverb (生けて in 一般に生けてある, 映って in おそらく映っている)."""
    seg = text[pos : pos + 12]
    cut = min((i for i in (seg.find(c) for c in "、。，,") if i >= 0), default=len(seg))
    seg = seg[:cut]
    lead = len(seg) - len(seg.lstrip(" 　"))
    word = seg[lead : lead + 3]
    if len(word) < 2:
        return None
    return Token(word, pos + lead, pos + lead + len(word))


def _ja_kana_predicate(text: str, pos: int) -> Token | None:
    """A kana-only predicate before a negation (わらってい|ません, のせられてい|ません), from its particle on."""
    lo = max(0, pos - 10)
    seg = text[lo:pos]
    cut = max(seg.rfind(c) for c in "をにがはでと、。，,")
    if cut >= 0:
        lo, seg = lo + cut + 1, seg[cut + 1 :]
    if len(seg) < 3 or not all("\u3040" <= c <= "\u309f" for c in seg):
        return None
    return Token(seg, lo, lo + len(seg))


@functools.lru_cache(maxsize=4096)
def _has_negation(text: str, ja: bool) -> bool:
    if ja:
        return NEGATION_JA.search(_blank(text, NOT_NEGATION_JA)) is not None
    return NEGATION_EN.search(_blank(text, NOT_NEGATION_EN)) is not None


def _unmatched(cues: list[tuple[int, int, Token]], other: str, ja: bool) -> list[tuple[int, int, Token]]:
    """The negations whose anchor ``other`` does not negate too."""
    negated = {a.text if ja else stem(a.text) for _c0, _c1, a in _negations(other, ja)}
    return [c for c in cues if (c[2].text if ja else stem(c[2].text)) not in negated]


def _all_restated(cues: list[tuple[int, int, Token]], text: str, other: str, ja: bool) -> bool:
    """Every negated anchor of ``text`` is negated in ``other`` too (a paraphrase, not a flip)."""
    return not _unmatched(cues, other, ja)


def negation_hits(statement: str, quote: str) -> list[Hit]:
    ja = is_japanese(quote)
    hits: list[Hit] = []
    if not _negations_of(quote, ja) and not _negations_of(statement, ja):
        return hits  # every hit is anchored on a verbal negation of one side
    # Polarity is compared when one side has no negation at all, or when one side has more
    # verbal negations than the other (then only over the words the other side does not negate):
    # with as many negations on both sides, a paraphrase moves them around too easily to tell a
    # flip from a rewording.
    s_neg, q_neg = _has_negation(statement, ja), _has_negation(quote, ja)
    if s_neg and q_neg:
        s_cues, q_cues = _negations(statement, ja), _negations(quote, ja)
        if len(s_cues) > len(q_cues):
            q_neg = _all_restated(s_cues, statement, quote, ja)
        elif len(s_cues) < len(q_cues):
            s_neg = _all_restated(q_cues, quote, statement, ja)
    for c0, c1, anchor in _unmatched(_negations(quote, ja), statement, ja) if not s_neg else []:
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
    for c0, c1, anchor in _unmatched(_negations(statement, ja), quote, ja) if not q_neg else []:
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
