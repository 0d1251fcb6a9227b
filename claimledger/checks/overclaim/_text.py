"""Small text helpers shared by the overclaim rules: tokens, stems, Japanese runs, spans.

Everything works on the original strings so that spans index into them
directly; case is ignored by the regexes, not by rewriting the text.
"""

from __future__ import annotations

import functools
import re
import re._constants as _sre  # type: ignore[import-not-found]  # the parsed form of a pattern (match_ends)
import re._parser as _sre_parse  # type: ignore[import-not-found]
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from claimledger._exceptions import ClaimledgerError


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_KANA_KANJI = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
# A Japanese content run: kanji, katakana (with the long mark), Latin letters and full-width Latin.
JA_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff々〆ヵヶ\u30a1-\u30faー\uff21-\uff3a\uff41-\uff5aA-Za-z]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z']*(?:-[A-Za-z][A-Za-z']*)*")

# Particles and marks after which a Japanese noun phrase starts fresh (no modifier before it).
JA_BOUNDARY_CHARS = frozenset("はがをにへともやでか、。，．,.!?！？「」『』（）()[]【】・:：;； \t\n\u3000")

EN_STOPWORDS = _wordset(
    """a an the this that these those it its it's they them their there here of in on at by for to from
    with without into onto over under about as and or but nor so than then also too very much more most
    less least be been being is are was were am do does did doing have has had having will would shall
    should can could may might must not no never any some all each every which who whom whose what when
    where why how if whether while although though because since until upon per via we our us you your
    i me my he him his she her only just even still yet already again such both either neither other
    another same own one ones"""
)
EN_SKIP_ADVERB = re.compile(
    r"^(?:\w+ly|also|even|still|yet|further|then|thus|therefore|significantly)$", re.I
)


def any_of(patterns: Iterable[re.Pattern[str]]) -> re.Pattern[str]:
    """One pattern that matches (``search``, ``match``) wherever one of ``patterns`` does: a single
    scan decides whether the patterns need a look one by one. The patterns must use no
    backreferences (the union renumbers groups) and share their flags, but for ``re.IGNORECASE``:
    patterns that differ in it only keep it each in a scoped group, ``(?i:...)``."""
    pats = list(patterns)
    flags = {p.flags for p in pats}
    if any(_BACKREF.search(p.pattern) for p in pats):
        raise ClaimledgerError("any_of: the patterns must hold no backreference")
    if len(flags) == 1:
        return re.compile("|".join(f"(?:{p.pattern})" for p in pats), flags.pop())
    if {f & ~re.IGNORECASE for f in flags} != {re.UNICODE}:
        raise ClaimledgerError("any_of: the patterns must share their flags (re.IGNORECASE aside)")
    return re.compile(
        "|".join(f"(?i:{p.pattern})" if p.flags & re.IGNORECASE else f"(?:{p.pattern})" for p in pats)
    )


_BACKREF = re.compile(r"\\[1-9]|\(\?P=")


# The characters other than ASCII that a case-insensitive pattern matches to an ASCII letter and that
# str.lower() does not turn into that letter alone (tests/test_overclaim_prefilters.py finds every
# such character of the running Python): a text with one takes the patterns' path where a pre-test
# compares lower-cased text (hedges.may_hold_word_hedge, EndCues.may_match).
NOT_LOWERED = "\u0130\u0131\u017f"  # İ ı ſ


_ENDS_LIMIT = 5000  # strings enumerated per pattern at most (match_ends gives up beyond)
_SPACE = [(_sre.CATEGORY, _sre.CATEGORY_SPACE)]


class EndCues:
    """What end-anchored patterns (``...$``) can match at the end of a text, read once from them:
    :meth:`may_match` is False when none of them can match a text, from its last piece alone.

    A match of such a pattern ends at the end of the text or before a final newline, after its body
    and whitespace (``\\s``, ``str.rstrip`` and ``str.split`` take the same characters for
    whitespace), so the last whitespace-free piece of the body (:func:`match_ends`) ends the last piece
    of ``text.rstrip()``. The patterns may compare case-insensitively: ``str.lower()`` turns every
    character that one of their characters matches so into that character lower-cased, but for
    those of :data:`NOT_LOWERED` (tests/test_overclaim_around_fast.py tries every code point): a
    piece with one answers True. A pattern this cannot read (not end-anchored, or not of the shape
    :func:`match_ends` reads, or one that matches whitespace alone) makes :meth:`may_match` True
    for every text.
    """

    def __init__(self, patterns: Iterable[re.Pattern[str]]) -> None:
        ends: set[str] = set()
        readable = True
        for p in patterns:
            found = match_ends(p) if ends_at_end(p) else None
            if found is None or "" in found:
                readable = False
                break
            ends |= found
        by_last: dict[str, list[str]] = {}
        for e in sorted(ends):
            by_last.setdefault(e[-1], []).append(e)
        self.by_last: dict[str, tuple[str, ...]] | None = (
            {last: tuple(group) for last, group in by_last.items()} if readable else None
        )

    def may_match(self, text: str) -> bool:
        if self.by_last is None:
            return True
        body = text.rstrip()
        if not body:
            return False  # every match has a body that is not whitespace ("" is not among the ends)
        piece = body.rsplit(None, 1)[-1]
        if not piece.isascii() and any(c in piece for c in NOT_LOWERED):
            return True
        low = piece.lower()
        ends = self.by_last.get(low[-1])
        return ends is not None and low.endswith(ends)


def match_ends(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """The last whitespace-free piece of every match of ``pattern`` (lower-cased), or None when
    the pattern is not of the shape this reads.

    Reads the parsed pattern: literals, sets of literals, alternatives, groups, optional items
    (``x?``), ``\\s`` (alone or repeated: a separator between pieces), anchors (``\\b``, ``$``) and
    lookarounds (both ignored, so the strings are a superset of the matches' texts); anything else (``.``, ``\\w``,
    ranges, other repeats), or more than ``_ENDS_LIMIT`` strings, gives None. So a match of the
    pattern whose text, without trailing whitespace, is not empty ends in one of these pieces
    (compared case-insensitively as ``str.lower()`` does, see :meth:`EndCues.may_match`); an
    empty piece among them is kept (then every text ends in one).
    """
    texts = match_texts(pattern)
    if texts is None:
        return None
    return frozenset(t.rstrip().rsplit(" ", 1)[-1] for t in texts)


def match_texts(pattern: re.Pattern[str]) -> list[str] | None:
    """Every text ``pattern`` can match, lower-cased, each run of whitespace written as one space
    (a superset: anchors and lookarounds, which match no text, are left out), or None (see
    :func:`match_ends`)."""
    texts = _language(_sre_parse.parse(pattern.pattern, pattern.flags))
    return None if texts is None else [t.lower() for t in texts]


class InnerCues:
    """What patterns can match anywhere in a text, read once from them: :meth:`may_match` is False
    when none of them can match a text, because the text holds none of the longest
    whitespace-free pieces of their matches (:func:`match_texts`).

    Every piece of a match is a piece of the text; compared after ``str.lower()`` on both sides, as
    :class:`EndCues` does (and for the same reason: a text with a character of
    :data:`NOT_LOWERED` answers True). A pattern this cannot read, or one that can match
    whitespace or nothing, makes :meth:`may_match` True for every text.
    """

    def __init__(self, patterns: Iterable[re.Pattern[str]]) -> None:
        pieces: set[str] | None = set()
        for p in patterns:
            texts = match_texts(p)
            longest = None if texts is None else [max(t.split(" "), key=len) for t in texts]
            if longest is None or "" in longest or pieces is None:
                pieces = None
                break
            pieces.update(longest)
        # a piece that holds another is found only where that one is: the shorter one serves
        kept = None if pieces is None else [p for p in pieces if not any(q != p and q in p for q in pieces)]
        self.pieces: tuple[str, ...] | None = None if kept is None else tuple(sorted(kept))

    def may_match(self, text: str) -> bool:
        if self.pieces is None:
            return True
        if not text.isascii() and any(c in text for c in NOT_LOWERED):
            return True
        low = text.lower()
        return any(p in low for p in self.pieces)


def ends_at_end(pattern: re.Pattern[str]) -> bool:
    """Whether every match of ``pattern`` ends at the end of the text or before a final newline:
    its parsed form ends in ``$`` (or ``\\Z``) at the top level."""
    parsed = list(_sre_parse.parse(pattern.pattern, pattern.flags))
    if pattern.flags & re.MULTILINE or not parsed:
        return False
    return parsed[-1] in ((_sre.AT, _sre.AT_END), (_sre.AT, _sre.AT_END_STRING))


def _language(items: Iterable[tuple[Any, Any]]) -> list[str] | None:
    """Every text the parsed items match (whitespace as one space), or None (see match_ends)."""
    out = [""]
    for op, av in items:
        alts: list[str] | None
        if op is _sre.LITERAL:
            alts = [chr(av)]
        elif op is _sre.IN:
            alts = _in_set(av)
        elif op is _sre.AT or op is _sre.ASSERT or op is _sre.ASSERT_NOT:
            alts = [""]  # matches no text of its own
        elif op is _sre.BRANCH:
            alts = []
            for branch in av[1]:
                sub = _language(branch)
                if sub is None:
                    return None
                alts += sub
        elif op is _sre.SUBPATTERN:
            alts = _language(av[3])
        elif op is _sre.MAX_REPEAT or op is _sre.MIN_REPEAT:
            lo, hi, body = av
            if list(body) == [(_sre.IN, _SPACE)]:
                alts = [" "] if lo else ["", " "]
            elif hi == 1:
                sub = _language(body)
                alts = None if sub is None else ([] if lo else [""]) + sub
            else:
                return None
        else:
            return None
        if alts is None:
            return None
        out = [a + b for a in out for b in alts]
        if len(out) > _ENDS_LIMIT:
            return None
    return out


def _in_set(av: Any) -> list[str] | None:
    if av == _SPACE:
        return [" "]
    if isinstance(av, list) and all(o is _sre.LITERAL for o, _ in av):
        return [chr(c) for _, c in av]
    return None


def is_japanese(text: str) -> bool:
    """True when the text contains kana or kanji (an ASCII text, known without reading it, holds none)."""
    return not text.isascii() and _KANA_KANJI.search(text) is not None


def is_hiragana(ch: str) -> bool:
    return "\u3040" <= ch <= "\u309f"


def is_content_char(ch: str) -> bool:
    """Kanji, katakana or a Latin letter (the stuff Japanese noun phrases are made of)."""
    return JA_RUN.fullmatch(ch) is not None


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int

    @functools.cached_property
    def low(self) -> str:  # remembered on the token: the rules ask for it again and again
        return self.text.lower()


def words(text: str) -> list[Token]:
    """English word tokens (hyphenated compounds stay one token). A fresh list; the tokens are
    remembered, since every rule of a claim reads the same quote and statement again."""
    return list(_words(text))


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[Token, ...]:
    return tuple(Token(m.group(), m.start(), m.end()) for m in _WORD.finditer(text))


def stem(word: str) -> str:
    """A crude, deterministic stem: lower case, the first five letters of longer words.

    ``reduce``, ``reduces``, ``reduced`` and ``reduction`` share ``reduc``. Crude on
    purpose: a stem only has to find the same word again in a sentence pair.
    """
    w = word.lower().strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 5:
        return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
    return w[:5]


def is_content_word(tok: Token) -> bool:
    low = tok.low
    return len(low) >= 3 and low not in EN_STOPWORDS and not EN_SKIP_ADVERB.match(low)


def next_content_word(toks: list[Token], after: int, limit: int = 4) -> Token | None:
    """The first content word starting at or after offset ``after`` (within ``limit`` tokens)."""
    seen = 0
    for tok in toks:
        if tok.start < after:
            continue
        if is_content_word(tok):
            return tok
        seen += 1
        if seen >= limit:
            return None
    return None


def stems_in(text: str) -> set[str]:
    """The stems of the content words of ``text`` (a fresh set; the stems are remembered)."""
    return set(_stems_in(text))


@functools.lru_cache(maxsize=4096)
def _stems_in(text: str) -> frozenset[str]:
    return frozenset(stem(t.text) for t in _words(text) if is_content_word(t))


def find_stem(toks: list[Token], target: str) -> Iterator[Token]:
    for tok in toks:
        if stem(tok.text) == target:
            yield tok


def ja_runs(text: str, min_len: int = 2) -> list[Token]:
    return [Token(m.group(), m.start(), m.end()) for m in JA_RUN.finditer(text) if len(m.group()) >= min_len]


def ja_anchor_before(text: str, pos: int, window: int = 10) -> Token | None:
    """The content run (two characters or more) nearest before ``pos``, within ``window`` chars.

    For 「生産性が向上する可能性がある」 and the position of 可能性 this is 向上.
    Stops at sentence punctuation; when the nearest run is a single character
    (駆け寄った) there is no reliable anchor and the answer is None.
    """
    lo = max(0, pos - window)
    segment = text[lo:pos]
    cut = max(segment.rfind(c) for c in "、。，,.!?！？")
    if cut >= 0:
        lo, segment = lo + cut + 1, segment[cut + 1 :]
    runs = [r for r in ja_runs(segment, min_len=1) if not _is_ja_number(r.text)]
    if not runs:
        return None
    r = runs[-1]
    if len(r.text) >= 2:
        return Token(r.text, lo + r.start, lo + r.end)
    # a one-kanji verb stem with its okurigana (増やす, 招いた, 下げ): take the inflected form
    tail = re.match(r"[ぁ-ゖ]*", segment[r.end :])
    okuri = tail.group() if tail else ""
    okuri = re.sub(r"(?:と|の|こと|ので|から|が|は)$", "", okuri)
    if not okuri or r.end + len(okuri) > len(segment):
        return None
    return Token(r.text + okuri, lo + r.start, lo + r.end + len(okuri))


def context_agrees(a: str, a_span: tuple[int, int], b: str, b_span: tuple[int, int], ja: bool) -> bool:
    """Do the words around ``a_span`` in ``a`` and around ``b_span`` in ``b`` overlap?

    A shared anchor word alone can be a coincidence; a shared neighbour makes it
    likely that both spans speak of the same thing.
    """
    if ja:
        def near_ja(text: str, span: tuple[int, int]) -> set[str]:
            seg = text[max(0, span[0] - 12) : span[0]] + " " + text[span[1] : span[1] + 12]
            # runs of two or more, and single kanji/katakana words (凧, 空, 船: captions are made of them)
            return {r.text for r in ja_runs(seg, min_len=1) if not _is_ja_number(r.text)}

        return bool(near_ja(a, a_span) & near_ja(b, b_span))

    def near_en(text: str, span: tuple[int, int]) -> set[str]:
        toks = words(text)
        idx = [i for i, t in enumerate(toks) if t.start < span[1] and span[0] < t.end]
        if not idx:
            idx = [min(range(len(toks)), key=lambda i: abs(toks[i].start - span[0]))] if toks else []
        if not idx:
            return set()
        lo, hi = max(0, idx[0] - 5), min(len(toks), idx[-1] + 6)
        return {stem(t.text) for t in toks[lo:hi] if is_content_word(t)} - {
            stem(t.text) for i, t in enumerate(toks) if i in idx
        }

    return bool(near_en(a, a_span) & near_en(b, b_span))


def ends_run(text: str, end: int) -> bool:
    """The Japanese span ending at ``end`` is not followed by more of the same word (重要 in 重要性)."""
    return end >= len(text) or not is_content_char(text[end])


def ja_anchor_after(text: str, pos: int, window: int = 8) -> Token | None:
    seg = text[pos : pos + window]
    for r in ja_runs(seg):
        if not _is_ja_number(r.text):
            return Token(r.text, pos + r.start, pos + r.end)
    return None


def _is_ja_number(run: str) -> bool:
    return all(ch in "〇一二三四五六七八九十百千万億兆" for ch in run)


def replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]
