"""Chain-of-Verification step 2: one verification question per claim, answerable from the source alone.

The question is built by a fixed template from the claim itself (so it is
deterministic, cacheable and contains nothing from the draft but the claim).
"""

from __future__ import annotations

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
