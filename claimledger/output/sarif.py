"""SARIF 2.1.0 (``--format sarif``) for code scanning in CI.

One ``result`` per finding that is not verified; verified claims are not
results. The ``ruleId`` is the finding's reason code, and ``tool.driver.rules``
describes every reason code claimledger can report.

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
from claimledger.reconcile import REASON_TIER

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

#: One sentence per reason code (rule). Codes missing here get a description made from their name.
RULE_DESCRIPTIONS: dict[str, str] = {
    "quote_absent": "The quote does not appear in the cited source, nor anywhere near it.",
    "quote_near_miss": "The quote is not in the source verbatim; a close passage differs (see the word diff).",
    "quote_misattributed": "The quote is not in the cited source but appears verbatim in another source.",
    "quote_too_short": "The quote is too short to be verified meaningfully.",
    "quote_only_in_hidden_text": (
        "The quote occurs only in text a reader cannot see (hidden HTML element, script, comment; "
        "invisible, white or tiny PDF text)."
    ),
    "source_undeclared": "The claim cites a source id that the ledger does not declare.",
    "source_file_missing": "The source file does not exist.",
    "source_unreadable": "The source could not be read or parsed.",
    "source_no_text": "The source has no extractable text (for example a scanned PDF).",
    "source_too_large": "The source is larger than the configured limit and was not read.",
    "source_extraction_timeout": "Extracting the source's text took longer than the limit and was stopped.",
    "source_not_found": "The source URL answered 404/410: the cited source does not exist there.",
    "source_timeout": "Fetching the source URL timed out (transient; retry).",
    "source_server_error": "The source server answered with a 5xx error (transient; retry).",
    "source_network_error": "A network error prevented fetching the source (transient; retry).",
    "source_forbidden": "The source is inaccessible (401/402/403): the claim cannot be verified.",
    "source_url_refused": "The source URL was refused (scheme, private address or redirect not allowed).",
    "source_bad_content_type": "The source URL returned a content type claimledger does not read.",
    "number_mismatch": "The recomputed value differs from the claimed number beyond tolerance and precision.",
    "number_not_in_quote": "The cited passage does not print the claimed number.",
    "unit_ambiguous": "A percent compared with a value that reads as a ratio too: declare the unit.",
    "value_unparseable": "The claimed value could not be parsed as a number.",
    "metric_unknown": "The claim names a metric that is not registered.",
    "metric_error": "The metric's query or function failed.",
    "result_null": "The metric returned NULL: nothing to compare with.",
    "result_non_finite": "The metric returned a non-finite value (NaN or infinity).",
    "result_not_scalar": "The metric did not return exactly one value.",
    "dataset_undeclared": "The query uses a dataset the ledger does not declare.",
    "dataset_file_missing": "A dataset file does not exist.",
    "dataset_unreadable": "A dataset file could not be read.",
    "check_crashed": "An internal error occurred while checking this claim; it is not verified.",
    "job_input_error": "The batch job's ledger or draft cannot be used; nothing in the job is verified.",
    "job_timeout": "The batch job ran past its time limit and was stopped; nothing in it is verified.",
    "job_worker_lost": "The worker running the batch job died twice; nothing in the job is verified.",
    "judge_contradicted": "The independent judge found that the source contradicts the claim.",
    "judge_overclaim": "The independent judge found that the claim says more than the source.",
    "judge_not_found": "The independent judge found no support for the claim in the source.",
    "judge_failed": "The judge failed or answered malformed output (transient; not a pass).",
    "judge_evidence_not_in_source": "The judge's quoted evidence is not literally in the source.",
    "judge_injection_suspected": "The source appears to contain instructions aimed at the judge.",
    "judge_draft_leak": "The judge's answer shows it saw text from the draft.",
    "overclaim_number_changed": "The sentence states a different number than its quote.",
    "overclaim_hedge_dropped": "The sentence drops a hedge (about, approximately, 約) that its quote has.",
    "overclaim_modality": "The sentence strengthens the quote's modality (may -> is).",
    "overclaim_quantifier": "The sentence broadens the quote's quantifier (some -> all).",
    "overclaim_negation": "The sentence flips a negation of its quote.",
    "overclaim_scope": "The sentence broadens the scope of its quote.",
    "overclaim_quote_omits_hedge": "The quote leaves out a hedge that the source has around it.",
    "scope_mismatch": "The evidence is about another population, place, period or measure than the sentence or the question (or states an association the sentence reads as a cause).",
    "scope_not_stated": "The sentence asserts a population, place, period or cause that the evidence around the quote does not state.",
    "negative_claim_unsupported": "A claim that something does not exist has no recorded search behind it.",
    "negative_claim_searched": "A negative claim backed by a recorded search: it cannot be verified, only searched.",
    "mark_not_verified": "The draft marks this claim verified ([V]) but it does not re-verify.",
    "mark_missing": "A claim in the draft carries no verification mark.",
    "mark_orphan": "A mark in the draft refers to no ledger claim.",
    "quote_uncited": "A quotation in the draft cites no source.",
    "number_unbacked": "A number in the draft is not backed by a ledger claim.",
    "unlisted_number": "A number in the draft or its summary that no ledger claim backs.",
    "unlisted_quote": "A quotation in the draft or its summary that no ledger claim backs.",
    "unlisted_citation": "A citation in the draft or its summary that no ledger claim backs.",
    "receipt_mismatch": "The verification receipt does not match the draft, ledger or sources as they are now.",
    "reference_verified": "A bibliography entry confirmed, field by field, by a bibliographic service.",
    "reference_not_found": "A bibliography entry that no service knows: its identifier does not resolve and no search hit matches.",
    "reference_mismatch": "A bibliography entry whose work exists but whose title, authors, year, venue or identifier differ.",
    "doi_resolves_elsewhere": "A bibliography entry whose DOI or arXiv id belongs to another work.",
    "reference_retracted": "A bibliography entry whose work has been retracted or withdrawn.",
    "reference_corrected": "A bibliography entry whose work has an erratum or correction (the work stands).",
    "reference_partly_confirmed": "A bibliography entry whose work exists but a given field is in no record to compare.",
    "reference_service_error": "A bibliography entry that could not be checked: a service failed, timed out or refused.",
    "reference_not_checked": "A bibliography entry not checked (--offline).",
    "attribution_supported": "The judge found the attribution supported by evidence quoted literally from the source.",
    "attribution_number_absent": "A figure attributed to a source is not printed in that source.",
    "attribution_name_absent": "A name in an attribution appears neither in the source nor in its bibliographic record.",
    "attribution_meaning_unchecked": "No judge read this attribution: its meaning is not checked.",
    "locator_wrong": "The page or section locator does not hold the evidence.",
    "locator_unchecked": "The page or section locator could not be checked.",
    "dataset_fact_confirmed": "The dataset claim holds.",
    "dataset_field_absent": "The dataset has no field of that exact name.",
    "dataset_rows_mismatch": "The dataset has a different number of rows.",
    "dataset_field_has_nulls": "A field said to be never null has nulls.",
}

_VERIFIED_REASONS = frozenset(
    {Reason.QUOTE_FOUND, Reason.NUMBER_MATCH, Reason.REFERENCE_VERIFIED, Reason.ATTRIBUTION_SUPPORTED,
     Reason.DATASET_FACT_CONFIRMED}
)  # fmt: skip


def _describe(reason: Reason) -> str:
    return RULE_DESCRIPTIONS.get(reason.value) or reason.value.replace("_", " ").capitalize() + "."


def _rule_name(reason: Reason) -> str:
    return "".join(part.capitalize() for part in reason.value.split("_"))


def _rules() -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    for reason in Reason:
        if reason in _VERIFIED_REASONS:
            continue
        tier = REASON_TIER.get(reason) or Tier.HIGH
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
