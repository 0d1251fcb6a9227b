"""Read the scope slots of one text (a question, a draft sentence or a source passage).

Rule-based, English and Japanese: who is counted (population, the unit of
analysis), where (place), when (period), what kind of figure (measure: share,
count, growth, average, points) and whether the wording is causal or
correlational (design). Nothing here guesses: a slot the text does not state
is ``None``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from claimledger.checks.scope import lexicon as lx

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]")


def is_japanese(text: str) -> bool:
    letters = [ch for ch in text if ch.isalnum()]
    if not letters:
        return False
    return sum(1 for ch in letters if _CJK.match(ch)) * 5 >= len(letters)


def fold(text: str) -> str:
    """NFKC (full-width digits and %, half-width katakana) with the length kept where it can be."""
    return unicodedata.normalize("NFKC", text)


@dataclass(frozen=True)
class Mention:
    """One slot value found in a text: a class id (population, place) and the words that said it."""

    value: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Period:
    years: frozenset[int]
    fiscal: bool
    text: str
    mentions: int = 1  # how many year expressions the text has

    def label(self) -> str:
        return self.text


@dataclass(frozen=True)
class Figure:
    """A number and the kind of measure it is (share, growth, count, average, points)."""

    value: float
    measure: str
    text: str


@dataclass(frozen=True)
class Slots:
    population: Mention | None = None
    places: tuple[Mention, ...] = ()
    period: Period | None = None
    figures: tuple[Figure, ...] = ()
    design: str | None = None  # causal | correlational | experimental
    design_text: str | None = None
    sample: bool = False  # the text defines who a survey asked
    populations: tuple[Mention, ...] = field(default=(), compare=False)

    def empty(self) -> bool:
        return not (self.population or self.places or self.period or self.figures or self.design)


# ---------------------------------------------------------------- population

_JA_TERMS = sorted(lx.POPULATION_JA, key=len, reverse=True)
_JA_POP = re.compile("|".join(re.escape(t) for t in _JA_TERMS))
_JA_FIRM_COUNTER = re.compile(r"\d[\d,.]*\s*(?:万|千|百)?\s*社(?![会内長員外是])")
_EN_TERMS = sorted(lx.POPULATION_EN, key=len, reverse=True)
_EN_POP = re.compile(
    r"(?<![\w-])(?:" + "|".join(re.escape(t) for t in _EN_TERMS) + r")(?![\w-])", re.IGNORECASE
)


def populations(text: str) -> list[Mention]:
    """Every population word of ``text`` used as who is counted (not 個人として, 'as individuals')."""
    t = fold(text)
    out: list[Mention] = []
    if is_japanese(t):
        for m in _JA_POP.finditer(t):
            word = m.group(0)
            after, before = t[m.end() : m.end() + 6], t[max(0, m.start() - 2) : m.start()]
            if lx.JA_NOT_POPULATION_AFTER.match(after) or lx.JA_NOT_POPULATION_BEFORE.search(before):
                continue
            if word in ("社員", "会社") and before.endswith(("入", "出", "子", "親", "本")):
                continue
            out.append(Mention(lx.POPULATION_JA[word], word, m.start(), m.end()))
        for m in _JA_FIRM_COUNTER.finditer(t):
            out.append(Mention("firm", m.group(0), m.start(), m.end()))
        out.sort(key=lambda x: x.start)
    for m in _EN_POP.finditer(t):
        before = t[max(0, m.start() - 20) : m.start()]
        if lx.EN_NOT_POPULATION_BEFORE.search(before):
            continue
        word = m.group(0)
        low = word.lower()
        out.append(Mention(lx.POPULATION_EN[low], word, m.start(), m.end()))
    return out


_NUMBER = re.compile(
    r"\d[\d,.]*\s*(?:%|パーセント|割|ポイント|倍|人|社|件|名|percent|per cent)|\b(?:half|third|quarter|majority)\b",
    re.IGNORECASE,
)


def primary_population(text: str, found: list[Mention] | None = None) -> Mention | None:
    """Who the text counts: the unit of analysis of its figure or, without a figure, its subject.

    Japanese: the last population word before the first figure (社員の32% -> 社員;
    従業員50人以上の企業の30% -> 企業), else the first one. English: the word
    after "32% of" / "among", else the first word not inside a prepositional
    modifier ("employees *at firms*" -> employees).
    """
    t = fold(text)
    mentions = populations(t) if found is None else found
    if not mentions:
        return None
    if is_japanese(t):
        sample = lx.SAMPLE_JA.search(t)
        if sample:
            before = [m for m in mentions if m.end <= sample.start()]
            named = [m for m in before if not m.text[:1].isdigit()]
            if named or before:
                return (named or before)[-1]
        first_fig = _first_figure_pos(t)
        before = [m for m in mentions if first_fig is None or m.end <= first_fig]
        heads = [m for m in before if _JA_HEAD_AFTER.match(t[m.end : m.end + 16])]
        if heads:
            return heads[-1] if first_fig is not None else heads[0]
        plain = [m for m in before if not _JA_MODIFIER_AFTER.match(t[m.end : m.end + 8])]
        if plain:
            return plain[-1] if first_fig is not None else plain[0]
        after = [m for m in mentions if not _JA_MODIFIER_AFTER.match(t[m.end : m.end + 8])]
        return after[0] if after else None
    for m in mentions:
        head = t[max(0, m.start - 60) : m.start]
        if lx.EN_QUANTITY_OF.search(head) or lx.EN_AMONG.search(head):
            return m
    for m in mentions:
        head = t[max(0, m.start - 40) : m.start]
        if not lx.EN_MODIFIER_PREP.search(head):
            return m
    return mentions[0]


# after a Japanese population word: it is who is counted (社員が, 企業のうち, 社員の32%, 企業では)
_JA_HEAD_AFTER = re.compile(
    r"(?:が|は|も|のうち|の\s*\d|\s*\d|全体|では|でも|のみ|だけ|に占め|を対象|の(?:約|およそ|ほぼ)|の(?:半数|過半数|大半|多く|一部|割合|比率)|の[^、。の]{0,10}?(?:率|割合|比率|シェア)(?:は|が))"
)
# ... or it only modifies another word (会社の方針, 企業の中で, 企業に勤める, 会社より先に)
_JA_MODIFIER_AFTER = re.compile(r"(?:の(?!\s*\d)|より|と比べ|に比べ|に勤め|で働|に所属|内の|向け)")


def _first_figure_pos(t: str) -> int | None:
    """Where the first share-like figure (%, 割, ポイント, 倍) starts; else the first count."""
    counts: list[int] = []
    for m in _NUMBER.finditer(t):
        if _is_year(t, m.start(), m.end()):
            continue
        if re.search(r"(?:人|社|件|名)$", m.group(0)):
            if not re.match(r"\s*(?:以上|以下|未満|超|規模)", t[m.end() : m.end() + 4]):
                counts.append(m.start())
            continue
        return m.start()
    return counts[0] if counts else None


def _is_year(t: str, a: int, b: int) -> bool:
    return bool(re.match(r"(?:19|20)\d\d(?!\d)", t[a:b])) and not re.match(
        r"[\d,.]*\s*(?:%|割|ポイント|倍|人|社|件|名)", t[a + 4 : b + 1]
    )


# ---------------------------------------------------------------- place

_JA_PLACE = re.compile("|".join(re.escape(t) for t in sorted(lx.PLACE_JA, key=len, reverse=True)))
_EN_PLACE = re.compile(
    r"(?<![\w.])(?:"
    + "|".join(re.escape(t) for t in sorted(lx.PLACE_EN, key=len, reverse=True))
    + r")(?![\w])",
    re.IGNORECASE,
)


def places(text: str) -> list[Mention]:
    t = fold(text)
    out: list[Mention] = []
    if is_japanese(t):
        for m in _JA_PLACE.finditer(t):
            word = m.group(0)
            if word == "世界" and re.match(r"(?:観|中で話題|的な|的に)", t[m.end() : m.end() + 4]):
                continue
            if re.match(r"[\u30a0-\u30ff]|大学|駅|証券|湾|都庁|地裁|高裁|弁|五輪", t[m.end() : m.end() + 2]):
                continue  # 東京タワー, 大阪大学, 東京駅: a name, not the place counted
            out.append(Mention(lx.PLACE_JA[word], word, m.start(), m.end()))
    for m in _EN_PLACE.finditer(t):
        word = m.group(0)
        low = word.lower()
        if low in ("global",) and re.match(r"\s+(?:warming|variable|average|scale)", t[m.end() :]):
            continue
        if low in ("in the world", "around the world", "across the world") and re.match(r"\s+[a-z]", t[m.end() :]):
            continue  # "in the world ranking", "in the world cup": a name, not the place counted
        if low in ("french", "german", "japanese", "chinese", "korean") and re.match(
            r"\s+(?:text|language|translation|words?)", t[m.end() :], re.IGNORECASE
        ):
            continue
        out.append(Mention(lx.PLACE_EN[low], word, m.start(), m.end()))
    return sorted(out, key=lambda x: x.start)


def place_contains(outer: str, inner: str) -> bool:
    """Is ``inner`` the same place as ``outer`` or inside it?"""
    cur: str | None = inner
    while cur is not None:
        if cur == outer:
            return True
        cur = lx.PLACE[cur][1] if cur in lx.PLACE else None
    return False


# ---------------------------------------------------------------- period

_ERA = {"令和": 2018, "平成": 1988}
_JA_RANGE = re.compile(r"((?:19|20)\d\d)\s*年?(?:度)?\s*(?:[〜~～\-–—]|から)\s*((?:19|20)\d\d)\s*年(度)?")
_JA_YEAR = re.compile(r"((?:19|20)\d\d)\s*年(度)?|(令和|平成)\s*(\d{1,2}|元)\s*年(度)?")
_EN_RANGE = re.compile(r"(?<!\d)((?:19|20)\d\d)\s*(?:[\-–—]|to|through|and)\s*((?:19|20)?\d\d)(?![\d%])")
_EN_FY = re.compile(r"\b(?:FY|fiscal(?: year)?)\s*'?((?:19|20)?\d\d)\b", re.IGNORECASE)
_EN_YEAR = re.compile(
    r"(?<![\d.,$€£¥])((?:19|20)\d\d)(?![\d%]|\s*(?:%|per ?cent|people|firms|companies|respondents|employees|students))"
)


def period(text: str) -> Period | None:
    t = fold(text)
    years: set[int] = set()
    fiscal = False
    parts: list[str] = []
    taken: list[tuple[int, int]] = []
    if is_japanese(t):
        for m in _JA_RANGE.finditer(t):
            a, b = int(m.group(1)), int(m.group(2))
            if a <= b <= a + 60:
                years.update(range(a, b + 1))
                fiscal = fiscal or bool(m.group(3)) or "年度" in m.group(0)
                parts.append(m.group(0))
                taken.append(m.span())
        for m in _JA_YEAR.finditer(t):
            if any(a <= m.start() < b for a, b in taken):
                continue
            if m.group(1):
                y = int(m.group(1))
                fy = bool(m.group(2))
            else:
                n = 1 if m.group(4) == "元" else int(m.group(4))
                y = _ERA[m.group(3)] + n
                fy = bool(m.group(5))
            years.add(y)
            fiscal = fiscal or fy
            parts.append(m.group(0))
    else:
        for m in _EN_FY.finditer(t):
            y = int(m.group(1))
            y = y + 2000 if y < 100 else y
            years.add(y)
            fiscal = True
            parts.append(m.group(0))
            taken.append(m.span())
        for m in _EN_RANGE.finditer(t):
            if any(a <= m.start() < b for a, b in taken):
                continue
            a = int(m.group(1))
            e = m.group(2)
            b = int(e) if len(e) == 4 else (a // 100) * 100 + int(e)
            if a <= b <= a + 60:
                years.update(range(a, b + 1))
                parts.append(m.group(0))
                taken.append(m.span())
        for m in _EN_YEAR.finditer(t):
            if any(a <= m.start() < b for a, b in taken):
                continue
            years.add(int(m.group(1)))
            parts.append(m.group(0))
    if not years:
        return None
    joined = "、".join(parts) if is_japanese(t) else ", ".join(parts)
    return Period(frozenset(years), fiscal, joined, len(parts))


# ---------------------------------------------------------------- measures

_FIG = re.compile(
    r"(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)\s*(?P<unit>%|パーセント|percentage points?|percent|per cent|割|ポイント|points?|pp|倍|times|x\b|-fold|fold)",
    re.IGNORECASE,
)


_SHARE_AFTER_JA = re.compile(r"^\s*(?:が|を占め|に(?:当た|あた|のぼ|上)|の(?:企業|社員|人|回答者|学生|生徒|世帯)|は|だった|で(?:あ|、))")
_SHARE_BEFORE_JA = re.compile(r"(?:の|うち|割合は|率は|比率は|シェアは)\s*(?:約|およそ|ほぼ)?$")
_SHARE_AFTER_EN = re.compile(
    r"^\s*(?:of|said|say|says|reported|report|had|have|has|were|are|was|is|used|use|agreed|felt|"
    r"share|of all|of the|of them)\b",
    re.IGNORECASE,
)
_SHARE_BEFORE_EN = re.compile(r"\b(?:share|proportion|percentage|rate|fraction)\s+(?:\w+\s+){0,3}(?:was|is|of|at|reached|stood at)\s+(?:about|around|nearly|roughly)?\s*$", re.IGNORECASE)


def _value(num: str, unit: str) -> float:
    v = float(num.replace(",", ""))
    return v * 10 if unit == "割" else v


def figures(text: str) -> list[Figure]:
    """Each share-like figure with its measure: share, growth, points, multiple, average."""
    t = fold(text)
    ja = is_japanese(t)
    out: list[Figure] = []
    for m in _FIG.finditer(t):
        unit = m.group("unit").lower()
        before, after = t[max(0, m.start() - 30) : m.start()], t[m.end() : m.end() + 20]
        if unit in ("ポイント", "points", "point", "pp", "percentage points", "percentage point"):
            measure = "points"
        elif unit in ("倍", "times", "x", "-fold", "fold"):
            measure = "multiple"
        elif lx.AVERAGE_BEFORE.search(before):
            measure = "average"
        elif (ja and (lx.GROWTH_AFTER_JA.match(after) or lx.GROWTH_BEFORE_JA.search(before))) or (
            not ja and (lx.GROWTH_AFTER_EN.match(after) or lx.GROWTH_BEFORE_EN.search(before))
        ):
            measure = "growth"
        elif (ja and (_SHARE_AFTER_JA.match(after) or _SHARE_BEFORE_JA.search(before))) or (
            not ja and (_SHARE_AFTER_EN.match(after) or _SHARE_BEFORE_EN.search(before))
        ):
            measure = "share"
        else:
            measure = "unspecified"  # a bare percentage: neither side of a growth/share contrast
        out.append(Figure(_value(m.group("num"), unit), measure, m.group(0)))
    return out


# ---------------------------------------------------------------- design


def design(text: str) -> tuple[str | None, str | None]:
    """``causal``, ``correlational`` or ``experimental`` wording, and the words that said it."""
    t = fold(text)
    ja = is_japanese(t)
    exp = (lx.EXPERIMENT_JA if ja else lx.EXPERIMENT_EN).search(t)
    if exp:
        return "experimental", exp.group(0)
    corr = (lx.CORRELATIONAL_JA if ja else lx.CORRELATIONAL_EN).search(t)
    cause = (lx.CAUSAL_JA if ja else lx.CAUSAL_EN).search(t)
    if corr:
        return "correlational", corr.group(0)
    if cause:
        return "causal", cause.group(0)
    return None, None


def read_slots(text: str) -> Slots:
    """All slots of one text."""
    t = fold(text)
    found = populations(t)
    d, dtext = design(t)
    sample = bool((lx.SAMPLE_JA if is_japanese(t) else lx.SAMPLE_EN).search(t))
    return Slots(
        population=primary_population(t, found),
        places=tuple(places(t)),
        period=period(t),
        figures=tuple(figures(t)),
        design=d,
        design_text=dtext,
        sample=sample,
        populations=tuple(found),
    )
