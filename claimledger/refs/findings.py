"""Reference verdicts as findings of the ``reference`` check (claim_id = the citation key)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from claimledger.model.finding import Finding, Reason, Status
from claimledger.refs.model import Reference
from claimledger.refs.verdicts import CORRECTED, VERIFIED, Verdict

if TYPE_CHECKING:
    from claimledger._config import GateConfig
    from claimledger.model.claim import Ledger
    from claimledger.refs import RefSettings

CHECK = "reference"
OFFLINE_NOTE = (
    "--offline: no reference service was asked; an entry is decided only from answers already in the cache, "
    "and every other entry is MED 'not checked' (run without --offline to check it)"
)
_STATUS = {
    "reference_verified": Status.VERIFIED,
    "reference_not_found": Status.DISCREPANCY,
    "reference_mismatch": Status.DISCREPANCY,
    "doi_resolves_elsewhere": Status.DISCREPANCY,
    "reference_retracted": Status.DISCREPANCY,
    "reference_corrected": Status.DISCREPANCY,
    "reference_partly_confirmed": Status.UNVERIFIABLE,
    "reference_service_error": Status.UNVERIFIABLE,
    "reference_not_checked": Status.UNVERIFIABLE,
}
_ORIGIN_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


def _location(ref: Reference) -> dict[str, object] | None:
    m = _ORIGIN_LINE.match(ref.origin)
    if m:
        return {"file": m.group("file"), "line": int(m.group("line")), "in": "bibliography"}
    return {"file": ref.origin, "line": None, "in": "bibliography"} if ref.origin else None


def verdict_findings(verdicts: Sequence[Verdict]) -> list[Finding]:
    """One finding per verdict, without a tier (``reconcile.tiered`` gives it); an erratum adds a note
    (``reference_corrected``, LOW in the reason table) beside the verified one."""
    out: list[Finding] = []
    for v in verdicts:
        extra: dict[str, object] = {
            "reference": v.reference.given(),
            "record": v.record.shown() if v.record is not None else None,
            "differences": list(v.differences),
            "services": list(v.services),
            "errors": list(v.errors),
        }
        claimed = v.reference.title or v.reference.doi or v.reference.arxiv or v.reference.key
        reasons = [VERIFIED, CORRECTED] if v.reason == CORRECTED else [v.reason]
        for code in reasons:
            message = v.message
            if code == VERIFIED and v.reason == CORRECTED and v.record is not None:
                message = f"confirmed by {v.record.service}: every given field matches"
            finding = Finding(
                v.reference.key, CHECK, _STATUS[code], Reason(code), message, claimed=claimed,
                location=_location(v.reference), diff="\n".join(v.differences) or None, extra=extra,
            )  # fmt: skip
            out.append(finding)
    return out


def ledger_references(ledger: Ledger, folder: Path, extra_files: Sequence[Path] = ()) -> list[Reference]:
    """The ledger's ``references:``, its ``bibliography:`` files (relative to ``folder``) and ``--bib`` files."""
    from claimledger._exceptions import InputError
    from claimledger.refs.bib import read_bibliography, read_ledger_references

    refs = read_ledger_references(
        [r.model_dump(exclude_none=True) for r in ledger.references], ledger._path or "ledger"
    )
    for claim in ledger.claims:  # `kind: reference` claims (claimledger.refs.kind) are entries too
        as_reference = getattr(claim, "reference", None)
        if getattr(claim, "kind", None) == "reference" and callable(as_reference):
            refs.append(as_reference(f"{ledger._path or 'ledger'}: claims"))
    for name in ledger.bibliography_files():
        refs += read_bibliography(folder / name)
    for path in extra_files:
        refs += read_bibliography(path)
    seen: dict[str, Reference] = {}
    for ref in refs:
        if ref.key in seen:
            raise InputError(f"{ref.origin}: citation key {ref.key!r} is also defined at {seen[ref.key].origin}")
        seen[ref.key] = ref
    return refs


def settings_from(config: GateConfig) -> RefSettings:
    from claimledger.load.fetch import default_cache_dir
    from claimledger.refs import RefSettings

    return RefSettings(
        offline=config.offline, timeout=config.refs_timeout, allow_private_urls=config.allow_private_urls,
        cache_dir=config.cache_dir or default_cache_dir(), refresh=config.refresh,
    )  # fmt: skip
