"""The judge's small interface: what it is asked, what it answers, how it fails.

The request type is the independence guarantee made concrete: it holds the
claim, one verification question and evidence passages copied from the cited
source, and *nothing else*. It has no field for the draft, so no backend can
be handed the draft by accident (``tests/test_judge_pipeline.py`` asserts it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from claimledger._exceptions import BackendError, ConfigError

Verdict = Literal["supported", "contradicted", "not_found", "overclaim"]
VERDICTS: tuple[Verdict, ...] = ("supported", "contradicted", "not_found", "overclaim")

FailureKind = Literal[
    "timeout", "http", "network", "rate_limited", "malformed", "refusal", "crash", "config"
]


@dataclass(frozen=True, slots=True)
class Passage:
    """A literal slice ``source_text[start:end]`` of the cited source."""

    start: int
    end: int
    text: str
    page: int | None = None


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """Everything a judge sees about one claim. Deliberately has no draft field."""

    claim_id: str
    language: Literal["en", "ja"]
    claim: str
    question: str
    source_id: str
    passages: tuple[Passage, ...]
    prompt_version: str

    def canonical_json(self) -> str:
        """A stable serialization: the content that is hashed, cached and audited."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    def sha256(self) -> str:
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """A schema-valid answer. Not yet trusted: its evidence quote is checked literally."""

    verdict: Verdict
    evidence_quote: str
    rationale: str

    def to_dict(self) -> dict[str, str]:
        return {"verdict": self.verdict, "evidence_quote": self.evidence_quote, "rationale": self.rationale}


class JudgeError(BackendError):
    """A judge could not give a usable answer. Always an infrastructure failure (MED), never a pass."""

    def __init__(self, kind: FailureKind, message: str, *, attempts: int = 1) -> None:
        self.kind: FailureKind = kind
        self.message = message
        self.attempts = attempts
        super().__init__(message)


class JudgeConfigError(ConfigError):
    """A judge cannot be built: unknown kind, missing key, missing model path or optional extra."""


@runtime_checkable
class Judge(Protocol):
    """One backend. ``judge`` is called from worker threads; it raises :class:`JudgeError`."""

    kind: str
    model: str

    def judge(self, request: JudgeRequest) -> JudgeVerdict: ...

    def describe(self) -> dict[str, Any]:
        """Facts for the report (kind, model, endpoint); never a secret."""
        ...

    def close(self) -> None: ...
