"""Checking references with the services: :class:`RefSettings` and :func:`verify_references`
(the package's entry points; ``claimledger.refs`` reads them from here at first use)."""


from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from claimledger.refs.client import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, ServiceClient
from claimledger.refs.match import MatchOptions
from claimledger.refs.model import Record, Reference
from claimledger.refs.verdicts import Progress, ReferenceChecker, Verdict, offline_verdicts

SERVICES = ("crossref", "datacite", "arxiv", "openalex")

__all__ = ["SERVICES", "MatchOptions", "Record", "RefSettings", "Reference", "Verdict", "verify_references"]


@dataclass(frozen=True)
class RefSettings:
    """How references are checked in one run."""

    offline: bool = False  # answers only from the cache; an entry it cannot decide is MED "not checked"
    timeout: float = DEFAULT_TIMEOUT
    concurrency: int = DEFAULT_CONCURRENCY
    allow_private_urls: bool = False
    cache_dir: Path | None = None  # None: no cache
    refresh: bool = False  # ask the services again (the cache is still written)
    services: tuple[str, ...] = SERVICES
    base_urls: dict[str, str] = field(default_factory=dict)  # overrides of the CLAIMLEDGER_*_URL variables
    options: MatchOptions | None = None
    max_retry_after: float = 10.0


def make_checker(settings: RefSettings) -> tuple[ReferenceChecker, ServiceClient]:
    from claimledger.refs.arxiv import Arxiv
    from claimledger.refs.base import Resolver
    from claimledger.refs.cache import AnswerCache
    from claimledger.refs.crossref import Crossref
    from claimledger.refs.datacite import DataCite
    from claimledger.refs.openalex import OpenAlex

    cache = None
    if settings.cache_dir is not None:
        cache = AnswerCache(settings.cache_dir / "refs.sqlite", read=not settings.refresh)
    client = ServiceClient(
        timeout=settings.timeout, concurrency=settings.concurrency, allow_private=settings.allow_private_urls,
        cache=cache, max_retry_after=settings.max_retry_after, offline=settings.offline,
    )  # fmt: skip
    kinds: dict[str, type[Resolver]] = {"crossref": Crossref, "datacite": DataCite, "arxiv": Arxiv, "openalex": OpenAlex}
    resolvers = [kinds[name](client, settings.base_urls.get(name)) for name in settings.services if name in kinds]
    return ReferenceChecker(resolvers, settings.options or MatchOptions.from_env()), client


def verify_references(
    refs: Sequence[Reference], settings: RefSettings | None = None, progress: Progress | None = None
) -> list[Verdict]:
    """One verdict per reference, in order. Never raises for a service failure (those are verdicts)."""
    settings = settings or RefSettings()
    if settings.offline and (settings.cache_dir is None or settings.refresh):
        return offline_verdicts(refs)  # no answer can come from anywhere
    checker, client = make_checker(settings)
    try:
        return checker.check_all(refs, workers=settings.concurrency, progress=progress)
    finally:
        client.close()
