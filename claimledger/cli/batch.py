"""``claimledger batch``: many (ledger, draft) jobs, one JSON report per line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from claimledger._exceptions import InputError
from claimledger.cli._common import (
    _fail_input,
    _isatty,
    check_judge_options,
    config_from,
    judge_options,
    refs_options,
    run_options,
    write_output,
)
from claimledger.cli._draft_options import allow_from, allow_options, source_options, sources_from
from claimledger.cli._group import cli


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False), required=True,
              help="Results file: one JSON report envelope per line, appended as each job finishes.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: worker processes on this machine; ray: Ray tasks (pip install 'claimledger[ray]').")
@click.option("--workers", "-j", type=click.IntRange(1), help="Worker processes (local) or CPUs (ray) [default: the core count].")
@click.option("--ray-address", metavar="ADDR", help="Join this Ray cluster (ray://host:10001 or auto) instead of starting a local Ray.")
@click.option("--resume", is_flag=True, help="Skip jobs whose inputs and options match a line already in --output.")
@click.option("--job-timeout", type=click.FloatRange(0), default=900.0, show_default=True,
              help="Seconds one job may run before it is stopped (HIGH finding for that job); 0 = no limit.")
@click.option("--summary", "summary_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Also write the batch summary (outcomes, slowest jobs, failures) to this JSON file.")
@click.option("--no-fail-closed", is_flag=True, help="Report HIGH findings as warnings; a FAIL job exits 3, not 1.")
@run_options
@refs_options
@source_options
@allow_options
@judge_options
def batch(paths: tuple[Path, ...], **kw: Any) -> None:
    """Check many drafts: every PATH is a ledger, a folder, or a manifest of (ledger, draft) pairs.

    \b
    A folder is searched recursively for ledger.yaml / ledger.json; a job's draft is the
    ledger's `draft:` field, else the one draft.md/report.md/digest.md (.qmd, .tex, .txt)
    beside it. A manifest holds JSON lines {"ledger": ..., "draft": ...} or text lines
    "LEDGER [DRAFT]". Every check option applies to every job.

    \b
    Each finished job appends one line to --output: the JSON report envelope of
    `check --format json` plus "job" (index, ledger, draft, resume key). A job whose
    ledger is malformed, that crashes, or that runs past --job-timeout is a line with a
    HIGH finding; the batch goes on. Exit code: the worst job's (1 FAIL > 3 PARTIAL >
    4 NO_CLAIMS > 0 PASS); 2 when the batch cannot start; 130 when interrupted (the
    results file stays valid: run again with --resume to finish).

    \b
    Example:
      claimledger batch drafts/ -o results.jsonl --summary summary.json
      claimledger batch manifest.jsonl -o results.jsonl --resume --workers 8
      claimledger batch drafts/ -o results.jsonl --engine ray --ray-address auto
    """
    from claimledger.batch import JobOptions, run_batch

    try:
        config = config_from({**kw, "no_fail_closed": kw["no_fail_closed"]})
        options = JobOptions(
            config=config, sources=tuple(sorted(sources_from(kw).items())), allow=tuple(allow_from(kw)),
            section=kw["section"], draft_format=kw["draft_format"], summary_section=kw["summary_section"],
            judge=_judge_settings(kw),
        )  # fmt: skip
        progress = _BatchProgress(kw["quiet"])
        try:
            summary = run_batch(
                list(paths), kw["output"], options, engine=kw["engine"], workers=kw["workers"],
                ray_address=kw["ray_address"], resume=kw["resume"],
                job_timeout=kw["job_timeout"] or None, progress=progress,
            )  # fmt: skip
        finally:
            progress.close()
    except InputError as exc:
        _fail_input(str(exc))
        return
    click.echo(summary.text(), err=True)
    if kw["summary_path"] is not None:
        try:
            text = json.dumps(summary.to_dict(), ensure_ascii=False, indent=2) + "\n"
            write_output(kw["summary_path"], text.encode("utf-8"))
        except OSError as exc:
            _fail_input(f"cannot write the summary to {kw['summary_path']}: {exc.strerror or exc}")
    sys.exit(130 if summary.interrupted else summary.exit_code)


def _judge_settings(kw: dict[str, Any]) -> Any:
    """The judge every job builds for itself (checked here, so a missing key or extra fails before any job)."""
    check_judge_options(kw)
    if kw["judge"] is None:
        return None
    from claimledger.batch.job import JudgeSettings
    from claimledger.judge import make_judge

    make_judge(kw["judge"], kw["judge_model"], kw["judge_url"], timeout=kw["judge_timeout"]).close()
    cache = str(kw["judge_cache"]) if kw["judge_cache"] is not None else None
    return JudgeSettings(kw["judge"], kw["judge_model"], kw["judge_url"], kw["judge_timeout"], cache,
                         kw["judge_questions"])  # fmt: skip


class _BatchProgress:
    """A rich progress bar on stderr (jobs done, failures, rate); silent when not a terminal or --quiet."""

    def __init__(self, quiet: bool) -> None:
        self._bar: Any = None
        self._task: Any = None
        if quiet or not _isatty(sys.stderr):
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._bar = Progress(
            TextColumn("batch"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[failures]} failed"), TextColumn("{task.fields[rate]} jobs/s"),
            TimeRemainingColumn(), console=Console(stderr=True), transient=True,
        )  # fmt: skip
        self._bar.start()
        self._started: float | None = None
        self._first = 0

    def __call__(self, done: int, total: int, failures: int) -> None:
        if self._bar is None:
            return
        import time

        now = time.monotonic()
        if self._started is None:
            self._started, self._first = now, done
        elapsed = now - self._started
        rate = f"{(done - self._first) / elapsed:.1f}" if elapsed > 0 else "-"
        if self._task is None:
            self._task = self._bar.add_task("batch", total=total, failures=0, rate="-")
        self._bar.update(self._task, completed=done, failures=failures, rate=rate)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
