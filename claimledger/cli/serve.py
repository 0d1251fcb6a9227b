"""``claimledger serve``: the HTTP service (optional extra ``server``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from claimledger._exceptions import InputError
from claimledger.cli._common import _fail_input
from claimledger.cli._group import cli
from claimledger.cli._server_options import pool_options, server_config, server_judge, server_options

DEFAULT_MAX_BYTES = 10 * 1024 * 1024


@cli.command("serve")
@click.option(
    "--root",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder every path in a request (ledger, draft, source, dataset) must stay in.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(1, 65535), default=8765, show_default=True, help="Port to listen on."
)
@click.option(
    "--max-bytes",
    type=click.IntRange(1),
    default=DEFAULT_MAX_BYTES,
    show_default=True,
    help="Largest request body accepted (413 above).",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="Another host name the Host header may carry (repeatable; localhost names always allowed; "
    "with --host 0.0.0.0 or :: also this machine's name). The check is on for every address.",
)
@click.option("--token-file", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="File holding the bearer token every request but /healthz must send "
              "(default: $CLAIMLEDGER_TOKEN). Required when --host is not loopback.")  # fmt: skip
@click.option("--tls-cert", type=click.Path(path_type=Path, dir_okay=False), metavar="PEM",
              help="Serve HTTPS with this certificate chain (PEM; with --tls-key). Without it the bearer token "
                   "crosses the network in clear text: use it, or a TLS proxy, beyond this machine.")  # fmt: skip
@click.option("--tls-key", type=click.Path(path_type=Path, dir_okay=False), metavar="PEM",
              help="The certificate's private key (PEM, unencrypted; with --tls-cert).")
@pool_options
@server_options
def serve_cmd(root: Path, host: str, port: int, max_bytes: int, allowed_hosts: tuple[str, ...],
              token_file: Path | None, workers: int | None, queue: int, request_timeout: float,
              worker_max_requests: int, max_read_bytes: int, tls_cert: Path | None, tls_key: Path | None,
              **kw: Any) -> None:  # fmt: skip
    """Serve JSON endpoints mirroring the CLI: POST /v1/check, /v1/mark, /v1/lint,
    /v1/audit; GET /openapi.json, /healthz.

    Requests give inline content or paths under --root only. Checks run in
    --workers processes; beyond loopback a bearer token is required
    (--token-file or CLAIMLEDGER_TOKEN). Needs the optional extra: pip
    install 'claimledger[server]'. Exit code 2 when it is missing, --root is
    not a folder, or a token is needed and not given.

    \b
    Example:
      claimledger serve --root . --host 127.0.0.1 --port 8765
      curl -s localhost:8765/v1/check -H 'content-type: application/json' -d '{"ledger": "ledger.yaml"}'
    """
    from claimledger.server.http import serve

    try:
        serve(str(root), host=host, port=port, max_bytes=max_bytes, allowed_hosts=allowed_hosts,
              config=server_config(kw), allow_urls=kw["allow_urls"], judge=server_judge(kw),
              token_file=str(token_file) if token_file is not None else None, workers=workers, queue=queue,
              request_timeout=request_timeout, max_requests=worker_max_requests,
              tls_cert=str(tls_cert) if tls_cert is not None else None,
              tls_key=str(tls_key) if tls_key is not None else None, max_read_bytes=max_read_bytes)  # fmt: skip
    except ImportError as exc:
        _fail_input(str(exc))
    except InputError as exc:
        _fail_input(str(exc))
