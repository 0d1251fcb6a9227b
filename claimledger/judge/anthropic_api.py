"""The Anthropic Messages API (``POST {url}/v1/messages``), spoken with httpx."""

from __future__ import annotations

import os
import threading
from typing import Any

import httpx

from claimledger.judge._http import RetryPolicy, post_json
from claimledger.judge.prompt import SYSTEM_PROMPT, parse_verdict, render_user_message
from claimledger.judge.types import JudgeConfigError, JudgeError, JudgeRequest, JudgeVerdict

DEFAULT_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
KEY_VARIABLES = ("CLAIMLEDGER_JUDGE_API_KEY", "ANTHROPIC_API_KEY")


def messages_url(base: str) -> str:
    """``https://api.anthropic.com`` -> ``.../v1/messages``; ``.../v1`` and a full URL work too."""
    base = base.rstrip("/")
    if base.endswith("/v1/messages"):
        return base
    if base.endswith("/v1"):
        return base + "/messages"
    return base + "/v1/messages"


class AnthropicJudge:
    """A judge behind the Messages API. The key (``x-api-key``) is required.

    The key comes from ``api_key`` or the environment (``CLAIMLEDGER_JUDGE_API_KEY``,
    then ``ANTHROPIC_API_KEY``).
    """

    kind = "anthropic"

    def __init__(
        self,
        model: str,
        url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        temperature: float = 0.0,
        max_tokens: int = 800,
        max_concurrency: int = 4,
        api_version: str = API_VERSION,
    ) -> None:
        if not model:
            raise JudgeConfigError("a model name is required")
        key = api_key or next((os.environ[v] for v in KEY_VARIABLES if os.environ.get(v)), None)
        if not key:
            raise JudgeConfigError(
                "the Anthropic judge needs an API key: set ANTHROPIC_API_KEY (or CLAIMLEDGER_JUDGE_API_KEY)"
            )
        self.model = model
        self.url = messages_url(url or os.environ.get("CLAIMLEDGER_JUDGE_URL") or DEFAULT_URL)
        self._key = key
        self.api_version = api_version
        self.retry = retry or RetryPolicy()
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self._client = httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=False)
        self._slots = threading.BoundedSemaphore(max(1, max_concurrency))

    def payload(self, request: JudgeRequest) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "system": SYSTEM_PROMPT,
            "messages": [{"role": "user", "content": render_user_message(request)}],
        }

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        headers = {
            "content-type": "application/json",
            "x-api-key": self._key,
            "anthropic-version": self.api_version,
        }
        with self._slots:
            data = post_json(self._client, self.url, self.payload(request), headers=headers, policy=self.retry)
        return parse_verdict(_message_text(data))

    def ask(self, system: str, user: str) -> str:
        """One fresh Messages request (no history): the model's text answer. Raises :class:`JudgeError`."""
        headers = {"content-type": "application/json", "x-api-key": self._key, "anthropic-version": self.api_version}
        body = {"model": self.model, "max_tokens": 200, "temperature": self.temperature, "system": system,
                "messages": [{"role": "user", "content": user}]}  # fmt: skip
        with self._slots:
            data = post_json(self._client, self.url, body, headers=headers, policy=self.retry)
        return _message_text(data)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self.model, "url": self.url, "anthropic_version": self.api_version}

    def close(self) -> None:
        self._client.close()


def _message_text(data: dict[str, Any]) -> str:
    if data.get("type") == "error":
        raise JudgeError("http", f"the judge returned an error object: {str(data.get('error'))[:160]}")
    stop = data.get("stop_reason")
    if stop == "refusal":
        raise JudgeError("refusal", "the judge refused to answer (stop_reason=refusal)")
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise JudgeError("malformed", "the Messages answer has no content list")
    text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    if not text.strip():
        raise JudgeError("malformed", "the judge's message has no text content")
    if stop == "max_tokens":
        raise JudgeError("malformed", "the judge's answer was cut off (stop_reason=max_tokens)")
    return text
