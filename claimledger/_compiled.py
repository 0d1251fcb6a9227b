"""The optional compiled extensions (claimledger/_c*.c), loaded by name.

Each is built by ``pip install`` when a C compiler and the Python headers are there; without one,
or with ``CLAIMLEDGER_PURE_PYTHON=1``, the pure-Python paths run and give the same answers.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def pure_python() -> bool:
    """Whether ``CLAIMLEDGER_PURE_PYTHON`` turns the compiled extensions off."""
    return os.environ.get("CLAIMLEDGER_PURE_PYTHON", "").strip() not in ("", "0")


def compiled(name: str) -> ModuleType | None:
    """``claimledger.<name>`` (e.g. ``_cseeds``); None when it was not built or is turned off."""
    if pure_python():
        return None
    try:
        return importlib.import_module(f"claimledger.{name}")
    except ImportError:
        return None
