"""DataCite: ``/dois/{doi}`` and ``/dois?query=`` (JSON:API ``data.attributes``). arXiv DOIs
(10.48550/arXiv.*) live here, and most DOIs of datasets and software (Zenodo, figshare, Dryad, Dataverse).

A title search is asked only for an entry without an identifier that looks like a dataset or software
(:func:`looks_like_data`): an article's title is searched on Crossref, arXiv and OpenAlex.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from claimledger.refs.base import SEARCH_ROWS, Resolver, as_dict, as_list, as_str, as_year
from claimledger.refs.client import ServiceError
from claimledger.refs.model import Record, Reference, normalize_arxiv, normalize_doi

ARXIV_PREFIX = "10.48550/arxiv."
DATA_TYPES = frozenset({"dataset", "data", "software", "code", "codeartifact"})  # BibLaTeX, CSL, entry types
_DATA_PLACES = re.compile(
    r"zenodo|figshare|dryad|dataverse|pangaea|osf\.io|open science framework|github|gitlab|software heritage"
    r"|icpsr|mendeley data|uk data service|data archive|data repository|10\.5281/|10\.6084/|10\.5061/",
    re.IGNORECASE,
)
_DATA_WORDS = re.compile(
    r"\b(data ?sets?|databases?|corpus|corpora|software|toolkit|toolbox|source code|replication (?:data|package)"
    r"|(?:r|python) package)\b|\bv(?:ersion ?)?\d+(?:\.\d+)+\b"
    r"|データセット|データベース|コーパス|ソフトウェア|ツールキット|再現用データ",
    re.IGNORECASE,
)
_LUCENE_SPECIAL = re.compile(r'[+\-!(){}\[\]^"~*?:\\/&|]')


def looks_like_data(ref: Reference) -> bool:
    """A dataset or software: its entry type, a data repository in its venue or URL, or its title's words."""
    if ref.entry_type in DATA_TYPES:
        return True
    if _DATA_PLACES.search(" ".join((ref.venue, ref.url))):
        return True
    return bool(_DATA_WORDS.search(ref.title))


def title_query(title: str) -> str:
    """``titles.title:(w1 w2 ...)`` with the Lucene query syntax's special characters taken out."""
    words = _LUCENE_SPECIAL.sub(" ", title).split()
    return f"titles.title:({' '.join(words)})" if words else ""


def parse_doi(attrs: dict[str, Any]) -> Record:
    typed = [as_dict(t) for t in as_list(attrs.get("titles"))]
    # the main title has no titleType; AlternativeTitle, Subtitle, TranslatedTitle, Other follow it
    typed.sort(key=lambda t: bool(as_str(t.get("titleType"))))
    titles = [as_str(t.get("title")) for t in typed]
    titles = [t for t in titles if t]
    authors, surnames = [], []
    for c in as_list(attrs.get("creators")):
        c = as_dict(c)
        family, given, name = as_str(c.get("familyName")), as_str(c.get("givenName")), as_str(c.get("name"))
        full = " ".join(p for p in (given, family) if p) or name
        if full:
            authors.append(full)
            surnames.append(family or (name.split(",", 1)[0] if "," in name else ""))
    doi = normalize_doi(as_str(attrs.get("doi")))
    publisher = attrs.get("publisher")
    publisher_name = as_str(as_dict(publisher).get("name")) if isinstance(publisher, dict) else as_str(publisher)
    container = as_str(as_dict(attrs.get("container")).get("title"))
    types = as_dict(attrs.get("types"))
    preprint = (
        as_str(types.get("resourceTypeGeneral")).lower() == "preprint"
        or doi.startswith(ARXIV_PREFIX)
        or publisher_name.lower() == "arxiv"
    )
    venues = tuple(v for v in (container,) if v) or ((publisher_name,) if publisher_name and not preprint else ())
    return Record(
        service="datacite", ident=doi, title=titles[0] if titles else "", alt_titles=tuple(titles[1:]),
        authors=tuple(authors), surnames=tuple(surnames), year=as_year(attrs.get("publicationYear")),
        venues=venues, doi=doi, arxiv=normalize_arxiv(doi) if doi.startswith(ARXIV_PREFIX) else "",
        preprint=preprint, url=as_str(attrs.get("url")),
    )  # fmt: skip


class DataCite(Resolver):
    name = "datacite"
    env_var = "CLAIMLEDGER_DATACITE_URL"
    default_base = "https://api.datacite.org"
    can_doi = True
    can_search = True

    def searches(self, ref: Reference) -> bool:
        return looks_like_data(ref)

    def search(self, ref: Reference) -> list[Record]:
        query = title_query(ref.title) if self.searches(ref) else ""
        if not query:
            return []
        params = {"query": query, "page[size]": str(SEARCH_ROWS), "sort": "relevance"}
        answer = self._get("/dois", params, accept="application/vnd.api+json")
        if answer.status == 404:
            return []
        items = as_list(as_dict(self._json(answer)).get("data"))
        out = []
        for item in items:
            attrs = as_dict(as_dict(item).get("attributes"))
            if attrs:
                out.append(parse_doi(attrs))
        return out

    def by_doi(self, doi: str) -> Record | None:
        answer = self._get(f"/dois/{quote(doi, safe='/:;()')}", accept="application/vnd.api+json")
        if answer.status == 404:
            return None
        attrs = as_dict(as_dict(as_dict(self._json(answer)).get("data")).get("attributes"))
        if not attrs:
            raise ServiceError(self.name, "bad_answer", "datacite answered without data.attributes")
        return parse_doi(attrs)

    def by_arxiv(self, arxiv_id: str) -> Record | None:
        return self.by_doi(ARXIV_PREFIX + arxiv_id.lower())
