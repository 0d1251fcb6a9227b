"""What `claimledger check` imports at start-up: a fresh process pays for every module it imports
(a warm run's fixed cost, issue 19), so the CLI does not import what only other commands run."""

from __future__ import annotations

import subprocess
import sys

from claimledger.server import _limits, _pool


def test_the_cli_does_not_import_the_server_pool() -> None:
    code = (
        "import sys, claimledger.cli\n"
        "print(sorted(m for m in ('claimledger.server._pool', 'asyncio', 'multiprocessing.connection') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_pool_uses_the_defaults_the_cli_shows() -> None:
    for name in ("DEFAULT_TIMEOUT", "DEFAULT_MAX_REQUESTS", "DEFAULT_QUEUE", "DEFAULT_MAX_READ_BYTES"):
        assert getattr(_pool, name) == getattr(_limits, name)
