"""What a bibliography says about a work (:class:`Reference`) and what a service holds (:class:`Record`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reference:
    """One bibliography entry, as the writer gave it. Empty fields were not given."""

    key: str
    title: str = ""
    authors: tuple[str, ...] = ()  # as written ("Vaswani, Ashish", "Ashish Vaswani", "山田 太郎")
    year: int | None = None
    venue: str = ""
    doi: str = ""
    arxiv: str = ""
    url: str = ""
    entry_type: str = ""  # article, inproceedings, misc, ... (lower case)
    more_authors: bool = False  # "and others" / "et al.": the list is not complete
    origin: str = ""  # file:line, for messages

    def given(self) -> dict[str, str]:
        """The fields the writer gave, as text (for reports)."""
        out = {
            "title": self.title,
            "authors": "; ".join(self.authors) + ("; et al." if self.more_authors else ""),
            "year": str(self.year) if self.year is not None else "",
            "venue": self.venue,
            "doi": self.doi,
            "arxiv": self.arxiv,
        }
        return {k: v for k, v in out.items() if v}


@dataclass(frozen=True)
class Update:
    """A notice about a work: a retraction, withdrawal, erratum or correction."""

    kind: str  # lower case: retraction, withdrawal, removal, correction, erratum, corrigendum, ...
    doi: str = ""
    label: str = ""


RETRACTING = frozenset({"retraction", "withdrawal", "removal", "partial_retraction", "partial-retraction"})


@dataclass(frozen=True)
class Record:
    """A work as one service describes it."""

    service: str  # crossref, datacite, arxiv, openalex
    ident: str  # what the service calls it (DOI, arXiv id, OpenAlex id)
    title: str
    alt_titles: tuple[str, ...] = ()  # title with its subtitle, other-language titles
    authors: tuple[str, ...] = ()  # full names as the service gives them
    surnames: tuple[str, ...] = ()  # family names where the service gives them separately
    year: int | None = None
    venues: tuple[str, ...] = ()  # container titles, full and short
    doi: str = ""
    arxiv: str = ""
    preprint: bool = False
    published_year: int | None = None  # a preprint's published version, when the record names it (journal ref)
    retracted: bool = False
    updates: tuple[Update, ...] = field(default=())
    url: str = ""
    pdf_url: str = ""

    def shown(self) -> dict[str, str]:
        """The record's fields as text (for reports, beside the reference)."""
        out = {
            "service": self.service,
            "id": self.ident,
            "title": self.title,
            "authors": "; ".join(self.authors),
            "year": str(self.year) if self.year is not None else "",
            "venue": " | ".join(self.venues),
            "doi": self.doi,
            "arxiv": self.arxiv,
            "type": "preprint" if self.preprint else "",
            "retracted": "yes" if self.retracted else "",
            "updates": ", ".join(u.kind for u in self.updates),
        }
        return {k: v for k, v in out.items() if v}


def normalize_doi(raw: str) -> str:
    """``https://doi.org/10.1/X`` or ``doi:10.1/X`` -> ``10.1/x`` (DOIs are case-insensitive)."""
    doi = raw.strip()
    low = doi.lower()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"):
        if low.startswith(prefix):
            doi = doi[len(prefix) :]
            break
    return doi.strip().rstrip(".").lower()


def normalize_arxiv(raw: str) -> str:
    """``arXiv:1706.03762v5`` or an abs/pdf URL -> ``1706.03762`` (version dropped)."""
    import re

    text = raw.strip()
    m = re.search(r"(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?", text, re.IGNORECASE)
    return m.group(1) if m else ""
