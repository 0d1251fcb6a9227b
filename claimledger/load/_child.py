"""What every worker child does first: die with its parent, and limit its own memory.

Standard library only; the workers (:mod:`._extract_worker`, :mod:`._sql_worker`) run as
scripts and load this file by path (:func:`load`), so they start without importing the package.
"""

from __future__ import annotations

import contextlib
import os
import resource
from pathlib import Path
from types import ModuleType


def die_with_parent(parent: int) -> None:
    """Linux: be killed when the parent dies (``PR_SET_PDEATHSIG``, SIGKILL).

    Elsewhere (or when prctl is unavailable) the parent's closed pipe ends the worker's read.
    The signal follows the thread that started the child: the gate starts and ends its children
    within one call on one thread.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(1, 9, 0, 0, 0) != 0:  # PR_SET_PDEATHSIG = 1, SIGKILL = 9
            return
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def limit_memory(limit: int) -> None:
    """At most ``limit`` bytes of heap (``RLIMIT_DATA``: brk and private writable mappings) from now on."""
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def limit_address_space(limit: int) -> None:
    """``RLIMIT_AS`` at the current address-space size plus ``limit``.

    The start-up reservation (DuckDB reserves about 670 MB of address space it never touches;
    shared libraries) is ours and fixed; what the input can make the process map beyond it is
    bounded by ``limit``.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            size = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        size = 0
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (size + limit, size + limit))


def load(name: str) -> ModuleType:
    """A sibling module of this folder, loaded by path (importing the package costs a second)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_claimledger_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
