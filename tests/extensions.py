"""The compiled extension a test compares with its pure-Python path: a test run without it fails
(pip builds it wherever a C compiler is), unless CLAIMLEDGER_PURE_PYTHON turns it off on purpose,
when it is loaded anyway to be compared."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

from claimledger._compiled import compiled


def required(name: str, what: str) -> ModuleType:
    """``claimledger.<name>`` (``what`` names it in the failure message)."""
    ext = compiled(name)
    if ext is None and os.environ.get("CLAIMLEDGER_PURE_PYTHON", "").strip() in ("", "0"):
        pytest.fail(  # pragma: no cover - the message is the point
            f"{what} claimledger.{name} is not built: reinstall with a C compiler and the Python "
            "headers (`rm .venv/.installed-dev && make test`, or `pip install -e .`)"
        )
    if ext is None:  # pragma: no cover - CLAIMLEDGER_PURE_PYTHON runs: load it anyway to compare
        ext = importlib.import_module(f"claimledger.{name}")
    return ext
