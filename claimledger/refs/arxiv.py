"""arXiv: ``/query?id_list={id}`` and ``/query?search_query=ti:"..."`` (Atom 1.0 feed).
An unknown or malformed id is not found."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from claimledger.refs.base import SEARCH_ROWS, Resolver, as_year
from claimledger.refs.client import ServiceError
from claimledger.refs.model import Record, Reference, normalize_arxiv, normalize_doi

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"


def _text(el: ET.Element | None) -> str:
    return " ".join((el.text or "").split()) if el is not None else ""


def parse_feed(body: bytes) -> list[Record]:
    if b"<!DOCTYPE" in body[:2048] or b"<!ENTITY" in body:
        raise ServiceError("arxiv", "bad_answer", "arxiv sent XML with a DOCTYPE or entities (refused)")
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        raise ServiceError("arxiv", "bad_answer", "arxiv sent a feed that is not well-formed XML") from None
    out = []
    for entry in root.findall(f"{ATOM}entry"):
        ident = _text(entry.find(f"{ATOM}id"))
        title = _text(entry.find(f"{ATOM}title"))
        if "/api/errors" in ident or not title or title == "Error":
            continue  # the API's way of saying "no such id" / "malformed id"
        arxiv_id = normalize_arxiv(ident)
        pdf = ""
        for link in entry.findall(f"{ATOM}link"):
            if link.get("title") == "pdf" and link.get("href"):
                pdf = link.get("href", "")
        journal = _text(entry.find(f"{ARXIV}journal_ref"))
        years = re.findall(r"\b(?:19|20)\d\d\b", journal)
        doi = normalize_doi(_text(entry.find(f"{ARXIV}doi")))
        out.append(Record(
            service="arxiv", ident=arxiv_id, title=title,
            authors=tuple(_text(a.find(f"{ATOM}name")) for a in entry.findall(f"{ATOM}author")),
            year=as_year(_text(entry.find(f"{ATOM}published"))), venues=(journal,) if journal else (),
            doi=doi, arxiv=arxiv_id, preprint=True, url=ident, pdf_url=pdf,
            published_year=int(years[-1]) if years else None,
        ))  # fmt: skip
    return out


class Arxiv(Resolver):
    name = "arxiv"
    env_var = "CLAIMLEDGER_ARXIV_URL"
    default_base = "https://export.arxiv.org/api"
    can_arxiv = True
    can_search = True

    def by_arxiv(self, arxiv_id: str) -> Record | None:
        answer = self._get("/query", {"id_list": arxiv_id, "max_results": "1"}, accept="application/atom+xml")
        if answer.status == 404:
            return None
        records = [r for r in parse_feed(answer.body) if r.arxiv == arxiv_id]
        return records[0] if records else None

    def search(self, ref: Reference) -> list[Record]:
        """``/query?search_query=ti:"..."``: preprints Crossref does not hold."""
        words = " ".join(re.sub(r"[^\w\s-]", " ", ref.title).split())
        if not words:
            return []
        answer = self._get("/query", {"search_query": f'ti:"{words}"', "max_results": str(SEARCH_ROWS)},
                           accept="application/atom+xml")  # fmt: skip
        return [] if answer.status == 404 else parse_feed(answer.body)
