"""The semantic check: Chain-of-Verification with an independent judge.

For each quote claim that has a ``statement`` (the draft's sentence):

1. a verification question answerable from the source alone (fixed template);
2. evidence from the *cited* source only: the quote's neighbourhood, then
   BM25 passages (optionally fused with a sentence encoder for ordering);
3. the judge answers from a :class:`~claimledger.judge.JudgeRequest`, a type
   with no draft field; when the draft is given, every request is audited
   before it is sent and a leaking request is never sent;
4. the answer's evidence quote is checked literally against the source.

A judge only *adds* findings: contradicted / overclaim / not_found are HIGH,
every failure (timeout, HTTP error, refusal, malformed answer, an evidence
quote that is not in the source) is MED, and ``supported`` adds nothing and
changes nothing: it never turns another check's discrepancy into verified.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from claimledger._exceptions import SourceError
from claimledger.checks.context import IndexedSource, RunContext
from claimledger.checks.quote import find_exact, strip_outer_quotes
from claimledger.judge.cache import JudgeCache, key_fields
from claimledger.judge.cove import language_of, verification_question
from claimledger.judge.independence import audit_request, draft_sentences
from claimledger.judge.injection import injection_spans
from claimledger.judge.prompt import PROMPT_VERSION
from claimledger.judge.retrieve import PassageRanker, SourceIndex, select_evidence
from claimledger.judge.types import Judge, JudgeError, JudgeRequest, JudgeVerdict
from claimledger.model.claim import AttributionClaim
from claimledger.model.finding import Evidence, Finding, Offered, Reason, Status
from claimledger.normalize import normalize_quote

CHECK = "semantic_judge"
CACHE_FILE = "judge-cache.sqlite3"


class JudgeableClaim(Protocol):
    """What the pipeline needs of a claim (a :class:`~claimledger.model.claim.QuoteClaim` has it)."""

    @property
    def id(self) -> str: ...
    @property
    def statement(self) -> str | None: ...
    @property
    def source(self) -> str: ...
    @property
    def quote(self) -> str: ...
    @property
    def author_alternative(self) -> str | None: ...


@dataclasses.dataclass
class _Job:
    claim: JudgeableClaim
    ix: IndexedSource
    request: JudgeRequest
    sha256: str
    key: str
    fields: str
    injected: list[tuple[int, int]]
    answer: JudgeVerdict | JudgeError | None = None
    cached: bool = False


def default_cache_path(ctx: RunContext) -> Path:
    from claimledger.load.fetch import default_cache_dir

    return (ctx.config.cache_dir or default_cache_dir()) / CACHE_FILE


def build_request(
    claim: JudgeableClaim,
    ix: IndexedSource,
    index: SourceIndex,
    *,
    ranker: PassageRanker | None = None,
    max_passages: int = 4,
    question: str | None = None,
) -> JudgeRequest:
    """The request for one claim: claim, question and evidence from the cited source. No draft.

    ``question``: a verification question asked of the model beforehand (``--judge-questions
    model``); by default the fixed template's."""
    statement = claim_text(claim)
    lang = language_of(statement)
    quote = getattr(claim, "quote", None)
    found = find_exact(normalize_quote(strip_outer_quotes(quote)), ix) if quote else None
    span = (found.start, found.end) if found is not None else None
    query = f"{statement} {quote}" if quote else statement
    passages = select_evidence(index, query, span, ranker=ranker, max_passages=max_passages)
    return JudgeRequest(
        claim_id=claim.id,
        language=lang,
        claim=statement,
        # a claim may bring its own CoVe question (the scope check's "does this evidence answer ...?")
        question=getattr(claim, "cove_question", None) or question or verification_question(statement, lang),
        source_id=ix.source.id,
        passages=passages,
        prompt_version=PROMPT_VERSION,
    )


def claim_text(claim: Any) -> str:
    """What the judge is asked about: an attribution's ``attributed`` text, else the ``statement``."""
    if isinstance(claim, AttributionClaim):
        return claim.attributed.strip()
    return (claim.statement or "").strip()


def semantic_findings(
    claims: Iterable[Any],
    ctx: RunContext,
    judge: Judge,
    *,
    cache_path: str | Path | None = None,
    concurrency: int = 4,
    use_cache: bool = True,
    draft: str | None = None,
    ranker: PassageRanker | None = None,
    max_passages: int = 4,
    questions: str = "template",
) -> tuple[list[Finding], dict[str, Any]]:
    """Run the judge over ``claims``; return the findings it adds and report metadata.

    ``claims`` may hold any ledger claims; those with a cited ``source``, a
    ``quote`` and a ``statement`` are judged, the others are listed as skipped.
    ``draft`` (the document's text) is used only for the independence audit;
    it is never sent. Findings come with their tiers. Never raises for a judge
    failure: each one is a MED finding.
    """
    describe = _describe(judge)
    meta: dict[str, Any] = {
        "judge": describe,
        "prompt_version": PROMPT_VERSION,
        "questions": questions,
        "requests": [],
        "skipped": [],
        "counts": {},
        "independence": {
            "request_type_has_draft_field": False,
            "draft_audited": draft is not None,
            "leaks": [],
        },
    }
    jobs: list[_Job] = []
    findings: list[Finding] = []
    indexes: dict[str, SourceIndex] = {}
    sentences = draft_sentences(draft) if draft is not None else None
    for claim in claims:
        reason = _not_judgeable(claim, ctx)
        if reason:
            meta["skipped"].append({"claim_id": getattr(claim, "id", None), "reason": reason})
            continue
        question: str | None = None
        asked = False
        # an attribution citing several sources ([@a; @b]) is put to the judge once per source
        for source_id in _cited(claim, ctx):
            loaded = ctx.source(source_id)
            if isinstance(loaded, SourceError):
                meta["skipped"].append({"claim_id": claim.id, "source": source_id,
                                        "reason": f"source unavailable ({loaded.reason})"})  # fmt: skip
                continue
            index = indexes.get(source_id)
            if index is None:
                index = indexes[source_id] = SourceIndex.build(loaded.source)
            if questions == "model" and not asked:
                asked = True
                question, failed = _ask_question(judge, claim, describe)
                if failed is not None:
                    findings.append(failed)
                    break
            request = build_request(claim, loaded, index, ranker=ranker, max_passages=max_passages, question=question)
            sha = request.sha256()
            if sentences is not None:
                leaks = audit_request(request, sentences, loaded.source.text)
                if leaks:
                    meta["independence"]["leaks"].extend(dataclasses.asdict(leak) for leak in leaks)
                    findings.append(_finding(
                        claim, Status.ERROR, Reason.JUDGE_DRAFT_LEAK,
                        f"the judge request would contain {len(leaks)} sentence(s) of the draft outside the claim "
                        f"(e.g. {leaks[0].sentence[:80]!r} in the {leaks[0].where}); it was not sent",
                        sha, describe,
                    ))  # fmt: skip
                    continue
            injected = [s for p in request.passages for s in injection_spans(p.text, p.start)]
            fields = key_fields(judge.kind, judge.model, request)
            key = hashlib.sha256(fields.encode("utf-8")).hexdigest()
            jobs.append(_Job(claim, loaded, request, sha, key, fields, injected))

    cache = _open_cache(cache_path, ctx, meta) if use_cache and jobs else None
    try:
        if cache is not None and not ctx.config.refresh:
            for job in jobs:
                hit = cache.get(job.key, job.fields)
                if hit is not None:
                    job.answer, job.cached = hit, True
        pending = [job for job in jobs if job.answer is None]
        if pending:
            with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(pending)))) as pool:
                for job, answer in zip(pending, pool.map(lambda j: _ask(judge, j.request), pending), strict=True):
                    job.answer = answer
                    if cache is not None and isinstance(answer, JudgeVerdict):
                        cache.put(job.key, judge.kind, judge.model, PROMPT_VERSION, answer, job.fields)
    finally:
        if cache is not None:
            cache.close()

    counts = {"judged": len(jobs), "cached": 0, "asked": 0, "failed": 0, "discarded": 0,
              "supported": 0, "contradicted": 0, "overclaim": 0, "not_found": 0,
              "leaks": len(meta["independence"]["leaks"]), "skipped": len(meta["skipped"])}  # fmt: skip
    answered: list[tuple[_Job, Finding | None]] = []
    for job in jobs:
        counts["cached" if job.cached else "asked"] += 1
        finding, entry = _interpret(job, ctx, describe)
        entry["source"] = job.ix.source.id
        meta["requests"].append(entry)
        if entry["accepted"] and entry["verdict"] in counts:
            counts[entry["verdict"]] += 1
        elif isinstance(job.answer, JudgeError):
            counts["failed"] += 1
        else:
            counts["discarded"] += 1
        answered.append((job, finding))
    findings += _one_per_claim(answered)
    meta["counts"] = counts
    return findings, meta


def _cited(claim: Any, ctx: RunContext) -> list[str]:
    """The sources a claim is judged against: an attribution's every declared cited source."""
    if isinstance(claim, AttributionClaim):
        return [k for k in claim.cited() if k in ctx.ledger.sources or ctx.is_pinned(k)]
    return [claim.source]


def _one_per_claim(answered: list[tuple[_Job, Finding | None]]) -> list[Finding]:
    """An attribution judged against several sources is verified when one of them supports it (the
    finding names which, and what the others answered); otherwise every source's finding stands."""
    by_claim: dict[str, list[tuple[_Job, Finding | None]]] = {}
    for job, finding in answered:
        by_claim.setdefault(job.claim.id, []).append((job, finding))
    out: list[Finding] = []
    for group in by_claim.values():
        if len(group) == 1:
            out += [f for _job, f in group if f is not None]
            continue
        others = {job.ix.source.id: _answer_of(job, f) for job, f in group}
        supported = next(((job, f) for job, f in group if f is not None and f.status is Status.VERIFIED), None)
        if supported is None:
            out += [_for_source(f, job.ix.source.id) for job, f in group if f is not None]
            continue
        job, f = supported
        assert f is not None
        key = job.ix.source.id
        rest = "; ".join(f"{k}: {v}" for k, v in others.items() if k != key)
        out.append(dataclasses.replace(
            f, message=f"{f.message} (supported by {key} of the {len(group)} cited sources; {rest})",
            extra={**f.extra, "supported_by": key, "answers": others},
        ))  # fmt: skip
    return out


def _answer_of(job: _Job, finding: Finding | None) -> str:
    if finding is not None and finding.status is Status.VERIFIED:
        return "supported"
    if isinstance(job.answer, JudgeVerdict):
        return job.answer.verdict if finding is None or finding.status is not Status.ERROR else f"{job.answer.verdict} (discarded)"
    return f"no answer ({job.answer.kind})" if isinstance(job.answer, JudgeError) else "no answer"


def _for_source(finding: Finding, source_id: str) -> Finding:
    return dataclasses.replace(finding, message=f"{source_id}: {finding.message}", extra={**finding.extra, "source": source_id})


def _describe(judge: Judge) -> dict[str, Any]:
    try:
        return dict(judge.describe())
    except Exception:
        return {"kind": judge.kind, "model": judge.model}


def _not_judgeable(claim: Any, ctx: RunContext) -> str | None:
    if getattr(claim, "kind", "quote") not in ("quote", "attribution"):
        return f"not a quote or attribution claim (kind {getattr(claim, 'kind', '?')})"
    if not claim_text(claim):
        return "no statement: nothing for the judge to compare with the source"
    source = getattr(claim, "source", None)
    if not source:
        return "no cited source"
    if source not in ctx.ledger.sources and not ctx.is_pinned(source):
        return "the cited source is not declared (the literal check reports it)"
    return None


def _ask_question(judge: Judge, claim: Any, describe: dict[str, Any]) -> tuple[str | None, Finding | None]:
    """Seed 003 Phase 2: the model writes the question in its own fresh request (the claim only)."""
    from claimledger.judge.cove import model_question

    ask = getattr(judge, "ask", None)
    try:
        if ask is None:
            raise JudgeError("config", f"the {judge.kind} judge cannot write questions (use --judge-questions template)")
        return model_question(ask, claim_text(claim)), None
    except JudgeError as exc:
        err = exc
    except Exception as exc:  # a crashing backend: never a pass
        err = JudgeError("crash", f"the judge backend crashed: {type(exc).__name__}: {exc}")
    return None, _finding(
        claim, Status.ERROR, Reason.JUDGE_FAILED,
        f"the verification question could not be obtained from the model ({err.kind}): {err.message}; "
        "the meaning of this claim is not verified",
        "", describe, extra={"failure": err.kind, "stage": "question"},
    )  # fmt: skip


def _ask(judge: Judge, request: JudgeRequest) -> JudgeVerdict | JudgeError:
    try:
        answer = judge.judge(request)
    except JudgeError as exc:
        return exc
    except Exception as exc:  # a crashing backend is an infrastructure failure, never a pass
        return JudgeError("crash", f"the judge backend crashed: {type(exc).__name__}: {exc}")
    if not isinstance(answer, JudgeVerdict):  # a plug-in backend that returns anything else: never a pass
        return JudgeError("malformed", f"the judge backend returned {type(answer).__name__}, not a verdict")
    return answer


def _open_cache(cache_path: str | Path | None, ctx: RunContext, meta: dict[str, Any]) -> JudgeCache | None:
    path = Path(cache_path) if cache_path is not None else default_cache_path(ctx)
    try:
        cache = JudgeCache(path)
    except Exception as exc:  # an unusable cache costs requests, not correctness
        meta["cache"] = {"path": str(path), "error": f"{type(exc).__name__}: {exc}"}
        return None
    meta["cache"] = {"path": os.fspath(path)}
    return cache


def _locate(quote: str, ix: IndexedSource, min_chars: int) -> tuple[Evidence | None, str | None]:
    nq = normalize_quote(strip_outer_quotes(quote))
    if len(nq) < min_chars:
        return None, f"its evidence quote has {len(nq)} characters, too short to check literally"
    found = find_exact(nq, ix)
    if found is None:
        return None, "its evidence quote is not in the cited source"
    return found, None


def _interpret(job: _Job, ctx: RunContext, describe: dict[str, Any]) -> tuple[Finding | None, dict[str, Any]]:
    claim, answer = job.claim, job.answer
    entry: dict[str, Any] = {"claim_id": claim.id, "request_sha256": job.sha256, "cached": job.cached,
                             "passages": [[p.start, p.end] for p in job.request.passages],
                             "verdict": None, "accepted": False}  # fmt: skip
    if job.injected:
        entry["injection_suspected"] = [list(s) for s in job.injected]
    if isinstance(answer, JudgeError) or answer is None:
        err = answer if answer is not None else JudgeError("crash", "no answer was recorded")
        entry["failure"] = err.kind
        return _finding(
            claim, Status.ERROR, Reason.JUDGE_FAILED,
            f"the judge gave no usable answer ({err.kind}): {err.message}; the meaning of this claim is not verified",
            job.sha256, describe, extra={"failure": err.kind, "attempts": err.attempts},
        ), entry  # fmt: skip
    entry["verdict"] = answer.verdict
    extra = {"verdict": answer.verdict, "rationale": answer.rationale, "evidence_quote": answer.evidence_quote,
             "question": job.request.question, "cached": job.cached}  # fmt: skip
    evidence: Evidence | None = None
    if answer.verdict != "not_found" or answer.evidence_quote.strip():
        evidence, problem = _locate(answer.evidence_quote, job.ix, ctx.config.min_quote_chars)
        if evidence is None and answer.verdict != "not_found":
            entry["discarded"] = problem
            return _finding(
                claim, Status.ERROR, Reason.JUDGE_EVIDENCE_NOT_IN_SOURCE,
                f"the judge answered {answer.verdict!r}, but {problem}: the answer is discarded "
                "and the meaning of this claim is not verified",
                job.sha256, describe, extra=extra,
            ), entry  # fmt: skip
    if evidence is not None and _overlaps_injection(evidence, job.ix):
        entry["discarded"] = "evidence quote is text addressed to a model"
        return _finding(
            claim, Status.ERROR, Reason.JUDGE_INJECTION_SUSPECTED,
            f"the judge answered {answer.verdict!r} citing source text that addresses a model "
            f"({evidence.text[:80]!r}); source text is data, so the answer is discarded",
            job.sha256, describe, evidence=evidence, extra=extra,
        ), entry  # fmt: skip
    if answer.verdict == "supported" and job.injected:
        entry["discarded"] = "supported on evidence that contains text addressed to a model"
        return _finding(
            claim, Status.ERROR, Reason.JUDGE_INJECTION_SUSPECTED,
            "the judge answered 'supported', but the evidence it was given contains text that addresses a "
            "model (e.g. 'ignore previous instructions'); that answer cannot be trusted: check by hand",
            job.sha256, describe, evidence=evidence, extra=extra,
        ), entry  # fmt: skip
    entry["accepted"] = True
    if answer.verdict == "supported":
        if isinstance(claim, AttributionClaim) and evidence is not None:
            return _attribution_supported(job, evidence, describe, extra, entry), entry
        return None, entry
    reason, what = {
        "contradicted": (Reason.JUDGE_CONTRADICTED, "the cited source contradicts the sentence"),
        "overclaim": (Reason.JUDGE_OVERCLAIM, "the sentence says more than the cited source"),
        "not_found": (Reason.JUDGE_NOT_FOUND, "the cited source does not say what the sentence claims"),
    }[answer.verdict]
    rationale = f": {answer.rationale.strip()}" if answer.rationale.strip() else ""
    return _finding(
        claim, Status.DISCREPANCY, reason, f"judge: {what}{rationale}",
        job.sha256, describe, evidence=evidence, extra=extra,
    ), entry  # fmt: skip


def _attribution_supported(
    job: _Job, evidence: Evidence, describe: dict[str, Any], extra: dict[str, Any], entry: dict[str, Any]
) -> Finding:
    """Verified only when no overclaim rule fires between the judge's (literal) evidence and the text."""
    from claimledger.checks.overclaim import overclaim_hits

    claim = job.claim
    hits = overclaim_hits(claim_text(claim), evidence.text)
    if hits:
        entry["accepted"] = False
        entry["discarded"] = f"overclaim rule {hits[0].rule} between the evidence quote and the attributed text"
        hit = hits[0]
        return _finding(
            claim, Status.DISCREPANCY, hit.reason,
            f"the judge answered 'supported', but the attributed text says more than its evidence: {hit.message}",
            job.sha256, describe, evidence=evidence, extra={**extra, "rule": hit.rule, "suggestion": hit.suggestion},
        )  # fmt: skip
    where = f" (p. {evidence.page})" if evidence.page else ""
    return _finding(
        claim, Status.VERIFIED, Reason.ATTRIBUTION_SUPPORTED,
        f"judge: supported; its evidence quote is in {job.ix.source.id}{where} and no overclaim rule fires",
        job.sha256, describe, evidence=evidence, extra=extra,
    )  # fmt: skip


def _overlaps_injection(evidence: Evidence, ix: IndexedSource) -> bool:
    # scan the evidence with a margin, so a quote cut from inside an injected sentence is caught too
    a = max(0, evidence.start - 200)
    b = min(len(ix.source.text), evidence.end + 200)
    return any(s < evidence.end and e > evidence.start for s, e in injection_spans(ix.source.text[a:b], a))


def _finding(
    claim: JudgeableClaim,
    status: Status,
    reason: Reason,
    message: str,
    sha: str,
    describe: dict[str, Any],
    *,
    evidence: Evidence | None = None,
    extra: dict[str, Any] | None = None,
) -> Finding:
    info = {"request_sha256": sha, "judge": {"kind": describe.get("kind"), "model": describe.get("model")}}
    info.update(extra or {})
    location = getattr(claim, "location", None)
    finding = Finding(
        claim.id, CHECK, status, reason, message,
        evidence=evidence, claimed=claim_text(claim) or claim.statement,
        location=location.model_dump() if location is not None and hasattr(location, "model_dump") else None,
        extra=info,
    )  # fmt: skip
    also = _ATTRIBUTION_EXPLAINABLE if isinstance(claim, AttributionClaim) else frozenset()
    return dataclasses.replace(finding, offered=Offered(claim.author_alternative, also))


_ATTRIBUTION_EXPLAINABLE = frozenset({Reason.JUDGE_CONTRADICTED, Reason.JUDGE_OVERCLAIM, Reason.JUDGE_NOT_FOUND})


def judged_claim_ids(meta: dict[str, Any]) -> Sequence[str]:
    """Claim ids for which the judge's answer was accepted (for report summaries)."""
    return [r["claim_id"] for r in meta.get("requests", []) if r.get("accepted")]
