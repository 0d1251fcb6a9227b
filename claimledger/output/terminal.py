"""The terminal: a rich summary on stdout, a progress bar on stderr.

Used only when the stream is a terminal; pipes, files and tests get plain
Markdown and no progress. ``NO_COLOR`` (any non-empty value) turns colour off;
``--quiet`` turns the progress bar off.
"""

from __future__ import annotations

import io
import os
import sys
import time
from typing import IO

from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from claimledger.model.finding import Finding
from claimledger.model.report import Outcome, Report
from claimledger.numbers import format_number
from claimledger.output._view import TIER_KEYS, evidence_place, location_text, parse_diff, tier_key

PROGRESS_DELAY = 0.5  # seconds of work before a progress bar appears

_TIER_STYLE = {
    "HIGH": "bold red",
    "MED": "bold yellow",
    "LOW": "bold blue",
    "EXPLAINED": "bold magenta",
    "verified": "bold green",
}
_OUTCOME_STYLE = {
    Outcome.PASS: "bold white on green",
    Outcome.FAIL: "bold white on red",
    Outcome.PARTIAL: "bold black on yellow",
    Outcome.NO_CLAIMS: "bold white on blue",
}
_OUTCOME_TEXT = {
    Outcome.PASS: "every claim verified",
    Outcome.PARTIAL: "no HIGH findings, but some claims could not be checked now (MED)",
    Outcome.FAIL: "not verified while HIGH findings remain",
    Outcome.NO_CLAIMS: "no verifiable factual claims; nothing was verified",
}


def no_color() -> bool:
    """True when the ``NO_COLOR`` convention asks for no colour (https://no-color.org)."""
    return bool(os.environ.get("NO_COLOR"))


def is_terminal(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


def make_console(file: IO[str] | None = None, *, stderr: bool = False, width: int | None = None) -> Console:
    return Console(
        file=file, stderr=stderr, no_color=no_color(), width=width, highlight=False, soft_wrap=False
    )


def _detail(f: Finding) -> Text:
    text = Text(f.message)
    if f.diff:
        text.append("\ndiff: ", style="dim")
        for kind, part in parse_diff(f.diff):
            if kind == "del":
                text.append(f"[-{part}-]", style="red strike")
            elif kind == "ins":
                text.append(f"{{+{part}+}}", style="bold green")
            else:
                text.append(part)
    if f.nearest is not None:
        text.append(f"\nnearest ({evidence_place(f.nearest)}): ", style="dim")
        text.append("“" + " ".join(f.nearest.text.replace("\ufffe", "-").split()) + "”")
    if f.evidence is not None and not f.verified:
        text.append(f"\nevidence ({evidence_place(f.evidence)}): ", style="dim")
        text.append("“" + " ".join(f.evidence.text.replace("\ufffe", "-").split()) + "”")
    return text


def summary(report: Report) -> Group:
    """The renderable: outcome panel with counts, then a table of findings (worst first)."""
    counts = report.counts
    head = Text()
    head.append(f" {report.outcome.value} ", style=_OUTCOME_STYLE[report.outcome])
    head.append(f"  {_OUTCOME_TEXT[report.outcome]}\n")
    if not report.findings and report.claims_total and report.outcome is Outcome.PASS:
        # the unlisted audit reports nothing when all is backed: "0 verified" would read as a failure
        head.append(f"{report.claims_total} figures and quotations checked: all backed, no findings")
    else:
        head.append(f"{report.claims_total} claims checked: ")
        for i, key in enumerate(TIER_KEYS):
            if i:
                head.append(", ")
            head.append(f"{counts.get(key, 0)} {key}", style=_TIER_STYLE[key] if counts.get(key, 0) else "dim")
    ledger = report.reproducibility.get("ledger")
    if isinstance(ledger, dict) and ledger.get("path"):
        head.append(f"\nledger: {ledger['path']}", style="dim")
    parts: list[Panel | Table | Text] = [
        Panel(head, title="claimledger", title_align="left", box=box.ROUNDED)
    ]
    if not report.fail_closed:
        parts.append(
            Text(
                "Warning: --no-fail-closed: HIGH findings are reported as warnings and did not fail "
                "the run. They are still HIGH.",
                style="yellow",
            )
        )
    for note in report.notes:
        if "--no-fail-closed" not in note:
            parts.append(Text(note, style="yellow"))
    rank = {key: i for i, key in enumerate(TIER_KEYS)}
    findings = sorted(enumerate(report.findings), key=lambda p: (rank[tier_key(p[1])], p[0]))
    if findings:
        table = Table(box=box.SIMPLE_HEAD, show_lines=False, expand=True, pad_edge=False)
        table.add_column("ID", no_wrap=True)
        table.add_column("Tier", no_wrap=True)
        table.add_column("Reason", no_wrap=True)
        table.add_column("Where", no_wrap=True)
        table.add_column("Finding", ratio=1)
        for _, f in findings:
            key = tier_key(f)
            detail = _detail(f)
            if f.verified and f.expected is not None:
                detail = Text(f"recomputed {format_number(f.expected)}")
            elif f.verified and f.evidence is not None:
                detail = Text(evidence_place(f.evidence))
            table.add_row(
                f.claim_id, Text(key, style=_TIER_STYLE[key]), f.reason.value, location_text(f), detail
            )
        parts.append(table)
    return Group(*parts)


def print_summary(report: Report, console: Console | None = None) -> None:
    (console or make_console()).print(summary(report))


def summary_text(report: Report, *, width: int = 120, color: bool = False) -> str:
    """The summary as a string (ANSI colours only when ``color``)."""
    console = Console(
        width=width,
        record=True,
        force_terminal=color,
        no_color=not color,
        highlight=False,
        file=io.StringIO(),
    )
    console.print(summary(report))
    return console.export_text(styles=color)


class TerminalProgress:
    """``progress(stage, done, total)`` for :func:`claimledger.gate`: a bar on stderr.

    Silent unless stderr is a terminal and ``quiet`` is false; the bar appears only
    once the work has taken longer than :data:`PROGRESS_DELAY`, and is removed when
    done so the report that follows stays clean.
    """

    def __init__(self, quiet: bool = False, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and is_terminal(self.stream)
        self.started = time.monotonic()
        self.shown = False
        self._progress: Progress | None = None
        self._tasks: dict[str, TaskID] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._progress is None:
            if time.monotonic() - self.started < PROGRESS_DELAY:
                return
            console = Console(file=self.stream, no_color=no_color(), highlight=False)
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )
            self._progress.start()
            self.shown = True
        task = self._tasks.get(stage)
        if task is None:
            task = self._progress.add_task(stage, total=max(total, 0))
            self._tasks[stage] = task
        self._progress.update(task, completed=done, total=max(total, 0))

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
