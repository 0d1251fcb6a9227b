"""Dataset claims: "the CPS contains field educ_attain", "the table has 12,000 rows",
"column x is never null" — checked against the declared dataset in DuckDB.

Names are case-sensitive (``Educ_Attain`` is not ``educ_attain``); a near miss
gets a did-you-mean, never a repair. Every failure is HIGH: an absent field, a
wrong row count, a null where the draft says there is none, an undeclared or
unreadable dataset.
"""

from __future__ import annotations

import difflib

from claimledger.checks.context import RunContext
from claimledger.load.data import QueryError
from claimledger.model.claim import DatasetClaim
from claimledger.model.finding import Finding, Reason, Status

CHECK = "dataset"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _did_you_mean(name: str, known: list[str]) -> str:
    same_case = [k for k in known if k.casefold() == name.casefold()]
    if same_case:
        return f" (did you mean {same_case[0]!r}? names are case-sensitive)"
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _fail(claim: DatasetClaim, reason: Reason, message: str) -> Finding:
    absent = (Reason.DATASET_FIELD_ABSENT, Reason.DATASET_ROWS_MISMATCH, Reason.DATASET_FIELD_HAS_NULLS)
    status = Status.DISCREPANCY if reason in absent else Status.UNVERIFIABLE
    return Finding(claim.id, CHECK, status, reason, message, claimed=_claimed(claim))


def _claimed(claim: DatasetClaim) -> str:
    parts = [f"dataset {claim.dataset}"]
    if claim.field is not None:
        parts.append(f"field {claim.field}" + (" never null" if claim.never_null else ""))
    if claim.rows is not None:
        parts.append(f"{claim.rows:,} rows")
    return ", ".join(parts)


def check_dataset(claim: DatasetClaim, ctx: RunContext) -> list[Finding]:
    """Findings of one dataset claim (untiered): one VERIFIED finding when every part holds."""
    declared = list(ctx.ledger.datasets)
    if claim.dataset not in ctx.ledger.datasets:
        return [_fail(claim, Reason.DATASET_UNDECLARED,
                      f"dataset {claim.dataset!r} is not declared under `datasets:`"
                      + _did_you_mean(claim.dataset, declared))]  # fmt: skip
    store = ctx.data
    err = store.errors.get(claim.dataset)
    if err is not None:
        return [_fail(claim, Reason(err.reason), err.message)]
    try:
        columns = store.columns(claim.dataset)
    except QueryError as exc:
        return [_fail(claim, Reason(exc.reason), str(exc))]
    found: list[Finding] = []
    confirmed: list[str] = []
    if claim.field is not None:
        if claim.field not in columns:
            listing = ", ".join(columns[:20]) + (" ..." if len(columns) > 20 else "")
            found.append(_fail(
                claim, Reason.DATASET_FIELD_ABSENT,
                f"dataset {claim.dataset!r} has no field {claim.field!r}{_did_you_mean(claim.field, columns)}; "
                f"its fields: {listing}",
            ))  # fmt: skip
        else:
            confirmed.append(f"field {claim.field!r} exists")
            if claim.never_null:
                try:
                    nulls = int(store.scalar(
                        f"SELECT count(*) FROM {_ident(claim.dataset)} WHERE {_ident(claim.field)} IS NULL"
                    ))  # fmt: skip
                except QueryError as exc:
                    return [_fail(claim, Reason(exc.reason), str(exc))]
                if nulls:
                    found.append(_fail(
                        claim, Reason.DATASET_FIELD_HAS_NULLS,
                        f"the draft says {claim.field!r} is never null, but {nulls:,} rows of "
                        f"{claim.dataset!r} have it null",
                    ))  # fmt: skip
                else:
                    confirmed.append("never null")
    if claim.rows is not None:
        try:
            count = int(store.scalar(f"SELECT count(*) FROM {_ident(claim.dataset)}"))
        except QueryError as exc:
            return [_fail(claim, Reason(exc.reason), str(exc))]
        if count != claim.rows:
            found.append(_fail(
                claim, Reason.DATASET_ROWS_MISMATCH,
                f"the draft says {claim.rows:,} rows, but {claim.dataset!r} has {count:,}",
            ))  # fmt: skip
        else:
            confirmed.append(f"{count:,} rows")
    if found:
        return found
    return [Finding(
        claim.id, CHECK, Status.VERIFIED, Reason.DATASET_FACT_CONFIRMED,
        f"{claim.dataset}: " + ", ".join(confirmed), claimed=_claimed(claim),
    )]  # fmt: skip
