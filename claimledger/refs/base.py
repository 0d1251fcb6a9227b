"""The small interface every resolver implements, and reading JSON answers safely."""

from __future__ import annotations

import json
import os
from typing import Any, ClassVar

from claimledger.refs.client import Answer, ServiceClient, ServiceError
from claimledger.refs.model import Record, Reference

SEARCH_ROWS = 5


class Resolver:
    """One service. ``by_doi``/``by_arxiv`` return None when the service does not know the id;
    ``search`` returns candidates (possibly none). Failures raise :class:`ServiceError`."""

    name: ClassVar[str] = ""
    env_var: ClassVar[str] = ""
    default_base: ClassVar[str] = ""
    can_doi: ClassVar[bool] = False
    can_arxiv: ClassVar[bool] = False
    can_search: ClassVar[bool] = False

    def __init__(self, client: ServiceClient, base_url: str | None = None) -> None:
        self.client = client
        self.base_url = (base_url or os.environ.get(self.env_var) or self.default_base).rstrip("/")

    def by_doi(self, doi: str) -> Record | None:
        raise NotImplementedError

    def by_arxiv(self, arxiv_id: str) -> Record | None:
        raise NotImplementedError

    def search(self, ref: Reference) -> list[Record]:
        raise NotImplementedError

    def searches(self, ref: Reference) -> bool:
        """Whether this service is asked in a title search for ``ref`` (DataCite: datasets and software only)."""
        return self.can_search

    def _get(self, path: str, params: dict[str, str] | None = None, accept: str = "application/json") -> Answer:
        return self.client.get(self.name, self.base_url, path, params, accept=accept,
                               secrets=self.secrets(), user_agent=self.user_agent())  # fmt: skip

    def secrets(self) -> dict[str, str]:
        return {}

    def user_agent(self) -> str | None:
        return None

    def _json(self, answer: Answer) -> Any:
        try:
            return json.loads(answer.body)
        except (ValueError, UnicodeDecodeError):
            raise ServiceError(self.name, "bad_answer", f"{self.name} sent an answer that is not JSON") from None


def as_str(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_year(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 1000 <= value <= 3000:
        return value
    if isinstance(value, str) and value[:4].isdigit():
        return as_year(int(value[:4]))
    return None


def search_text(ref: Reference) -> str:
    """Title, first authors' surnames and year: what a bibliographic search is given."""
    from claimledger.refs.match import surname

    parts = [ref.title, *(surname(a) for a in ref.authors[:3])]
    if ref.year:
        parts.append(str(ref.year))
    return " ".join(p for p in parts if p)
