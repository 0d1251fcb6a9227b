"""The optional semantic judge: backends, the CoVe pipeline's parts, and :func:`make_judge`.

Nothing in the core imports this package; backends are imported only when
:func:`make_judge` builds one.
"""

from __future__ import annotations

from typing import Any, Literal

from claimledger.judge.types import (
    VERDICTS,
    Judge,
    JudgeConfigError,
    JudgeError,
    JudgeRequest,
    JudgeVerdict,
    Passage,
)

JudgeKind = Literal["openai", "anthropic", "nli"]
JUDGE_KINDS: tuple[JudgeKind, ...] = ("openai", "anthropic", "nli")

__all__ = [
    "JUDGE_KINDS",
    "VERDICTS",
    "Judge",
    "JudgeConfigError",
    "JudgeError",
    "JudgeKind",
    "JudgeRequest",
    "JudgeVerdict",
    "Passage",
    "make_judge",
]


def make_judge(kind: JudgeKind, model: str, url: str | None = None, **opts: Any) -> Judge:
    """Build a judge backend.

    * ``openai``: any OpenAI-compatible chat endpoint; ``url`` is its base URL
      (default ``$CLAIMLEDGER_JUDGE_URL`` or OpenAI's), key from
      ``$CLAIMLEDGER_JUDGE_API_KEY`` or ``$OPENAI_API_KEY`` (optional).
    * ``anthropic``: the Messages API; key from ``$CLAIMLEDGER_JUDGE_API_KEY``
      or ``$ANTHROPIC_API_KEY`` (required).
    * ``nli``: ``model`` is the folder of a local ONNX NLI cross-encoder.

    ``opts`` go to the backend (``timeout``, ``retry=RetryPolicy(...)``,
    ``api_key``, ``max_concurrency``, ``response_format``, thresholds ...).
    Raises :class:`JudgeConfigError` (an :class:`~claimledger.InputError`)
    when the judge cannot be built.
    """
    if kind == "openai":
        from claimledger.judge.openai_compat import OpenAIJudge

        return OpenAIJudge(model, url, **opts)
    if kind == "anthropic":
        from claimledger.judge.anthropic_api import AnthropicJudge

        return AnthropicJudge(model, url, **opts)
    if kind == "nli":
        from claimledger.judge.nli import NLIJudge

        return NLIJudge(model, url, **opts)
    raise JudgeConfigError(f"unknown judge kind {kind!r} (expected one of {', '.join(JUDGE_KINDS)})")
