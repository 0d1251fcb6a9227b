"""The independence audit: no sentence of the draft, other than the claim itself, reaches a judge.

The request type has no draft field (the architectural half of the
guarantee). This module is the audit half: given the draft and the requests
about to be sent, it reports every draft sentence that appears in a request
outside the claim being checked. Text that genuinely comes from the cited
source (a passage that is a literal slice of it) is not a leak even when the
draft copied it: the source said it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from claimledger.judge.types import JudgeRequest
from claimledger.normalize import normalize

MIN_SENTENCE_CHARS = 12
_SPLIT = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
_MARKUP = re.compile(r"^\s*(?:[#>*+-]+|\d+[.)])\s*|\[(?:V|D)\]|\*\*|__|`")


@dataclass(frozen=True)
class Leak:
    claim_id: str
    request_sha256: str
    where: str
    sentence: str


def draft_sentences(draft: str, min_chars: int = MIN_SENTENCE_CHARS) -> list[tuple[str, str]]:
    """``(original, normalized)`` sentences of the draft long enough to mean something."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for piece in _SPLIT.split(draft):
        cleaned = _MARKUP.sub("", piece).strip()
        norm = normalize(cleaned).text.strip()
        if len(norm) >= min_chars and norm not in seen:
            seen.add(norm)
            out.append((cleaned, norm))
    return out


def audit_request(
    request: JudgeRequest, sentences: list[tuple[str, str]], source_text: str | None
) -> list[Leak]:
    """Leaks of draft ``sentences`` into one request. ``source_text`` is the cited source's text."""
    claim_norm = normalize(request.claim).text
    fields = {"question": normalize(request.question).text, "claim_id": normalize(request.claim_id).text}
    fields["source_id"] = normalize(request.source_id).text
    leaks: list[Leak] = []
    sha = request.sha256()
    source_norm = normalize(source_text).text if source_text is not None else None
    for original, norm in sentences:
        if norm in claim_norm:
            continue  # part of the claim itself: allowed
        for name, text in fields.items():
            if norm in text:
                leaks.append(Leak(request.claim_id, sha, name, original))
        for i, p in enumerate(request.passages, 1):
            if norm not in normalize(p.text).text:
                continue
            genuine = source_text is not None and source_text[p.start : p.end] == p.text
            if not (genuine and source_norm is not None and norm in source_norm):
                leaks.append(Leak(request.claim_id, sha, f"passage {i}", original))
    return leaks


def audit_requests(
    draft: str, requests: Iterable[JudgeRequest], source_texts: Mapping[str, str]
) -> list[Leak]:
    """Every leak of a draft sentence (outside each request's own claim) into any request."""
    sentences = draft_sentences(draft)
    leaks: list[Leak] = []
    for request in requests:
        leaks.extend(audit_request(request, sentences, source_texts.get(request.source_id)))
    return leaks
