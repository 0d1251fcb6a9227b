"""The metric registry: named ways to recompute a number.

A metric is either SQL (declared in the ledger under ``metrics:``) or a Python
function registered with :func:`metric`, loaded from a file given on the
command line (``--metrics FILE.py``), never from the ledger::

    from claimledger import metric

    @metric("clicks.total")
    def clicks_total(data):
        return data.scalar("SELECT sum(clicks) FROM daily")

The function receives the run's :class:`~claimledger.load.data.DataStore`.

Registries are per run: a run starts from the metrics registered in this
process (``@metric`` in imported code) and loads its own ``--metrics`` files
into its own :class:`MetricRegistry`, so two runs with different files never see
each other's metrics and need no lock.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claimledger._exceptions import ConfigError, InputError

MetricFn = Callable[[Any], Any]
UNITS = ("ratio", "percent", "count", "currency", "number")


@dataclass
class MetricRegistry:
    """Python metrics by name, with the unit each was registered with."""

    fns: dict[str, MetricFn] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, fn: MetricFn, unit: str | None) -> None:
        self.fns[name] = fn
        if unit is None:
            self.units.pop(name, None)
        else:
            self.units[name] = unit

    def get(self, name: str) -> MetricFn | None:
        return self.fns.get(name)

    def unit(self, name: str) -> str | None:
        return self.units.get(name)

    def names(self) -> set[str]:
        return set(self.fns)

    def copy(self) -> MetricRegistry:
        return MetricRegistry(dict(self.fns), dict(self.units))


_PROCESS = MetricRegistry()  # what @metric fills in imported code
_LOADING: ContextVar[MetricRegistry | None] = ContextVar("claimledger_metrics_loading", default=None)


def metric(name: str, *, unit: str | None = None) -> Callable[[MetricFn], MetricFn]:
    """Register the decorated function as the metric ``name``.

    ``unit`` says what the function returns: ``"ratio"`` (a fraction; a figure
    shown as a percent is compared x100), ``"percent"``, ``"count"``,
    ``"currency"`` or ``"number"``. Inside a ``--metrics`` file the metric
    belongs to the run that loads the file; elsewhere to the process.
    """
    if unit is not None and unit not in UNITS:
        raise ConfigError(f"metric {name!r}: unit must be one of {', '.join(UNITS)}, not {unit!r}")

    def register(fn: MetricFn) -> MetricFn:
        (_LOADING.get() or _PROCESS).add(name, fn, unit)
        return fn

    return register


def registered_unit(name: str) -> str | None:
    """The unit a process-wide Python metric was registered with (None when not declared)."""
    return _PROCESS.unit(name)


def registered() -> dict[str, MetricFn]:
    """A copy of the process-wide Python metrics registered so far."""
    return dict(_PROCESS.fns)


def unregister(name: str) -> None:
    _PROCESS.fns.pop(name, None)
    _PROCESS.units.pop(name, None)


def run_registry(files: Iterable[str | Path] = ()) -> MetricRegistry:
    """A run's registry: the process-wide metrics plus those of ``files`` (``--metrics``)."""
    registry = _PROCESS.copy()
    for path in files:
        load_metrics_file(path, into=registry)
    return registry


def load_metrics_file(path: str | Path, *, into: MetricRegistry | None = None) -> list[str]:
    """Import a Python file that registers metrics (into ``into``, else the process); return the names it added."""
    target = into if into is not None else _PROCESS
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: metrics file not found")
    before = target.names()
    module_name = f"claimledger_user_metrics_{abs(hash(str(p.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, p)
    if spec is None or spec.loader is None:
        raise InputError(f"{path}: cannot be imported as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    token = _LOADING.set(target)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # user code: report, never crash
        raise InputError(f"{path}: error while importing metrics: {type(exc).__name__}: {exc}") from None
    finally:
        _LOADING.reset(token)
    return sorted(target.names() - before)
