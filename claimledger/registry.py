"""The check registry: each claim kind maps to its checks; built-ins register the way plugins do.

Three decorators fill it, and the built-in kinds, reasons and checks use them
exactly as a plugin does (datasette's built-ins-as-plugins):

* :func:`claim_kind` on a pydantic model puts it into the ledger's
  discriminated union (``Ledger.claims``), keyed by its ``kind`` literal;
* :meth:`Reason.register <claimledger.model.reasons.Reason.register>` adds a
  reason code with its tier (built-in codes are rows of the reason table);
* :func:`check` registers a function ``(claim, ctx, earlier) -> Iterable[Finding]``
  for a claim kind. The checks of a kind run in registration order and
  ``earlier`` holds what the ones before returned for this claim (the overclaim
  rules look at the literal check's verdict with :func:`passed`); findings carry
  no tier (:mod:`claimledger.reconcile` assigns it).

Where registrations come from, loaded once by :func:`load_plugins` before the
first ledger is read: the modules in :data:`BUILTIN_MODULES` (part of
claimledger), then every entry point in the group ``claimledger.plugins`` (an
installed plugin package)::

    [project.entry-points."claimledger.plugins"]
    attribution = "my_package.attribution"

docs/architecture.md walks through adding a claim kind.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, TypeVar

from claimledger._exceptions import PluginError
from claimledger.model.claim import ClaimBase, claim_kind, claim_kinds, kind_of
from claimledger.model.finding import Finding, Reason, Status

if TYPE_CHECKING:
    from claimledger.checks.context import RunContext

__all__ = [
    "BUILTIN_MODULES",
    "ENTRY_POINT_GROUP",
    "CheckFn",
    "CheckSpec",
    "check",
    "checks_for",
    "claim_kind",
    "claim_kinds",
    "kind_of",
    "load_plugins",
    "passed",
    "run_checks",
]

#: Modules of claimledger that register the built-in checks, imported like plugins.
BUILTIN_MODULES: tuple[str, ...] = ("claimledger.checks.builtin", "claimledger.refs.kind")
#: The entry-point group an installed plugin declares its module in.
ENTRY_POINT_GROUP = "claimledger.plugins"

CheckFn = Callable[[Any, "RunContext", Sequence[Finding]], Iterable[Finding]]
F = TypeVar("F", bound=CheckFn)


@dataclass(frozen=True)
class CheckSpec:
    """One registered check: the claim kind it applies to, its name and the function."""

    kind: str
    name: str
    run: CheckFn
    module: str


_CHECKS: dict[str, list[CheckSpec]] = {}
_loaded = False
_LOADING = threading.Lock()  # two runs starting at once must both see every check


def check(kind: str, *, name: str | None = None) -> Callable[[F], F]:
    """Register the decorated function as a check of claim ``kind`` (a kind registered before).

    ``name`` (default: the function's name) identifies the check in the registry;
    a second check of the same name for the same kind is a :class:`PluginError`.
    """

    def register(fn: F) -> F:
        if kind not in claim_kinds():
            known = ", ".join(sorted(claim_kinds()))
            raise PluginError(f"check {name or fn.__name__!r}: unknown claim kind {kind!r} (known: {known})")
        spec = CheckSpec(kind, name or fn.__name__, fn, fn.__module__)
        specs = _CHECKS.setdefault(kind, [])
        if any(s.name == spec.name for s in specs):
            raise PluginError(f"a check named {spec.name!r} is already registered for claim kind {kind!r}")
        specs.append(spec)
        return fn

    return register


def load_plugins() -> None:
    """Import the built-in check modules and every installed plugin, once per process."""
    global _loaded
    if _loaded:
        return
    with _LOADING:
        if _loaded:
            return
        for module in BUILTIN_MODULES:
            importlib.import_module(module)
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                ep.load()
            except PluginError:
                raise
            except Exception as exc:
                raise PluginError(
                    f"plugin {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}"
                ) from exc
        _loaded = True


def checks_for(kind: str) -> list[CheckSpec]:
    """The checks registered for claim ``kind``, in registration order (empty when none)."""
    load_plugins()
    return list(_CHECKS.get(kind, ()))


def run_checks(claim: ClaimBase, ctx: RunContext) -> list[Finding]:
    """Every registered check of the claim's kind, in order (untiered findings).

    A kind with no check is never silently passed: it gets one HIGH
    ``claim_kind_unchecked`` finding.
    """
    specs = checks_for(kind_of(claim))
    if not specs:
        return [
            Finding(
                claim.id, "gate", Status.UNVERIFIABLE, Reason.CLAIM_KIND_UNCHECKED,
                f"no check is registered for claim kind {kind_of(claim)!r}: nothing checked this claim",
            )
        ]  # fmt: skip
    found: list[Finding] = []
    for spec in specs:
        found.extend(spec.run(claim, ctx, tuple(found)))
    return found


def passed(earlier: Sequence[Finding], check_name: str) -> bool:
    """Whether the check named ``check_name`` verified this claim (among ``earlier`` findings)."""
    for f in earlier:  # noqa: SIM110 (a loop: any() over a generator costs a frame per claim)
        if f.check == check_name and f.status is Status.VERIFIED:
            return True
    return False
