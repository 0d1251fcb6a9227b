"""Crossref: ``/works/{doi}`` and ``/works?query.bibliographic=`` (REST API, JSON ``message``)."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from claimledger.refs.base import SEARCH_ROWS, Resolver, as_dict, as_list, as_str, as_year, search_text
from claimledger.refs.client import ServiceError
from claimledger.refs.model import RETRACTING, Record, Reference, Update, normalize_doi

PREPRINT_TYPES = frozenset({"posted-content"})


def _year(msg: dict[str, Any]) -> int | None:
    for field in ("issued", "published", "published-print", "published-online", "created"):
        parts = as_list(as_dict(msg.get(field)).get("date-parts"))
        if parts and isinstance(parts[0], list) and parts[0]:
            year = as_year(parts[0][0])
            if year is not None:
                return year
    return None


def _updates(items: Any) -> list[Update]:
    """Crossref Updates (``updated-by``, ``update-to``): ``type`` decides (retraction, withdrawal, removal,
    partial_retraction retract; correction, erratum, corrigendum, expression_of_concern, new_version, ... do
    not); ``source`` (publisher, retraction-watch) may list one notice twice: kept once. Crossref's
    ``relation`` (has-preprint, is-version-of, ...) never says retracted and is not read here."""
    out: dict[tuple[str, str], Update] = {}
    for item in as_list(items):
        item = as_dict(item)
        kind = as_str(item.get("type")).lower().replace("-", "_")
        if kind:
            doi = normalize_doi(as_str(item.get("DOI")))
            out.setdefault((kind, doi), Update(kind, doi, as_str(item.get("label"))))
    return list(out.values())


def parse_work(msg: dict[str, Any]) -> Record:
    titles = [as_str(t) for t in as_list(msg.get("title")) if as_str(t)]
    subtitles = [as_str(t) for t in as_list(msg.get("subtitle")) if as_str(t)]
    title = titles[0] if titles else ""
    alt = [f"{title}: {s}" for s in subtitles] + titles[1:] + [as_str(t) for t in as_list(msg.get("original-title"))]
    authors, surnames = [], []
    for a in as_list(msg.get("author")):
        a = as_dict(a)
        family, given, name = as_str(a.get("family")), as_str(a.get("given")), as_str(a.get("name"))
        full = " ".join(p for p in (given, family) if p) or name
        if full:
            authors.append(full)
            surnames.append(family)
    venues = [as_str(v) for key in ("container-title", "short-container-title", "event")
              for v in (as_list(msg.get(key)) if key != "event" else [as_dict(msg.get(key)).get("name")])
              if as_str(v)]  # fmt: skip
    updates = _updates(msg.get("updated-by"))
    pdf = ""
    for link in as_list(msg.get("link")):
        link = as_dict(link)
        if as_str(link.get("content-type")) == "application/pdf":
            pdf = as_str(link.get("URL"))
            break
    kind = as_str(msg.get("type"))
    return Record(
        service="crossref", ident=normalize_doi(as_str(msg.get("DOI"))), title=title, alt_titles=tuple(a for a in alt if a),
        authors=tuple(authors), surnames=tuple(surnames), year=_year(msg), venues=tuple(dict.fromkeys(venues)),
        doi=normalize_doi(as_str(msg.get("DOI"))), preprint=kind in PREPRINT_TYPES or as_str(msg.get("subtype")) == "preprint",
        retracted=any(u.kind in RETRACTING for u in updates), updates=tuple(updates), pdf_url=pdf,
    )  # fmt: skip


class Crossref(Resolver):
    name = "crossref"
    env_var = "CLAIMLEDGER_CROSSREF_URL"
    default_base = "https://api.crossref.org"
    can_doi = True
    can_search = True

    def secrets(self) -> dict[str, str]:
        mailto = os.environ.get("CLAIMLEDGER_CROSSREF_MAILTO") or os.environ.get("CLAIMLEDGER_MAILTO")
        return {"mailto": mailto} if mailto else {}

    def _message(self, body: Any) -> dict[str, Any]:
        msg = as_dict(as_dict(body).get("message"))
        if not msg:
            raise ServiceError(self.name, "bad_answer", "crossref answered without a 'message'")
        return msg

    def by_doi(self, doi: str) -> Record | None:
        answer = self._get(f"/works/{quote(doi, safe='/:;()')}")
        if answer.status == 404:
            return None
        record = parse_work(self._message(self._json(answer)))
        notices = self._notices(doi)
        if notices:
            merged = tuple(dict.fromkeys((*record.updates, *notices)))
            record = Record(**{**record.__dict__, "updates": merged,
                               "retracted": any(u.kind in RETRACTING for u in merged)})  # fmt: skip
        return record

    def _notices(self, doi: str) -> list[Update]:
        """Notices whose ``update-to`` names ``doi`` (``/works?filter=updates:{doi}``)."""
        answer = self._get("/works", {"filter": f"updates:{doi}", "rows": "20"})
        if answer.status == 404:
            return []
        out: list[Update] = []
        for item in as_list(self._message(self._json(answer)).get("items")):
            item = as_dict(item)
            notice_doi = normalize_doi(as_str(item.get("DOI")))
            for upd in _updates(item.get("update-to")):
                if upd.doi == normalize_doi(doi):
                    out.append(Update(upd.kind, notice_doi, upd.label))
        return out

    def search(self, ref: Reference) -> list[Record]:
        text = search_text(ref)
        if not text:
            return []
        answer = self._get("/works", {"query.bibliographic": text, "rows": str(SEARCH_ROWS)})
        if answer.status == 404:
            return []
        items = as_list(self._message(self._json(answer)).get("items"))
        return [parse_work(as_dict(i)) for i in items if as_dict(i)]
