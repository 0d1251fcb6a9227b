"""The HTTP transport for URL sources: dials only addresses checked at connect time.

Kept apart from :mod:`claimledger.load.fetch` so that httpx is imported only
when a URL is actually fetched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import httpcore
import httpx

# (host, port, allow_private) -> the addresses that may be dialled; raises when none may.
# claimledger.load.fetch passes its checked_addresses (the address policy lives there).
AddressCheck = Callable[[str, int, bool], list[str]]


class CheckedBackend(httpcore.NetworkBackend):
    """Connects only to addresses resolved and checked at connect time (closes the DNS-rebinding gap).

    TLS still verifies the certificate against the URL's host name: httpcore
    passes the origin's host as the server name, not the address dialled.
    """

    def __init__(self, allow_private: bool, check: AddressCheck) -> None:
        self.allow_private = allow_private
        self.check = check
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        error: Exception | None = None
        for address in self.check(host, port, self.allow_private):
            try:
                return self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        assert error is not None
        raise error

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are never used for sources")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class CheckedTransport(httpx.HTTPTransport):
    """httpx's transport with the connection pool dialling through :class:`CheckedBackend`."""

    def __init__(self, allow_private: bool, check: AddressCheck) -> None:
        super().__init__(trust_env=False)
        import ssl

        import certifi

        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl.create_default_context(cafile=certifi.where()),
            network_backend=CheckedBackend(allow_private, check),
            max_connections=4,
        )
