"""Chain-of-Verification step 2: one verification question per claim, answerable from the source alone.

The question is built by a fixed template from the claim itself (so it is
deterministic, cacheable and contains nothing from the draft but the claim), or,
with ``--judge-questions model``, asked of the model in its own fresh request
that holds the claim and nothing else (:func:`model_question`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Literal

from claimledger.normalize import is_cjk


def language_of(text: str) -> Literal["en", "ja"]:
    """``ja`` when CJK characters make up a fifth of the letters, else ``en``."""
    letters = [ch for ch in text if ch.isalnum()]
    if not letters:
        return "en"
    cjk = sum(1 for ch in letters if is_cjk(ch))
    return "ja" if cjk * 5 >= len(letters) else "en"


def verification_question(claim: str, language: Literal["en", "ja"]) -> str:
    """A question whose answer is in the cited source, not in the draft."""
    claim = " ".join(claim.split())
    if language == "ja":
        return (
            f"ソースは次の記述の内容について正確に何と述べているか。数値・限定・程度（約、可能性など）・"
            f"対象の範囲も含めて、ソースの文言どおりに答えよ：「{claim}」"
        )
    return (
        f'What exactly does the source say about the subject of this statement, including its numbers, '
        f'qualifiers (about, may, some), scope and direction? Statement: "{claim}"'
    )


QUESTION_PROMPT_VERSION = "cove-q1"
QUESTION_SYSTEM = """\
You write verification questions for a fact checker. You receive one CLAIM that a document attributes \
to a cited source. Write ONE specific question that the cited source alone can answer and whose answer \
decides whether the claim is true: ask for the exact figure, its qualifiers (about, up to, may, some), \
the population, place and period, and the direction of the effect. Do not answer it, do not restate \
the claim as fact, do not add anything else. Reply with the question only, in the language of the claim."""
MAX_QUESTION_CHARS = 400


def question_message(claim: str) -> str:
    """The user message of the question request: the claim and nothing else (no draft, no source)."""
    return "CLAIM (JSON string):\n" + json.dumps(" ".join(claim.split()), ensure_ascii=False)


def model_question(ask: Callable[[str, str], str], claim: str) -> str:
    """Seed 003 Phase 2: the question comes from the model, in its own fresh request.

    ``ask(system, user)`` sends one request with no history. The answer must be
    one question of at most 400 characters; anything else raises
    :class:`~claimledger.judge.JudgeError` (malformed), never a silent fallback.
    """
    from claimledger.judge.types import JudgeError

    raw = ask(QUESTION_SYSTEM, question_message(claim))
    text = " ".join(str(raw).split()).strip().strip('"').strip()
    if not text:
        raise JudgeError("malformed", "the model gave an empty verification question")
    if len(text) > MAX_QUESTION_CHARS:
        raise JudgeError("malformed", f"the model's verification question has {len(text)} characters (limit 400)")
    if text.startswith(("{", "[", "`")):
        raise JudgeError("malformed", "the model's verification question is not plain text")
    if not text.endswith(("?", "？", "か。", "か", "か？")):
        raise JudgeError("malformed", f"the model's answer is not a question: {text[:80]!r}")
    return text
