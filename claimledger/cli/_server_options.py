"""Options shared by the servers (``mcp`` and ``serve``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from claimledger._config import DEFAULT_FETCH_TIMEOUT, GateConfig
from claimledger.metrics import load_metrics_file


def server_options(fn: Any) -> Any:
    """--allow-urls, --metrics, --cache-dir, --timeout."""
    options = [
        click.option("--allow-urls", is_flag=True,
                     help="Let ledgers declare http(s) sources (public addresses only); default: files under --root only."),
        click.option("--metrics", "metrics_files", type=click.Path(path_type=Path, dir_okay=False), multiple=True,
                     help="Python file registering metrics with @metric, loaded at start-up (repeatable; trusted code)."),
        click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False),
                     help="Cache for fetched URLs and source indexes [default: $CLAIMLEDGER_CACHE_DIR or ~/.cache/claimledger]."),
        click.option("--timeout", type=click.FloatRange(0.1), default=DEFAULT_FETCH_TIMEOUT, show_default=True,
                     help="Seconds to wait for a URL source (with --allow-urls)."),
    ]  # fmt: skip
    for option in reversed(options):
        fn = option(fn)
    return fn


def server_config(kw: dict[str, Any]) -> GateConfig:
    """The servers' run configuration; metrics files are loaded now, so a bad one fails at start-up."""
    metrics = tuple(kw["metrics_files"])
    for path in metrics:
        load_metrics_file(path)
    return GateConfig(metrics_files=metrics, cache_dir=kw["cache_dir"], fetch_timeout=kw["timeout"])
