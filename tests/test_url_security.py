"""URL sources under attack: SSRF through redirects and DNS rebinding, odd URLs, and a shared cache.

Only 127.0.0.1 is ever contacted. To test the "public first hop" case the
address policy is told to treat the test server's address as public; every
other loopback address stays private, and any refused address is refused
before a connection is attempted.
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from claimledger import GateConfig
from claimledger._exceptions import SourceError
from claimledger.load import fetch
from claimledger.load.fetch import Fetched, UrlCache, atomic_write, check_host, fetch_url, is_public
from claimledger.load.index import index_source
from tests.localserver import Route, Server, serve

SECRET = b"internal admin page: never fetched"


@pytest.fixture
def server() -> Iterator[Server]:
    with serve({"/secret": Route(body=SECRET), "/page.txt": Route(body=b"A public page with the quoted text.")}) as s:
        yield s


@pytest.fixture
def test_server_is_public(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend 127.0.0.1 is a public address; every other non-public address stays refused."""
    real = fetch.is_public
    monkeypatch.setattr(fetch, "is_public", lambda address: address == "127.0.0.1" or real(address))


def _redirect(server: Server, location: str) -> str:
    server.routes["/hop"] = Route(status=302, headers={"Location": location})
    return server.url("/hop")


@pytest.mark.usefixtures("test_server_is_public")
@pytest.mark.parametrize("target", ["http://127.0.0.2:{port}/secret", "http://[::1]:{port}/secret",
                                    "http://0.0.0.0:{port}/secret", "http://169.254.169.254/latest/meta-data/",
                                    "http://[::ffff:127.0.0.2]:{port}/secret", "http://2130706434:{port}/secret"])  # fmt: skip
def test_a_redirect_to_a_private_address_is_refused(server: Server, target: str) -> None:
    port = server.base_url.rsplit(":", 1)[1]
    url = _redirect(server, target.format(port=port))
    with pytest.raises(SourceError) as info:
        fetch_url(url, timeout=2.0)
    assert info.value.reason == "source_url_refused"
    assert "--allow-private-urls" in info.value.message
    assert server.hits == {"/hop": 1}  # the first hop was fetched, the private target never


@pytest.mark.usefixtures("test_server_is_public")
def test_a_public_first_hop_and_public_redirect_are_followed(server: Server) -> None:
    url = _redirect(server, "/page.txt")
    assert fetch_url(url, timeout=2.0).data == b"A public page with the quoted text."
    assert server.hits == {"/hop": 1, "/page.txt": 1}


def test_dns_rebinding_is_refused_at_connect_time(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """The name resolves to a 'public' address when checked and to a private one a moment later."""
    answers = iter([["127.0.0.1"], ["127.0.0.2"], ["127.0.0.2"], ["127.0.0.2"]])
    monkeypatch.setattr(fetch, "is_public", lambda address: address == "127.0.0.1")
    monkeypatch.setattr(fetch, "resolve", lambda host, port: next(answers) if host == "rebind.test" else [])
    port = server.base_url.rsplit(":", 1)[1]
    with pytest.raises(SourceError) as info:
        fetch_url(f"http://rebind.test:{port}/secret", timeout=2.0)
    assert info.value.reason == "source_url_refused" and "127.0.0.2" in info.value.message
    assert server.hits == {}


def test_the_connection_goes_to_the_checked_address(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name is dialled by the address that passed the check, and the request still names the host."""
    monkeypatch.setattr(fetch, "is_public", lambda address: address == "127.0.0.1")
    monkeypatch.setattr(fetch, "resolve", lambda host, port: ["127.0.0.1"] if host == "public.test" else [])
    port = server.base_url.rsplit(":", 1)[1]
    assert fetch_url(f"http://public.test:{port}/page.txt", timeout=2.0).data.startswith(b"A public page")
    assert server.request_headers[0]["host"] == f"public.test:{port}"


@pytest.mark.parametrize(
    "url",
    [
        "http://user:pass@127.0.0.1/secret",
        "http://user@127.0.0.1/secret",
        "https://:token@example.org/x",
        "ftp://127.0.0.1/secret",
        "file:///etc/passwd",
        "gopher://127.0.0.1:70/_x",
        "data:text/plain,hello",
        "javascript:alert(1)",
        "http:///no-host",
        "http://127.0.0.1:99999/x",
    ],
)
def test_odd_urls_are_refused_without_a_connection(url: str, tmp_path: Path) -> None:
    for allow_private in (False, True):
        with pytest.raises(SourceError) as info:
            fetch_url(url, cache=UrlCache(tmp_path), allow_private=allow_private, timeout=1.0)
        assert info.value.reason == "source_url_refused"


def test_credentials_in_a_redirect_are_refused(server: Server) -> None:
    url = _redirect(server, server.base_url.replace("http://", "http://admin:hunter2@") + "/secret")
    with pytest.raises(SourceError) as info:
        fetch_url(url, allow_private=True, timeout=2.0)
    assert info.value.reason == "source_url_refused"
    assert "/secret" not in server.hits


def test_no_proxy_cookie_or_netrc_from_the_environment(
    server: Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # would fail if used
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    (tmp_path / ".netrc").write_text("machine 127.0.0.1 login admin password hunter2\n")
    monkeypatch.setenv("NETRC", str(tmp_path / ".netrc"))
    server.routes["/cookie"] = Route(body=b"set", headers={"Set-Cookie": "session=abc"})
    fetch_url(server.url("/cookie"), allow_private=True, timeout=2.0)
    fetch_url(server.url("/page.txt"), allow_private=True, timeout=2.0)
    for headers in server.request_headers:
        assert "authorization" not in headers and "cookie" not in headers and "proxy-authorization" not in headers


def test_the_size_cap_holds_while_streaming(server: Server) -> None:
    server.routes["/big"] = Route(body=b"x" * 300_000)
    with pytest.raises(SourceError) as info:
        fetch_url(server.url("/big"), allow_private=True, timeout=2.0, max_bytes=100_000)
    assert info.value.reason == "source_too_large"


def test_a_refused_url_source_is_a_high_finding_that_says_how_to_allow_it(
    server: Server, tmp_path: Path
) -> None:
    from claimledger import Reason, Tier, gate

    (tmp_path / "ledger.yaml").write_text(
        f"version: 1\nsources:\n  web: {server.url('/page.txt')}\nclaims:\n"
        "  - id: Q\n    kind: quote\n    source: web\n    quote: A public page with the quoted text\n"
    )
    f = gate(tmp_path / "ledger.yaml", config=GateConfig(cache_dir=tmp_path / "c")).findings[0]
    assert f.reason is Reason.SOURCE_URL_REFUSED and f.tier is Tier.HIGH
    assert "--allow-private-urls" in f.message and server.hits == {}


@pytest.mark.parametrize(
    ("address", "public"),
    [("8.8.8.8", True), ("2001:4860:4860::8888", True), ("127.0.0.1", False), ("10.1.2.3", False),
     ("172.16.0.1", False), ("192.168.1.1", False), ("169.254.169.254", False), ("100.64.0.1", False),
     ("0.0.0.0", False), ("224.0.0.1", False), ("::1", False), ("fe80::1", False), ("fc00::1", False),
     ("::ffff:127.0.0.1", False), ("::ffff:8.8.8.8", True), ("2002:7f00:1::", False), ("2002:808:808::", True),
     ("64:ff9b::7f00:1", False), ("not an address", False)],
)  # fmt: skip
def test_address_policy(address: str, public: bool) -> None:
    assert is_public(address) is public


def test_check_host_refuses_loopback_names() -> None:
    for url in ("http://localhost/", "http://127.1/", "http://[::1]/", "http://0x7f000001/"):
        with pytest.raises(SourceError) as info:
            check_host(url, allow_private=False)
        assert info.value.reason in {"source_url_refused", "source_network_error"}


# -- a cache shared by concurrent runs ------------------------------------------------------------

URL = "https://example.org/shared.txt"


def _hammer_url_cache(args: tuple[str, int]) -> tuple[int, int]:
    root, worker = args
    cache = UrlCache(Path(root))
    valid = {hashlib.sha256(f"payload {i}".encode() * 5000).hexdigest() for i in range(4)}
    bad = 0
    for n in range(20):
        data = f"payload {(worker + n) % 4}".encode() * 5000
        cache.put(URL, Fetched(data, "text/plain", False))
        got = cache.get(URL)
        if got is None or hashlib.sha256(got.data).hexdigest() not in valid:
            bad += 1
    return worker, bad


def _index_same_source(args: tuple[str, str]) -> str:
    path, cache = args
    ix = index_source("s", path, GateConfig(cache_dir=Path(cache)))
    return ix.primary.text


def test_concurrent_runs_never_corrupt_the_url_cache(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=4, mp_context=ctx) as pool:
        results = list(pool.map(_hammer_url_cache, [(str(tmp_path), w) for w in range(6)]))
    assert [bad for _, bad in results] == [0] * 6
    got = UrlCache(tmp_path).get(URL)
    assert got is not None and got.data.startswith(b"payload ")
    leftovers = [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []
    for obj in (tmp_path / "objects").iterdir():
        assert hashlib.sha256(obj.read_bytes()).hexdigest() == obj.name


def test_concurrent_runs_share_the_index_cache(tmp_path: Path) -> None:
    source = tmp_path / "s.txt"
    source.write_text("A shared source, indexed by several runs at once. " * 2000)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=4, mp_context=ctx) as pool:
        texts = list(pool.map(_index_same_source, [(str(source), str(tmp_path / "cache"))] * 6))
    assert len(set(texts)) == 1
    assert [p for p in (tmp_path / "cache").rglob("*") if p.name.endswith(".tmp")] == []
    again = index_source("s", str(source), GateConfig(cache_dir=tmp_path / "cache"))
    assert again.from_cache and again.primary.text == texts[0]


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.json"
    target.write_text("old report")
    target.chmod(0o640)

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fetch.os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        atomic_write(target, b"new report, half written")
    assert target.read_text() == "old report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    monkeypatch.undo()
    atomic_write(target, b"new report")
    assert target.read_text() == "new report" and target.stat().st_mode & 0o777 == 0o640
