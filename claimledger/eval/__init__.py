"""Accuracy measurement: the mutation benchmark, the labelled slices, and the operating points.

Only :mod:`claimledger.eval.operating_points` is imported at run time (reports
cite the measured figures); the rest runs under ``make eval`` and is never
imported by the gate.
"""

from __future__ import annotations

BENCHMARK_VERSION = "mut-2"  # mut-2 adds cut_inside (a substring that cuts a word or number)
"""Bump when the generator changes what cases it builds (the figures are then not comparable)."""

DEFAULT_SEED = 20240601

__all__ = ["BENCHMARK_VERSION", "DEFAULT_SEED"]
