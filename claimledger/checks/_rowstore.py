"""The run's answer stores (:class:`claimledger.load.rows.CheckedRows`), opened once per run.

:mod:`claimledger.checks.overclaim.store` and :mod:`claimledger.checks.scan_memo` open theirs
through :func:`run_rows`: at first use, written when the run closes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from claimledger.load.rows import CheckedRows, row_check

if TYPE_CHECKING:
    from claimledger.checks.context import RunContext

__all__ = ["CheckedRows", "row_check", "run_rows"]


def run_rows(ctx: RunContext, name: str, open_rows: Callable[[Path], CheckedRows]) -> object:
    """The run's store ``name`` (``open_rows(cache_dir)`` at first use, written when the run closes),
    or None without the index cache."""
    if name not in ctx.shared:
        opened = None
        if ctx.config.index_cache:
            from claimledger.load.fetch import default_cache_dir

            opened = open_rows(ctx.config.cache_dir or default_cache_dir())
            ctx.on_close(opened.close)
        ctx.shared[name] = opened
    return ctx.shared[name]
