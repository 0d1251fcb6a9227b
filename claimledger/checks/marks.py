"""Re-verifying a draft's claims, and the mark each one deserves.

A quotation is [V] only when :func:`check_quote_text` finds it verbatim in a
source its citation names; a number is [V] only when a ledger number claim
tied to that place backs it (same figure as displayed; see
:mod:`claimledger.checks.tie`: its location, its statement, or its cited
passage about the same thing) and :func:`check_number` verifies that claim
(recompute from data, or the figure printed in a verified passage). A claim
whose value merely coincides backs nothing.
Anything else is [D]: the writer's own mark is never read as evidence.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from claimledger.checks.context import RunContext
from claimledger.checks.numeric import check_number
from claimledger.checks.quote import check_quote_text, quote_key, strip_outer_quotes
from claimledger.checks.tie import Ties
from claimledger.extract.marks import Analysis, Target
from claimledger.extract.mentions import NumberMention
from claimledger.model.claim import NumberClaim, QuoteClaim
from claimledger.model.finding import Finding, Offered, Reason, Status
from claimledger.normalize import normalize_quote

CHECK = "draft_marks"


@dataclass(frozen=True)
class Verdict:
    """A draft claim, the finding that decides its mark, and the ledger claim backing it."""

    target: Target
    finding: Finding
    claim_id: str
    line: int
    column: int
    backing: str | None = None

    @property
    def letter(self) -> str:
        return "V" if self.finding.status is Status.VERIFIED else "D"

    @property
    def writer_letter(self) -> str | None:
        return self.target.mark.letter if self.target.mark else None


def draft_claim_id(line: int, column: int) -> str:
    return f"draft:{line}:{column}"


class DraftChecker:
    """Checks every claim of one analysed draft against one run context (sources, data)."""

    def __init__(self, analysis: Analysis, ctx: RunContext) -> None:
        self.analysis = analysis
        self.ctx = ctx
        self.quote_claims: list[tuple[str, str, str]] = []  # (claim id, source, normalized quote)
        numbers = [c for c in ctx.ledger.claims if isinstance(c, NumberClaim)]
        self.ties = Ties(analysis, numbers, set(ctx.ledger.sources))
        for claim in ctx.ledger.claims:
            if isinstance(claim, QuoteClaim):
                self.quote_claims.append((claim.id, claim.source, normalize_quote(strip_outer_quotes(claim.quote))))
        self._quote_cache: dict[tuple[str, str], Finding] = {}
        self._number_cache: dict[str, Finding] = {}

    def location(self, prose_start: int) -> tuple[int, int, dict[str, object]]:
        line, col = self.analysis.draft.where(prose_start)
        return line, col, {"file": self.analysis.draft.path, "line": line, "column": col}

    def backing_number(self, mention: NumberMention) -> NumberClaim | None:
        """The ledger number claim tied to this figure (location, statement, or cited passage)."""
        cit = self.analysis.citation_for(mention.start, mention.end)
        return self.ties.backing(mention, cit.keys if cit else ())

    def backing_quote(self, target: Target) -> str | None:
        nq = normalize_quote(target.text)
        for cid, source, ledger_quote in self.quote_claims:
            if source in target.keys and nq and nq in ledger_quote:
                return cid
        return None

    def targets(self, *, with_backed_numbers: bool = True) -> list[Target]:
        """The analysis' targets plus, optionally, unmarked numbers that a ledger claim backs."""
        targets = list(self.analysis.targets)
        if not with_backed_numbers or not self.ties.claims:
            return targets
        taken = {(t.start, t.end) for t in targets if t.kind == "number"}
        extra: list[Target] = []
        for m in self.analysis.mentions:
            if (m.start, m.end) in taken or self.analysis.quotation_containing(m.start) is not None:
                continue
            if self.backing_number(m) is None:
                continue
            cit = self.analysis.citation_for(m.start, m.end)
            extra.append(Target("number", m.start, m.end, m.text, None, cit, self.analysis.sentence_of(m.start), m))
        return sorted(targets + extra, key=lambda t: t.start)

    def verdicts(self, *, with_backed_numbers: bool = True) -> list[Verdict]:
        return [self.verdict(t) for t in self.targets(with_backed_numbers=with_backed_numbers)]

    def verdict(self, target: Target) -> Verdict:
        line, col, loc = self.location(target.start)
        cid = draft_claim_id(line, col)
        backing: str | None = None
        alternative: str | None = None
        if target.kind == "orphan":
            finding = Finding(
                cid, CHECK, Status.DISCREPANCY, Reason.MARK_ORPHAN,
                f"the mark {target.text} follows neither a quotation nor a number, so it marks nothing; "
                "put it right after the quotation or figure it is about",
            )  # fmt: skip
        elif target.kind == "quote":
            finding = self._check_quote(cid, target)
            backing = self.backing_quote(target)
            if finding.status is Status.VERIFIED:
                finding = self._hedge_kept(finding, target, finding.evidence.source if finding.evidence else None,
                                           target.text, numbers=False)  # fmt: skip
        else:
            assert target.mention is not None
            claim = self.backing_number(target.mention)
            if claim is None:
                finding = Finding(
                    cid, CHECK, Status.UNVERIFIABLE, Reason.NUMBER_UNBACKED,
                    f"no ledger number claim backs {target.text!r}; a figure is [V] only when recomputed "
                    "from data (`sql`/`metric`) or read in a verified passage (`source` + `quote`) by a "
                    f"claim tied to this place{self.ties.why_not(target.mention)}",
                    claimed=target.text,
                )  # fmt: skip
            else:
                backing = claim.id
                alternative = claim.author_alternative
                finding = self._check_number(claim)
                finding = dataclasses.replace(
                    finding, claim_id=cid, message=f"{finding.message} (ledger claim {claim.id})"
                )
                if finding.status is Status.VERIFIED and claim.source is not None and claim.quote is not None:
                    finding = self._hedge_kept(finding, target, claim.source, claim.quote, numbers=True)
        finding = dataclasses.replace(finding, claim_id=cid, location=loc, check=CHECK)
        if finding.claimed is None:
            finding = dataclasses.replace(finding, claimed=target.text)
        return Verdict(target, dataclasses.replace(finding, offered=Offered(alternative)), cid, line, col, backing)

    def _hedge_kept(self, verified: Finding, target: Target, source: str | None, passage: str, *,
                    numbers: bool) -> Finding:  # fmt: skip
        """A verified quote or passage-backed figure whose draft sentence drops the source's hedge is [D].

        For a quotation: the quote cut so that it leaves out a hedge, qualifier or
        negation standing right next to it in the source, which the sentence does
        not restore (約「4倍に増えた」 restores it, 「4倍に増えた」 alone does not).
        For a figure read in a passage: the sentence must keep the passage's hedge
        ("approximately 2,000" -> "2,000 servers" is not [V]).
        """
        if source is None:
            return verified
        try:
            from claimledger.checks.overclaim.around import around_hits
            from claimledger.checks.overclaim.figures import number_hits
            from claimledger.checks.overclaim.hedges import word_hedge_hits

            context = self.ctx.quote_result(*quote_key(source, passage)).context
            sentence = self._sentence(target)
            hits = around_hits(sentence, strip_outer_quotes(passage), context) if context else []
            if numbers:
                hits = number_hits(sentence, strip_outer_quotes(passage), context) + word_hedge_hits(
                    sentence, strip_outer_quotes(passage)) + hits  # fmt: skip
        except Exception as exc:  # fail closed: a crash in the rules is never a [V]
            return Finding(verified.claim_id, CHECK, Status.ERROR, Reason.CHECK_CRASHED,
                           f"internal error in the overclaim rules ({type(exc).__name__}: {exc}); not verified")  # fmt: skip
        if not hits:
            return verified
        hit = hits[0]
        f = hit.to_finding(verified.claim_id)
        return dataclasses.replace(f, evidence=verified.evidence, message=f"{hit.message} (the literal check passed)")

    def _sentence(self, target: Target) -> str:
        """The target's sentence with citations and marks blanked (offsets kept)."""
        s = target.sentence
        if s is None:
            return target.text
        text, _base = self.ties.clean_sentence(s.start)
        return text

    def _check_quote(self, cid: str, target: Target) -> Finding:
        if not target.keys:
            return Finding(
                cid, CHECK, Status.UNVERIFIABLE, Reason.QUOTE_UNCITED,
                "a marked quotation needs its source: a citation ([@key] or \\cite{key}) in the same sentence",
            )  # fmt: skip
        results: list[Finding] = []
        for key in target.keys:
            cache_key = (key, target.text)
            found = self._quote_cache.get(cache_key)
            if found is None:
                try:
                    found = check_quote_text(cid, key, target.text, self.ctx)
                except Exception as exc:  # fail closed, never crash the run
                    found = Finding(cid, CHECK, Status.ERROR, Reason.CHECK_CRASHED,
                                    f"internal error ({type(exc).__name__}: {exc}); not verified")  # fmt: skip
                self._quote_cache[cache_key] = found
            if found.status is Status.VERIFIED:
                return found
            results.append(found)
        return results[0]

    def _check_number(self, claim: NumberClaim) -> Finding:
        found = self._number_cache.get(claim.id)
        if found is None:
            try:
                found = check_number(claim, self.ctx)
            except Exception as exc:  # fail closed
                found = Finding(claim.id, CHECK, Status.ERROR, Reason.CHECK_CRASHED,
                                f"internal error ({type(exc).__name__}: {exc}); not verified")  # fmt: skip
            self._number_cache[claim.id] = found
        return found


def mark_not_verified(v: Verdict) -> Finding:
    """The finding for a writer's [V] that the program does not confirm."""
    f = v.finding
    return dataclasses.replace(
        f,
        reason=Reason.MARK_NOT_VERIFIED,
        status=Status.DISCREPANCY,
        tier=None,
        offered=None,
        message=f"the writer marked this [V] but it does not verify ({f.reason.value}): {f.message}",
        extra={**f.extra, "underlying_reason": f.reason.value},
    )
