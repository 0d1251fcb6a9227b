"""``--fetch-sources``: a verified reference's arXiv or open-access PDF as the source of the quotes citing it.

Only for a claim whose ``source`` is a bibliography key that ``sources:`` does
not declare, and only when the reference check verified that entry: the PDF of
an unconfirmed, mismatched, retracted or invented reference would check quotes
against the wrong work (or against nothing real), so such quotes stay
``source_undeclared`` HIGH. The URL is then fetched like any URL source: the
URL policy of docs/security.md (a loopback or private host needs
``--allow-private-urls``), the size limit (``--max-source-bytes``), the time
limit (``--timeout``) and the URL cache (keyed by the URL and the address
policy it was fetched under). With ``--offline`` a PDF is used only when the URL
cache already holds it: nothing is fetched.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from claimledger._config import GateConfig
from claimledger.model.claim import Ledger
from claimledger.refs.verdicts import CORRECTED, VERIFIED, Verdict

DEFAULT_ARXIV_PDF = "https://arxiv.org/pdf"
LENDS = frozenset({VERIFIED, CORRECTED})  # a corrected work stands: its PDF is the work


def arxiv_pdf_url(arxiv_id: str) -> str:
    """``$CLAIMLEDGER_ARXIV_PDF_URL/{id}`` (default ``https://arxiv.org/pdf/{id}``)."""
    base = os.environ.get("CLAIMLEDGER_ARXIV_PDF_URL") or DEFAULT_ARXIV_PDF
    return f"{base.rstrip('/')}/{arxiv_id}"


def pdf_url(verdict: Verdict) -> str:
    """The PDF a verified reference lends: its arXiv PDF, else an open-access PDF (OpenAlex ``best_oa_location``).

    A Crossref ``link`` is not used: Crossref lists text-mining links whether or not they are open access.
    """
    if verdict.reason not in LENDS:
        return ""
    record = verdict.record
    from claimledger.refs.model import normalize_arxiv

    arxiv = normalize_arxiv(verdict.reference.arxiv) or (record.arxiv if record is not None else "")
    if arxiv:
        return arxiv_pdf_url(arxiv)
    if record is not None and record.service == "openalex" and record.pdf_url.startswith(("https://", "http://")):
        return record.pdf_url
    return ""


@dataclass(frozen=True)
class Inferred:
    sources: dict[str, str]  # citation key -> PDF URL
    skipped: dict[str, str]  # citation key -> why no PDF was lent (for the report's notes)


def inferred_sources(
    ledger: Ledger, verdicts: Sequence[Verdict], config: GateConfig, draft_keys: Collection[str] = ()
) -> Inferred:
    """Source id (= citation key) -> URL, for every key a claim (or the draft, ``draft_keys``) cites that
    ``sources:`` lacks and a verified PDF serves."""
    cited = {src for claim in ledger.claims if isinstance(src := getattr(claim, "source", None), str)}
    cited |= set(draft_keys)
    out: dict[str, str] = {}
    skipped: dict[str, str] = {}
    for v in verdicts:
        key = v.reference.key
        if key not in cited or key in ledger.sources:
            continue
        if v.reason not in LENDS:
            skipped[key] = f"the reference is {v.reason}, so its PDF is not used"
            continue
        url = pdf_url(v)
        if not url:
            skipped[key] = "no arXiv id and no open-access PDF in the record"
        elif config.offline and not _cached(url, config):
            skipped[key] = f"--offline and {url} is not in the URL cache"
        else:
            out[key] = url
    return Inferred(out, skipped)


def _cached(url: str, config: GateConfig) -> bool:
    from claimledger.load.fetch import UrlCache, default_cache_dir

    if config.refresh:
        return False
    cache = UrlCache(config.cache_dir or default_cache_dir())
    hit = cache.get(url, allow_private=config.allow_private_urls, max_bytes=config.max_source_bytes)
    return hit is not None
