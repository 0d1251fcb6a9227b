"""The one job function: check one (ledger, draft) pair and return its JSON line.

Every engine calls :func:`run_job` and nothing else, so a job means the same on one core, on
many, and on a Ray cluster. It never raises: unusable input, a crash inside the gate, anything,
becomes a report whose outcome is FAIL with a HIGH finding that says why (fail closed).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from claimledger._config import GateConfig
from claimledger.batch.jobs import Job


@dataclass(frozen=True)
class JudgeSettings:
    """What it takes to build a judge inside a worker (a judge client itself is not sent)."""

    kind: Literal["openai", "anthropic", "nli"]
    model: str
    url: str | None = None
    timeout: float = 60.0
    cache: str | None = None
    questions: Literal["template", "model"] = "template"


@dataclass(frozen=True)
class JobOptions:
    """The ``check`` options that apply to every job of a batch (picklable)."""

    config: GateConfig = field(default_factory=GateConfig)
    sources: tuple[tuple[str, str], ...] = ()
    allow: tuple[str, ...] = ()
    section: str | None = None
    draft_format: str | None = None
    summary_section: str | None = None
    judge: JudgeSettings | None = None

    def fingerprint(self) -> dict[str, Any]:
        """Everything here that changes a verdict, as plain JSON (part of a job's resume key)."""
        cfg = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(self.config).items()}
        cfg["metrics_files"] = [str(p) for p in self.config.metrics_files]
        cfg.pop("cache_dir", None)  # where the cache lives does not change a verdict
        judge = None if self.judge is None else {
            "kind": self.judge.kind, "model": self.judge.model, "url": self.judge.url,
            "questions": self.judge.questions,
        }  # fmt: skip
        return {
            "config": cfg, "sources": [list(p) for p in self.sources], "allow": list(self.allow),
            "section": self.section, "draft_format": self.draft_format,
            "summary_section": self.summary_section, "judge": judge,
        }  # fmt: skip


@dataclass(frozen=True)
class JobResult:
    """What a worker sends back: the finished line and a few facts for the summary."""

    index: int
    line: str
    outcome: str
    exit_code: int
    seconds: float


def run_job(job: Job, options: JobOptions, key: str = "") -> JobResult:
    """Check one job; never raises. ``key`` (the resume key) is recorded in the line."""
    started = time.perf_counter()
    try:
        report = _gate(job, options)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        report = failed_report(job, _input_or_crash(exc))
    return finish(job, report, key, time.perf_counter() - started)


def _gate(job: Job, options: JobOptions) -> Any:
    from claimledger._api import gate

    judge = None
    if options.judge is not None:
        from claimledger.judge import make_judge

        s = options.judge
        judge = make_judge(s.kind, s.model, s.url, timeout=s.timeout)
    try:
        return gate(
            job.ledger, config=options.config, draft=job.draft, sources=dict(options.sources) or None,
            allow=options.allow, section=options.section, draft_format=options.draft_format,
            judge=judge, judge_cache=options.judge.cache if options.judge else None,
            summary_section=options.summary_section if job.draft is not None else None,
            judge_questions=options.judge.questions if options.judge else "template",
        )  # fmt: skip
    finally:
        if judge is not None:
            judge.close()


def _input_or_crash(exc: BaseException) -> tuple[str, str]:
    from claimledger._exceptions import InputError

    if isinstance(exc, InputError):
        return "job_input_error", f"the job's input cannot be used: {exc}"
    return "check_crashed", (
        f"internal error while checking this job ({type(exc).__name__}: {exc}); nothing in it is "
        "verified — please report this"
    )


def failed_report(job: Job, why: tuple[str, str]) -> Any:
    """A FAIL report with one HIGH finding for the whole job (input error, crash, timeout, lost worker)."""
    from claimledger.model.finding import Finding, Reason, Status
    from claimledger.model.report import Report
    from claimledger.reconcile import outcome_of, tiered

    reason, message = why
    (finding,) = tiered([Finding("job", "batch", Status.ERROR, Reason(reason), message)])
    return Report(outcome=outcome_of([finding]), findings=[finding], claims_total=0,
                  reproducibility={"ledger": {"path": job.ledger}, "draft": job.draft})  # fmt: skip


def finish(job: Job, report: Any, key: str, seconds: float) -> JobResult:
    envelope = report.to_dict()
    envelope["job"] = {"index": job.index, "ledger": job.ledger, "draft": job.draft, "key": key}
    line = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
    return JobResult(job.index, line, report.outcome.value, report.exit_code, seconds)
