"""Mutation families: typography-only variants (must verify) and content changes (must not).

Each function takes the passage text (and a seeded ``random.Random``) and
returns the variant, or None when the family does not apply to this passage
(no quote mark to curl, no figure to change, ...). Content changes are
checked afterwards against the cited document with :func:`passages.loose`;
a change that happens to occur in the document anyway is dropped.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable

from evaluation.passages import EN_HEDGES, JA_HEDGES, JA_NUMERALS, TOKEN, is_ja_char

MUST_VERIFY = (
    "verbatim",
    "whitespace",
    "curly_quotes",
    "full_width",
    "ligature_quote",
    "hyphen_quote",
    "hyphen_source",
    "ligature_source",
    "pdf",
)
MUST_NOT = (
    "word_changed",
    "number_changed",
    "digits_swapped",
    "negation_inserted",
    "word_dropped",
    "hedge_dropped",
    "spliced",
    "misattributed",
    "too_short",
    "cut_inside",
)
EXPECTED_REASON = {"misattributed": "quote_misattributed", "too_short": "quote_too_short"}

_EN_WS = [" ", "  ", "\n", "\t", " \n", "\r\n", "\u00a0", "\u2009", "\n\n"]
_JA_WS = [" ", "\n", "\u3000", "\r\n"]
_LIGATURES = [("ffi", "\ufb03"), ("ffl", "\ufb04"), ("ff", "\ufb00"), ("fi", "\ufb01"), ("fl", "\ufb02")]
_EN_AUX = re.compile(
    r"\b(?:is|are|was|were|has|have|had|can|will|would|should|could|may|might|must|does|do|did)\b"
)
_JA_NEGATIONS = [
    ("ています", "ていません"),
    ("ている", "ていない"),
    ("ました", "ませんでした"),
    ("ます", "ません"),
    ("である", "ではない"),
    ("あった", "なかった"),
    ("ある", "ない"),
    ("いる", "いない"),
    ("した", "しなかった"),
    ("する", "しない"),
]
_JA_TOKEN = re.compile("[\u3400-\u9fff々]+|[\u30a1-\u30fa\u30fc]+")
_HALF_KANA: dict[str, str] = {}
for _cp in range(0xFF66, 0xFF9E):
    _full = unicodedata.normalize("NFKC", chr(_cp))
    if len(_full) == 1:
        _HALF_KANA.setdefault(_full, chr(_cp))


def _tokens(text: str) -> list[re.Match[str]]:
    return list(TOKEN.finditer(text))


def _core(tok: str) -> tuple[int, int]:
    """Span of the alphabetic core of a token (punctuation stripped)."""
    m = re.search(r"[A-Za-z]+(?:'[A-Za-z]+)?", tok)
    return (m.start(), m.end()) if m else (0, 0)


# ---------------------------------------------------------------- must verify


def whitespace(text: str, lang: str, rng: random.Random) -> str | None:
    if lang == "en":
        out = re.sub(r"\s+", lambda m: _en_space(m, text, rng), text)
        return rng.choice(["", " ", "\n"]) + out + rng.choice(["", " ", "\n"])
    slots = [i for i in range(1, len(text)) if is_ja_char(text[i - 1]) or is_ja_char(text[i])]
    if not slots:
        return None
    chosen = sorted(rng.sample(slots, min(3, len(slots))), reverse=True)
    out = text
    for i in chosen:
        out = out[:i] + rng.choice(_JA_WS) + out[i:]
    return out


def _en_space(m: re.Match[str], text: str, rng: random.Random) -> str:
    before = text[m.start() - 1] if m.start() else ""
    if before in "-\u2010":  # "pre- and": a line break here would read as PDF hyphenation
        return m.group()
    return rng.choice(_EN_WS)


def curly_quotes(text: str, lang: str, rng: random.Random) -> str:
    out: list[str] = []
    opened = False
    for i, ch in enumerate(text):
        prev = text[i - 1] if i else " "
        if ch == "'":
            out.append("\u2018" if prev.isspace() else "\u2019")
        elif ch == '"':
            out.append("\u201d" if opened else "\u201c")
            opened = not opened
        elif ch in "\u2018\u2019\u201b":
            out.append("'")
        elif ch in "\u201c\u201d":
            out.append('"')
        else:
            out.append(ch)
    changed = "".join(out)
    if changed == text or rng.random() < 0.3:
        return ("\u300c" + changed + "\u300d") if lang == "ja" else ("\u201c" + changed + "\u201d")
    return changed


def _to_full(ch: str) -> str:
    return chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch


def full_width(text: str, lang: str, rng: random.Random) -> str | None:
    if lang == "en":
        toks = _tokens(text)
        if len(toks) < 2:
            return None
        k = rng.randint(2, min(6, len(toks)))
        first = rng.randint(0, len(toks) - k)
        a, b = toks[first].start(), toks[first + k - 1].end()
        space = "\u3000" if rng.random() < 0.5 else " "
        middle = "".join(space if ch.isspace() else _to_full(ch) for ch in text[a:b])
        return text[:a] + middle + text[b:]
    out = []
    for ch in text:
        if ch.isascii() and ch.isalnum():
            out.append(_to_full(ch))
        elif "\uff10" <= ch <= "\uff5a" and ch.isalnum():
            out.append(chr(ord(ch) - 0xFEE0))
        else:
            out.append(_half_kana(ch))
    changed = "".join(out)
    return changed if changed != text else None


def _half_kana(ch: str) -> str:
    if ch in _HALF_KANA:
        return _HALF_KANA[ch]
    base = unicodedata.normalize("NFD", ch)
    if len(base) == 2 and base[0] in _HALF_KANA and base[1] in "\u3099\u309a":
        return _HALF_KANA[base[0]] + ("\uff9e" if base[1] == "\u3099" else "\uff9f")
    return ch


def ligatures(text: str) -> str | None:
    out = text
    for plain, lig in _LIGATURES:
        out = out.replace(plain, lig)
    return out if out != text else None


def hyphen_break_at(text: str, rng: random.Random) -> int | None:
    """A position inside an alphabetic word of 6+ letters where a line-break hyphen can go."""
    words = [m for m in re.finditer(r"[A-Za-z]{6,}", text)]
    if not words:
        return None
    w = words[rng.randrange(len(words))]
    return w.start() + rng.randint(2, len(w.group()) - 3) + 1


def hyphen_quote(text: str, lang: str, rng: random.Random) -> str | None:
    if lang != "en":
        return None
    at = hyphen_break_at(text, rng)
    return None if at is None else text[:at] + "-\n" + text[at:]


# ---------------------------------------------------------------- must not verify


def word_changed(text: str, lang: str, rng: random.Random, vocab: list[str]) -> str | None:
    if lang == "en":
        toks = [t for t in _tokens(text) if _core(t.group())[1] - _core(t.group())[0] >= 3]
        if not toks or not vocab:
            return None
        t = toks[rng.randrange(len(toks))]
        a, b = _core(t.group())
        old = t.group()[a:b]
        choices = [w for w in vocab if w.lower() != old.lower()]
        new = choices[rng.randrange(len(choices))]
        return text[: t.start() + a] + new + text[t.start() + b :]
    spans = list(_JA_TOKEN.finditer(text))
    if not spans:
        return None
    t = spans[rng.randrange(len(spans))]
    same = [w for w in vocab if w != t.group() and bool(_JA_TOKEN.fullmatch(w))]
    if not same:
        return None
    return text[: t.start()] + same[rng.randrange(len(same))] + text[t.end() :]


def _digit_positions(text: str) -> list[int]:
    return [
        i for i, ch in enumerate(text) if unicodedata.digit(ch, None) is not None or ch in JA_NUMERALS[:10]
    ]


def number_changed(text: str, lang: str, rng: random.Random) -> str | None:
    pos = _digit_positions(text)
    if not pos:
        return None
    i = pos[rng.randrange(len(pos))]
    ch = text[i]
    if ch in JA_NUMERALS[:10]:
        new = rng.choice([c for c in JA_NUMERALS[1:10] if c != ch])
    else:
        d = unicodedata.digit(ch)
        zero = ord(ch) - d
        new = chr(zero + rng.choice([x for x in range(10) if x != d]))
    return text[:i] + new + text[i + 1 :]


def digits_swapped(text: str, lang: str, rng: random.Random) -> str | None:
    pairs = [
        i
        for i in range(len(text) - 1)
        if text[i].isdigit() and text[i + 1].isdigit() and text[i] != text[i + 1]
    ]
    if not pairs:
        return None
    i = pairs[rng.randrange(len(pairs))]
    return text[:i] + text[i + 1] + text[i] + text[i + 2 :]


def negation_inserted(text: str, lang: str, rng: random.Random) -> str | None:
    if lang == "en":
        m = _EN_AUX.search(text)
        if m:
            return text[: m.end()] + " not" + text[m.end() :]
        toks = _tokens(text)
        t = toks[rng.randrange(1, len(toks))] if len(toks) > 1 else toks[0]
        return text[: t.start()] + "not " + text[t.start() :]
    for old, new in _JA_NEGATIONS:
        i = text.find(old)
        if i >= 0:
            return text[:i] + new + text[i + len(old) :]
    return text + "ではない"


def word_dropped(text: str, lang: str, rng: random.Random) -> str | None:
    if lang == "en":
        toks = _tokens(text)
        if len(toks) < 4:
            return None
        t = toks[rng.randint(1, len(toks) - 2)]
        return text[: toks[toks.index(t) - 1].end()] + text[t.end() :]
    spans = [m for m in _JA_TOKEN.finditer(text) if m.start() > 0 and m.end() < len(text)]
    if not spans:
        return None
    t = spans[rng.randrange(len(spans))]
    return text[: t.start()] + text[t.end() :]


def hedge_dropped(text: str, lang: str, rng: random.Random) -> str | None:
    m = EN_HEDGES.search(text) if lang == "en" else JA_HEDGES.search(text)
    if m is None:
        return None
    return text[: m.start()] + text[m.end() :]


def spliced(text: str, other: str, lang: str) -> str | None:
    if lang == "en":
        a, b = _tokens(text), _tokens(other)
        if len(a) < 4 or len(b) < 4:
            return None
        return text[: a[len(a) // 2 - 1].end()] + " " + other[b[len(b) // 2].start() :]
    return text[: len(text) // 2] + other[len(other) // 2 :]


def too_short(text: str, lang: str, rng: random.Random) -> str | None:
    if lang == "en":
        cores = []
        for t in _tokens(text):
            a, b = _core(t.group())
            if 4 <= b - a <= 7:
                cores.append(t.group()[a:b])
        return cores[rng.randrange(len(cores))] if cores else None
    n = rng.randint(3, 6)
    starts = [i for i in range(len(text) - n + 1) if not any(c.isspace() for c in text[i : i + n])]
    if not starts:
        return None
    i = starts[rng.randrange(len(starts))]
    return text[i : i + n]


def cut_inside(text: str, lang: str, rng: random.Random) -> str | None:
    """A substring of the passage that starts inside a number (``137`` -> ``37 ...``) or, in
    English, ends inside a word: literally present, yet not what the source says."""
    m = re.search(r"\d{2,}", text)
    if m is not None and len(text) - (m.start() + 1) >= 10:
        return text[m.start() + 1 :]
    if lang != "en":
        return None
    words = list(re.finditer(r"[A-Za-z]{6,}", text))
    if not words:
        return None
    w = words[-1]
    return text[: w.end() - 2] if w.end() - 2 >= 10 else None


Mutator = Callable[[str, str, random.Random], str | None]
SIMPLE: dict[str, Mutator] = {
    "whitespace": whitespace,
    "curly_quotes": curly_quotes,
    "full_width": full_width,
    "ligature_quote": lambda t, lang, rng: ligatures(t) if lang == "en" else None,
    "hyphen_quote": hyphen_quote,
    "number_changed": number_changed,
    "digits_swapped": digits_swapped,
    "negation_inserted": negation_inserted,
    "word_dropped": word_dropped,
    "hedge_dropped": hedge_dropped,
    "too_short": too_short,
    "cut_inside": cut_inside,
}
