"""The URL address policy: which addresses count as public, and a refused one is never dialled.

The table covers every special-purpose block a URL source could point at,
written in every form an IPv6 address can carry an IPv4 one in. The listener
test dials nothing but 127.0.0.1/::1: a TCP listener records every connection
it accepts, and each refused address (all of which reach that listener when
dialled) must leave it with none.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimledger._exceptions import SourceError
from claimledger.load.fetch import UrlCache, fetch_url, is_public

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "192.0.0.9",  # the one globally reachable address of 192.0.0.0/24 (PCP anycast)
    "2001:4860:4860::8888",
    "2606:4700:4700::1111",
    "2620:fe::fe",
    "::ffff:8.8.8.8",  # IPv4-mapped public
    "::ffff:0:808:808",  # IPv4-translated public
    "64:ff9b::808:808",  # NAT64 well-known prefix, public IPv4 inside
    "2002:808:808::1",  # 6to4 of a public IPv4
]

PRIVATE = [
    # IPv4 special-purpose blocks
    "0.0.0.0", "0.1.2.3", "10.1.2.3", "100.64.0.1", "127.0.0.1", "127.255.255.254", "169.254.169.254",
    "172.16.0.1", "172.31.255.255", "192.0.0.8", "192.0.2.1", "192.168.1.1", "198.18.0.1", "198.51.100.7",
    "203.0.113.9", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
    # IPv6 special-purpose blocks
    "::", "::1", "fe80::1", "fe80::1%1", "fec0::1", "fc00::1", "fd12:3456::1", "ff02::1", "ff0e::1",
    "100::1", "2001:db8::1", "2001:10::1", "3fff::1", "5f00::1",
    # IPv4 embedded in IPv6
    "::127.0.0.1", "::8.8.8.8", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
    "::ffff:0:7f00:1", "::ffff:0:a00:1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a9fe:a9fe",
    "64:ff9b:1::808:808", "2002:7f00:1::", "2002:a00:1::1", "2002:a9fe:a9fe::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo (client 192.0.2.45)
    "2001:0:7f00:1:0:0:0:1",  # Teredo with a loopback server
    # not an address at all
    "not an address", "", "127.1", "0x7f000001", "2130706433",
]  # fmt: skip


def test_the_table_is_large_enough() -> None:
    assert len(PUBLIC) + len(PRIVATE) >= 40


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses(address: str) -> None:
    assert is_public(address) is True


@pytest.mark.parametrize("address", PRIVATE)
def test_non_public_addresses(address: str) -> None:
    assert is_public(address) is False


class Listener:
    """A TCP listener on one loopback address that records every connection it accepts."""

    def __init__(self, family: socket.AddressFamily, host: str) -> None:
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            self.sock.setsockopt(
                socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0
            )  # ::ffff:127.0.0.1 lands here too
        self.sock.bind((host, 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.accepted: list[object] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, peer = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted.append(peer)
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    try:
        lst = Listener(socket.AF_INET6, "::")  # dual stack: 127.0.0.1, ::1 and ::ffff:127.0.0.1
    except OSError:  # no IPv6 on this machine
        lst = Listener(socket.AF_INET, "127.0.0.1")
    yield lst
    lst.close()


def _hosts(port: int) -> list[str]:
    return [f"127.0.0.1:{port}", f"127.0.0.2:{port}", f"[::1]:{port}", f"[::ffff:127.0.0.1]:{port}",
            f"[::ffff:0:7f00:1]:{port}", f"[::127.0.0.1]:{port}", f"localhost:{port}", f"2130706433:{port}",
            f"0x7f000001:{port}", f"127.1:{port}", f"0.0.0.0:{port}", f"0:{port}"]  # fmt: skip


def test_a_refused_address_is_never_dialled(listener: Listener, tmp_path: Path) -> None:
    for host in _hosts(listener.port):
        with pytest.raises(SourceError) as info:
            fetch_url(f"http://{host}/secret", cache=UrlCache(tmp_path), timeout=2.0)
        assert info.value.reason in {"source_url_refused", "source_network_error"}, host
        assert "refused" in info.value.message or "resolve" in info.value.message, host
    assert listener.accepted == []


def test_the_listener_does_record_a_dial_when_private_urls_are_allowed(listener: Listener) -> None:
    """The control: the same listener sees the connection once the policy lets it through."""
    with pytest.raises(SourceError):  # it answers nothing: the connection is accepted and closed
        fetch_url(f"http://127.0.0.1:{listener.port}/secret", allow_private=True, timeout=2.0)
    assert len(listener.accepted) >= 1
