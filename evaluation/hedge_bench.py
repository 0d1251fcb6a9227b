"""Overclaim mutation families (issue 13): hedges dropped, hedges left outside the quote, negations inserted.

Built from the real texts of the bench (the same documents as the literal-quote
benchmark: WiCE and SummEdits sources in English; JNLI, JaNLI and JHARS sources in
Japanese). Each sentence that carries a hedge, qualifier or modal (found with the
generation cue lists below, which are written independently of the rules'
lexicons) gives cases that the overclaim rules must flag and faithful variants
they must leave alone:

must flag
    ``hedge_dropped_statement``: quote = the sentence, statement = the sentence
    without its cue ("about 40 people" -> "40 people", 「増える可能性がある」 ->
    「増える」);
    ``hedge_outside_quote``: a statement-less quote claim whose quote starts right
    after the cue (or, for a Japanese suffix cue, ends right before it); the rules
    see the quote and the source text around it, as the gate does;
    ``negation_inserted_statement``: statement = the sentence with a negation
    inserted at its first auxiliary (EN: "is" -> "is not") or its final predicate
    (JA: 「増えた」 is left alone unless it ends in a listed form: 「ている」 -> 「ていない」);
    a sentence already negated there is skipped (no "not not").

faithful (must not flag)
    ``faithful_attribution``: "According to the source, ..." / 「資料によれば、…」;
    ``faithful_synonym``: the cue swapped for a synonym (about -> approximately,
    約 -> およそ, かもしれない -> 可能性がある);
    ``faithful_quote_with_hedge``: the quote of ``hedge_outside_quote`` taken with
    its cue.

The rules are called exactly as the gate calls them
(:func:`claimledger.checks.overclaim.overclaim_hits` with the statement, the
quote, and ±200 characters of the document around the quote).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from claimledger.extract.sentences import split_sentences
from evaluation.corpus import Document
from evaluation.scoring import Outcome

CHECK = "overclaim_mutation"
MUST_FLAG = ("hedge_dropped_statement", "hedge_outside_quote", "negation_inserted_statement")
FAITHFUL = ("faithful_attribution", "faithful_synonym", "faithful_quote_with_hedge")
CONTEXT = 200
PER_FAMILY = 400  # cases per family and language at most

_EN_NUM = r"(?=\s*(?:\$|£|€)?\d|\s+(?:two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|a\s+(?:dozen|hundred|thousand|million))\b)"
# (regex, synonym) ; the regex matches the cue with its trailing space
EN_CUES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"\b(?:about|around|approximately|roughly|nearly|almost|some|up to|at least|more than|less than|over|an estimated) {_EN_NUM}"), ""),
    (re.compile(r"\b(?:may|might|could|likely|probably|possibly|perhaps|usually|typically|generally|often|sometimes|mostly|largely|frequently|occasionally) (?=[a-z])"), ""),
]
EN_SYNONYM = {
    "about": "approximately", "around": "about", "approximately": "about", "roughly": "approximately",
    "nearly": "almost", "almost": "nearly", "some": "about", "up to": "as many as", "at least": "no fewer than",
    "more than": "over", "less than": "under", "over": "more than", "an estimated": "about",
    "may": "might", "might": "may", "could": "might", "likely": "probably", "probably": "likely",
    "possibly": "perhaps", "perhaps": "possibly", "usually": "typically", "typically": "usually",
    "generally": "usually", "often": "frequently", "sometimes": "occasionally", "mostly": "largely",
    "largely": "mostly", "frequently": "often", "occasionally": "sometimes",
}  # fmt: skip
_JA_NUM = r"(?=[0-9０-９〇一二三四五六七八九十百千])"
JA_PREFIX = re.compile(rf"(?:約|およそ|おおよそ|ほぼ|だいたい){_JA_NUM}|(?:通常|たいてい|大抵|ほとんどの|多くの|一部の|主に|おそらく|恐らく|たぶん)(?=.)")
JA_SUFFIX = re.compile(
    r"(?<=[0-9０-９〇一二三四五六七八九十百千人件個本台円歳分年回%％])(?:程度|前後|ほど|くらい|ぐらい|近く|以上|以下)"
    r"|(?:かもしれない|かもしれません|可能性がある|可能性が高い|だろう|でしょう|と思われる|とみられる|と考えられる|ようだ|ようです|らしい)"
)
JA_SYNONYM = {
    "約": "およそ", "およそ": "約", "おおよそ": "約", "ほぼ": "約", "だいたい": "約",
    "通常": "たいてい", "たいてい": "通常", "大抵": "通常", "ほとんどの": "大半の", "多くの": "多数の",
    "一部の": "一部の", "主に": "おもに", "おそらく": "たぶん", "恐らく": "たぶん", "たぶん": "おそらく",
    "程度": "前後", "前後": "程度", "ほど": "くらい", "くらい": "ほど", "ぐらい": "ほど", "近く": "近く",
    "以上": "以上", "以下": "以下", "かもしれない": "可能性がある", "かもしれません": "可能性があります",
    "可能性がある": "かもしれない", "可能性が高い": "可能性が高い", "だろう": "と思われる", "でしょう": "と思われます",
    "と思われる": "とみられる", "とみられる": "と思われる", "と考えられる": "と思われる", "ようだ": "らしい",
    "ようです": "らしいです", "らしい": "ようだ",
}  # fmt: skip


@dataclass(frozen=True)
class Case:
    case_id: str
    lang: str
    family: str
    statement: str
    quote: str
    context: str | None
    share_alike: bool

    @property
    def faithful(self) -> bool:
        return self.family.split(" ")[0] in FAITHFUL


def _sentences(doc: Document) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s in split_sentences(doc.text):
        a, b = s.start, s.end
        text = doc.text[a:b]
        a += len(text) - len(text.lstrip())
        b -= len(text) - len(text.rstrip())
        seg = doc.text[a:b]
        if "\n" in seg:
            continue
        if doc.lang == "en":
            n = len(seg.split())
            if 8 <= n <= 45 and sum(c.isalpha() for c in seg) > 0.7 * len(seg.replace(" ", "")):
                out.append((a, b))
        elif 12 <= len(seg) <= 120 and re.search(r"[\u3040-\u309f]", seg):
            out.append((a, b))
    return out


def _cue(lang: str, sentence: str) -> tuple[int, int, str, str] | None:
    """(start, end, cue, kind) of the first generation cue; kind is "prefix" or "suffix"."""
    if lang == "en":
        best: re.Match[str] | None = None
        for pat, _ in EN_CUES:
            m = pat.search(sentence)
            if m and (best is None or m.start() < best.start()):
                best = m
        if best is None or best.start() == 0:
            return None
        return best.start(), best.end(), best.group().strip(), "prefix"
    p, s = JA_PREFIX.search(sentence), JA_SUFFIX.search(sentence)
    m = min((x for x in (p, s) if x is not None), key=lambda x: x.start(), default=None)
    if m is None:
        return None
    return m.start(), m.end(), m.group(), "prefix" if m is p else "suffix"


_EN_AUX = re.compile(
    r"\b(?:is|are|was|were|has|have|had|can|will|would|should|could|may|might|must|does|do|did)\b(?! not\b|n't| never\b)"
)
_JA_NEGATE = [
    ("ています", "ていません"), ("ている", "ていない"), ("ました", "ませんでした"), ("ます", "ません"),
    ("である", "ではない"), ("あった", "なかった"), ("ある", "ない"), ("いる", "いない"), ("した", "しなかった"),
    ("する", "しない"), ("だった", "ではなかった"), ("です", "ではありません"),
]  # fmt: skip


def _negate(sentence: str, lang: str) -> str | None:
    """The sentence with its first (EN) or last (JA) predicate negated; None when there is none to negate."""
    if lang == "en":
        for m in _EN_AUX.finditer(sentence):
            before, after = sentence[: m.start()], sentence[m.end() :]
            if re.search(r"(?:\bnot|n't|\bnever|\bno)\s+$", before, re.I) or _EN_AUX.search(before[-12:] + " "):
                continue
            if re.match(r"\s+(?:not|no|never|nothing|none|nobody|neither)\b", after, re.I):
                continue
            return sentence[: m.end()] + " not" + after
        return None
    body = sentence.rstrip("。！？!?")
    for old, new in _JA_NEGATE:
        if body.endswith(old):
            return body[: -len(old)] + new + sentence[len(body) :]
    return None


_JA_INSERT_SUFFIX = ["かもしれない", "可能性がある", "と思われる", "とみられる", "ようだ", "だろう"]
_JA_INSERT_PREFIX = ["おそらく", "たいてい", "通常", "多くの場合、", "一般に"]


def _ja_insert(sentence: str, rng: random.Random) -> tuple[str, int, int, str, str] | None:
    """A real Japanese sentence with a hedge inserted: (hedged sentence, cue start, cue end, cue, kind).

    Suffix hedges go after a plain final predicate (ている。 -> ているかもしれない。); prefix
    hedges after the first topic or subject particle (男性は -> 男性はおそらく); 約 before a number.
    """
    body = sentence.rstrip("。！？!?")
    end = sentence[len(body) :]
    num = re.search(r"(?<![0-9０-９〇一二三四五六七八九十百千万約])[0-9０-９]+(?=[人個本台匹頭羽枚つ名件回歳分年%％])", body)
    choice = rng.random()
    if num and choice < 0.3:
        i = num.start()
        return body[:i] + "約" + body[i:] + end, i, i + 1, "約", "prefix"
    if body.endswith("ています"):
        body = body[:-3] + "いる"
    elif body.endswith("ていました"):
        body = body[:-5] + "ていた"
    plain = re.search(r"(?:ている|ていた|した|する|いる|いた|ある|あった|れる|れた|った|んだ)$", body)
    if plain and choice < 0.65:
        cue = rng.choice(_JA_INSERT_SUFFIX)
        return body + cue + end, len(body), len(body) + len(cue), cue, "suffix"
    part = re.search(r"[はが](?=[^、。]{4,})", body)
    if part and part.end() < len(body) - 4:
        cue = rng.choice(_JA_INSERT_PREFIX)
        i = part.end()
        return body[:i] + cue + body[i:] + end, i, i + len(cue), cue, "prefix"
    return None


def _attribution(sentence: str, lang: str) -> str:
    if lang == "en":
        return "According to the source, " + sentence[0].lower() + sentence[1:]
    return "資料によれば、" + sentence


def _synonym(sentence: str, lang: str, a: int, b: int, cue: str) -> str | None:
    table = EN_SYNONYM if lang == "en" else JA_SYNONYM
    syn = table.get(cue)
    if not syn or syn == cue:
        return None
    tail = " " if lang == "en" else ""
    return sentence[:a] + syn + (tail if sentence[a:b].endswith(" ") else "") + sentence[b:]


def build_hedge_bench(docs: Sequence[Document], seed: int) -> list[Case]:
    cases: list[Case] = []
    counts: dict[tuple[str, str], int] = {}

    def add(doc: Document, idx: int, family: str, statement: str, quote: str, context: str | None) -> None:
        key = (doc.lang, family)
        if statement == quote and context is None:
            return
        if counts.get(key, 0) >= PER_FAMILY:
            return
        counts[key] = counts.get(key, 0) + 1
        cases.append(Case(f"{doc.doc_id}/s{idx}/{family}", doc.lang, family, statement, quote, context,
                          doc.share_alike))  # fmt: skip

    for doc in docs:
        rng = random.Random(f"{seed}/hedge/{doc.doc_id}")
        for idx, (sa, sb) in enumerate(_sentences(doc)):
            sentence = doc.text[sa:sb]
            lang = doc.lang
            neg = _negate(sentence, lang)
            found = _cue(lang, sentence)
            suffix = ""
            if found is None and lang == "ja" and rng.random() < 0.5:
                inserted = _ja_insert(sentence, rng)
                if inserted is not None:
                    hedged, a, b, cue, kind = inserted
                    _hedge_cases(add, doc, idx, hedged, sa, sb, a, b, cue, kind, " (hedge inserted)", lang)
                continue
            if found is None:
                if neg and rng.random() < 0.3:
                    add(doc, idx, "negation_inserted_statement", neg, sentence, None)
                    add(doc, idx, "faithful_attribution", _attribution(sentence, lang), sentence, None)
                continue
            a, b, cue, kind = found
            if neg:
                add(doc, idx, "negation_inserted_statement", neg, sentence, None)
            _hedge_cases(add, doc, idx, sentence, sa, sb, a, b, cue, kind, suffix, lang)
    return cases


def _hedge_cases(add: Callable[..., None], doc: Document, idx: int, sentence: str, sa: int, sb: int,
                 a: int, b: int, cue: str, kind: str, suffix: str, lang: str) -> None:  # fmt: skip
    """The hedge families of one hedged sentence (``sentence`` stands at ``sa:sb`` of the document)."""
    dropped = sentence[:a] + sentence[b:]
    if lang == "en" and a > 0 and sentence[a - 1] == " " and sentence[b : b + 1] == " ":
        dropped = sentence[:a] + sentence[b + 1 :]
    add(doc, idx, "hedge_dropped_statement" + suffix, dropped, sentence, None)
    add(doc, idx, "faithful_attribution" + suffix, _attribution(sentence, lang), sentence, None)
    syn = _synonym(sentence, lang, a, b, cue)
    if syn:
        add(doc, idx, "faithful_synonym" + suffix, syn, sentence, None)
    # the quote cut at the cue, inside the document (with the hedged sentence in place)
    text = doc.text[:sa] + sentence + doc.text[sb:]
    qa, qb, se = sa + a, sa + b, sa + len(sentence)
    if kind == "prefix":
        cut, whole, start = text[qb:se].rstrip(" .。!?！？"), text[qa:se].rstrip(" .。!?！？"), qb
    else:
        cut, whole, start = text[sa:qa], text[sa:qb], sa
    if not (len(cut.split()) >= 4 if lang == "en" else len(cut) >= 8):
        return
    ctx = text[max(0, start - CONTEXT) : start + len(whole) + CONTEXT]
    add(doc, idx, "hedge_outside_quote" + suffix, cut.strip(), cut.strip(), ctx)
    add(doc, idx, "faithful_quote_with_hedge" + suffix, whole.strip(), whole.strip(), ctx)


def run_hedge_bench(cases: Sequence[Case], progress: Callable[[str], None] | None = None) -> list[Outcome]:
    from claimledger.checks.overclaim import overclaim_hits

    out: list[Outcome] = []
    for c in cases:
        try:
            hits = overclaim_hits(c.statement, c.quote, c.context)
            reason = hits[0].rule if hits else "none"
        except Exception as exc:  # a crash is a finding of the benchmark, never a lost case
            hits, reason = [], f"crashed: {type(exc).__name__}"
        flagged = bool(hits)
        detail = "" if c.share_alike else f"{c.statement!r} <- {c.quote!r}"
        out.append(Outcome(CHECK, c.lang, c.family, c.case_id, c.faithful, not flagged, reason, None, detail))
    if progress:
        progress(f"overclaim mutation families: {len(out)} cases")
    return out


def table(outcomes: Sequence[Outcome]) -> list[str]:
    """Per language: detection rate per must-flag family and false alarms on faithful variants."""
    rows = [
        "| lang | family | expected | n | flagged | rate |",
        "|---|---|---|---:|---:|---:|",
    ]
    summary = ["", "| lang | detection (all must-flag families) | false alarms (all faithful variants) | target |",
               "|---|---:|---:|---|"]  # fmt: skip
    for lang in ("en", "ja"):
        mine = [o for o in outcomes if o.lang == lang]
        for fam in [f + sfx for f in MUST_FLAG + FAITHFUL for sfx in ("", " (hedge inserted)")]:
            xs = [o for o in mine if o.family == fam]
            if not xs:
                continue
            flagged = sum(not o.verified for o in xs)
            what = "flag" if fam.split(" ")[0] in MUST_FLAG else "no finding"
            rows.append(f"| {lang} | {fam} | {what} | {len(xs):,} | {flagged:,} | {flagged / len(xs):.1%} |")
        bad = [o for o in mine if not o.must_verify]
        good = [o for o in mine if o.must_verify]
        det = sum(not o.verified for o in bad) / len(bad) if bad else float("nan")
        fa = sum(not o.verified for o in good) / len(good) if good else float("nan")
        met = "met" if det >= 0.95 and fa <= 0.02 else "**not met**"
        summary.append(
            f"| {lang} | {det:.1%} ({sum(not o.verified for o in bad):,} of {len(bad):,}) | "
            f"{fa:.1%} ({sum(not o.verified for o in good):,} of {len(good):,}) | ≥ 95% / ≤ 2%: {met} |"
        )
    return rows + summary


def section(outcomes: Sequence[Outcome]) -> list[str]:
    """The accuracy.md section: what the overclaim rules are for, measured per language."""
    listed = [o for o in outcomes if o.verified != o.must_verify and o.detail][:8]
    return [
        "## Overclaim rules on what they are for (mutation families, issue 13)",
        "",
        "The row above says the rules let about 95 % of the unsupported claims of the labelled slices",
        "through: most of those claims are wrong in ways no hedge, negation or number rule can see. These",
        "families measure the errors the rules are written for, on real sentences of the same documents",
        "as the literal-quote benchmark (`evaluation/hedge_bench.py`). A sentence of a bench document",
        "that carries a hedge, qualifier or modal (found with generation cue lists written apart from the",
        "rules' lexicons) becomes: the statement without the cue (`hedge_dropped_statement`); a quote claim",
        "with no statement whose quote starts right after the cue, or ends right before a Japanese suffix cue",
        "(`hedge_outside_quote`: the rules see the quote and ±200 characters of the document, as the gate",
        "does); and, for sentences with an auxiliary (EN) or a listed final predicate (JA), the statement",
        "with a negation inserted (`negation_inserted_statement`, never on an already negated verb). The",
        "faithful variants must raise nothing: an attribution prefix (\"According to the source, ...\",",
        "「資料によれば、…」), the cue replaced by a synonym (about -> approximately, 約 -> およそ,",
        "かもしれない -> 可能性がある), and the quote taken with its cue.",
        "",
        "Japanese bench sources (image captions, NLI premises) hardly ever hedge: 13 natural cases. Rows",
        "marked *(hedge inserted)* put a hedge into a real Japanese sentence (かもしれない, 可能性がある,",
        "と思われる, とみられる, ようだ or だろう after a plain final predicate; おそらく, たいてい, 通常,",
        "多くの場合、 or 一般に after the first は/が; 約 before a counted number) and then drop it or cut the",
        "quote at it.",
        "",
        "**Read with care.** The rules were widened in the same session, looking at the misses of these",
        "families, so the detection rates are in-sample. The out-of-sample checks are the false alarms on",
        "the faithful variants here and the miss rate on the supported claims of the labelled slices above",
        "(rules written by one engineer, labels by others).",
        "",
        *table(outcomes),
        "",
        "Misses and false alarms (at most 8 shown; ShareAlike text not shown):",
        "",
        *([f"- `{o.case_id}` ({o.lang}, {o.family}): {o.reason}; {o.detail[:160]}" for o in listed] or ["None shown."]),
        "",
    ]
