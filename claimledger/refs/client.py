"""One HTTP client for the reference services: URL policy, timeouts, a concurrency limit, 429 + Retry-After.

Every request has a timeout, so a hanging service costs seconds, not the run.
Hosts follow the URL policy of docs/security.md (the checked transport of
:mod:`claimledger.load._transport`: a loopback or private base URL needs
``--allow-private-urls``). A 429 is retried after its Retry-After when that is
at most ``max_retry_after`` seconds (twice at most); otherwise the service is
reported as unavailable with the time it asked for. With ``offline`` nothing is
sent: a cached answer is served, and a miss is a :class:`ServiceError` of kind
``offline`` (the verdict is then MED "not checked", never verified).
"""

from __future__ import annotations

import email.utils
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlencode

from claimledger._exceptions import BackendError, SourceError
from claimledger._version import __version__
from claimledger.refs.cache import AnswerCache, cache_key

DEFAULT_TIMEOUT = 10.0
DEFAULT_CONCURRENCY = 4
MAX_RETRY_AFTER = 10.0
MAX_RETRIES = 2
MAX_BODY = 5 * 1024 * 1024


class ServiceError(BackendError):
    """A service could not answer (timeout, 5xx, 429, refused host, bad body). ``kind`` says which."""

    def __init__(self, service: str, kind: str, message: str) -> None:
        self.service = service
        self.kind = kind  # timeout, unavailable, rate_limited, refused, bad_answer, offline
        super().__init__(message)


@dataclass(frozen=True)
class Answer:
    status: int  # 200 or 404
    body: bytes
    from_cache: bool


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds (``120`` or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class ServiceClient:
    """GETs under a base URL, shared by every resolver of one run (one connection pool, one limit)."""

    def __init__(
        self,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        concurrency: int = DEFAULT_CONCURRENCY,
        allow_private: bool = False,
        cache: AnswerCache | None = None,
        max_retry_after: float = MAX_RETRY_AFTER,
        sleep: bool = True,
        offline: bool = False,
    ) -> None:
        import httpx

        from claimledger.load._transport import CheckedTransport
        from claimledger.load.fetch import checked_addresses

        self.timeout = timeout
        self.allow_private = allow_private
        self.cache = cache
        self.max_retry_after = max_retry_after
        self.offline = offline  # --offline: answers come from the cache only; a miss is an "offline" error
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,
            transport=CheckedTransport(allow_private, checked_addresses),
            headers={"User-Agent": f"claimledger/{__version__} (reference check)"},
        )
        self.requests = 0  # made over the network (cache hits excluded)

    def close(self) -> None:
        self._http.close()
        if self.cache is not None:
            self.cache.close()

    def get(
        self,
        service: str,
        base_url: str,
        path: str,
        params: dict[str, str] | None = None,
        *,
        accept: str = "application/json",
        secrets: dict[str, str] | None = None,
        user_agent: str | None = None,
    ) -> Answer:
        """GET ``base_url + path``; 200 and 404 are answers, everything else raises :class:`ServiceError`."""
        from claimledger.load.fetch import check_host

        params = dict(params or {})
        key = cache_key(service, base_url, path, params, accept, self.allow_private)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return Answer(hit[0], hit[1], True)
        if self.offline:
            raise ServiceError(service, "offline", f"{service}: no cached answer (--offline)")
        url = base_url.rstrip("/") + path
        query = {**params, **(secrets or {})}
        if query:
            url += "?" + urlencode(query)
        try:
            check_host(url, self.allow_private)
        except SourceError as exc:
            raise ServiceError(service, "refused", f"{service}: {exc.message}") from None
        headers = {"Accept": accept}
        if user_agent:
            headers["User-Agent"] = user_agent
        for attempt in range(MAX_RETRIES + 1):
            status, body, retry_after = self._once(service, url, headers)
            if status == 429:
                wait = retry_after_seconds(retry_after)
                if attempt < MAX_RETRIES and wait is not None and wait <= self.max_retry_after:
                    if self._sleep:
                        time.sleep(wait)
                    continue
                asked = f" (it asked to wait {wait:g} s)" if wait is not None else ""
                raise ServiceError(service, "rate_limited", f"{service} is rate-limiting requests (HTTP 429){asked}; "
                                   "try again later or set the polite-pool address")  # fmt: skip
            if status in (200, 404, 410):
                status = 404 if status == 410 else status
                if self.cache is not None:
                    self.cache.put(key, status, body)
                return Answer(status, body, False)
            if status == 400 and service == "arxiv":
                return Answer(404, body, False)  # arXiv answers a malformed id with 400
            raise ServiceError(service, "unavailable", f"{service} answered HTTP {status}; try again later")
        raise ServiceError(service, "rate_limited", f"{service} kept answering HTTP 429; try again later")

    def _once(self, service: str, url: str, headers: dict[str, str]) -> tuple[int, bytes, str | None]:
        import httpx

        with self._slots:
            self.requests += 1
            try:
                with self._http.stream("GET", url, headers=headers) as resp:
                    chunks: list[bytes] = []
                    size = 0
                    for chunk in resp.iter_bytes():
                        size += len(chunk)
                        if size > MAX_BODY:
                            raise ServiceError(service, "bad_answer", f"{service} sent more than {MAX_BODY} bytes")
                        chunks.append(chunk)
                    return resp.status_code, b"".join(chunks), resp.headers.get("retry-after")
            except httpx.TimeoutException:
                raise ServiceError(
                    service, "timeout", f"{service} did not answer within {self.timeout:g} s; try again later"
                ) from None
            except SourceError as exc:  # the checked transport refused the address at connect time
                raise ServiceError(service, "refused", f"{service}: {exc.message}") from None
            except httpx.HTTPError as exc:
                raise ServiceError(service, "unavailable", f"cannot reach {service} ({exc})") from None
