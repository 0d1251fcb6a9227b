"""Reference checks: do the cited works exist, and say what the bibliography says they say?

The pipeline: read the bibliography (:mod:`.bib`) -> resolve each entry with the
services (:mod:`.crossref`, :mod:`.datacite`, :mod:`.arxiv`, :mod:`.openalex`,
one :class:`~.base.Resolver` each, sharing one :class:`~.client.ServiceClient`)
-> compare (:mod:`.match`) -> one verdict per entry (:mod:`.verdicts`).

The package imports none of its modules itself (:mod:`.kind` registers the reference claim kind
in every run, and a ledger without references must not pay for the services' client and the
comparison's imports, ~50 ms): its names are read from them at first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claimledger.refs.match import MatchOptions
    from claimledger.refs.model import Record, Reference
    from claimledger.refs.verdicts import Verdict
    from claimledger.refs.verify import SERVICES, RefSettings, verify_references

__all__ = ["SERVICES", "MatchOptions", "Record", "RefSettings", "Reference", "Verdict", "verify_references"]

# name -> the module that holds it
_HOME = {
    "SERVICES": "verify",
    "RefSettings": "verify",
    "verify_references": "verify",
    "MatchOptions": "match",
    "Record": "model",
    "Reference": "model",
    "Verdict": "verdicts",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # (read once)
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])
