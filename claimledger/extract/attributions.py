"""Attributions in a draft: sentences that carry a citation but no quotation.

"They conclude that remote work lowered output [@smith2019]." says what a
source says without quoting it. Each such sentence becomes an attribution:
the cited keys, the *attributed* text (the sentence without its citations and
without a leading reporting frame such as "Smith (2019) shows that" or a
trailing 「と報告した」), the locator of the citation (``[@smith2019, p. 4]``,
``\\citep[S.~4]{smith2019}``) and the sentence itself.

Not claims (seed 003): opinions ("we believe", 「と考える」 said by the
writer), future work ("future research should", 「今後の課題」) and the draft's
own definitions ("we define", "hereafter", 「本稿では…と呼ぶ」).

Numeric citations (``[1]``, ``[2–4]``, ``[1, 3]``, ``［１］``, ``^2^``, ``¹``) are read by
:func:`claimledger.extract.citations.numeric_citations`: the n-th entry of the
bibliography (:func:`numbering_of`) is the key of ``[n]``; a number no entry
has is an unlisted citation (HIGH), never skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from claimledger.extract.citations import Citation
from claimledger.extract.marks import Analysis
from claimledger.model.claim import AttributionClaim, Ledger, Location
from claimledger.model.finding import Finding, Reason

LOCATOR = re.compile(
    r"(?P<loc>(?:pp?\.|S\.|pages?|Seite|p)\s*~?\s*\d+(?:\s*(?:[–—\-]{1,2}|~)\s*\d+)?(?:\s*f{1,2}\.)?"
    r"|(?:Sect?(?:ion)?\.?|§+|Chapter|Ch\.|Table|Tab\.|Figure|Fig\.)\s*~?\s*\d+(?:\.\d+)*"
    r"|\d+(?:\s*[–—\-~〜]\s*\d+)?\s*(?:頁|ページ)|第\s*\d+\s*[章節]|[表図]\s*\d+)",
    re.IGNORECASE,
)

_OPINION = re.compile(
    r"\b(?:I|we)\s+(?:believe|think|feel|argue|contend|suspect|would\s+argue)\b|\bin\s+(?:my|our)\s+(?:view|opinion)\b"
    r"|\bit\s+seems\s+to\s+(?:me|us)\b|\barguably\b"
    r"|(?:筆者|我々|私たち|私|本稿)は.*(?:と考える|と思う|と考えている|と思われる)|私見では",
    re.IGNORECASE,
)
_FUTURE = re.compile(
    r"\bfuture\s+(?:work|research|studies|study)\b|\bwe\s+(?:will|plan\s+to|intend\s+to)\b|\bremains?\s+to\s+be\b"
    r"|\bfurther\s+(?:research|work|study)\s+(?:is|are)\s+needed\b|\bleave\s+(?:this|it)\s+(?:to|for)\b"
    r"|今後の(?:課題|研究|検討)|将来の研究|今後.*(?:したい|必要がある|予定)|検討したい",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"\bwe\s+(?:define|call|denote|refer\s+to|use\s+the\s+term|term)\b|\bhereafter\b|\bhenceforth\b"
    r"|\b(?:in\s+)?this\s+(?:paper|article|review|chapter|study)\s*,?\s+(?:we\s+)?(?:defines?|denotes?|uses?\s+the\s+term)\b"
    r"|(?:本稿|本研究|本論文|本章)(?:で|では).*(?:と定義する|と呼ぶ|とする|と称する)|以下[、,]?.*(?:と呼ぶ|と略す|とする)",
    re.IGNORECASE,
)

_EN_FRAME = re.compile(
    r"^\s*(?:(?:[Aa]s|[Aa]ccording\s+to)\s+)?"
    r"(?:(?:[A-Z][\w'’\-]+(?:\s*(?:,|and|&)\s*[A-Z][\w'’\-]+)*(?:\s+et\s+al\.?)?|[Tt]hey|[Tt]hese\s+authors"
    r"|[Tt]he\s+authors|[Tt]his\s+(?:study|paper|work|report|survey)|[Tt]he\s+(?:study|paper|work|report|survey))"
    r"\s*(?:\(\s*\d{4}[a-z]?\s*\))?\s*,?\s*)"
    r"(?:(?:also|further|similarly)\s+)?"
    r"(?:show|shows|showed|find|finds|found|report|reports|reported|conclude|concludes|concluded"
    r"|argue|argues|argued|demonstrate|demonstrates|demonstrated|note|notes|noted|observe|observes|observed"
    r"|suggest|suggests|suggested|estimate|estimates|estimated|document|documents|documented|state|states"
    r"|stated|claim|claims|claimed|establish|establishes|established|confirm|confirms|confirmed)\b"
    r"\s*(?:that\s+|,\s*)?"
)
_EN_TRAIL = re.compile(r"\s*,?\s*(?:as\s+)?(?:shown|reported|found|noted)\s+by\s+[A-Z][\w\-]+.*$|[\s,;:]+$")
_JA_FRAME = re.compile(
    r"^(?:[^、。]{1,20}?(?:(?:ら|氏|等)\s*(?:[（(]\s*\d{4}[a-z]?\s*[）)])?|[（(]\s*\d{4}[a-z]?\s*[）)])"
    r"|同研究|この研究|同論文|彼ら|著者ら)\s*(?:は|によれば|によると)[、,]?\s*"
)
_JA_TRAIL = re.compile(
    r"(?:こと)?(?:を|と)(?:報告|指摘|示|結論づけ|結論付け|述べ|論じ|明らかにし|主張)[^。]*$|ことを示した$"
)


@dataclass(frozen=True)
class AttributionCandidate:
    """One attribution read from a draft sentence."""

    keys: tuple[str, ...]
    attributed: str
    statement: str
    locator: str | None
    locator_key: str | None  # the key the locator belongs to ([@a; @b, p. 4] -> b)
    start: int  # prose span of the sentence
    end: int
    citation_start: int  # prose offset of its (first) citation


def _locator_and_key(prose: str, citation: Citation) -> tuple[str, str] | None:
    """The locator of a citation and the key it belongs to: in ``[see @a; @b, p. 4]`` the text after
    each key up to the next is that key's; a LaTeX ``\\citep[p.~4]{a,b}`` locator is the first key's."""
    bounds = [*citation.key_starts[1:], citation.end]
    for key, start, end in zip(citation.keys, citation.key_starts, bounds, strict=True):
        loc = locator_of(prose[start + len(key) : end]) if start < end else None
        if loc:
            return loc, key
    loc = locator_of(prose[citation.start : citation.end])
    return (loc, citation.keys[0]) if loc and citation.keys else None


def locator_of(citation_text: str) -> str | None:
    """The page or section locator written in a citation (``p. 4``, ``pp.~4--5``, ``S. 4``, ``4頁``)."""
    m = LOCATOR.search(citation_text.replace("~", " "))
    return " ".join(m.group("loc").split()) if m else None


def is_excluded(sentence: str) -> str | None:
    """Why a sentence is not a claim (opinion, future work, the draft's own definition), or None."""
    if _OPINION.search(sentence):
        return "opinion"
    if _FUTURE.search(sentence):
        return "future work"
    if _DEFINITION.search(sentence):
        return "definition"
    return None


def attributed_text(sentence_without_citations: str) -> str:
    """The sentence without its reporting frame: what the draft says the source says."""
    text = " ".join(sentence_without_citations.split()).strip()
    ja = any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in text)
    if ja:
        body = text.rstrip("。．. ")
        body = _JA_TRAIL.sub("", body)
        framed = _JA_FRAME.sub("", body, count=1)
        body = framed if len(framed) >= 6 else body
        return body.strip(" 、,") or text
    body = text.rstrip(" .!")
    m = _EN_FRAME.match(body)
    if m and len(body) - m.end() >= 8:
        body = body[m.end() :]
    body = _EN_TRAIL.sub("", body)
    return body or text


def find_attributions(analysis: Analysis) -> list[AttributionCandidate]:
    """Every attribution of the draft, in order (one per sentence); numeric citations are among
    ``analysis.citations`` when the analysis was given a numbering."""
    prose = analysis.draft.prose
    citations = analysis.citations
    quote_starts = [q.start for q in analysis.quotations]
    out: list[AttributionCandidate] = []
    ci = 0
    for s in analysis.sentences:
        while ci < len(citations) and citations[ci].end <= s.start:
            ci += 1
        inside = []
        j = ci
        while j < len(citations) and citations[j].start < s.end:
            inside.append(citations[j])
            j += 1
        if not inside or any(s.start <= q < s.end for q in quote_starts):
            continue
        statement = analysis.statement_text(s)
        if is_excluded(statement):
            continue
        pieces: list[str] = []
        pos = s.start
        for c in inside:
            pieces.append(prose[pos : c.start])
            pos = c.end
        pieces.append(prose[pos : s.end])
        bare = re.sub(r"\s+([.,;:。、])", r"\1", " ".join("".join(pieces).replace("\u2029", " ").split()))
        bare = re.sub(r"\(\s*\)|（\s*）", "", bare).strip()
        attributed = attributed_text(bare)
        if len(attributed.strip(" .。")) < 4:
            continue
        keys: list[str] = []
        for c in inside:
            keys += [k for k in c.keys if k not in keys]
        locator, locator_key = next(
            ((loc, key) for c in inside if (found := _locator_and_key(prose, c)) for loc, key in [found]), (None, None)
        )
        raw = prose[s.start : s.end]
        start = s.start + len(raw) - len(raw.lstrip(" \t\r\n\u2029\u3000"))
        out.append(AttributionCandidate(
            tuple(keys), attributed, statement, locator, locator_key, start, s.end, inside[0].start
        ))  # fmt: skip
    return out


def numbering_of(source_ids: Iterable[str], bibliography: Sequence[str] = ()) -> dict[str, str]:
    """Numeric citation labels -> citation keys: ``"n"`` is the n-th entry of the bibliography (its
    order as read: the ledger's ``references:``, then its ``bibliography:`` files, then ``--bib``);
    without an n-th entry, a source id that is the number itself (``sources: {"1": a.pdf}``)."""
    out = {sid: sid for sid in source_ids if sid.isdigit()}
    out.update({str(i): key for i, key in enumerate(bibliography, 1)})
    return out


def ledger_numbering(ledger: Ledger) -> dict[str, str]:
    """:func:`numbering_of` a ledger whose bibliography the gate has read (else its numeric source ids)."""
    return numbering_of(ledger.sources, ledger._reference_order)


def draft_attribution_claims(analysis: Analysis, ledger: Ledger) -> list[AttributionClaim]:
    """The draft's attributions that no ledger attribution claim backs, as claims (declared keys only).

    A backing ledger claim sits on the same line, or has the same statement, or
    the same source and attributed text. Keys that are not declared are left to
    the unlisted audit (``unlisted_citation``).
    """
    backed_lines: set[int] = set()
    backed_text: set[str] = set()
    for claim in ledger.claims:
        if isinstance(claim, AttributionClaim):
            if claim.location is not None:
                backed_lines.add(claim.location.line)
            if claim.statement:
                backed_text.add(_fold(claim.statement))
            backed_text.add(_fold(f"{claim.source}\x00{claim.attributed}"))
    out: list[AttributionClaim] = []
    for cand in find_attributions(analysis):
        keys = [k for k in cand.keys if k in ledger.sources]
        if not keys:
            continue
        line, col = analysis.draft.where(cand.start)
        if line in backed_lines or _fold(cand.statement) in backed_text:
            continue
        if any(_fold(f"{k}\x00{cand.attributed}") in backed_text for k in keys):
            continue
        # the key that carries the locator is the claim's `source` (the locator is checked there)
        first = cand.locator_key if cand.locator_key in keys else keys[0]
        out.append(AttributionClaim(
            id=f"draft:{line}:{col}", kind="attribution", source=first, attributed=cand.attributed,
            statement=cand.statement, locator=cand.locator if cand.locator_key in (None, first) else None,
            also_cited=[k for k in keys if k != first],
            location=Location(file=analysis.draft.path, line=line, column=col),
        ))  # fmt: skip
    return out


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def covered_by_attributions(findings: list[Finding], analysis: Analysis, ledger: Ledger) -> list[Finding]:
    """The unlisted audit's findings minus what the attribution check covers.

    A figure inside a cited sentence is checked against the cited (declared)
    source by the attribution check (HIGH when the source never prints it), and
    a declared key cited by such a sentence is checked there too; the audit's
    ``unlisted_number`` / ``unlisted_citation`` for them would say the same thing
    twice. Undeclared keys and figures outside attributions stay.
    """
    cands = [c for c in find_attributions(analysis) if any(k in ledger.sources for k in c.keys)]
    if not cands:
        return findings
    draft = analysis.draft
    covered_keys = {k for c in cands for k in c.keys if k in ledger.sources}

    def inside(f: Finding) -> bool:
        loc = f.location or {}
        line, col = loc.get("line"), loc.get("column")
        if not isinstance(line, int) or not isinstance(col, int) or not 1 <= line <= len(draft.line_starts):
            return False
        p = draft.prose_index(draft.line_starts[line - 1] + col - 1)
        return any(c.start <= p < c.end for c in cands)

    out = []
    for f in findings:
        if f.reason is Reason.UNLISTED_NUMBER and inside(f):
            continue
        if f.reason is Reason.UNLISTED_CITATION and f.claimed in covered_keys:
            continue
        out.append(f)
    return out
