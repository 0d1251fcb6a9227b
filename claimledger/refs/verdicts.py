"""One verdict per reference: identifier first, title search only without one.

* ``reference_verified`` - a service's record confirms every field the reference gives.
* ``reference_not_found`` HIGH - no identifier resolves and no search hit passes the
  thresholds, with every configured service answering.
* ``reference_mismatch`` HIGH - the work exists but fields differ (each difference listed).
* ``doi_resolves_elsewhere`` HIGH - the DOI (or arXiv id) is real but names another work.
* ``reference_retracted`` HIGH - retraction/withdrawal notice (Crossref) or ``is_retracted`` (OpenAlex).
* ``reference_corrected`` LOW - an erratum or correction exists (never HIGH).
* ``reference_partly_confirmed`` MED - the work exists; a given field (a venue, say) is in no record, not even
  a published version found by title search: it is neither confirmed nor refuted.
* ``reference_service_error`` MED - a service failed and nothing confirmed the reference.
* ``reference_not_checked`` MED - ``--offline`` and the cache holds no answer that decides the entry.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from claimledger.refs.base import Resolver
from claimledger.refs.client import ServiceError
from claimledger.refs.match import Comparison, MatchOptions, compare
from claimledger.refs.model import RETRACTING, Record, Reference, normalize_arxiv, normalize_doi

VERIFIED = "reference_verified"
NOT_FOUND = "reference_not_found"
MISMATCH = "reference_mismatch"
ELSEWHERE = "doi_resolves_elsewhere"
RETRACTED = "reference_retracted"
CORRECTED = "reference_corrected"
PARTLY = "reference_partly_confirmed"
SERVICE_ERROR = "reference_service_error"
NOT_CHECKED = "reference_not_checked"

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Verdict:
    reference: Reference
    reason: str
    message: str
    record: Record | None = None
    differences: tuple[str, ...] = ()
    services: tuple[str, ...] = ()  # the services that answered
    errors: tuple[str, ...] = ()  # what failed, in words

    @property
    def verified(self) -> bool:
        return self.reason == VERIFIED


@dataclass
class _Trail:
    errors: list[ServiceError] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)

    def call(self, resolver: Resolver, fn: Callable[[], Record | None]) -> Record | None:
        try:
            record = fn()
        except ServiceError as exc:
            self.errors.append(exc)
            return None
        self.answered.append(resolver.name)
        return record

    def search(self, resolver: Resolver, ref: Reference) -> list[Record]:
        try:
            found = resolver.search(ref)
        except ServiceError as exc:
            self.errors.append(exc)
            return []
        self.answered.append(resolver.name)
        return found


class ReferenceChecker:
    """Checks references against the configured resolvers."""

    def __init__(self, resolvers: Sequence[Resolver], options: MatchOptions | None = None) -> None:
        self.resolvers = list(resolvers)
        self.options = options or MatchOptions()

    def _doi_order(self, doi: str) -> list[Resolver]:
        doi_capable = [r for r in self.resolvers if r.can_doi]
        if doi.startswith("10.48550/"):  # arXiv DOIs live in DataCite
            doi_capable.sort(key=lambda r: r.name != "datacite")
        return doi_capable

    def check(self, ref: Reference) -> Verdict:
        if not (ref.title or ref.doi or ref.arxiv):
            return Verdict(ref, NOT_FOUND, "the entry gives neither a title nor a DOI nor an arXiv id: "
                           "nothing identifies the work; add them")  # fmt: skip
        trail = _Trail()
        doi_comps: list[Comparison] = []
        arxiv_comps: list[Comparison] = []
        if ref.doi:
            doi = normalize_doi(ref.doi)
            for resolver in self._doi_order(doi):
                record = trail.call(resolver, lambda r=resolver: r.by_doi(doi))  # type: ignore[misc]
                if record is not None:
                    doi_comps.append(compare(ref, record, self.options))
                    if doi_comps[-1].all_ok and not doi_comps[-1].unconfirmed:
                        break
        if ref.arxiv and not any(c.all_ok for c in doi_comps):
            arxiv_id = normalize_arxiv(ref.arxiv)
            for resolver in sorted((r for r in self.resolvers if r.can_arxiv or r.name == "datacite"),
                                   key=lambda r: r.name != "arxiv"):  # fmt: skip
                record = trail.call(resolver, lambda r=resolver: r.by_arxiv(arxiv_id))  # type: ignore[misc]
                if record is not None:
                    arxiv_comps.append(compare(ref, record, self.options))
                    if arxiv_comps[-1].all_ok:
                        break
        if ref.doi:
            ident = f"DOI {normalize_doi(ref.doi)}"
            if doi_comps or not any(c.all_ok for c in arxiv_comps):
                # the DOI decides: a DOI that names another work is wrong whatever the arXiv id says
                return self._identified(ref, ident, doi_comps, trail)
            if trail.errors:
                return _service_error(ref, trail, f"{ident} could not be looked up, and ")
            rec = next(c.record for c in arxiv_comps if c.all_ok)
            diff = f"identifier: {ident} does not resolve; the work's record is {_ids(rec)}"
            return _v(ref, MISMATCH, f"{ident} does not resolve on any service, but the work exists as "
                      f"{_name(rec)} ({rec.service})", rec, (diff,), trail)  # fmt: skip
        if ref.arxiv:
            return self._identified(ref, f"arXiv:{normalize_arxiv(ref.arxiv)}", arxiv_comps, trail)
        return self._searched(ref, trail)

    def _search_all(self, ref: Reference, trail: _Trail) -> list[Comparison]:
        comps: list[Comparison] = []
        for resolver in (r for r in self.resolvers if r.can_search and r.searches(ref)):
            comps += [compare(ref, rec, self.options) for rec in trail.search(resolver, ref)]
            if any(c.all_ok and not c.unconfirmed for c in comps):
                break
        return comps

    def _identified(self, ref: Reference, ident: str, comps: list[Comparison], trail: _Trail) -> Verdict:
        good = [c for c in comps if c.all_ok]
        if good:
            return self._confirm(ref, good, comps, trail)
        if comps:  # the identifier resolves, but to what?
            best = max(comps, key=lambda c: c.score)
            if ref.title and best.title < self.options.title:
                elsewhere = [c for c in self._search_all(ref, trail) if c.all_ok]
                hint = f"; the cited work itself is {_name(elsewhere[0].record)}" if elsewhere else ""
                return _v(ref, ELSEWHERE, f"{ident} belongs to another work: {_name(best.record)} "
                          f"({best.record.service}){hint}", best.record, best.differences, trail)  # fmt: skip
            if trail.errors:
                return _service_error(ref, trail, f"{ident} resolves but does not match, and ")
            return _v(ref, MISMATCH, f"{ident} exists ({best.record.service}) but "
                      + "; ".join(best.differences), best.record, best.differences, trail)  # fmt: skip
        if trail.errors:
            return _service_error(ref, trail, f"{ident} was not found on the services that answered, and ")
        searched = [c for c in self._search_all(ref, trail) if c.all_ok] if ref.title else []
        if searched:
            rec = searched[0].record
            diff = f"identifier: {ident} does not resolve; the work's record is {_ids(rec)}"
            return _v(ref, MISMATCH, f"{ident} does not resolve on any service, but the work exists as "
                      f"{_name(rec)} ({rec.service})", rec, (diff,), trail)  # fmt: skip
        if trail.errors:
            return _service_error(ref, trail, f"{ident} does not resolve, and ")
        where = ", ".join(dict.fromkeys(trail.answered))
        return _v(ref, NOT_FOUND, f"{ident} does not resolve on {where}"
                  + (" and no search hit matches the title" if ref.title else ""), None, (), trail)  # fmt: skip

    def _searched(self, ref: Reference, trail: _Trail) -> Verdict:
        comps = self._search_all(ref, trail)
        good = [c for c in comps if c.all_ok]
        if good:
            return self._confirm(ref, good, comps, trail)
        if trail.errors:
            return _service_error(ref, trail, "no search hit confirms the reference, and ")
        close = [c for c in comps if c.title >= self.options.title]
        if close:
            best = max(close, key=lambda c: c.score)
            return _v(ref, MISMATCH, f"a work with this title exists ({_name(best.record)}, {best.record.service}) "
                      "but " + "; ".join(best.differences), best.record, best.differences, trail)  # fmt: skip
        where = ", ".join(dict.fromkeys(trail.answered))
        nearest = max(comps, key=lambda c: c.score, default=None)
        near = (f"; nearest: {_name(nearest.record)} (title similarity {nearest.title:.2f})"
                if nearest is not None else "")  # fmt: skip
        return _v(ref, NOT_FOUND, f"no work with this title and these authors on {where}{near}", None, (), trail)

    def _confirm(self, ref: Reference, good: list[Comparison], every: list[Comparison], trail: _Trail) -> Verdict:
        """The work exists. A field no record gave (a preprint's venue, say) is looked for in the other
        versions a title search finds (the published one); a version that contradicts it is a mismatch."""
        if all(c.unconfirmed for c in good) and ref.title:
            searched = [c for c in self._search_all(ref, trail) if c.record not in {g.record for g in good}]
            full = [c for c in searched if c.all_ok and not c.unconfirmed]
            if full:
                return _confirmed(ref, good + full, every + full, trail)
            contra = [c for c in searched if c.differences and all(d.startswith("venue") for d in c.differences)]
            if contra:
                best = max(contra, key=lambda c: c.score)
                return _v(ref, MISMATCH, f"the work exists, but its published version ({_name(best.record)}, "
                          f"{best.record.service}) differs: " + "; ".join(best.differences), best.record,
                          best.differences, trail)  # fmt: skip
        return _confirmed(ref, good, every, trail)

    def check_all(self, refs: Sequence[Reference], workers: int = 4, progress: Progress | None = None) -> list[Verdict]:
        """Every reference, ``workers`` at a time; the order of ``refs`` is kept."""
        out: list[Verdict | None] = [None] * len(refs)
        done = 0
        lock = threading.Lock()

        def one(i: int) -> None:
            nonlocal done
            try:
                out[i] = self.check(refs[i])
            except Exception as exc:  # fail closed: a crash is a finding, never a lost reference
                out[i] = Verdict(refs[i], SERVICE_ERROR, f"internal error while checking ({type(exc).__name__}: "
                                 f"{exc}); not verified - please report this")  # fmt: skip
            with lock:
                done += 1
                if progress is not None:
                    progress(done, len(refs), refs[i].key)

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            list(pool.map(one, range(len(refs))))
        return [v for v in out if v is not None]


# what a notice that is not a retraction means for the citing writer (Crossref update types)
_AFTER_NOTICE = {
    "expression of concern": "not retracted, but the publisher has raised a concern: read the notice",
    "new version": "the work stands; a newer version exists",
    "new edition": "the work stands; a newer edition exists",
}


def _name(record: Record) -> str:
    year = f", {record.year}" if record.year else ""
    first = record.authors[0] if record.authors else "no authors"
    return f"{record.title!r} ({first}{' et al.' if len(record.authors) > 1 else ''}{year}; {_ids(record)})"


def _ids(record: Record) -> str:
    if record.doi:
        return f"DOI {record.doi}"
    if record.arxiv:
        return f"arXiv:{record.arxiv}"
    return f"{record.service} {record.ident}"


def _v(ref: Reference, reason: str, message: str, record: Record | None, diffs: tuple[str, ...],
       trail: _Trail) -> Verdict:  # fmt: skip
    return Verdict(ref, reason, message, record, diffs, tuple(dict.fromkeys(trail.answered)),
                   tuple(str(e) for e in trail.errors))  # fmt: skip


def _service_error(ref: Reference, trail: _Trail, lead: str) -> Verdict:
    if trail.errors and all(e.kind == "offline" for e in trail.errors):  # --offline: the cache lacked answers
        missing = ", ".join(dict.fromkeys(e.service for e in trail.errors))
        return _v(ref, NOT_CHECKED, f"not checked (--offline): {lead}the cache holds no answer from {missing}; "
                  f"{OFFLINE_ACTION}", None, (), trail)  # fmt: skip
    failed = "; ".join(str(e) for e in trail.errors)
    return _v(ref, SERVICE_ERROR, f"not checked: {lead}{failed}", None, (), trail)


def _confirmed(ref: Reference, good: list[Comparison], every: list[Comparison], trail: _Trail) -> Verdict:
    best = min(good, key=lambda c: (len(c.unconfirmed), -c.score))
    same_work = [c for c in every if c.all_ok]
    retracting = [u for c in same_work for u in c.record.updates if u.kind in RETRACTING]
    if any(c.record.retracted for c in same_work):
        notice = f" (notice {retracting[0].doi})" if retracting and retracting[0].doi else ""
        who = next(c.record.service for c in same_work if c.record.retracted)
        return _v(ref, RETRACTED, f"the work exists but has been retracted{notice}, per {who}: do not cite it "
                  "as support", best.record, (), trail)  # fmt: skip
    unconfirmed = set(best.unconfirmed)
    for c in same_work:
        unconfirmed &= set(c.unconfirmed)
    corrections = [u for c in same_work for u in c.record.updates if u.kind not in RETRACTING]
    if corrections:
        u = corrections[0]
        kind = u.kind.replace("_", " ").replace("-", " ")
        after = _AFTER_NOTICE.get(kind, "the work stands, check the corrected version")
        return _v(ref, CORRECTED, f"verified by {best.record.service}; note: {'an' if kind[:1] in 'aeiou' else 'a'} "
                  f"{kind} was published" + (f" ({u.doi})" if u.doi else "") + f" - {after}",
                  best.record, (), trail)  # fmt: skip
    if unconfirmed:
        fields = ", ".join(sorted(unconfirmed))
        return _v(ref, PARTLY, f"the work exists ({best.record.service}: {_ids(best.record)}) but no record "
                  f"gives its {fields} to compare", best.record, (), trail)  # fmt: skip
    return _v(ref, VERIFIED, f"confirmed by {best.record.service} ({_ids(best.record)}): every given field "
              "matches", best.record, (), trail)  # fmt: skip


OFFLINE_ACTION = "run without --offline, or run once online first so that --offline finds the answers in the cache"


def offline_verdicts(refs: Sequence[Reference]) -> list[Verdict]:
    """``--offline`` without a cache: nothing can be checked (MED, never verified)."""
    return [Verdict(r, NOT_CHECKED, f"not checked (--offline, no cache): no reference service was asked; "
                    f"{OFFLINE_ACTION}") for r in refs]  # fmt: skip
