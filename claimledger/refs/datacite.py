"""DataCite: ``/dois/{doi}`` (JSON:API ``data.attributes``). arXiv DOIs (10.48550/arXiv.*) live here."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from claimledger.refs.base import Resolver, as_dict, as_list, as_str, as_year
from claimledger.refs.client import ServiceError
from claimledger.refs.model import Record, normalize_arxiv, normalize_doi

ARXIV_PREFIX = "10.48550/arxiv."


def parse_doi(attrs: dict[str, Any]) -> Record:
    titles = [as_str(as_dict(t).get("title")) for t in as_list(attrs.get("titles"))]
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
