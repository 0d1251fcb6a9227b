"""Reading bibliographies: BibTeX/BibLaTeX (bibtexparser 2), CSL-JSON, and a ledger's ``references:`` list.

Every reader returns :class:`Reference` objects keyed by citation key. A file
that cannot be read is an :class:`InputError` naming the file and line; an
entry that cannot be understood is skipped only when it has no key (it could
never be cited).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from claimledger._exceptions import InputError
from claimledger.refs.model import Reference, normalize_arxiv, normalize_doi

MAX_BIB_BYTES = 20 * 1024 * 1024
MAX_ENTRIES = 20_000
_ARXIV_IN_TEXT = re.compile(r"arxiv(?:\.org/(?:abs|pdf)/|\s*:\s*|\s+preprint\s+arxiv\s*:\s*)(\S+)", re.IGNORECASE)
_DOI_IN_TEXT = re.compile(r"\b(10\.\d{4,9}/\S+)")
_YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")


def _year(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1000 <= value <= 3000 else None
    m = _YEAR.search(str(value or ""))
    return int(m.group(1)) if m else None


def _clean(value: Any) -> str:
    text = str(value or "").replace("{", "").replace("}", "")
    return " ".join(text.split())


def _arxiv_from(fields: Mapping[str, str]) -> str:
    eprint = fields.get("eprint", "")
    kind = (fields.get("eprinttype", "") or fields.get("archiveprefix", "")).lower()
    if eprint and (kind == "arxiv" or not kind):
        found = normalize_arxiv(eprint)
        if found:
            return found
    for name in ("arxiv", "journal", "journaltitle", "note", "howpublished", "url", "doi", "volume"):
        value = fields.get(name, "")
        if name == "arxiv" and value:
            return normalize_arxiv(value)
        m = _ARXIV_IN_TEXT.search(value)
        if m:
            found = normalize_arxiv(m.group(1))
            if found:
                return found
        if name == "doi" and value.lower().startswith("10.48550/arxiv."):
            return normalize_arxiv(value)
    return ""


def _doi_from(fields: Mapping[str, str]) -> str:
    if fields.get("doi"):
        return normalize_doi(fields["doi"])
    m = _DOI_IN_TEXT.search(fields.get("url", "")) if "doi.org/" in fields.get("url", "") else None
    return normalize_doi(m.group(1)) if m else ""


def _split_authors(value: Any) -> tuple[tuple[str, ...], bool]:
    if isinstance(value, list):
        names = [_clean(v) for v in value]
    else:
        names = [_clean(n) for n in re.split(r"\s+and\s+", str(value or ""))]
    more = any(n.lower() in ("others", "et al.", "et al") for n in names)
    return tuple(n for n in names if n and n.lower() not in ("others", "et al.", "et al")), more


def reference_from_fields(key: str, entry_type: str, fields: Mapping[str, str], origin: str = "") -> Reference:
    """A reference from BibTeX-style fields (lower-case names)."""
    authors, more = _split_authors(fields.get("author", "") or fields.get("editor", ""))
    venue = next((fields[f] for f in ("journaltitle", "journal", "booktitle", "series") if fields.get(f)), "")
    return Reference(
        key=key, title=_clean(fields.get("title", "")), authors=authors,
        year=_year(fields.get("year") or fields.get("date")), venue=_clean(venue), doi=_doi_from(fields),
        arxiv=_arxiv_from(fields), url=fields.get("url", "").strip(), entry_type=entry_type.lower(),
        more_authors=more, origin=origin,
    )  # fmt: skip


def read_bibtex(text: str, name: str = "<bib>") -> list[Reference]:
    try:
        from bibtexparser.entrypoint import parse_string
        from bibtexparser.middlewares import LatexDecodingMiddleware
    except ImportError:  # pragma: no cover - a core dependency
        raise InputError("reading BibTeX needs bibtexparser>=2: pip install 'bibtexparser>=2.0.0b7'") from None
    import logging

    logging.getLogger("bibtexparser").setLevel(logging.ERROR)  # its failures are reported below, with lines
    try:
        library = parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    except Exception as exc:  # the parser's own errors are not a documented family
        raise InputError(f"{name}: cannot parse the BibTeX ({type(exc).__name__}: {exc})") from None
    out: list[Reference] = []
    for entry in library.entries:
        fields = {f.key.lower(): _clean(f.value) for f in entry.fields}
        out.append(reference_from_fields(entry.key, entry.entry_type, fields, f"{name}:{(entry.start_line or 0) + 1}"))
    if library.failed_blocks:
        first = library.failed_blocks[0]
        what = str(getattr(first, "error", "")).strip().splitlines()
        detail = f": {what[-1].strip()}" if what else ""
        raise InputError(
            f"{name}:{(first.start_line or 0) + 1}: this entry cannot be parsed{detail} "
            f"({len(library.failed_blocks)} such entr{'y' if len(library.failed_blocks) == 1 else 'ies'}); "
            "fix it so that none of its citations is lost"
        )
    return out


def _csl_name(person: Any) -> str:
    if not isinstance(person, dict):
        return _clean(person)
    if person.get("literal"):
        return _clean(person["literal"])
    family, given = _clean(person.get("family")), _clean(person.get("given"))
    return f"{family}, {given}" if family and given else family or given


def read_csl_json(data: Any, name: str = "<csl>") -> list[Reference]:
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InputError(f"{name}: CSL-JSON must be a list of items")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not item.get("id"):
            raise InputError(f"{name}: item {i + 1} has no 'id' (the citation key)")
        parts = (item.get("issued") or {}).get("date-parts") if isinstance(item.get("issued"), dict) else None
        year = _year(parts[0][0]) if isinstance(parts, list) and parts and parts[0] else _year(item.get("issued"))
        fields = {
            "doi": _clean(item.get("DOI")), "url": _clean(item.get("URL")), "note": _clean(item.get("note")),
            "journal": _clean(item.get("container-title")), "number": _clean(item.get("number")),
        }  # fmt: skip
        authors = [_csl_name(p) for p in item.get("author") or [] if p]
        out.append(Reference(
            key=str(item["id"]), title=_clean(item.get("title")), authors=tuple(a for a in authors if a),
            year=year, venue=fields["journal"], doi=_doi_from(fields), arxiv=_arxiv_from(fields),
            url=fields["url"], entry_type=_clean(item.get("type")), origin=f"{name}#{i + 1}",
        ))  # fmt: skip
    return out


def read_ledger_references(items: Iterable[Mapping[str, Any]], name: str = "ledger") -> list[Reference]:
    """The ledger's ``references:`` list (key, title, authors, year, venue, doi, arxiv, url)."""
    out = []
    for i, item in enumerate(items):
        fields = {str(k).lower(): v for k, v in item.items()}
        authors = fields.get("authors", fields.get("author", ""))
        text = {k: _clean(v) for k, v in fields.items() if k not in ("authors", "author")}
        text["author"] = authors if isinstance(authors, list) else _clean(authors)  # type: ignore[assignment]
        if "venue" in text and "journal" not in text:
            text["journal"] = text["venue"]
        out.append(reference_from_fields(str(fields.get("key", "")), str(fields.get("type", "")), text,
                                         f"{name}: references[{i}]"))  # fmt: skip
    return out


def read_bibliography(path: str | Path) -> list[Reference]:
    """A ``.bib`` (BibTeX/BibLaTeX) or ``.json`` (CSL-JSON) file."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_BIB_BYTES:
            raise InputError(f"{p}: bibliography is {size} bytes, over {MAX_BIB_BYTES}")
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{p}: cannot read the bibliography ({exc.strerror or exc})") from None
    text = raw.decode("utf-8-sig", errors="replace")
    if p.suffix.lower() in (".json", ".csljson") or text.lstrip().startswith(("[", "{")):
        try:
            refs = read_csl_json(json.loads(text), str(p))
        except (ValueError, RecursionError):
            raise InputError(f"{p}: not valid JSON (CSL-JSON expected)") from None
    else:
        refs = read_bibtex(text, str(p))
    if len(refs) > MAX_ENTRIES:
        raise InputError(f"{p}: {len(refs)} entries, over the limit of {MAX_ENTRIES}")
    seen: set[str] = set()
    for ref in refs:
        if ref.key in seen:
            raise InputError(f"{ref.origin}: duplicate citation key {ref.key!r}")
        seen.add(ref.key)
    return refs
