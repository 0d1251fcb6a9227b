"""Any OpenAI-compatible chat-completions endpoint: OpenAI, llama.cpp server, vLLM, Ollama."""

from __future__ import annotations

import os
import threading
from typing import Any, Literal

import httpx

from claimledger.judge._http import RetryPolicy, post_json
from claimledger.judge.prompt import ANSWER_SCHEMA, SYSTEM_PROMPT, parse_verdict, render_user_message
from claimledger.judge.types import JudgeConfigError, JudgeError, JudgeRequest, JudgeVerdict

DEFAULT_URL = "https://api.openai.com/v1"
KEY_VARIABLES = ("CLAIMLEDGER_JUDGE_API_KEY", "OPENAI_API_KEY")
ResponseFormat = Literal["json_schema", "json_object", "none"]


def chat_completions_url(base: str) -> str:
    """``http://host:8080/v1`` -> ``http://host:8080/v1/chat/completions``; a full URL is kept."""
    base = base.rstrip("/")
    return base if base.endswith("/chat/completions") else base + "/chat/completions"


class OpenAIJudge:
    """A judge behind ``POST {url}/chat/completions``.

    The key comes from ``api_key`` or the environment (``CLAIMLEDGER_JUDGE_API_KEY``,
    then ``OPENAI_API_KEY``); local servers usually need none. ``response_format``
    asks the server for schema-constrained output (``json_schema``, the default;
    ``json_object`` or ``none`` for servers that do not support it). Whatever the
    server does, the answer is validated by :func:`~claimledger.judge.prompt.parse_verdict`.
    """

    kind = "openai"

    def __init__(
        self,
        model: str,
        url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        response_format: ResponseFormat = "json_schema",
        temperature: float = 0.0,
        max_tokens: int = 800,
        max_concurrency: int = 4,
    ) -> None:
        if not model:
            raise JudgeConfigError("a model name is required")
        self.model = model
        self.url = chat_completions_url(url or os.environ.get("CLAIMLEDGER_JUDGE_URL") or DEFAULT_URL)
        self._key = api_key or next((os.environ[v] for v in KEY_VARIABLES if os.environ.get(v)), None)
        self.retry = retry or RetryPolicy()
        self.response_format = response_format
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self._client = httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=False)
        self._slots = threading.BoundedSemaphore(max(1, max_concurrency))

    def payload(self, request: JudgeRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": render_user_message(request)},
            ],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.response_format == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "claimledger_verdict", "strict": True, "schema": ANSWER_SCHEMA},
            }
        elif self.response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        headers = {"content-type": "application/json"}
        if self._key:
            headers["authorization"] = f"Bearer {self._key}"
        with self._slots:
            data = post_json(self._client, self.url, self.payload(request), headers=headers, policy=self.retry)
        return parse_verdict(_message_text(data))

    def ask(self, system: str, user: str) -> str:
        """One fresh chat request (no history): the model's text answer. Raises :class:`JudgeError`."""
        headers = {"content-type": "application/json"}
        if self._key:
            headers["authorization"] = f"Bearer {self._key}"
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": self.temperature,
            "max_tokens": 200,
        }
        with self._slots:
            data = post_json(self._client, self.url, body, headers=headers, policy=self.retry)
        return _message_text(data)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self.model, "url": self.url, "response_format": self.response_format}

    def close(self) -> None:
        self._client.close()


def _message_text(data: dict[str, Any]) -> str:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise JudgeError("malformed", "the chat-completions answer has no choices")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise JudgeError("malformed", "the chat-completions answer has no message")
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        raise JudgeError("refusal", f"the judge refused: {refusal.strip()[:160]}")
    finish = choice.get("finish_reason")
    if finish == "content_filter":
        raise JudgeError("refusal", "the judge's answer was withheld by a content filter")
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        raise JudgeError("malformed", "the judge's message has no text content")
    if finish == "length":
        raise JudgeError("malformed", "the judge's answer was cut off (finish_reason=length)")
    return content
