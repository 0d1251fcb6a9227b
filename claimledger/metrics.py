"""The metric registry: named ways to recompute a number.

A metric is either SQL (declared in the ledger under ``metrics:``) or a Python
function registered with :func:`metric`, loaded from a file given on the
command line (``--metrics FILE.py``), never from the ledger::

    from claimledger import metric

    @metric("clicks.total")
    def clicks_total(data):
        return data.scalar("SELECT sum(clicks) FROM daily")

The function receives the run's :class:`~claimledger.load.data.DataStore`.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from claimledger._exceptions import InputError

MetricFn = Callable[[Any], Any]

_REGISTRY: dict[str, MetricFn] = {}
_UNITS: dict[str, str] = {}
UNITS = ("ratio", "percent", "count", "currency", "number")


def metric(name: str, *, unit: str | None = None) -> Callable[[MetricFn], MetricFn]:
    """Register the decorated function as the metric ``name``.

    ``unit`` says what the function returns: ``"ratio"`` (a fraction; a figure
    shown as a percent is compared x100), ``"percent"``, ``"count"``,
    ``"currency"`` or ``"number"``.
    """
    if unit is not None and unit not in UNITS:
        raise ValueError(f"metric {name!r}: unit must be one of {', '.join(UNITS)}, not {unit!r}")

    def register(fn: MetricFn) -> MetricFn:
        _REGISTRY[name] = fn
        if unit is None:
            _UNITS.pop(name, None)
        else:
            _UNITS[name] = unit
        return fn

    return register


def registered_unit(name: str) -> str | None:
    """The unit a Python metric was registered with (None when not declared)."""
    return _UNITS.get(name)


def registered() -> dict[str, MetricFn]:
    """A copy of the Python metrics registered so far."""
    return dict(_REGISTRY)


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)
    _UNITS.pop(name, None)


def load_metrics_file(path: str | Path) -> list[str]:
    """Import a Python file that registers metrics; return the names it added."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: metrics file not found")
    before = set(_REGISTRY)
    module_name = f"claimledger_user_metrics_{abs(hash(str(p.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, p)
    if spec is None or spec.loader is None:
        raise InputError(f"{path}: cannot be imported as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # user code: report, never crash
        raise InputError(f"{path}: error while importing metrics: {type(exc).__name__}: {exc}") from None
    return sorted(set(_REGISTRY) - before)
