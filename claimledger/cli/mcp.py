"""``claimledger mcp``: the MCP server on stdio (optional extra ``mcp``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from claimledger._exceptions import InputError
from claimledger.cli._common import _fail_input
from claimledger.cli._group import cli
from claimledger.cli._server_options import pool_options, server_config, server_judge, server_options


@cli.command("mcp")
@click.option(
    "--root",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder every path (ledger, draft, source, dataset, output) must stay in.",
)
@pool_options
@server_options
def mcp_cmd(root: Path, workers: int | None, queue: int, request_timeout: float, worker_max_requests: int,
            max_read_bytes: int,
            **kw: Any) -> None:
    """Serve claimledger's tools to an agent over MCP (stdio): verify_quotes, verify_numbers,
    check_ledger, verify_references, mark_draft, lint_draft, audit_summary.

    Every tool call runs in a pool of --workers processes, stopped after
    --request-timeout seconds (the tool answers `timeout`, nothing verified).

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
    try:
        serve_stdio(root, config=server_config(kw), allow_urls=kw["allow_urls"], judge=server_judge(kw),
                    workers=workers, queue=queue, request_timeout=request_timeout,
                    max_requests=worker_max_requests, max_read_bytes=max_read_bytes)  # fmt: skip
    except ImportError as exc:
        _fail_input(str(exc))
    except InputError as exc:
        _fail_input(str(exc))
