"""Negative literature claims: "no prior work studies X", 「先行研究は存在しない」, "we are the first to".

Such a claim can never be verified by reading a source: absence is only ever
"not found where we looked". Without a recorded search it is HIGH; with one
(queries, databases, date, hit counts) it is reported as "no counter-evidence
found in <coverage>", a LOW finding that is never a [V].
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from claimledger.model.claim import NegativeClaim, SearchRecord
from claimledger.model.finding import Finding, Reason, Status

CHECK = "negative_claim"

_WORK = r"(?:work|works|study|studies|research|paper|papers|literature|publications?|articles?|investigations?|analys[ie]s|attempts?|authors?|one|researchers?)"
_STUDIED = (
    r"(?:studied|examined|investigated|addressed|explored|considered|looked\s+at|analy[sz]ed|measured|"
    r"tested|evaluated|reported|documented|quantified|proposed|attempted|tackled|focused\s+on)"
)
_EN_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "no_prior_work",
        re.compile(
            rf"\b(?:no|none\s+of\s+the|not\s+a\s+single)\s+(?:(?:prior|previous|existing|earlier|other|published|"
            rf"empirical|systematic)\s+)*{_WORK}\b(?:\s+\w+){{0,3}}?\s+(?:has|have|had)?\s*(?:ever\s+|yet\s+)?{_STUDIED}",
            re.I,
        ),
    ),
    (
        "no_prior_work",
        re.compile(
            rf"\bthere\s+(?:is|are|has\s+been|have\s+been)\s+(?:no|little|scant|scarce)\s+(?:(?:prior|previous|"
            rf"existing|earlier|published|empirical|systematic)\s+)*(?:{_WORK}|evidence)\b",
            re.I,
        ),
    ),
    (
        "never_studied",
        re.compile(
            rf"\b(?:has|have)\s+(?:never|not(?:\s+yet)?|rarely)\s+been\s+(?:systematically\s+|empirically\s+|"
            rf"previously\s+|directly\s+)?{_STUDIED}",
            re.I,
        ),
    ),
    (
        "first",
        re.compile(
            r"\b(?:we\s+are|this\s+is|ours\s+is|this\s+(?:study|paper|work|article)\s+is|is\s+the)\s+the\s+first\s+"
            r"(?:to|study|paper|work|attempt|analysis|investigation|systematic|empirical|large-scale)\b",
            re.I,
        ),
    ),
    (
        "first",
        re.compile(
            r"\b(?:we|this\s+(?:study|paper|work|article))\s+(?:\w+\s+){0,2}for\s+the\s+first\s+time\b", re.I
        ),
    ),
    ("first", re.compile(r"\bfor\s+the\s+first\s+time,?\s+(?:we|this\s+(?:study|paper|work))\b", re.I)),
    (
        "unexplored",
        re.compile(
            r"\b(?:remains?|is|are|has\s+been|have\s+been)\s+(?:largely\s+|entirely\s+|completely\s+)?"
            r"(?:unexplored|unstudied|understudied|unaddressed|unexamined|overlooked|neglected|ignored)\b",
            re.I,
        ),
    ),
    (
        "unexplored",
        re.compile(
            r"\b(?:a\s+gap\s+in\s+the\s+literature|little\s+is\s+known|nothing\s+is\s+known|"
            r"the\s+literature\s+(?:is\s+silent|has\s+ignored|has\s+overlooked))\b",
            re.I,
        ),
    ),
]
_JA_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "no_prior_work",
        re.compile(
            r"(?:先行研究|既存研究|従来研究|関連研究|類似研究|研究例|研究事例|報告例|前例)(?:は|が|も)?"
            r"(?:存在しない|存在せず|ない|なく|無い|見当たらない|見当たらず|ほとんど(?:ない|存在しない|見当たらない)|"
            r"皆無|乏しい|少ない)"
        ),
    ),
    (
        "no_prior_work",
        re.compile(
            r"(?:研究|検討|調査|分析|議論|報告)(?:は|が)?(?:これまで|従来|まだ|いまだ|未だ)?(?:ほとんど|十分に|全く)?"
            r"(?:されていない|されてこなかった|なされていない|行われていない|行われてこなかった|存在しない)"
        ),
    ),
    (
        "first",
        re.compile(
            r"(?:世界|国内|日本|本邦)?(?:で)?初めて(?:の|て)?(?:研究|試み|報告|提案|実証|検証|明らか|示し|示す)"
            r"|世界初|本研究が初|初の(?:試み|研究|報告)|(?:世界|国内|日本|本邦)で初めて"
            r"|(?:本研究|本稿|本論文|我々|私たち)(?:は|が)[^。]{0,30}初めて"
        ),
    ),
    (
        "unexplored",
        re.compile(r"(?:未解明|未検討|未開拓|手つかず|明らかにされていない|検討されていない|知られていない)"),
    ),
]
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")


@dataclass(frozen=True)
class NegativeSpan:
    """A negative literature claim found in a text."""

    start: int
    end: int
    text: str
    pattern: str  # no_prior_work | never_studied | first | unexplored
    lang: str


def find_negative_claims(text: str) -> list[NegativeSpan]:
    """Every sentence of ``text`` that makes a negative literature claim, with the kind of claim."""
    out: list[NegativeSpan] = []
    for sm in _SENTENCE.finditer(text):
        sentence = sm.group()
        for lang, table in (("en", _EN_PATTERNS), ("ja", _JA_PATTERNS)):
            hit = next(((name, p) for name, p in table if p.search(sentence)), None)
            if hit is not None:
                lead = len(sentence) - len(sentence.lstrip())
                body = sentence.strip()
                out.append(NegativeSpan(sm.start() + lead, sm.start() + lead + len(body), body, hit[0], lang))
                break
    return out


def is_negative_claim(text: str) -> bool:
    return bool(find_negative_claims(text))


def negative_claims_from_text(text: str, id_prefix: str = "NEG") -> list[NegativeClaim]:
    """Ledger entries (kind ``negative``) for every negative literature claim in a draft."""
    return [
        NegativeClaim(kind="negative", id=f"{id_prefix}{i}", statement=span.text)
        for i, span in enumerate(find_negative_claims(text), start=1)
    ]


def coverage(search: SearchRecord) -> str:
    """A one-line account of what was searched: databases, queries, date, hit counts."""
    hits = ", ".join(f"{k}: {v}" for k, v in search.hits.items())
    queries = "; ".join(repr(q) for q in search.queries)
    return (
        f"{', '.join(search.databases)} (queries {queries}; searched {search.date.isoformat()}"
        + (f"; hits {hits}" if hits else "")
        + ")"
    )


def _incomplete(search: SearchRecord, today: datetime.date) -> str | None:
    if search.date > today:
        return f"the search date {search.date.isoformat()} lies in the future"
    missing = [d for d in search.databases if not any(k == d or k.startswith(f"{d}:") for k in search.hits)]
    if missing:
        return f"no hit count recorded for {', '.join(missing)}"
    return None


def negative_claim_findings(
    claim_id: str,
    statement: str,
    search: SearchRecord | None,
    *,
    today: datetime.date | None = None,
) -> list[Finding]:
    """The finding for a negative literature claim: HIGH without a complete search record,
    otherwise "no counter-evidence found in <coverage>" (LOW, never verified)."""
    extra: dict[str, object] = {"statement_text": statement}
    spans = find_negative_claims(statement)
    if spans:
        extra["pattern"] = spans[0].pattern
    if search is None:
        return [
            Finding(
                claim_id, CHECK, Status.DISCREPANCY, Reason.NEGATIVE_CLAIM_UNSUPPORTED,
                "negative literature claim with no recorded search: record the queries, databases, date "
                "and hit counts, or soften the claim (e.g. 'we found no prior work on X in <databases>')",
                extra={**extra, "suggestion": "attach a `search:` record or rephrase as a bounded statement"},
            )
        ]  # fmt: skip
    problem = _incomplete(search, today or datetime.date.today())
    where = coverage(search)
    extra["search"] = search.model_dump(mode="json")
    if problem is not None:
        return [
            Finding(
                claim_id, CHECK, Status.DISCREPANCY, Reason.NEGATIVE_CLAIM_UNSUPPORTED,
                f"negative literature claim with an incomplete search record: {problem}",
                extra={**extra, "suggestion": "complete the search record (hit counts for every database)"},
            )
        ]  # fmt: skip
    return [
        Finding(
            claim_id, CHECK, Status.UNVERIFIABLE, Reason.NEGATIVE_CLAIM_SEARCHED,
            f"no counter-evidence found in {where}; a negative claim is never verified",
            extra={**extra, "coverage": where,
                   "suggestion": f"state the coverage in the text: 'no prior work found in {', '.join(search.databases)}'"},
        )
    ]  # fmt: skip
