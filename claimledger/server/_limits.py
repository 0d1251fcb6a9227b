"""The worker pool's defaults, importable without the pool.

The CLI shows them in ``--help`` of ``serve`` and ``mcp``: it imports this module, not
:mod:`claimledger.server._pool` (asyncio, multiprocessing), so ``claimledger check`` does not pay
for the servers at start-up (about 25 ms of a warm run's CPU).
"""

from __future__ import annotations

from claimledger.server._rootfs import DEFAULT_MAX_READ_BYTES as DEFAULT_MAX_READ_BYTES  # re-exported

DEFAULT_TIMEOUT = 120.0  # seconds one request may run
DEFAULT_MAX_REQUESTS = 500  # requests a worker process serves before it is replaced
DEFAULT_QUEUE = 64  # requests that may wait for a worker
