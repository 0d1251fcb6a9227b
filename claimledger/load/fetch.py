"""Fetching URL sources into a content-addressed cache.

Private, loopback and link-local addresses are refused before any connection
unless ``allow_private`` is set. Redirects, size and time are capped; no
credentials or cookies are ever sent. What the cache reads back is checked
against its SHA-256; writes are atomic, so concurrent runs never see half a
file.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from claimledger._exceptions import SourceError

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


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_host(url: str, allow_private: bool) -> None:
    """Refuse non-public addresses (before any connection) unless allowed."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise SourceError("source_url_refused", f"only http and https URLs are fetched, not {parts.scheme!r}")
    if parts.username or parts.password:
        raise SourceError("source_url_refused", "URLs with credentials are refused; remove user:password@")
    host = parts.hostname
    if not host:
        raise SourceError("source_url_refused", "URL has no host")
    if allow_private:
        return
    try:
        infos = socket.getaddrinfo(host, parts.port or (443 if parts.scheme == "https" else 80))
    except socket.gaierror as exc:
        raise SourceError("source_network_error", f"cannot resolve host {host!r} ({exc})") from None
    for info in infos:
        ip = ipaddress.ip_address(info[4][0])
        if not ip.is_global or ip.is_multicast:
            raise SourceError(
                "source_url_refused",
                f"{host} resolves to non-public address {ip}; refused to prevent SSRF. "
                "Pass --allow-private-urls if this source is meant to be on your network",
            )


class UrlCache:
    """Content-addressed store: ``objects/<sha256>`` plus ``urls/<sha256(url)>.json``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _meta_path(self, url: str) -> Path:
        return self.root / "urls" / (hashlib.sha256(url.encode()).hexdigest() + ".json")

    def get(self, url: str) -> Fetched | None:
        meta_path = self._meta_path(url)
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
            data = (self.root / "objects" / meta["sha256"]).read_bytes()
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if hashlib.sha256(data).hexdigest() != meta["sha256"]:
            return None  # corrupted entry: refetch
        return Fetched(data, str(meta.get("content_type", "")), True)

    def put(self, url: str, fetched: Fetched) -> None:
        digest = hashlib.sha256(fetched.data).hexdigest()
        atomic_write(self.root / "objects" / digest, fetched.data)
        meta = {"url": url, "sha256": digest, "content_type": fetched.content_type}
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
    import httpx

    if cache is not None and not refresh:
        hit = cache.get(url)
        if hit is not None:
            return hit
    current = url
    headers = {"User-Agent": "claimledger (source verification)", "Accept": "*/*"}
    with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False, headers=headers) as client:
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
        cache.put(url, fetched)
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
