"""Findings: what a check concluded about one claim, with its evidence."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any

from claimledger._exceptions import ClaimledgerError
from claimledger.model.reasons import Reason, Tier

__all__ = ["Evidence", "Finding", "Offered", "Reason", "Status", "Tier"]


class Status(StrEnum):
    VERIFIED = "verified"
    DISCREPANCY = "discrepancy"
    UNVERIFIABLE = "unverifiable"
    EXPLAINED = "explained"
    ERROR = "error"


@dataclass(frozen=True)
class Evidence:
    """A place in a source: the exact original text and where it sits."""

    source: str
    start: int
    end: int
    text: str  # as a reader sees it (line ends as \n, no PDF hyphen marks); start/end are exact
    page: int | None = None
    end_page: int | None = None  # a quote that runs across a page break: the last page
    line: int | None = None  # 1-based line and column in the original file (HTML, Markdown, text)
    column: int | None = None
    spans: tuple[tuple[int, int], ...] = ()  # the pieces, when the match skips text (page furniture, elisions)
    reading: str | None = None  # the second reading that matched: furigana, pdf_body, elided

    def where(self) -> str:
        """``p. 3``, ``pp. 3-4``, ``line 12, col 5`` or ``chars 10-40``."""
        if self.page is not None:
            return f"pp. {self.page}-{self.end_page}" if self.end_page else f"p. {self.page}"
        if self.line is not None:
            return f"line {self.line}, col {self.column}"
        return f"chars {self.start}-{self.end}"


@dataclass(frozen=True)
class Offered:
    """What a claim's author offers to explain a discrepancy (``author_alternative``), and the reasons
    that may be explained for this claim's kind besides the explainable rows of the reason table
    (an attribution the judge finds contradicted, seed 003). A check attaches it to its finding;
    :func:`claimledger.reconcile.tiered` decides, once, whether it explains anything."""

    author_alternative: str | None = None
    also_explainable: frozenset[Reason] = frozenset()


@dataclass(frozen=True)
class Finding:
    """The conclusion of one check about one claim.

    A check returns it without a tier (``tier=None``), with what the claim's author offered
    (``offered``); the tier is assigned once, from the reason table, by
    :func:`claimledger.reconcile.tiered`. ``offered`` is not part of the report.
    """

    claim_id: str
    check: str
    status: Status
    reason: Reason
    message: str
    tier: Tier | None = None
    evidence: Evidence | None = None
    nearest: Evidence | None = None
    diff: str | None = None
    expected: float | None = None
    claimed: str | None = None
    author_alternative: str | None = None
    location: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    offered: Offered | None = field(default=None, compare=False, repr=False)

    @property
    def verified(self) -> bool:
        return self.status is Status.VERIFIED

    def to_dict(self) -> dict[str, Any]:
        out = _plain_dict(self) if type(self) is Finding else None
        if out is None:  # a subclass, or a value that is not plain JSON data: dataclasses' own copy
            out = asdict(self)
            del out["offered"]  # an input of reconcile, not a conclusion
        out["status"] = self.status.value
        out["reason"] = self.reason.value
        out["tier"] = self.tier.value if self.tier else None
        for key in ("evidence", "nearest"):
            if isinstance(out.get(key), dict):  # JSON has no tuples: the same value on every surface
                out[key]["spans"] = [list(span) for span in out[key].get("spans", ())]
        return out


class _NotPlain(ClaimledgerError):
    """A value :func:`_plain` does not copy (``asdict`` does); never raised out of ``to_dict``."""


_ATOMS = frozenset({str, int, float, bool, type(None)})
_EVIDENCE_FIELDS = tuple(f.name for f in fields(Evidence))
_FINDING_FIELDS = tuple(f.name for f in fields(Finding) if f.name != "offered")


def _plain(value: Any) -> Any:
    """``value`` copied as :func:`dataclasses.asdict` copies it, for plain JSON-like data (those
    exact types, in dicts, lists and tuples); :class:`_NotPlain` for anything else."""
    kind = type(value)
    if kind in _ATOMS:
        return value  # what copy.deepcopy returns for these
    if kind is dict:
        return {_plain(k): _plain(v) for k, v in value.items()}
    if kind is list:
        return [_plain(v) for v in value]
    if kind is tuple:
        return tuple(_plain(v) for v in value)
    raise _NotPlain


def _plain_dict(finding: Finding) -> dict[str, Any] | None:
    """``asdict(finding)`` without ``offered``, built field by field (a report holds one per claim and
    check: the generic recursion was most of writing a JSON report); None when a value is not plain."""
    out: dict[str, Any] = {}
    try:
        for name in _FINDING_FIELDS:
            value = getattr(finding, name)
            if name in ("status", "reason", "tier"):
                out[name] = value  # replaced by its value by the caller, as before
            elif name in ("evidence", "nearest") and value is not None:
                if type(value) is not Evidence:
                    return None
                out[name] = {n: _plain(getattr(value, n)) for n in _EVIDENCE_FIELDS}
            else:
                out[name] = _plain(value)
    except _NotPlain:
        return None
    return out
