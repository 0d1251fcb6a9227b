"""References as a claim kind: ``kind: reference`` (the claim id is the citation key).

Every bibliography entry (``references:``, ``bibliography:`` files, ``--bib``)
is checked as a claim of this kind, through the registry like every other claim
(:func:`reference_check`). A ledger may also list one under ``claims:``
(``{id: vaswani2017, kind: reference, title: ..., doi: ...}``): the same as a
``references:`` entry with that key.

The services are asked for every entry at once, concurrently, before the
claims are checked (:func:`prefetch`, as quotes are located in one pass per
source); the check reads its entry's verdict from the run. A reference claim
checked on its own (no prefetch) is looked up alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import PrivateAttr

from claimledger.checks.context import RunContext
from claimledger.model.claim import ClaimBase, ReferenceFields
from claimledger.model.finding import Finding, Reason, Status
from claimledger.refs.model import Reference
from claimledger.registry import check, claim_kind

if TYPE_CHECKING:  # (the services' machinery is imported only by a run that checks references)
    from claimledger.refs.verdicts import Verdict

CHECK = "reference"
STATE = "reference_verdicts"  # RunContext.shared[STATE]: citation key -> Verdict, or the crash

Progress = Callable[[str, int, int], None]


@claim_kind
class ReferenceClaim(ReferenceFields, ClaimBase):
    """A bibliography entry: the cited work exists and is what the entry says (id = the citation key)."""

    kind: Literal["reference"]

    _reference: Reference | None = PrivateAttr(default=None)  # an entry read from a bibliography (with its origin)
    _in_bibliography: bool = PrivateAttr(default=False)  # False: written under claims: (located at its ledger line)

    @classmethod
    def of(cls, ref: Reference) -> ReferenceClaim:
        """The claim for a bibliography entry as read (``ref.key`` is its id)."""
        claim = cls(id=ref.key, kind="reference")
        claim._reference = ref
        claim._in_bibliography = True
        return claim

    def reference(self, origin: str = "ledger") -> Reference:
        if self._reference is None:
            from claimledger.refs.bib import read_ledger_references

            fields = self.model_dump(exclude_none=True, exclude={"id", "kind", "statement", "author_alternative",
                                                                 "location", "answers"})  # fmt: skip
            self._reference = read_ledger_references([{"key": self.id, **fields}], origin)[0]
        return self._reference

    def claimed(self) -> str | None:
        ref = self.reference()
        return ref.title or ref.doi or ref.arxiv or ref.key


def verify(
    references: Sequence[Reference], ctx: RunContext, progress: Progress | None = None
) -> list[Verdict] | Exception:
    """Every entry against the services, concurrently; a crash is returned (it becomes each entry's finding)."""
    from claimledger.refs import verify_references
    from claimledger.refs.findings import settings_from

    def tick(done: int, total: int, key: str) -> None:
        if progress:
            progress("checking references", done, total)

    try:
        return verify_references(references, settings_from(ctx.config), tick)
    except Exception as exc:  # fail closed: no reference is verified by a crash
        return exc


def install(ctx: RunContext, verdicts: list[Verdict] | Exception) -> None:
    """Keep the verdicts (or the crash) for the reference checks of this run."""
    ctx.shared[STATE] = verdicts if isinstance(verdicts, Exception) else {v.reference.key: v for v in verdicts}


@check("reference", name=CHECK)
def reference_check(claim: ReferenceClaim, ctx: RunContext, earlier: Sequence[Finding]) -> Iterable[Finding]:
    """The entry's verdict as findings (an erratum adds a LOW note beside the verified one)."""
    from claimledger.refs.findings import verdict_findings

    state = ctx.shared.get(STATE)
    verdict = state.get(claim.id) if isinstance(state, dict) else None
    if verdict is None and not isinstance(state, Exception):  # not prefetched: this entry alone
        alone = verify([claim.reference()], ctx)
        state = alone if isinstance(alone, Exception) else None
        verdict = alone[0] if isinstance(alone, list) and alone else None
    if isinstance(state, Exception) or verdict is None:
        why = f"{type(state).__name__}: {state}" if isinstance(state, Exception) else "no verdict was made"
        return [Finding(
            claim.id, CHECK, Status.ERROR, Reason.CHECK_CRASHED,
            f"internal error while checking references ({why}); nothing this step would have checked is "
            "verified — please report this",
        )]  # fmt: skip
    found = verdict_findings([verdict])
    if not claim._in_bibliography:  # a claim under `claims:`: the run places it at its ledger line
        found = [dataclasses.replace(f, location=None) for f in found]
    return found
