"""OpenAlex: ``/works/doi:{doi}`` and ``/works?search=`` (JSON Work objects; ``is_retracted``)."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from claimledger.refs.base import SEARCH_ROWS, Resolver, as_dict, as_list, as_str, as_year
from claimledger.refs.client import ServiceError
from claimledger.refs.model import Record, Reference, normalize_arxiv, normalize_doi


def parse_work(work: dict[str, Any]) -> Record:
    authors = []
    for a in as_list(work.get("authorships")):
        a = as_dict(a)
        name = as_str(as_dict(a.get("author")).get("display_name")) or as_str(a.get("raw_author_name"))
        if name:
            authors.append(name)
    venues = []
    for loc in [work.get("primary_location"), *as_list(work.get("locations"))]:
        name = as_str(as_dict(as_dict(loc).get("source")).get("display_name"))
        if name:
            venues.append(name)
    ids = as_dict(work.get("ids"))
    doi = normalize_doi(as_str(work.get("doi")) or as_str(ids.get("doi")))
    arxiv = normalize_arxiv(as_str(ids.get("arxiv"))) if ids.get("arxiv") else ""
    if not arxiv and doi.startswith("10.48550/arxiv."):
        arxiv = normalize_arxiv(doi)
    kind = as_str(work.get("type")).lower()
    return Record(
        service="openalex", ident=as_str(work.get("id")).rsplit("/", 1)[-1],
        title=as_str(work.get("title")) or as_str(work.get("display_name")), authors=tuple(authors),
        year=as_year(work.get("publication_year")),
        venues=tuple(v for v in dict.fromkeys(venues) if "arxiv" not in v.lower() or kind != "preprint"),
        doi=doi, arxiv=arxiv, preprint=kind in ("preprint", "posted-content"),
        retracted=work.get("is_retracted") is True,
        pdf_url=as_str(as_dict(work.get("best_oa_location")).get("pdf_url")),
    )  # fmt: skip


class OpenAlex(Resolver):
    name = "openalex"
    env_var = "CLAIMLEDGER_OPENALEX_URL"
    default_base = "https://api.openalex.org"
    can_doi = True
    can_search = True

    def secrets(self) -> dict[str, str]:
        out = {}
        if os.environ.get("CLAIMLEDGER_OPENALEX_KEY"):
            out["api_key"] = os.environ["CLAIMLEDGER_OPENALEX_KEY"]
        mailto = os.environ.get("CLAIMLEDGER_OPENALEX_MAILTO") or os.environ.get("CLAIMLEDGER_MAILTO")
        if mailto:
            out["mailto"] = mailto
        return out

    def by_doi(self, doi: str) -> Record | None:
        answer = self._get(f"/works/doi:{quote(doi, safe='/:;()')}")
        if answer.status == 404:
            return None
        work = as_dict(self._json(answer))
        if not work.get("id"):
            raise ServiceError(self.name, "bad_answer", "openalex answered without a work id")
        return parse_work(work)

    def search(self, ref: Reference) -> list[Record]:
        if not ref.title:
            return []
        answer = self._get("/works", {"search": ref.title, "per-page": str(SEARCH_ROWS)})
        if answer.status == 404:
            return []
        results = as_list(as_dict(self._json(answer)).get("results"))
        return [parse_work(as_dict(w)) for w in results if as_dict(w)]
