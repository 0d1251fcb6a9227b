"""Attribution claims: does the cited source print the figures and names the draft gives it?

"Smith (2019) shows that remote work lowered output by 4% [@smith2019]" is an
attribution: no quotation, but a claim about what a source says. Its
deterministic checks (always run, within the cited source only):

* every figure in ``attributed`` is printed in the source by value (``4%``,
  ``1.2万``, ``four times``); the best passage that prints it is compared with
  the attributed text by the overclaim number rules, so a hedge the source
  puts on the figure ("about 4%", 「約4%」) may not be dropped;
* every proper name (researcher, title, journal, package, estimator,
  organisation; Latin capitalised names, Japanese katakana and kanji names)
  appears in the source or in its bibliographic record (``record``, and the
  citation key itself: ``smith2019`` covers "Smith");
* when a sentence of the source restates the attributed text (two thirds of
  its words), no negation or hedge of that sentence is dropped
  (:func:`restated_findings`: 「…わけではない」 -> 「…」, "may reduce" -> "reduces").

A miss is HIGH, with the passage of the source nearest to the attributed text.

Several cited sources (``[@a; @b]``, ``\\cite{a,b}``, ``[1, 3]``: ``source`` plus
``also_cited``): a figure or a name passes when at least one of them (or its
record) prints it; a miss names them all. Every cited source must be readable:
one that is undeclared or cannot be read is its own finding, and the figures and
names are then not judged absent (they may be printed in the one not read).
Whether the source *means* what the draft says is for a judge
(:mod:`claimledger.checks.judged`); without one :func:`meaning_unchecked`
gives the MED finding that keeps the outcome from ever being PASS.
"""

from __future__ import annotations

import difflib
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from claimledger._exceptions import SourceError
from claimledger.checks.boundaries import find_whole
from claimledger.checks.context import IndexedSource, RunContext
from claimledger.extract.mentions import NumberMention, find_mentions, is_structural, same_number
from claimledger.extract.names import Name, find_names
from claimledger.judge.retrieve import SourceIndex
from claimledger.model.claim import AttributionClaim, Claim
from claimledger.model.finding import Evidence, Finding, Reason, Status
from claimledger.normalize import normalize_quote

CHECK = "attribution"
JUDGE_HINT = (
    "add a judge to check it: claimledger check ... --judge openai --judge-model MODEL "
    "[--judge-url http://127.0.0.1:8080/v1] (see docs/judge.md)"
)
_CITATION_TEXT = re.compile(r"\[[^\[\]]*@[^\[\]]*\]|\\[A-Za-z]*cite[A-Za-z]*\*?(?:\[[^\]]*\]){0,2}\{[^}]*\}")
_INDEX_CACHE: OrderedDict[str, SourceIndex] = OrderedDict()
_INDEX_CACHE_SIZE = 4


@dataclass(frozen=True)
class NamesAndNumbers:
    """What the deterministic step looks for in the source."""

    numbers: list[NumberMention]
    names: list[Name]


def items_of(attributed: str, statement: str | None = None) -> NamesAndNumbers:
    """The figures of ``attributed`` and the names of ``attributed`` and ``statement`` (citations removed)."""
    numbers = [m for m in find_mentions(attributed) if _checkable(attributed, m)]
    names = list(find_names(attributed))
    if statement:
        seen = {n.text for n in names}
        for n in find_names(_CITATION_TEXT.sub(" ", statement)):
            if n.text not in seen:
                seen.add(n.text)
                names.append(n)
    return NamesAndNumbers(numbers, names)


_LIST_MARKER = re.compile(r"^\s*[(（]?$")


def _checkable(text: str, m: NumberMention) -> bool:
    """A figure to look for: not a locator's number, not a list marker, not a bare 1 (一匹, "a"),
    not followed by a unit letter the reader does not parse (8.2m, 3bn)."""
    if is_structural(text, m):
        return False
    if _LIST_MARKER.match(text[: m.start]) and text[m.end : m.end + 1] in (".", ")", "）", "、"):
        return False
    if m.key.date is None and m.key.value == 1 and m.key.unit is None:
        return False
    if m.kind == "word" and m.key.value <= 10:  # two, twice, three times: often paraphrased ("a pair", "doubled")
        return False
    after = text[m.end : m.end + 1]
    return not (after.isascii() and after.isalpha() and after != "s")


def _printed(text: str, m: NumberMention, source_mentions: list[NumberMention]) -> list[NumberMention]:
    """Where the source prints the figure by value. A date or a year counts when the source prints
    its year (a page often gives the day in another form); a decade (the 1990s) any year of it."""
    year = _year_of(m)
    if year >= 0:
        decade = text[m.end : m.end + 1] == "s" or text[m.end : m.end + 2] in ("'s", "’s")
        decade = decade and year % 10 == 0
        return [s for s in source_mentions if _year_of(s) == year or (decade and _year_of(s) // 10 == year // 10)]
    return [s for s in source_mentions if same_number(m.key, s.key)]


def _year_of(s: NumberMention) -> int:
    if s.key.date is not None:
        return s.key.date[0] if s.key.date[0] else -1
    raw = s.text.strip()
    if s.key.unit is None and raw.isdigit() and len(raw) == 4 and 1000 <= s.key.value <= 2999:
        return int(s.key.value)
    return -1


def source_index(ix: IndexedSource) -> SourceIndex:
    """The retrieval index of one source (kept for a few sources, keyed by content hash)."""
    key = f"{ix.source.id}:{ix.source.sha256}"
    cached = _INDEX_CACHE.get(key)
    if cached is None:
        cached = _INDEX_CACHE[key] = SourceIndex.build(ix.source)
        while len(_INDEX_CACHE) > _INDEX_CACHE_SIZE:
            _INDEX_CACHE.popitem(last=False)
    else:
        _INDEX_CACHE.move_to_end(key)
    return cached


def nearest_passage(index: SourceIndex, text: str) -> Evidence | None:
    """The sentence of the source that shares most words with ``text``: the best BM25 passage,
    narrowed to its best sentence and one on each side. None when nothing is shared."""
    from claimledger.judge.retrieve import tokens

    ranked = index.ranked(text)
    if not ranked:
        return None
    a, b = index.passages[ranked[0]]
    src = index.source
    want = set(tokens(text))
    inside = [(sa, sb) for sa, sb in index.sentences if sa >= a and sb <= b]
    if inside:
        best = max(range(len(inside)), key=lambda i: (len(want & set(tokens(src.text[inside[i][0]:inside[i][1]]))), -i))
        a = inside[max(best - 1, 0)][0] if best and inside[best][1] - inside[best][0] < 80 else inside[best][0]
        b = inside[best][1]
    return Evidence(src.id, a, b, src.text[a:b], src.page_of(a))


def _sentence_around(index: SourceIndex, start: int, end: int) -> Evidence:
    src = index.source
    for a, b in index.sentences:
        if a <= start and end <= b:
            if b - a > 600:
                a, b = max(a, start - 250), min(b, end + 250)
            return Evidence(src.id, a, b, src.text[a:b], src.page_of(a))
    a, b = max(0, start - 200), min(len(src.text), end + 200)
    return Evidence(src.id, a, b, src.text[a:b], src.page_of(a))


def _name_in(name: str, text: str, record: str) -> bool:
    nq = normalize_quote(name)
    if not nq:
        return True
    if find_whole(text, nq) >= 0:
        return True
    folded_record = normalize_quote(record)
    if folded_record and (find_whole(folded_record, nq) >= 0 or nq in folded_record.replace(" ", "")):
        return True
    # names written with or without a middle dot or space (ジョン・スミス, ジョンスミス)
    squeezed = nq.replace("・", "").replace("･", "")
    return squeezed != nq and find_whole(text, squeezed) >= 0


def _number_findings(
    claim: AttributionClaim, cited: list[tuple[str, IndexedSource, SourceIndex]], numbers: list[NumberMention],
    nearest: Evidence | None,
) -> tuple[list[Finding], list[list[Evidence]]]:  # fmt: skip
    """Each figure must be printed in at least one cited source; the overclaim rules run between the
    attributed text and the best passage printing it. ``places``: where ``claim.source`` prints each."""
    from claimledger.checks.overclaim.figures import number_hits

    findings: list[Finding] = []
    places: list[list[Evidence]] = []
    if not numbers:
        return findings, places
    mentions = {key: find_mentions(index.source.text) for key, _ix, index in cited}
    for m in numbers:
        best: tuple[int, Evidence, str] | None = None
        for key, _ix, index in cited:
            hits = _printed(claim.attributed, m, mentions[key])
            if not hits:
                continue
            place, score = _best_place(index, hits, claim.attributed)
            if best is None or score > best[0]:
                best = (score, place, key)
            if key == claim.source:
                src = index.source
                places.append([place] + [Evidence(src.id, h.start, h.end, h.text, src.page_of(h.start)) for h in hits[:200]])
        if best is None:
            findings.append(Finding(
                claim.id, CHECK, Status.DISCREPANCY, Reason.ATTRIBUTION_NUMBER_ABSENT,
                f"the draft says {_who(claim)} gives {m.text!r}, but {_none_of(claim)} prints that figure"
                + _nearest_note(nearest),
                nearest=nearest, claimed=claim.attributed, extra={"figure": m.text, "sources": claim.cited()},
            ))  # fmt: skip
            continue
        _score, place, key = best
        for hit in number_hits(claim.attributed, place.text):
            span = hit.statement_span
            if span is None or not (span[0] < m.end and m.start < span[1]):
                continue
            finding = hit.to_finding(claim.id)
            findings.append(Finding(
                claim.id, CHECK, finding.status, finding.reason,
                f"{finding.message} (the quote is the passage of {key} that prints the figure)",
                evidence=place, claimed=claim.attributed, extra={**finding.extra, "source": key},
            ))  # fmt: skip
    return findings, places


def _who(claim: AttributionClaim) -> str:
    cited = claim.cited()
    return cited[0] if len(cited) == 1 else " or ".join(cited)


def _none_of(claim: AttributionClaim) -> str:
    cited = claim.cited()
    return "the source never" if len(cited) == 1 else f"none of the {len(cited)} cited sources"


def _best_place(index: SourceIndex, hits: list[NumberMention], query: str) -> tuple[Evidence, int]:
    """Of the places that print the figure, the sentence sharing most words with the attributed text."""
    from claimledger.judge.retrieve import tokens

    want = set(tokens(query))
    best: Evidence | None = None
    best_score = -1
    for h in hits[:200]:
        ev = _sentence_around(index, h.start, h.end)
        score = len(want & set(tokens(ev.text)))
        if score > best_score:
            best, best_score = ev, score
    assert best is not None
    return best, best_score


def _nearest_note(nearest: Evidence | None) -> str:
    if nearest is None:
        return "; no passage of the source shares words with the attributed text"
    where = f" (p. {nearest.page})" if nearest.page else ""
    text = " ".join(nearest.text.split())
    return f"; nearest passage{where}: {text[:240]!r}"


def _record_text(claim: AttributionClaim) -> str:
    parts = [claim.record or ""]
    for key in claim.cited():
        parts += [key, re.sub(r"[_\-.:]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])", " ", key)]
    return " ".join(x for x in parts if x)


def attribution_findings(claim: AttributionClaim, ctx: RunContext) -> list[Finding]:
    """The deterministic findings of one attribution claim (untiered). Never raises for bad input.

    Returns a VERIFIED-free list: an attribution is never verified by these
    checks alone; an empty list means no figure or name was missing.
    """
    declared = ctx.ledger.sources
    problems: list[Finding] = []
    cited: list[tuple[str, IndexedSource, SourceIndex]] = []
    loaded_source: IndexedSource | None = None
    many = len(claim.cited()) > 1
    for key in claim.cited():
        if key not in declared and not ctx.is_pinned(key):
            close = difflib.get_close_matches(key, list(declared), n=1)
            hint = f" (did you mean {close[0]!r}? ids are never repaired)" if close else ""
            problems.append(Finding(
                claim.id, CHECK, Status.UNVERIFIABLE, Reason.SOURCE_UNDECLARED,
                f"source {key!r} is not declared under `sources:`{hint}",
            ))  # fmt: skip
            continue
        loaded = ctx.source(key)
        if isinstance(loaded, SourceError):
            message = f"{key}: {loaded.message}" if many else loaded.message
            problems.append(Finding(claim.id, CHECK, Status.UNVERIFIABLE, Reason(loaded.reason), message))
            continue
        if key == claim.source:
            loaded_source = loaded
        cited.append((key, loaded, source_index(loaded)))
    if problems:  # a figure or name may be printed in the source that was not read: not judged absent
        return problems
    items = items_of(claim.attributed, claim.statement)
    nearest = None
    for _key, _ix, index in cited:
        nearest = nearest_passage(index, claim.attributed) or (
            nearest_passage(index, claim.statement) if claim.statement else None
        )
        if nearest is not None:
            break
    findings, places = _number_findings(claim, cited, items.numbers, nearest)
    if claim.locator and loaded_source is not None:
        findings += _locator_findings(claim, loaded_source, places)
    findings += restated_findings(claim, cited, {f.reason for f in findings})
    record = _record_text(claim)
    for name in items.names:
        if any(_name_in(name.text, ix.primary.text, record) for _key, ix, _index in cited):
            continue
        where = f"in {claim.source}" if not many else f"in any of {', '.join(claim.cited())}"
        findings.append(Finding(
            claim.id, CHECK, Status.DISCREPANCY, Reason.ATTRIBUTION_NAME_ABSENT,
            f"the name {name.text!r} appears neither {where} nor in {'its' if not many else 'their'} bibliographic record"
            + _nearest_note(nearest),
            nearest=nearest, claimed=claim.attributed, extra={"name": name.text, "sources": claim.cited()},
        ))  # fmt: skip
    return findings


RESTATED = 2 / 3  # share of the attributed text's words a source sentence must hold to count as restating it
# the rules that compare a paraphrase with the sentence it restates; figures are the figure step's business,
# and a restriction left out of a summary (the scope rules) is too common in faithful reviews to be HIGH here
_RESTATED_RULES = frozenset({
    "negation_dropped", "negation_added", "modality_strengthened", "association_to_causation",
    "quantifier_broadened", "qualifier_dropped",
})  # fmt: skip


def restating_sentence(index: SourceIndex, text: str) -> Evidence | None:
    """The line of a source sentence that holds most of ``text``'s words (one line: a heading or a
    caption printed above the sentence is not part of it), if it holds two thirds of them."""
    from claimledger.judge.retrieve import tokens

    want = set(tokens(text))
    if len(want) < 3:
        return None
    src = index.source
    best: tuple[int, int, int] | None = None
    for i in index.ranked(text)[:3]:
        a, b = index.passages[i]
        for sa, sb in index.sentences:
            if sa < a or sb > b:
                continue
            pos = sa
            for piece in src.text[sa:sb].split("\n"):
                score = len(want & set(tokens(piece)))
                if piece.strip() and (best is None or score > best[0]):
                    best = (score, pos, pos + len(piece))
                pos += len(piece) + 1
    if best is None or best[0] < RESTATED * len(want):
        return None
    _score, a, b = best
    return Evidence(src.id, a, b, src.text[a:b], src.page_of(a))


def restated_findings(
    claim: AttributionClaim, cited: list[tuple[str, IndexedSource, SourceIndex]], already: set[Reason]
) -> list[Finding]:
    """Hedges and polarity where a cited source restates the attribution.

    When a sentence of the source holds at least two thirds of the attributed text's words
    (:data:`RESTATED`), it is the sentence the attribution paraphrases, and the overclaim rules run
    between them: a negation dropped or added (「…わけではない」 -> 「…」, "did not lower" ->
    "lowered"), a hedge or hearsay dropped (「…らしい」, 「もしかしたら…」, 「…と言われている」, "may
    lower" -> "lowers"), a quantifier broadened. Figures are left to the figure step. With several
    cited sources, one that restates the text without any rule firing clears it.
    """
    from claimledger.checks.overclaim import overclaim_hits

    flagged: list[Finding] = []
    for key, _ix, index in cited:
        passage = restating_sentence(index, claim.attributed)
        if passage is None:
            continue
        hits = [h for h in overclaim_hits(claim.attributed, passage.text) if h.rule in _RESTATED_RULES]
        if not hits:
            return []  # this source restates it faithfully
        if not flagged:
            for hit in hits:
                finding = hit.to_finding(claim.id)
                if finding.reason in already:
                    continue
                flagged.append(Finding(
                    claim.id, CHECK, finding.status, finding.reason,
                    f"{finding.message} (the quote is the sentence of {key} that restates the attributed text)",
                    evidence=passage, claimed=claim.attributed, extra={**finding.extra, "source": key},
                ))  # fmt: skip
    return flagged


def _locator_findings(claim: AttributionClaim, ix: IndexedSource, places: list[list[Evidence]]) -> list[Finding]:
    """Each figure must be printed somewhere within the locator; without figures the locator waits for a judge."""
    from claimledger.checks.locator import check_locator

    assert claim.locator is not None
    if not places:
        return [Finding(
            claim.id, "locator", Status.UNVERIFIABLE, Reason.LOCATOR_UNCHECKED,
            f"locator {claim.locator!r} not checked: the attribution prints no figure to place in {claim.source}, "
            "and no judge quoted its evidence",
            claimed=claim.locator, extra={"awaiting_judge": True},
        )]  # fmt: skip
    out: list[Finding] = []
    for occurrences in places:
        results = [check_locator(claim.id, claim.locator, ix.source, ev) for ev in occurrences]
        if any(r is None for r in results):
            continue
        first = results[0]
        assert first is not None
        out.append(first)
    return out


def meaning_unchecked(claim: AttributionClaim) -> Finding:
    """The MED finding of an attribution no judge has read: never verified, never PASS."""
    return Finding(
        claim.id, CHECK, Status.UNVERIFIABLE, Reason.ATTRIBUTION_MEANING_UNCHECKED,
        f"meaning not checked: whether {_who(claim)} says {_short(claim.attributed)!r} needs a judge; "
        + JUDGE_HINT,
        claimed=claim.attributed,
    )  # fmt: skip


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def record_text(authors: Sequence[str], title: str, venue: str, year: int | None) -> str:
    """A bibliographic record as text names can be found in (authors, title, venue, year)."""
    return " ".join(x for x in (*authors, title, venue, str(year) if year else "") if x)


def cited_record(claim: AttributionClaim, records: Mapping[str, str]) -> str | None:
    """The bibliography entries of every source the claim cites, as one record (None without any)."""
    return " ".join(records[k] for k in claim.cited() if k in records) or None


def with_records(claims: Sequence[Claim], records: Mapping[str, str]) -> list[Claim]:
    """Attribution claims without a ``record`` get their cited sources' bibliography entries as one."""
    if not records:
        return list(claims)
    out: list[Claim] = []
    for claim in claims:
        record = cited_record(claim, records) if isinstance(claim, AttributionClaim) and claim.record is None else None
        if isinstance(claim, AttributionClaim) and record is not None:
            copy = claim.model_copy(update={"record": record})
            copy._line = claim._line
            claim = copy
        out.append(claim)
    return out


def judge_placed(claim: AttributionClaim, evidence: Evidence, ix: IndexedSource) -> Finding | None:
    """The locator of an attribution checked against the judge's (literal) evidence quote."""
    from claimledger.checks.locator import check_locator

    if not claim.locator:
        return None
    return check_locator(claim.id, claim.locator, ix.source, evidence)
