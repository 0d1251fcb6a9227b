"""POST JSON with a timeout, bounded retries, exponential backoff and 429 Retry-After."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from claimledger.judge.types import JudgeError

# 408 request timeout, 409/425 transient conflicts, 429 rate limit, 5xx, 529 (Anthropic: overloaded)
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True)
class RetryPolicy:
    """``retries`` extra attempts; waits ``backoff * 2**n`` (capped), or what Retry-After asks."""

    retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 16.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int) -> float:
        return float(min(self.backoff * (2**attempt), self.max_backoff))


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now if now is not None else datetime.now(UTC).timestamp()
    return max(0.0, when.timestamp() - current)


def post_json(
    client: httpx.Client,
    url: str,
    payload: dict[str, Any],
    *,
    headers: dict[str, str],
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """POST ``payload`` and return the decoded JSON object, or raise :class:`JudgeError`.

    Timeouts, connection errors and the statuses in :data:`RETRY_STATUS` are
    retried; any other 4xx is final. A Retry-After longer than
    ``policy.max_retry_after`` is not waited for: the call fails (MED) instead.
    """
    last: JudgeError | None = None
    attempts = policy.retries + 1
    for attempt in range(attempts):
        wait = policy.delay(attempt)
        try:
            resp = client.post(url, json=payload, headers=headers)
        except httpx.TimeoutException as exc:
            last = JudgeError("timeout", f"the judge did not answer in time ({type(exc).__name__})")
        except httpx.HTTPError as exc:
            last = JudgeError("network", f"could not reach the judge ({type(exc).__name__}: {exc})")
        else:
            if resp.status_code in RETRY_STATUS:
                kind: Any = "rate_limited" if resp.status_code == 429 else "http"
                last = JudgeError(kind, f"the judge answered HTTP {resp.status_code}: {_body(resp)}")
                asked = retry_after_seconds(resp.headers.get("retry-after"))
                if asked is not None:
                    if asked > policy.max_retry_after:
                        raise JudgeError(
                            kind,
                            f"the judge asked to retry after {asked:.0f} s (more than the "
                            f"{policy.max_retry_after:.0f} s allowed); giving up",
                            attempts=attempt + 1,
                        )
                    wait = asked
            elif resp.status_code >= 400:
                raise JudgeError(
                    "http", f"the judge answered HTTP {resp.status_code}: {_body(resp)}", attempts=attempt + 1
                )
            else:
                try:
                    data = resp.json()
                except ValueError:
                    raise JudgeError(
                        "malformed", f"the judge's HTTP body is not JSON: {_body(resp)}", attempts=attempt + 1
                    ) from None
                if not isinstance(data, dict):
                    raise JudgeError("malformed", "the judge's HTTP body is not a JSON object", attempts=attempt + 1)
                return data
        if attempt + 1 < attempts:
            sleep(wait)
    assert last is not None
    last.attempts = attempts
    last.message = f"{last.message} (after {attempts} attempt{'s' if attempts > 1 else ''})"
    last.args = (last.message,)
    raise last


def _body(resp: httpx.Response, limit: int = 200) -> str:
    try:
        text = resp.text
    except Exception:  # a body that cannot be decoded says nothing useful
        return "<undecodable body>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
