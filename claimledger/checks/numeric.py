"""Numeric recompute: a claimed value against the value recomputed from data or read from a source.

The claimed value is read as displayed ("11.7%" covers 11.65-11.75) and also
accepted within the relative tolerance (default 0.5%). An unknown metric, a
SQL error, NULL, NaN or infinity fails closed.
"""

from __future__ import annotations

from typing import Any

from claimledger.checks.context import RunContext
from claimledger.checks.quote import check_quote_text
from claimledger.load.data import QueryError, to_number
from claimledger.model.claim import NumberClaim
from claimledger.model.finding import Finding, Reason, Status
from claimledger.numbers import Value, find_numbers, format_number, parse_value

CHECK = "numeric_recompute"


def _fail(claim: NumberClaim, reason: Reason, message: str, **kw: Any) -> Finding:
    if reason in (Reason.NUMBER_MISMATCH, Reason.NUMBER_NOT_IN_QUOTE):
        status = Status.DISCREPANCY
    else:
        status = Status.UNVERIFIABLE if reason is Reason.UNIT_AMBIGUOUS else Status.ERROR
    return Finding(claim.id, CHECK, status, reason, message, claimed=str(claim.value), **kw)


def recompute(claim: NumberClaim, ctx: RunContext) -> float:
    """The value the data gives for this claim. Raises :class:`QueryError`."""
    if claim.sql is not None:
        return ctx.data.scalar(claim.sql)
    name = claim.metric or ""
    sql = ctx.ledger.metric_sql(name)
    if sql is not None:
        return ctx.data.scalar(sql)
    fn = ctx.metrics.get(name)
    if fn is None:
        known = sorted(set(ctx.ledger.metrics) | ctx.metrics.names())
        listing = ", ".join(known) if known else "none"
        raise QueryError(
            "metric_unknown",
            f"metric {name!r} is not registered (known: {listing}); declare it under `metrics:` "
            "or load it with --metrics FILE.py",
        )
    try:
        result = fn(ctx.data)
    except QueryError:
        raise
    except Exception as exc:  # user code must not crash the gate
        raise QueryError("metric_error", f"metric {name!r} raised {type(exc).__name__}: {exc}") from None
    return to_number(result)


def _compare_message(claimed: Value, expected: float, tol: float) -> str:
    diff = abs(expected - claimed.value)
    rel = diff / (abs(expected) or 1.0)
    precision = f", display precision ±{format_number(claimed.half_unit)}" if claimed.half_unit else ""
    return (
        f"claimed {claimed.text} but recomputed {format_number(expected)} "
        f"(off by {rel:.2%}; tolerance {tol:.2%}{precision})"
    )


def check_number(claim: NumberClaim, ctx: RunContext) -> Finding:
    """Recompute one number claim. Never raises."""
    claimed = parse_value(claim.value)
    if claimed is None:
        return _fail(
            claim, Reason.VALUE_UNPARSEABLE,
            f"claimed value {claim.value!r} is not a number this tool can read",
        )  # fmt: skip
    tol = claim.tolerance if claim.tolerance is not None else ctx.config.default_tolerance
    if claim.source is not None and claim.quote is not None:
        return _check_from_source(claim, claimed, tol, ctx)
    try:
        raw = recompute(claim, ctx)
    except QueryError as exc:
        return _fail(claim, Reason(exc.reason), str(exc))
    unit = declared_unit(claim, ctx)
    times_100 = claim.scale is None and unit == "ratio" and claimed.unit == "%"
    factor = claim.scale if claim.scale is not None else (100.0 if times_100 else 1.0)
    expected = raw * factor
    if claim.scale is None and unit is None:
        ambiguous = _unit_ambiguous(claim, claimed, raw, tol)
        if ambiguous is not None:
            return ambiguous
    if claim.scale is None and unit in ("count", "currency") and claimed.unit == "%":
        return _fail(
            claim, Reason.NUMBER_MISMATCH,
            f"claimed {claimed.text}, a percent, but the claim declares the recomputed value "
            f"{format_number(raw)} a {unit}",
            expected=raw,
        )  # fmt: skip
    if claimed.covers(expected, tol):
        how = " (a ratio, x100)" if times_100 else ""
        return Finding(
            claim.id, CHECK, Status.VERIFIED, Reason.NUMBER_MATCH,
            f"recomputed {format_number(expected)}{how}, matches {claimed.text}",
            expected=expected, claimed=str(claim.value),
        )  # fmt: skip
    message = _compare_message(claimed, expected, tol)
    if claim.scale is None and unit is None and claimed.unit == "%" and claimed.covers(expected * 100, tol):
        message += "; the recomputed value x100 matches: add `unit: ratio` if the query returns a ratio"
    return _fail(claim, Reason.NUMBER_MISMATCH, message, expected=expected)


def declared_unit(claim: NumberClaim, ctx: RunContext) -> str | None:
    """The unit of the recomputed value: the claim's ``unit``, else its metric's."""
    if claim.unit is not None:
        return claim.unit
    if claim.metric is None:
        return None
    if claim.metric in ctx.ledger.metrics:
        return ctx.ledger.metric_unit(claim.metric)
    return ctx.metrics.unit(claim.metric)


def _unit_ambiguous(claim: NumberClaim, claimed: Value, raw: float, tol: float) -> Finding | None:
    """A percent against a value that reads as a ratio too (or the reverse), with no unit declared."""
    if raw == 0 or claimed.value == 0:
        return None  # 0 reads the same both ways
    if claimed.unit == "%" and -1 <= raw <= 1:
        as_percent, as_ratio = raw, raw * 100
        readings = (
            f"as percent points it is {format_number(as_percent)}% "
            f"({'matches' if claimed.covers(as_percent, tol) else 'does not match'} {claimed.text}); "
            f"as a ratio it is {format_number(as_ratio)}% "
            f"({'matches' if claimed.covers(as_ratio, tol) else 'does not match'} {claimed.text})"
        )
    elif claimed.unit is None and -1 <= claimed.value <= 1 and not -1 <= raw <= 1 and -100 <= raw <= 100:
        if not claimed.covers(raw / 100, tol):
            return None  # neither reading matches: an ordinary mismatch
        readings = (
            f"read as it is, {format_number(raw)} does not match {claimed.text}; read as percent points "
            f"it is the ratio {format_number(raw / 100)}, which matches"
        )
        as_percent, as_ratio = raw, raw / 100
    else:
        return None
    where = f"metric {claim.metric!r} (or to claim {claim.id})" if claim.metric else f"claim {claim.id}"
    return _fail(
        claim, Reason.UNIT_AMBIGUOUS,
        f"{claimed.text} is compared with {format_number(raw)}, which reads two ways: {readings}. "
        f"Not verified under either reading: add `unit: ratio` (the value is a fraction) or "
        f"`unit: percent` (it is already in percent points) to {where}",
        extra={"readings": {"percent": as_percent, "ratio": as_ratio}, "fix": ["unit: ratio", "unit: percent"]},
    )  # fmt: skip


def _check_from_source(claim: NumberClaim, claimed: Value, tol: float, ctx: RunContext) -> Finding:
    assert claim.source is not None and claim.quote is not None
    quote_finding = check_quote_text(claim.id, claim.source, claim.quote, ctx, check=CHECK)
    if quote_finding.status is not Status.VERIFIED:
        return Finding(
            claim.id, CHECK, quote_finding.status, quote_finding.reason,
            f"the passage backing the number is not verified: {quote_finding.message}",
            evidence=quote_finding.evidence, nearest=quote_finding.nearest, diff=quote_finding.diff,
            claimed=str(claim.value), extra=quote_finding.extra,
        )  # fmt: skip
    evidence = quote_finding.evidence
    mentions = find_numbers(evidence.text if evidence else claim.quote, kanji=True)
    for m in mentions:
        if claimed.unit and m.value.unit and claimed.unit != m.value.unit:
            continue
        if m.value.covers(claimed.value, tol) or claimed.covers(m.value.value, tol):
            return Finding(
                claim.id, CHECK, Status.VERIFIED, Reason.NUMBER_MATCH,
                f"{claim.source} prints {m.text!r}, which matches {claimed.text}",
                evidence=evidence,
                expected=m.value.value, claimed=str(claim.value),
            )  # fmt: skip
    printed = ", ".join(repr(m.text) for m in mentions) or "no figure"
    return _fail(
        claim, Reason.NUMBER_NOT_IN_QUOTE,
        f"the passage is in {claim.source} but prints {printed}, not {claimed.text}",
        evidence=evidence, expected=mentions[0].value.value if len(mentions) == 1 else None,
    )  # fmt: skip

