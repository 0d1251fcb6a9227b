"""Accuracy measurement (``make eval``): the mutation benchmark and the labelled slices.

This package sits next to ``claimledger/``, outside the runtime package: it is
never installed with the wheel and never imported by the gate. It writes
``docs/accuracy.md`` and ``claimledger/operating_points.json``, the measured
figures that reports cite through :mod:`claimledger.operating_points`.
"""

from __future__ import annotations

BENCHMARK_VERSION = "mut-2"  # mut-2 adds cut_inside (a substring that cuts a word or number)
"""Bump when the generator changes what cases it builds (the figures are then not comparable)."""

DEFAULT_SEED = 20240601

__all__ = ["BENCHMARK_VERSION", "DEFAULT_SEED"]
