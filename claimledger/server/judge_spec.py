"""The servers' judge: chosen by the operator at start-up, built afresh for each check request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claimledger.judge import Judge


@dataclass(frozen=True)
class JudgeSpec:
    """``--judge KIND --judge-model M [--judge-url U] [--judge-timeout S] [--judge-questions Q]``."""

    kind: str
    model: str
    url: str | None = None
    timeout: float = 60.0
    questions: str = "template"

    def build(self) -> Judge:
        from claimledger.judge import JudgeKind, make_judge

        kind: JudgeKind = self.kind  # type: ignore[assignment]
        return make_judge(kind, self.model, self.url, timeout=self.timeout)
