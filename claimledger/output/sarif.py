"""SARIF 2.1.0 (``--format sarif``) for code scanning in CI.

One ``result`` per finding that is not verified; verified claims are not
results. The ``ruleId`` is the finding's reason code, and ``tool.driver.rules``
describes every reason code claimledger can report, from the reason
table (:mod:`claimledger.model.reasons`).

Level from tier:

=========== ========= ==============================================================
tier        level     why
=========== ========= ==============================================================
HIGH        error     a discrepancy: the document must not be published as it is
            (warning) ... under ``--no-fail-closed``, which reports HIGH as warnings
MED         warning   could not be checked now (timeout, 5xx): retry, never a pass
LOW         note      the source is truly inaccessible: cannot verify
EXPLAINED   note      a real discrepancy the author explained with a named reason;
                      kept visible (not ``none``) so a reviewer can judge the reason
=========== ========= ==============================================================

Locations: the draft's file, line and column when the claim was found in a
draft; the ledger file and the claim's line in it for ledger-only claims.
Paths under the current directory are written relative to it (with
``uriBaseId`` ``%SRCROOT%``), as code-scanning services expect.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from claimledger._version import __version__
from claimledger.model.finding import Finding, Reason, Status, Tier
from claimledger.model.report import Report
from claimledger.numbers import format_number

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"

TIER_LEVEL: dict[Tier, str] = {
    Tier.HIGH: "error",
    Tier.MED: "warning",
    Tier.LOW: "note",
    Tier.EXPLAINED: "note",
}

def _describe(reason: Reason) -> str:
    return reason.description or reason.value.replace("_", " ").capitalize() + "."


def _rule_name(reason: Reason) -> str:
    return "".join(part.capitalize() for part in reason.value.split("_"))


def _rules() -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    for reason in Reason:
        if reason.tier is None:  # a code that means verified is not a rule
            continue
        tier = reason.tier
        rules.append(
            {
                "id": reason.value,
                "name": _rule_name(reason),
                "shortDescription": {"text": _describe(reason)},
                "fullDescription": {
                    "text": f"{_describe(reason)} Default tier: {tier.value}. "
                    "claimledger never marks such a claim verified."
                },
                "defaultConfiguration": {"level": TIER_LEVEL[tier]},
                "properties": {"tier": tier.value, "tags": ["claimledger", tier.value]},
            }
        )
    return rules


def _uri(path: str) -> tuple[str, str | None]:
    """A URI reference for a path: relative to the current directory when under it."""
    p = Path(path)
    if p.is_absolute():
        try:
            rel = p.resolve().relative_to(Path.cwd().resolve())
        except (ValueError, OSError):
            return p.resolve().as_uri(), None
        return quote(rel.as_posix()), SRCROOT
    return quote(p.as_posix()), SRCROOT


def _ledger_path(report: Report) -> str | None:
    ledger = report.reproducibility.get("ledger")
    path = ledger.get("path") if isinstance(ledger, dict) else None
    return str(path) if path else None


def _location(f: Finding, ledger_path: str | None) -> dict[str, Any] | None:
    loc = f.location or {}
    in_ledger = loc.get("in") == "ledger"
    file = ledger_path if in_ledger else (loc.get("file") or None)
    if file is None and not in_ledger:
        file = ledger_path  # a draft claim without a file name: point at the ledger that lists it
        in_ledger = True
    if not file:
        return None
    uri, base = _uri(str(file))
    artifact: dict[str, Any] = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    physical: dict[str, Any] = {"artifactLocation": artifact}
    line = loc.get("line")
    if isinstance(line, int) and line >= 1:
        region: dict[str, Any] = {"startLine": line}
        column = loc.get("column")
        if not in_ledger and isinstance(column, int) and column >= 1:
            region["startColumn"] = column
        end_line, end_column = loc.get("end_line"), loc.get("end_column")
        if not in_ledger and isinstance(end_line, int) and end_line >= line:
            region["endLine"] = end_line
            if isinstance(end_column, int) and end_column >= 1:
                region["endColumn"] = end_column
        physical["region"] = region
    out: dict[str, Any] = {"physicalLocation": physical}
    if in_ledger:
        out["message"] = {"text": f"claim {f.claim_id} in the ledger"}
    return out


def _fingerprint(f: Finding) -> str:
    key = "\x1f".join([f.claim_id, f.check, f.reason.value, f.claimed or ""])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _message(f: Finding) -> str:
    text = f"{f.claim_id}: {f.message}"
    if f.nearest is not None and f.reason is not Reason.QUOTE_NEAR_MISS:
        text += f" Nearest passage ({f.nearest.source}): “{f.nearest.text}”."
    return text


def _evidence_dict(f: Finding) -> dict[str, Any]:
    props: dict[str, Any] = {"claimId": f.claim_id, "status": f.status.value, "check": f.check}
    if f.tier is not None:
        props["tier"] = f.tier.value
    if f.claimed is not None:
        props["claimed"] = f.claimed
    if f.expected is not None:
        props["recomputed"] = format_number(f.expected)
    for name, ev in (("evidence", f.evidence), ("nearest", f.nearest)):
        if ev is not None:
            props[name] = {
                "source": ev.source,
                "page": ev.page,
                "start": ev.start,
                "end": ev.end,
                "text": ev.text,
            }
    if f.diff:
        props["diff"] = f.diff
    if f.author_alternative:
        props["authorAlternative"] = f.author_alternative
    if f.extra:
        props["extra"] = f.extra
    return props


def sarif_log(report: Report) -> dict[str, Any]:
    """The SARIF 2.1.0 log as a dict (see the module docstring for the mapping)."""
    rules = _rules()
    rule_index = {rule["id"]: i for i, rule in enumerate(rules)}
    ledger_path = _ledger_path(report)
    results: list[dict[str, Any]] = []
    for f in report.findings:
        if f.status is Status.VERIFIED:
            continue
        tier = f.tier or Tier.HIGH  # a non-verified finding without a tier fails closed
        level = TIER_LEVEL[tier]
        if tier is Tier.HIGH and not report.fail_closed:
            level = "warning"
        result: dict[str, Any] = {
            "ruleId": f.reason.value,
            "level": level,
            "message": {"text": _message(f)},
            "partialFingerprints": {"claimledgerFinding/v1": _fingerprint(f)},
            "properties": _evidence_dict(f),
        }
        if f.reason.value in rule_index:
            result["ruleIndex"] = rule_index[f.reason.value]
        location = _location(f, ledger_path)
        if location is not None:
            result["locations"] = [location]
        results.append(result)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "claimledger",
                "version": __version__,
                "semanticVersion": __version__,
                "shortDescription": {
                    "text": "A verification gate: quotes checked literally, numbers recomputed from data."
                },
                "rules": rules,
            }
        },
        "invocations": [
            {
                "executionSuccessful": True,
                "exitCode": report.exit_code,
                "properties": {"outcome": report.outcome.value, "failClosed": report.fail_closed},
            }
        ],
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {
            "outcome": report.outcome.value,
            "claimsTotal": report.claims_total,
            "counts": report.counts,
            "notes": list(report.notes),
        },
    }
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(report: Report) -> str:
    return json.dumps(sarif_log(report), ensure_ascii=False, indent=2) + "\n"
