"""Fetching URL sources into a content-addressed cache.

Private, loopback and link-local addresses are refused before any connection
unless ``allow_private`` is set: every hop (redirects included) is checked
when its URL is known, and the connection itself is made only to an address
that was checked at connect time (no second DNS lookup that a rebinding
server could answer differently). Redirects, size and time are capped; no
credentials, cookies, proxies or environment settings are ever used. What the
cache reads back is checked against its SHA-256; writes are atomic and
serialized by a lock file, so concurrent runs sharing a cache never see or
leave half a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from claimledger._exceptions import SourceError
from claimledger._files import FileChanged as FileChanged  # re-exported: claimledger._files is the home
from claimledger._files import FileIdentity as FileIdentity
from claimledger._files import atomic_write, locked
from claimledger._files import replace_if_unchanged as replace_if_unchanged

DEFAULT_TIMEOUT = 20.0
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
MAX_REDIRECTS = 5
ACCEPTED_TYPES = (
    "text/",
    "application/pdf",
    "application/xhtml+xml",
    "application/xml",
    "application/octet-stream",
    "application/json",
)


@dataclass(frozen=True)
class Fetched:
    data: bytes
    content_type: str
    from_cache: bool


def default_cache_dir() -> Path:
    """``$CLAIMLEDGER_CACHE_DIR``, else ``$XDG_CACHE_HOME/claimledger``, else ``~/.cache/claimledger``."""
    if os.environ.get("CLAIMLEDGER_CACHE_DIR"):
        return Path(os.environ["CLAIMLEDGER_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "claimledger"


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (one DNS lookup)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


_V6_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")  # IPv4-mapped
_V6_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")  # IPv4-translated (SIIT, RFC 2765)
_V6_COMPATIBLE = ipaddress.IPv6Network("::/96")  # IPv4-compatible (deprecated), with :: and ::1
_NAT64_WELL_KNOWN = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052
_NAT64_LOCAL_USE = ipaddress.IPv6Network("64:ff9b:1::/48")  # RFC 8215: a network's own translator
_TEREDO = ipaddress.IPv6Network("2001::/32")
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")
# IANA special-purpose blocks that are not globally reachable, for Python versions whose tables predate them
_NOT_GLOBAL_V4 = tuple(
    ipaddress.IPv4Network(n)
    for n in (
        "0.0.0.0/8",
        "100.64.0.0/10",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "240.0.0.0/4",
    )
)
_GLOBAL_V4 = (ipaddress.IPv4Address("192.0.0.9"), ipaddress.IPv4Address("192.0.0.10"))  # PCP, TURN anycast
_NOT_GLOBAL_V6 = tuple(ipaddress.IPv6Network(n) for n in ("2001:db8::/32", "3fff::/20", "5f00::/16",
                                                          "100::/64", "fec0::/10"))  # fmt: skip


def _public_v4(ip: ipaddress.IPv4Address) -> bool:
    if ip not in _GLOBAL_V4 and any(ip in net for net in _NOT_GLOBAL_V4):
        return False
    return ip.is_global and not (
        ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
        or ip.is_reserved or ip.is_unspecified
    )  # fmt: skip


def _low32(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)


def _public_v6(ip: ipaddress.IPv6Address) -> bool:
    if ip.scope_id:
        return False  # fe80::1%eth0: a scoped address is local by definition
    if ip in _V6_MAPPED or ip in _V6_TRANSLATED or ip in _NAT64_WELL_KNOWN:
        return _public_v4(_low32(ip))  # reaches exactly the embedded IPv4 address
    if ip in _V6_COMPATIBLE or ip in _NAT64_LOCAL_USE:
        return False  # deprecated form (and ::, ::1); a local translator reaches the local network
    if ip in _TEREDO:
        server, client = ip.teredo or (ipaddress.IPv4Address(0), ipaddress.IPv4Address(0))
        if not (_public_v4(server) and _public_v4(client)):
            return False
    if ip in _SIX_TO_FOUR and not _public_v4(ip.sixtofour or ipaddress.IPv4Address(0)):
        return False
    if any(ip in net for net in _NOT_GLOBAL_V6):
        return False
    return ip.is_global and not (
        ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_site_local or ip.is_multicast
        or ip.is_reserved or ip.is_unspecified
    )  # fmt: skip


def is_public(address: str) -> bool:
    """A global unicast address by every ``ipaddress`` test, the IPv4 address an IPv6 form embeds included.

    IPv6 forms that carry an IPv4 address are judged by it: IPv4-mapped
    (``::ffff:a.b.c.d``), IPv4-translated (``::ffff:0:a.b.c.d``), NAT64's
    well-known prefix (``64:ff9b::/96``), 6to4 (``2002::/16``) and Teredo
    (server and client). The deprecated IPv4-compatible form (``::a.b.c.d``),
    NAT64's local-use prefix (``64:ff9b:1::/48``), site-local ``fec0::/10``
    and scoped addresses are never public.
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        return _public_v6(ip)
    return _public_v4(ip)


def checked_addresses(host: str, port: int, allow_private: bool) -> list[str]:
    """Resolve ``host`` once and return its addresses; refuse non-public ones unless allowed."""
    try:
        addresses = resolve(host, port)
    except (socket.gaierror, UnicodeError) as exc:
        raise SourceError("source_network_error", f"cannot resolve host {host!r} ({exc})") from None
    if not allow_private:
        for address in addresses:
            if not is_public(address):
                raise SourceError(
                    "source_url_refused",
                    f"{host} resolves to non-public address {address}; refused to prevent SSRF. "
                    "Pass --allow-private-urls if this source is meant to be on your network",
                )
    if not addresses:
        raise SourceError("source_network_error", f"host {host!r} has no address")
    return addresses


def check_url_form(url: str) -> tuple[str, int]:
    """Refuse a URL that is not plain http(s) with a host (no credentials); return its host and port."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise SourceError("source_url_refused", f"only http and https URLs are fetched, not {parts.scheme!r}")
    if parts.username or parts.password:
        raise SourceError("source_url_refused", "URLs with credentials are refused; remove user:password@")
    host = parts.hostname
    if not host:
        raise SourceError("source_url_refused", "URL has no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise SourceError("source_url_refused", f"URL has an invalid port: {url}") from None
    return host, port


def check_host(url: str, allow_private: bool) -> None:
    """Refuse a malformed URL, and non-public addresses (before any connection) unless allowed."""
    host, port = check_url_form(url)
    if not allow_private:
        checked_addresses(host, port, allow_private)


class UrlCache:
    """Content-addressed store: ``objects/<sha256>`` plus ``urls/<sha256(url)>.json``.

    An entry stores the URL it is for and the address policy it was fetched under, and is used only
    for that URL, under a policy at least as strict (bytes fetched with ``--allow-private-urls`` are
    never served to a run without it) and within the run's size limit; else the URL is fetched again.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def _meta_path(self, url: str) -> Path:
        return self.root / "urls" / (hashlib.sha256(url.encode()).hexdigest() + ".json")

    def get(self, url: str, *, allow_private: bool = False, max_bytes: int | None = None) -> Fetched | None:
        meta_path = self._meta_path(url)
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
            if meta.get("url") != url or (meta.get("allow_private") is not False and not allow_private):
                return None  # another URL's entry, or fetched under a looser address policy
            obj = self.root / "objects" / meta["sha256"]
            if max_bytes is not None and obj.stat().st_size > max_bytes:
                return None  # over this run's limit: the fetch reports it
            data = obj.read_bytes()
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        if hashlib.sha256(data).hexdigest() != meta["sha256"]:
            return None  # corrupted entry: refetch
        return Fetched(data, str(meta.get("content_type", "")), True)

    def put(self, url: str, fetched: Fetched, *, allow_private: bool = False) -> None:
        """Store the object, then the URL's entry that names it, under the cache's lock."""
        digest = hashlib.sha256(fetched.data).hexdigest()
        meta = {"url": url, "sha256": digest, "content_type": fetched.content_type, "allow_private": allow_private}
        with locked(self.root / ".lock"):
            atomic_write(self.root / "objects" / digest, fetched.data)
            atomic_write(self._meta_path(url), json.dumps(meta).encode())


def fetch_url(
    url: str,
    *,
    cache: UrlCache | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    allow_private: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
    refresh: bool = False,
) -> Fetched:
    """Fetch ``url`` (or read it from ``cache``). Raises :class:`SourceError` with a reason code."""
    check_url_form(url)  # a URL with credentials or another scheme is refused even when cached
    if cache is not None and not refresh:
        hit = cache.get(url, allow_private=allow_private, max_bytes=max_bytes)
        if hit is not None:
            return hit
    current = url
    headers = {"User-Agent": "claimledger (source verification)", "Accept": "*/*"}
    import httpx  # imported here: most runs never fetch a URL

    from claimledger.load._transport import CheckedTransport

    transport = CheckedTransport(allow_private, checked_addresses)
    with httpx.Client(
        timeout=timeout, follow_redirects=False, trust_env=False, headers=headers, transport=transport
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
            check_host(current, allow_private)
            try:
                with client.stream("GET", current) as resp:
                    if resp.is_redirect:
                        location = resp.headers.get("location")
                        if not location:
                            raise SourceError("source_server_error", f"redirect without Location from {current}")
                        current = urljoin(current, location)
                        continue
                    _raise_for_status(resp.status_code, current)
                    ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
                    if ctype and not ctype.startswith(ACCEPTED_TYPES):
                        raise SourceError(
                            "source_bad_content_type", f"{current} returned {ctype!r}, not text, HTML or PDF"
                        )
                    declared = resp.headers.get("content-length")
                    if declared and declared.isdigit() and int(declared) > max_bytes:
                        raise SourceError("source_too_large", f"{current} is {declared} bytes, over {max_bytes}")
                    chunks: list[bytes] = []
                    size = 0
                    for chunk in resp.iter_bytes():
                        size += len(chunk)
                        if size > max_bytes:
                            raise SourceError("source_too_large", f"{current} is over {max_bytes} bytes")
                        chunks.append(chunk)
                    fetched = Fetched(b"".join(chunks), ctype, False)
                    break
            except httpx.TimeoutException:
                raise SourceError(
                    "source_timeout", f"timed out after {timeout:g}s fetching {current}; try again later"
                ) from None
            except httpx.HTTPError as exc:
                raise SourceError("source_network_error", f"cannot fetch {current}: {exc}") from None
        else:
            raise SourceError("source_server_error", f"more than {MAX_REDIRECTS} redirects from {url}")
    if cache is not None:
        # a cache that cannot be written (read-only, full, not a folder) costs a refetch, never the check
        with contextlib.suppress(OSError):
            cache.put(url, fetched, allow_private=allow_private)
    return fetched


def _raise_for_status(status: int, url: str) -> None:
    if status < 400:
        return
    if status in (401, 402, 403, 407, 451):
        raise SourceError(
            "source_forbidden", f"{url} answered HTTP {status}: the source is not accessible; supply a local copy"
        )
    if status in (404, 410):
        raise SourceError("source_not_found", f"{url} answered HTTP {status}: the cited source does not exist there")
    if status in (408, 425, 429) or status >= 500:
        raise SourceError("source_server_error", f"{url} answered HTTP {status}; try again later")
    raise SourceError("source_not_found", f"{url} answered HTTP {status}")
