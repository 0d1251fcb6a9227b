"""Summary support (seed 004's second question).

Every sentence of a named summary section must be supported by the rest of the
draft (its body) or by the statements of the ledger's claims. Each sentence is
put to the independent judge as a claim whose only source is the body: the
judge sees the one summary sentence, a question, and passages retrieved from
the body, never the rest of the summary. An unsupported sentence is a finding;
a supported one adds nothing. Without a judge this check does not run, and the
report says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from claimledger._exceptions import InputError
from claimledger.checks.context import RunContext
from claimledger.extract.draft import Draft
from claimledger.extract.sentences import split_sentences
from claimledger.load.index import IndexedSource
from claimledger.model.claim import Ledger
from claimledger.model.finding import Finding
from claimledger.model.source import Source
from claimledger.normalize import normalize, normalize_quote

if TYPE_CHECKING:
    from claimledger.judge import Judge

CHECK = "summary_support"
BODY_SOURCE_ID = "draft-body"
MIN_SENTENCE_CHARS = 8


@dataclass(frozen=True)
class SummarySentence:
    """A summary sentence as a judgeable claim: its only source is the draft's body."""

    id: str
    statement: str
    line: int
    column: int
    source: str = BODY_SOURCE_ID
    quote: str = ""
    author_alternative: str | None = None
    kind: str = "attribution"


def summary_sentences(draft: Draft, section: str) -> tuple[list[SummarySentence], str, str]:
    """The section's sentences, the body text (everything else) and the section's own text."""
    span = draft.section(section)
    if span is None:
        titles = ", ".join(repr(h.title) for h in draft.headings) or "none"
        raise InputError(f"{draft.path or 'draft'}: no section titled {section!r} (headings: {titles})")
    start, end = span
    body = draft.prose[:start] + "\n\n" + draft.prose[end:]
    text = draft.prose[start:end]
    out: list[SummarySentence] = []
    for sent in split_sentences(text):
        sentence = text[sent.start : sent.end].strip()
        if len(normalize_quote(sentence)) < MIN_SENTENCE_CHARS:
            continue
        if normalize_quote(sentence) == normalize_quote(section):
            continue  # the heading itself
        line, col = draft.where(start + sent.start + (len(text[sent.start : sent.end]) - len(text[sent.start : sent.end].lstrip())))
        out.append(SummarySentence(f"SUM{len(out) + 1}", sentence, line, col))
    return out, body, text


def summary_findings(
    draft: Draft,
    section: str,
    ledger: Ledger,
    ctx: RunContext,
    judge: Judge,
    *,
    cache_path: Any = None,
) -> tuple[list[Finding], dict[str, Any]]:
    """Judge every sentence of ``section`` against the body and the ledger's statements."""
    from claimledger.checks.judged import semantic_findings

    sentences, body, section_text = summary_sentences(draft, section)
    statements = [c.statement for c in ledger.claims if c.statement]
    evidence_text = body + ("\n\n" + "\n".join(statements) if statements else "")
    source = Source(
        id=BODY_SOURCE_ID,
        origin=f"{draft.path or 'draft'} (outside section {section!r}) and the ledger's statements",
        media_type="text/plain",
        text=evidence_text,
        sha256=hashlib.sha256(evidence_text.encode("utf-8")).hexdigest(),
    )
    ctx.pin_source(IndexedSource(source, normalize(evidence_text), None))
    # the audit checks that no other summary sentence reaches the judge
    found, meta = semantic_findings(sentences, ctx, judge, cache_path=cache_path, draft=section_text)
    where = {s.id: s for s in sentences}
    out = []
    for f in found:
        s = where.get(f.claim_id)
        loc = {"file": draft.path, "line": s.line, "column": s.column} if s else f.location
        out.append(dataclasses.replace(f, check=CHECK, location=loc))
    meta["section"] = section
    meta["sentences"] = len(sentences)
    return out, meta
