"""A local fake of Crossref, DataCite, arXiv and OpenAlex on 127.0.0.1 (one ThreadingHTTPServer).

Each service sits under its own prefix (``/crossref``, ``/datacite``, ``/arxiv``,
``/openalex``), so its bare base URL is ``http://127.0.0.1:PORT/crossref`` and
the documented paths go under it. The answers are written by hand in each
service's documented response shape (Crossref REST ``message``; DataCite JSON:API
``data.attributes``; arXiv Atom 1.0 with ``arxiv:`` and ``opensearch:`` elements;
OpenAlex Work objects and ``meta``/``results`` lists). No recorded data from
the live services. Faults (status, Retry-After, delay) are scripted per path.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit
from xml.sax.saxutils import escape

from rapidfuzz import fuzz


@dataclass
class Work:
    """One work as the fake world knows it, and which services hold it."""

    title: str
    authors: list[tuple[str, str]]  # (given, family)
    year: int
    venue: str = ""
    doi: str = ""
    arxiv: str = ""
    kind: str = "journal-article"  # Crossref type; posted-content = preprint
    short_venue: str = ""
    subtitle: str = ""
    services: tuple[str, ...] = ("crossref", "openalex")
    retraction_notice: str = ""  # DOI of a retraction notice (Crossref update-to; OpenAlex is_retracted)
    erratum_notice: str = ""  # DOI of an erratum
    openalex_id: str = ""
    oa_pdf: str = ""  # a name under the fake's /pdf/: OpenAlex best_oa_location.pdf_url points there
    # more notices: (type, notice DOI, source) as Crossref's updated-by gives them; source "publisher" (a notice
    # deposited by the publisher, also found by /works?filter=updates:) or "retraction-watch" (on the record only)
    notices: tuple[tuple[str, str, str], ...] = ()
    resource_type: str = ""  # DataCite resourceTypeGeneral for a DataCite-registered work (Dataset, Software)
    preprint_doi: str = ""  # Crossref relation has-preprint (never a retraction)


@dataclass
class Fault:
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    times: int | None = None  # None: always; else the first N requests only
    body: bytes = b'{"status":"error"}'


@dataclass
class Fake:
    base: str
    works: list[Work]
    faults: dict[str, Fault]
    hits: list[str]

    def url(self, service: str) -> str:
        return f"{self.base}/{service}"

    def env(self) -> dict[str, str]:
        return {f"CLAIMLEDGER_{s.upper()}_URL": self.url(s) for s in ("crossref", "datacite", "arxiv", "openalex")}


def _json(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


def _date(year: int, month: int, day: int) -> dict[str, Any]:
    import datetime

    stamp = datetime.datetime(year, month, day, tzinfo=datetime.UTC)
    return {"date-parts": [[year, month, day]], "date-time": stamp.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "timestamp": int(stamp.timestamp() * 1000)}  # fmt: skip


def all_notices(w: Work) -> list[tuple[str, str, str]]:
    """(type, notice DOI, source) of every notice about ``w``."""
    out = list(w.notices)
    if w.retraction_notice:
        out.append(("retraction", w.retraction_notice, "publisher"))
    if w.erratum_notice:
        out.append(("erratum", w.erratum_notice, "publisher"))
    return out


def update_entry(kind: str, doi: str, source: str, year: int) -> dict[str, Any]:
    """One Crossref Update (``updated-by`` / ``update-to``): updated, DOI, type, label, source[, record-id].
    Shape from Crossref's REST API documentation (api_format.md, Update) and its Retraction Watch notes."""
    entry: dict[str, Any] = {"updated": _date(year, 1, 5), "DOI": doi, "type": kind,
                             "label": kind.replace("_", " ").capitalize(), "source": source}  # fmt: skip
    if source == "retraction-watch":
        entry["record-id"] = str(40000 + sum(map(ord, doi)))
    return entry


def crossref_item(w: Work, score: float | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "DOI": w.doi,
        "type": w.kind,
        "title": [w.title],
        "author": [{"given": g, "family": f, "sequence": "first" if i == 0 else "additional", "affiliation": []}
                   for i, (g, f) in enumerate(w.authors)],
        "container-title": [w.venue] if w.venue else [],
        "short-container-title": [w.short_venue] if w.short_venue else [],
        "issued": {"date-parts": [[w.year, 3, 1]]},
        "published": {"date-parts": [[w.year, 3, 1]]},
        "publisher": "Fake Publisher",
        "prefix": w.doi.split("/", 1)[0],
        "member": "99999",
        "source": "Crossref",
        "is-referenced-by-count": 3,
        "URL": f"https://doi.org/{w.doi}",
        "link": [{"URL": f"https://example.org/pdf/{w.doi}.pdf", "content-type": "application/pdf",
                  "content-version": "vor", "intended-application": "text-mining"}],
    }
    notices = all_notices(w)
    if notices:
        item["updated-by"] = [update_entry(k, d, src, w.year + 2) for k, d, src in notices]
    if w.preprint_doi:
        item["relation"] = {"has-preprint": [{"id-type": "doi", "id": w.preprint_doi, "asserted-by": "subject"}]}
    if w.subtitle:
        item["subtitle"] = [w.subtitle]
    if w.kind == "posted-content":
        item["subtype"] = "preprint"
    if score is not None:
        item["score"] = score
    return item


def notice_item(w: Work, notice_doi: str, kind: str) -> dict[str, Any]:
    return {
        "DOI": notice_doi,
        "type": "journal-article",
        "title": [f"{kind.capitalize()}: {w.title}"],
        "container-title": [w.venue],
        "issued": {"date-parts": [[w.year + 2, 1, 5]]},
        "update-to": [update_entry(kind, w.doi, "publisher", w.year + 2)],
    }


def datacite_doc(w: Work, doi: str) -> dict[str, Any]:
    is_arxiv = doi.lower().startswith("10.48550/")
    return {"data": {"id": doi.lower(), "type": "dois", "attributes": {
        "doi": doi.lower(), "prefix": doi.split("/", 1)[0],
        "creators": [{"name": f"{f}, {g}", "nameType": "Personal", "givenName": g, "familyName": f,
                      "affiliation": [], "nameIdentifiers": []} for g, f in w.authors],
        "titles": [{"title": w.title}],
        "publisher": "arXiv" if is_arxiv else (w.venue or "Fake Repository"),
        "container": {},
        "publicationYear": w.year,
        "types": {"ris": "GEN" if is_arxiv else "DATA", "bibtex": "misc", "citeproc": "article",
                  "schemaOrg": "ScholarlyArticle", "resourceType": "Article",
                  "resourceTypeGeneral": "Preprint" if is_arxiv else (w.resource_type or "Dataset")},
        "url": f"https://arxiv.org/abs/{w.arxiv}" if is_arxiv else "https://example.org/record",
        "relatedIdentifiers": [], "state": "findable",
    }}}  # fmt: skip


def openalex_work(w: Work, base: str = "") -> dict[str, Any]:
    ident = w.openalex_id or "W" + str(abs(hash(w.title)) % 10**10)
    venue_src = {"id": "https://openalex.org/S1", "display_name": w.venue, "type": "journal"} if w.venue else None
    ids: dict[str, str] = {"openalex": f"https://openalex.org/{ident}"}
    if w.doi:
        ids["doi"] = f"https://doi.org/{w.doi}"
    return {
        "id": f"https://openalex.org/{ident}",
        "doi": f"https://doi.org/{w.doi}" if w.doi else None,
        "title": w.title,
        "display_name": w.title,
        "publication_year": w.year,
        "publication_date": f"{w.year}-03-01",
        "ids": ids,
        "type": "preprint" if w.kind == "posted-content" else "article",
        "authorships": [{"author_position": "first" if i == 0 else "middle",
                         "author": {"id": f"https://openalex.org/A{i}", "display_name": f"{g} {f}"},
                         "raw_author_name": f"{g} {f}", "institutions": []}
                        for i, (g, f) in enumerate(w.authors)],
        "primary_location": {"is_oa": True, "source": venue_src, "pdf_url": None},
        "best_oa_location": {"is_oa": True, "pdf_url": f"{base}/pdf/{w.oa_pdf}" if w.oa_pdf and base
                             else f"https://example.org/oa/{ident}.pdf"},
        "is_retracted": any(k in ("retraction", "withdrawal", "removal") for k, _, _ in all_notices(w)),
        "cited_by_count": 3,
    }


def arxiv_entry(w: Work) -> str:
    authors = "".join(f"<author><name>{escape(g)} {escape(f)}</name></author>" for g, f in w.authors)
    doi = f"<arxiv:doi>{escape(w.doi)}</arxiv:doi>" if w.doi and not w.doi.startswith("10.48550/") else ""
    jref = f"<arxiv:journal_ref>{escape(w.venue)} ({w.year})</arxiv:journal_ref>" if w.venue and doi else ""
    return (
        f"<entry><id>http://arxiv.org/abs/{w.arxiv}v2</id><updated>{w.year}-05-01T00:00:00Z</updated>"
        f"<published>{w.year}-03-01T17:57:34Z</published><title>{escape(w.title)}</title>"
        f"<summary>Abstract of {escape(w.title)}.</summary>{authors}{doi}{jref}"
        f'<link href="http://arxiv.org/abs/{w.arxiv}v2" rel="alternate" type="text/html"/>'
        f'<link title="pdf" href="http://arxiv.org/pdf/{w.arxiv}v2" rel="related" type="application/pdf"/>'
        f'<arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/></entry>'
    )


def arxiv_feed(entries: list[str], query: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f'<link href="http://arxiv.org/api/query?{escape(query)}" rel="self" type="application/atom+xml"/>'
        f"<title type=\"html\">ArXiv Query: {escape(query)}</title><id>http://arxiv.org/api/x</id>"
        f"<updated>2024-01-01T00:00:00-05:00</updated><opensearch:totalResults>{len(entries)}</opensearch:totalResults>"
        "<opensearch:startIndex>0</opensearch:startIndex><opensearch:itemsPerPage>1</opensearch:itemsPerPage>"
        + "".join(entries) + "</feed>"
    ).encode()


ARXIV_ERROR = (
    "<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_{id}</id><title>Error</title>"
    "<summary>incorrect id format for {id}</summary><updated>2024-01-01T00:00:00-05:00</updated>"
    '<link href="http://arxiv.org/api/errors#incorrect_id_format_for_{id}" rel="alternate" type="text/html"/>'
    "<author><name>arXiv api core</name></author></entry>"
)


class World:
    def __init__(self, works: list[Work]) -> None:
        self.works = works
        self.base = ""  # the fake's own address, once it listens

    def by_doi(self, service: str, doi: str) -> Work | None:
        doi = doi.lower()
        for w in self.works:
            if service not in w.services:
                continue
            if service == "datacite":  # DataCite holds arXiv DOIs (and DataCite-registered ones), not Crossref's
                own = w.doi.lower() == doi and (doi.startswith("10.48550/") or "crossref" not in w.services)
                if own or (w.arxiv and doi == f"10.48550/arxiv.{w.arxiv}".lower()):
                    return w
            elif w.doi.lower() == doi:
                return w
        return None

    def search(self, service: str, query: str, rows: int) -> list[tuple[float, Work]]:
        scored = []
        for w in self.works:
            if service not in w.services:
                continue
            text = " ".join([w.title, *(f for _, f in w.authors), str(w.year)])
            score = fuzz.token_set_ratio(query.casefold(), text.casefold())
            if score >= 30:
                scored.append((float(score), w))
        scored.sort(key=lambda sw: -sw[0])
        return scored[:rows]

    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, str, bytes]:
        service, _, rest = path.lstrip("/").partition("/")
        rest = "/" + rest
        q = {k: v[0] for k, v in query.items()}
        if service == "crossref":
            if rest.startswith("/works/"):
                w = self.by_doi("crossref", unquote(rest[len("/works/"):]))
                if w is None:
                    return 404, "text/plain", b"Resource not found."
                return 200, "application/json", _json({"status": "ok", "message-type": "work",
                                                       "message-version": "1.0.0", "message": crossref_item(w)})
            if rest == "/works":
                if q.get("filter", "").startswith("updates:"):
                    doi = q["filter"][len("updates:"):].lower()
                    items = []
                    for w in self.works:
                        if w.doi.lower() == doi and "crossref" in w.services:
                            items += [notice_item(w, d, k) for k, d, src in all_notices(w) if src == "publisher"]
                    return 200, "application/json", _json({"status": "ok", "message-type": "work-list",
                        "message-version": "1.0.0", "message": {"facets": {}, "total-results": len(items),
                        "items": items, "items-per-page": 20, "query": {"start-index": 0, "search-terms": None}}})  # fmt: skip
                hits = self.search("crossref", q.get("query.bibliographic", ""), int(q.get("rows", "20")))
                return 200, "application/json", _json({"status": "ok", "message-type": "work-list",
                    "message-version": "1.0.0", "message": {"facets": {}, "total-results": len(hits),
                    "items": [crossref_item(w, s) for s, w in hits], "items-per-page": len(hits),
                    "query": {"start-index": 0, "search-terms": q.get("query.bibliographic")}}})  # fmt: skip
        if service == "datacite" and rest == "/dois":
            m = re.fullmatch(r"titles\.title:\((.*)\)", q.get("query", ""))
            words = m.group(1) if m else q.get("query", "")
            hits = [w for w in self.works if "datacite" in w.services and w.doi
                    and fuzz.token_set_ratio(words.casefold(), w.title.casefold()) >= 60]  # fmt: skip
            hits.sort(key=lambda w: -fuzz.token_sort_ratio(words.casefold(), w.title.casefold()))
            hits = hits[: int(q.get("page[size]", "25"))]
            return 200, "application/vnd.api+json", _json({
                "data": [datacite_doc(w, w.doi)["data"] for w in hits],
                "meta": {"total": len(hits), "totalPages": 1, "page": 1},
                "links": {"self": "https://api.datacite.org/dois?query=" + q.get("query", "")}})  # fmt: skip
        if service == "datacite" and rest.startswith("/dois/"):
            doi = unquote(rest[len("/dois/"):])
            w = self.by_doi("datacite", doi)
            if w is None:
                return 404, "application/vnd.api+json", _json({"errors": [{"status": "404",
                    "title": "The resource you are looking for doesn't exist."}]})  # fmt: skip
            return 200, "application/vnd.api+json", _json(datacite_doc(w, doi))
        if service == "arxiv" and rest == "/query" and "search_query" in q:
            phrase = q["search_query"].removeprefix("ti:").strip('"')
            hits = [w for w in self.works if "arxiv" in w.services
                    and fuzz.token_set_ratio(phrase.casefold(), w.title.casefold()) >= 60]  # fmt: skip
            hits.sort(key=lambda w: -fuzz.token_sort_ratio(phrase.casefold(), w.title.casefold()))
            return 200, "application/atom+xml", arxiv_feed([arxiv_entry(w) for w in hits[:5]], "search")
        if service == "arxiv" and rest == "/query":
            ident = q.get("id_list", "")
            qs = f"id_list={ident}"
            if not re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?|[a-z\-]+(\.[A-Z]{2})?/\d{7}(v\d+)?", ident):
                return 400, "application/atom+xml", arxiv_feed([ARXIV_ERROR.format(id=escape(ident))], qs)
            found = [w for w in self.works if "arxiv" in w.services and w.arxiv == ident.split("v")[0]]
            return 200, "application/atom+xml", arxiv_feed([arxiv_entry(w) for w in found], qs)
        if service == "openalex" and rest.startswith("/works"):
            if rest.startswith("/works/doi:"):
                w = self.by_doi("openalex", unquote(rest[len("/works/doi:"):]))
                if w is None:
                    return 404, "application/json", _json({"error": "404 Not Found",
                        "message": "The requested URL was not found on the server."})  # fmt: skip
                return 200, "application/json", _json(openalex_work(w, self.base))
            if rest == "/works":
                hits = self.search("openalex", q.get("search", ""), int(q.get("per-page", "25")))
                return 200, "application/json", _json({"meta": {"count": len(hits), "db_response_time_ms": 12,
                    "page": 1, "per_page": len(hits), "groups_count": None},
                    "results": [openalex_work(w, self.base) for _, w in hits], "group_by": []})  # fmt: skip
        return 404, "text/plain", b"no such path"


@contextmanager
def fake_services(
    works: list[Work], faults: dict[str, Fault] | None = None, pdfs: dict[str, bytes] | None = None
) -> Iterator[Fake]:
    """Serve ``works`` on 127.0.0.1. A fault applies to every request whose path+query contains its key;
    ``pdfs`` maps a name (an arXiv id, a work's ``oa_pdf``) to the PDF bytes served at ``/pdf/{name}``."""
    world = World(works)
    pdfs = pdfs or {}
    faults = faults if faults is not None else {}
    hits: list[str] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            with lock:
                hits.append(self.path)
                fault = next((f for k, f in faults.items() if k in unquote(self.path)), None)
                if fault is not None and fault.times is not None:
                    if fault.times <= 0:
                        fault = None
                    else:
                        fault.times -= 1
            if fault is not None:
                if fault.delay:
                    time.sleep(fault.delay)
                status, ctype, body = fault.status, "application/json", fault.body
                headers = fault.headers
            elif parts.path.startswith("/pdf/"):
                pdf = pdfs.get(unquote(parts.path[len("/pdf/"):]))
                status, ctype, body = (200, "application/pdf", pdf) if pdf else (404, "text/plain", b"no such pdf")
                headers = {}
            else:
                status, ctype, body = world.answer(parts.path, parse_qs(parts.query))
                headers = {}
            try:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    world.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield Fake(world.base, works, faults, hits)
    finally:
        httpd.shutdown()
        httpd.server_close()
