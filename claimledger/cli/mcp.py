"""``claimledger mcp``: the MCP server on stdio (optional extra ``mcp``)."""

from __future__ import annotations

from pathlib import Path

import click

from claimledger._config import DEFAULT_FETCH_TIMEOUT, GateConfig
from claimledger._exceptions import InputError
from claimledger.cli._common import _fail_input
from claimledger.cli._group import cli
from claimledger.metrics import load_metrics_file


@cli.command("mcp")
@click.option(
    "--root",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder every path (ledger, draft, source, dataset, output) must stay in.",
)
@click.option(
    "--allow-urls",
    is_flag=True,
    help="Let ledgers declare http(s) sources (public addresses only); default: files under --root only.",
)
@click.option(
    "--metrics",
    "metrics_files",
    type=click.Path(path_type=Path, dir_okay=False),
    multiple=True,
    help="Python file registering metrics with @metric, loaded at start-up (repeatable; trusted code).",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Cache for fetched URLs and source indexes [default: $CLAIMLEDGER_CACHE_DIR or ~/.cache/claimledger].",
)
@click.option("--timeout", type=click.FloatRange(0.1), default=DEFAULT_FETCH_TIMEOUT, show_default=True,
              help="Seconds to wait for a URL source (with --allow-urls).")  # fmt: skip
def mcp_cmd(root: Path, allow_urls: bool, metrics_files: tuple[Path, ...], cache_dir: Path | None,
            timeout: float) -> None:  # fmt: skip
    """Serve claimledger's tools to an agent over MCP (stdio): verify_quotes, verify_numbers,
    check_ledger, mark_draft, lint_draft, audit_summary.

    Needs the optional extra: pip install 'claimledger[mcp]'. Exit code 2 when
    it is missing or --root is not a folder.

    \b
    Example (the command an agent's MCP configuration runs):
      claimledger mcp --root ~/research/digest
    """
    try:
        from claimledger.server.mcp import serve_stdio
    except ImportError as exc:  # pragma: no cover - the module itself has no third-party imports
        _fail_input(str(exc))
        return
    config = GateConfig(metrics_files=tuple(metrics_files), cache_dir=cache_dir, fetch_timeout=timeout)
    try:
        for path in metrics_files:
            load_metrics_file(path)  # fail at start-up, not on the first call
        serve_stdio(root, config=config, allow_urls=allow_urls)
    except ImportError as exc:
        _fail_input(str(exc))
    except InputError as exc:
        _fail_input(str(exc))
