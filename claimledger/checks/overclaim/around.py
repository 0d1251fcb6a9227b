"""The quote leaves out a hedge or qualifier that stands right next to it in the source.

Source 「約4倍」, quote 「4倍」; source "about 4 times", quote "4 times"; source
"may reduce errors", quote "reduce errors"; source 「向上する可能性がある」, quote
「向上する」; source 「言葉を扱う生成AI」, quote 「生成AI」. The quote is literally
in the source, so the literal check passes; the finding is raised when the
statement does not restore what the quote left out.
"""

from __future__ import annotations

import re

from claimledger.checks.overclaim import _text
from claimledger.checks.overclaim._hit import Hit
from claimledger.checks.overclaim._text import (
    EndCues,
    Token,
    any_of,
    is_japanese,
    ja_runs,
    replace_span,
    stem,
    stems_in,
    words,
)
from claimledger.checks.overclaim.figures import (
    _ANY_PREFIX,
    _ANY_SUFFIX,
    Num,
    finite_numbers,
    numbers_in,
    same_value,
)
from claimledger.checks.overclaim.lexicon import (
    CONTEXT_HEDGE_BEFORE_JA,
    CONTEXT_MODAL_AFTER_EN,
    CONTEXT_MODAL_AFTER_JA,
    CONTEXT_MODAL_BEFORE_EN,
    CONTEXT_MODAL_BEFORE_EN_WORDS,
    CONTEXT_NEGATION_AFTER_JA,
    CONTEXT_NEGATION_BEFORE_EN,
    CONTEXT_NEGATION_BEFORE_EN_WORDS,
    EN_NP_BOUNDARY,
    MODAL_SUPPRESS_EN,
    MODAL_SUPPRESS_JA,
    NEGATION_EN,
    NEGATION_JA,
    NON_RESTRICTIVE_EN,
    NOT_NEGATION_EN,
    NOT_NEGATION_JA,
    NUM_PREFIX,
    NUM_PREFIX_WORDS,
    NUM_SUFFIX,
    QUALIFIER_EN,
    QUALIFIER_JA,
    RESTRICTIVE_EN,
)
from claimledger.checks.overclaim.scope import (
    en_modifier_before,
    ja_mentions,
    ja_modifier_before,
    scope_hit,
    states_quantity,
)
from claimledger.model.finding import Reason
from claimledger.normalize import normalize, normalize_quote

_REASON = Reason.OVERCLAIM_QUOTE_OMITS_HEDGE


def locate(quote: str, context: str) -> tuple[int, int] | None:
    """The span of ``quote`` in ``context`` (exact, then after typographic normalization)."""
    q = quote.strip()
    if not q:
        return None
    pos = context.find(q)
    if pos >= 0:
        return pos, pos + len(q)
    nc = normalize(context)
    nq = normalize_quote(q)  # normalize(q).text.strip(), remembered: the scan normalized the same quote
    pos = nc.text.find(nq)
    if pos < 0 or not nq:
        return None
    return nc.to_original(pos, pos + len(nq))


def _parts(words: tuple[str, ...]) -> int:
    """How many whitespace-separated pieces a match of one of ``words`` (regex alternatives whose only
    whitespace is matched by ``\\s`` atoms) can span: one more than the most ``\\s`` in one of them."""
    return 1 + max(w.count(r"\s") for w in words)


# The patterns read at the end of the text before a quote match a body that ends in a non-space
# character, then only whitespace to the end: words (the alternatives above), a symbol or Japanese
# words (one piece, no whitespace inside). A match starts at the earliest at the start of the
# last _parts pieces of that text (_tail): the search starts there (the same match: the leftmost).
_PREFIX_PARTS = max(_parts(words) for words in NUM_PREFIX_WORDS.values())
_MODAL_PARTS = _parts(CONTEXT_MODAL_BEFORE_EN_WORDS)
_NEGATION_PARTS = _parts(CONTEXT_NEGATION_BEFORE_EN_WORDS)

# Every pattern _number_hits and _modal_hits look for right before a quote (anchored at the end of
# that text) and right after it (read with ``match``): one look at the last piece before the quote
# (EndCues) and one match after it decide in around_hits that neither rule can fire.
_BEFORE_CUES = EndCues(
    [*NUM_PREFIX.values(), CONTEXT_MODAL_BEFORE_EN, CONTEXT_NEGATION_BEFORE_EN, CONTEXT_HEDGE_BEFORE_JA]
)
_ANY_AFTER = any_of(
    [*NUM_SUFFIX.values(), CONTEXT_MODAL_AFTER_EN, CONTEXT_MODAL_AFTER_JA, CONTEXT_NEGATION_AFTER_JA]
)


def _tail(text: str, parts: int) -> int:
    """The start of the ``parts``-th last whitespace-separated piece of ``text`` (0 when it has no more
    pieces): where a match that ends at the end of ``text`` and spans at most ``parts`` pieces, the
    last one ending in a non-space character, starts at the earliest."""
    pieces = text.split()
    if len(pieces) <= parts:
        return 0
    pos = len(text.rstrip())
    for i in range(1, parts + 1):
        pos -= len(pieces[-i])  # the start of this piece
        if i < parts:
            pos = len(text[:pos].rstrip())  # the end of the piece before it
    return pos


def _number_hits(statement: str, quote: str, ctx: str, span: tuple[int, int]) -> list[Hit]:
    hits: list[Hit] = []
    before, after = ctx[max(0, span[0] - 40) : span[0]], ctx[span[1] : span[1] + 20]
    # a hit needs a hedge pattern right before or after the quote (the loops below look for one of
    # them): without one, nothing to parse, unless the parse could raise (finite_numbers)
    if (_ANY_PREFIX.search(before, _tail(before, _PREFIX_PARTS)) is None and _ANY_SUFFIX.match(after) is None
            and finite_numbers(quote) and finite_numbers(statement)):  # fmt: skip
        return hits
    q_nums = numbers_in(quote)
    s_nums = numbers_in(statement)
    if not q_nums or not s_nums:
        return hits
    edge: list[tuple[Num, str, tuple[int, int]]] = []
    first, last = q_nums[0], q_nums[-1]
    if not quote[: first.start].strip() and not first.hedges:
        for pat in NUM_PREFIX.values():
            m = pat.search(before)
            if m:
                cue_span = (span[0] - (len(before) - m.start()), span[0])
                edge.append((first, ctx[cue_span[0] : cue_span[1]].strip(), cue_span))
                break
    if not quote[last.end :].strip() and not last.hedges:
        for pat in NUM_SUFFIX.values():
            m = pat.match(after)
            if m:
                cue_span = (span[1], span[1] + m.end())
                edge.append((last, ctx[cue_span[0] : cue_span[1]].strip(), cue_span))
                break
    for q, cue, cue_span in edge:
        for s in s_nums:
            if not same_value(s, q) or s.hedges:
                continue
            ja = is_japanese(cue)
            if cue_span[0] < span[0]:
                fixed = cue + ("" if ja else " ") + s.text
            else:
                fixed = s.text + ("" if ja else " ") + cue
            src = (min(cue_span[0], span[0]), max(cue_span[1], span[1]))
            hits.append(
                Hit(
                    _REASON, "quote_omits_hedge",
                    (s.start, s.end), s.text, src, ctx[src[0] : src[1]], "source_context",
                    replace_span(statement, s.start, s.end, fixed),
                    f"the source says {cue!r} right next to the quoted {q.text!r}; the quote leaves it out "
                    f"and the statement says {s.text!r}",
                )
            )  # fmt: skip
            break
    return hits


_ANY_HEDGE_EN = re.compile(
    r"\b(?:about|approximately|approx|around|roughly|nearly|almost|estimated|circa|up\s+to|at\s+(?:least|most)|"
    r"more\s+than|less\s+than|fewer\s+than|over|under|some)\b",
    re.I,
)
_ANY_HEDGE_JA = re.compile(r"約|およそ|凡そ|おおよそ|ほぼ|概ね|おおむね|だいたい|大体|程度|前後|ほど|くらい|ぐらい|以上|以下|未満|近く")


def _restores(statement: str, cue: str, ja: bool, kind: str, quote: str = "") -> bool:
    """Does the statement keep the omitted cue (or a hedge, qualifier or negation of its own)?

    Only the words outside the quote count: a hedge inside the quote is another
    hedge, and a quote standing for itself (no statement) restores nothing.
    """
    q = quote.strip()
    if q and q in statement:
        statement = statement.replace(q, " ")
    if cue.strip(" 、,").casefold() in statement.casefold():
        return True
    if kind == "negation":
        s_clean = (NOT_NEGATION_JA if ja else NOT_NEGATION_EN).sub(" ", statement)
        return (NEGATION_JA if ja else NEGATION_EN).search(s_clean) is not None
    if ja:
        pats = (MODAL_SUPPRESS_JA, QUALIFIER_JA, _ANY_HEDGE_JA)
    else:
        pats = (MODAL_SUPPRESS_EN, QUALIFIER_EN, _ANY_HEDGE_EN)
    return any(p.search(statement) for p in pats)


def _modal_hits(statement: str, quote: str, ctx: str, span: tuple[int, int]) -> list[Hit]:
    ja = is_japanese(quote)
    before, after = ctx[max(0, span[0] - 40) : span[0]], ctx[span[1] : span[1] + 20]
    hits: list[Hit] = []
    b0, a0 = span[0] - len(before), span[1]
    if ja:
        checks = [
            ("modality", CONTEXT_MODAL_AFTER_JA.match(after), a0),
            ("negation", CONTEXT_NEGATION_AFTER_JA.match(after), a0),
            ("modality", CONTEXT_HEDGE_BEFORE_JA.search(before), b0),
        ]
    else:
        checks = [
            ("modality", CONTEXT_MODAL_BEFORE_EN.search(before, _tail(before, _MODAL_PARTS)), b0),
            ("negation", CONTEXT_NEGATION_BEFORE_EN.search(before, _tail(before, _NEGATION_PARTS)), b0),
            ("modality", CONTEXT_MODAL_AFTER_EN.match(after), a0),
        ]
    for kind, m, base in checks:
        if m is None:
            continue
        cue_span = (base + m.start(), base + m.end())
        cue = ctx[cue_span[0] : cue_span[1]].strip()
        if _restores(statement, cue, ja, kind, quote):
            continue
        if statement.strip() != quote.strip() and not _statement_uses_quote(statement, quote):
            return hits
        src = (min(cue_span[0], span[0]), max(cue_span[1], span[1]))
        occ = _statement_anchor(statement, quote, at_end=base == a0)
        hits.append(
            Hit(
                _REASON, f"quote_omits_{kind}",
                occ, statement[occ[0] : occ[1]] if occ else "", src, ctx[src[0] : src[1]], "source_context",
                f"quote the qualifier too: {ctx[src[0]:src[1]].strip()!r}",
                f"the source says {ctx[src[0]:src[1]].strip()!r}; the quote leaves out {cue!r} "
                f"({'a hedge or qualifier' if kind == 'modality' else 'a negation'}) and the statement does not "
                "restore it",
            )
        )  # fmt: skip
    return hits


def _statement_anchor(statement: str, quote: str, at_end: bool) -> tuple[int, int] | None:
    """Where the statement restates the quoted words next to the omitted cue."""
    if is_japanese(quote):
        runs = ja_runs(quote)
        for r in reversed(runs) if at_end else runs:
            pos = statement.find(r.text)
            if pos >= 0:
                return pos, pos + len(r.text)
        return None
    toks = [t for t in words(quote) if len(t.text) >= 3]
    s_toks = words(statement)
    for t in reversed(toks) if at_end else toks:
        for st in s_toks:
            if stem(st.text) == stem(t.text):
                return st.start, st.end
    return None


def _statement_uses_quote(statement: str, quote: str) -> bool:
    """The statement restates the quote (shares most of its content words)."""
    if is_japanese(quote):
        runs = {r.text for r in ja_runs(quote)}
        return bool(runs) and sum(r in statement for r in runs) >= max(1, len(runs) // 2)
    q = {stem(t.text) for t in words(quote) if len(t.text) >= 3}
    return bool(q) and len(q & stems_in(statement)) >= max(1, len(q) // 2)


def _scope_hits(statement: str, quote: str, ctx: str, span: tuple[int, int]) -> list[Hit]:
    # The modifier before the quote is looked for first (it reads a few characters of the context);
    # whether both texts state a quantity only when there is one (the same answer, in another order).
    if is_japanese(quote):
        found = ja_modifier_before(ctx, span[0])
        if found is None or not (states_quantity(quote) and states_quantity(statement)):
            return []
        mod_start, modifier = found
        runs = ja_runs(quote.strip()[:8])
        if not runs or runs[0].start != 0:
            return []
        head_text = runs[0].text
        if ja_mentions(statement, modifier) or head_text not in statement:
            return []
        pos = statement.find(head_text)
        return [scope_hit(statement, Token(head_text, pos, pos + len(head_text)), ctx,
                     (mod_start, span[0] + len(head_text)), modifier, "source_context")]  # fmt: skip
    at = _modifier_at(ctx, span[0])
    if at is None or not (states_quantity(quote) and states_quantity(statement)):
        return []
    mod, head = at
    if stem(mod.text) in stems_in(statement):
        return []
    s_tok = next((t for t in words(statement) if t.low == head.low), None)
    if s_tok is None:
        return []
    return [scope_hit(statement, s_tok, ctx, (mod.start, head.end), mod.text, "source_context")]


def _tokens_at(text: str, pos: int) -> tuple[list[Token], int] | None:
    """The English word token of ``text`` that starts at ``pos`` with the token before it, as
    ``(tokens, index)`` such that ``tokens[index]`` and ``tokens[index - 1]`` are
    ``words(text)[i]`` and ``words(text)[i - 1]`` for the ``i`` with ``words(text)[i].start == pos``
    (all that :func:`en_modifier_before` reads); None when no token starts at ``pos``.

    No token holds a whitespace character and the token pattern looks neither behind nor at the
    string's ends, so after whitespace the tokens are those of a scan started there: the token
    at ``pos`` (after whitespace) is the pattern's match at ``pos``, and the token before it is the
    last of the whitespace-free run before that whitespace, when it ends the run. When it does not
    (or there is none), a non-space character stands between the two tokens and
    :func:`en_modifier_before` answers None whichever token it is: the run's last token serves.
    Anywhere else (``pos`` not after whitespace) the whole text is tokenized.
    """
    if pos > 0 and not text[pos - 1].isspace():
        toks = words(text)
        idx = next((i for i, t in enumerate(toks) if t.start == pos), None)
        return None if idx is None else (toks, idx)
    m = _text._WORD.match(text, pos)
    if m is None:
        return None
    head = Token(m.group(), m.start(), m.end())
    end = len(text[:pos].rstrip())  # the end of the whitespace-free run before the space
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    before = [Token(t.group(), t.start(), t.end()) for t in _text._WORD.finditer(text, start, end)]
    if not before:
        # no token in the run: either none at all before pos (index 0), or one further back with
        # non-space text between: None from en_modifier_before in both cases, as with index 0
        return [head], 0
    return [before[-1], head], 1


def _modifier_at(text: str, pos: int) -> tuple[Token, Token] | None:
    """``(modifier, head)``: the English modifier that :func:`en_modifier_before` finds before the
    token at ``pos`` (read by :func:`_tokens_at`) and that token; None when there is none. The same
    answer without building the tokens where the rule cannot find one (tests/test_overclaim_around_fast.py
    compares both at every position of real and generated texts):

    * ``text[pos - 1]`` is not whitespace (or ``pos`` is 0): no token ends at ``pos`` (a token
      ending there would have taken the letter at ``pos``), so the gap between the token at ``pos``
      and the one before it holds that character and is not blank (or there is no token before):
      None;
    * otherwise the token before is the last token of the whitespace-free run before that
      whitespace, and the rule reads it only when it ends the run (else the gap holds the run's
      rest), answers None for a capitalised head or a listed boundary or non-restrictive word, and
      with the token only when it is hyphenated, a listed restrictive word, or capitalised (but not
      all capitals): a token that is none of these gives None.

    Past these tests the rule itself runs (:func:`_tokens_at`, :func:`en_modifier_before`).
    """
    if pos == 0 or not text[pos - 1].isspace():
        return None
    m = _text._WORD.match(text, pos)
    if m is None:
        return None
    head = m.group()
    if head[:1].isupper() and not head.isupper():
        return None
    lead = text[:pos].rstrip()
    piece = lead.rsplit(None, 1)[-1] if lead else ""  # the whitespace-free run before the space
    found = _text._WORD.findall(piece)
    last = found[-1] if found else ""
    low = last.lower()
    if not last or not piece.endswith(last) or low in EN_NP_BOUNDARY or low in NON_RESTRICTIVE_EN:
        return None
    if not ("-" in low or low in RESTRICTIVE_EN or (last[:1].isupper() and not last.isupper())):
        return None
    near = _tokens_at(text, pos)
    if near is None:
        return None
    toks, idx = near
    mod = en_modifier_before(text, toks, idx)
    return None if mod is None else (mod, toks[idx])


def around_hits(statement: str, quote: str, source_context: str) -> list[Hit]:
    span = locate(quote, source_context)
    if span is None:
        return []
    before = source_context[max(0, span[0] - 40) : span[0]]
    if (not _BEFORE_CUES.may_match(before) and _ANY_AFTER.match(source_context[span[1] : span[1] + 20]) is None
            and finite_numbers(quote) and finite_numbers(statement)):  # fmt: skip
        # no hedge, modal or negation cue next to the quote: neither _number_hits nor _modal_hits
        # can fire (each looks for one of these cues first, and parses nothing without one)
        return _scope_hits(statement, quote, source_context, span)
    hits = _number_hits(statement, quote, source_context, span)
    hits += _modal_hits(statement, quote, source_context, span)
    hits += _scope_hits(statement, quote, source_context, span)
    return hits
