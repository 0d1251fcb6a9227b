"""Draft commands: ``extract``, ``mark``, ``lint``, ``audit``, ``verify-receipt``.

Exit codes: 0 fine, 1 a problem found (lint, audit, verify-receipt; ``mark
--check``), 2 usage or input error. ``mark`` itself exits 0 even when it
writes [D] marks: it did its job; use ``lint`` or ``check`` to gate.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

import click

from claimledger._exceptions import InputError
from claimledger._files import FileChanged, FileIdentity, atomic_write, replace_if_unchanged
from claimledger.cli._common import _emit, _fail_input, config_from, render, run_options
from claimledger.cli._draft_options import (
    DRAFT_ARG,
    allow_from,
    allow_options,
    source_options,
    sources_from,
)
from claimledger.cli._group import cli
from claimledger.model.report import EXIT_USAGE

_LEDGER = click.option("--ledger", "-l", type=click.Path(path_type=Path),
                       help="Ledger whose `sources` resolve citation keys and whose number claims back figures.")  # fmt: skip


@cli.command("extract")
@DRAFT_ARG
@_LEDGER
@source_options
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the YAML ledger here (atomically) instead of stdout.")  # fmt: skip
@click.option("--min-quote-chars", type=click.IntRange(1), default=8, show_default=True,
              help="Uncited quotations shorter than this are not claims.")  # fmt: skip
def extract_cmd(draft: Path, ledger: Path | None, output: Path | None, min_quote_chars: int, **kw: Any) -> None:
    """Write the YAML ledger a draft implies: its cited quotations and its figures.

    Figures get the placeholder `metric: TODO`, which fails closed until you
    fill in `metric:`, `sql:` or `source:` + `quote:`.
    """
    from claimledger._drafts import extract_ledger  # imported by the command that runs it

    try:
        text = extract_ledger(draft, ledger=ledger, sources=sources_from(kw), min_quote_chars=min_quote_chars,
                              fmt=kw["draft_format"])  # fmt: skip
    except InputError as exc:
        _fail_input(str(exc))
        return
    _emit(text, output)


@cli.command("mark")
@DRAFT_ARG
@_LEDGER
@source_options
@run_options
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the marked draft here (atomically). Default: stdout.")  # fmt: skip
@click.option("--in-place", is_flag=True, help="Replace DRAFT with the marked draft (atomically).")
@click.option("--receipt", type=click.Path(path_type=Path, dir_okay=False),
              help="Write a receipt (RFC 8785 canonical JSON) of this run.")  # fmt: skip
@click.option("--check", "check_only", is_flag=True,
              help="Write nothing; exit 1 when marking would change the draft.")  # fmt: skip
def mark_cmd(draft: Path, ledger: Path | None, output: Path | None, in_place: bool, receipt: Path | None,
             check_only: bool, **kw: Any) -> None:  # fmt: skip
    """Recompute every [V]/[D] mark in DRAFT. The writer's marks are discarded.

    [V] only where the quotation is found verbatim in a cited source, or the
    figure's ledger claim recomputes; [D] otherwise. Cited quotations and
    figures the ledger backs get a mark; nothing else in the file changes.
    """
    from claimledger._drafts import mark
    from claimledger.receipts import ensure_receipt_target, write_run_receipt

    if in_place and output is not None:
        _fail_input("use either --in-place or --output, not both")
    if in_place and draft.suffix.lower() == ".docx":
        _fail_input(f"{draft}: a .docx draft is read as Markdown and cannot be rewritten in place; "
                    "write the marked Markdown with --output FILE.md")  # fmt: skip
        return
    try:
        ensure_receipt_target(receipt)
        sources = sources_from(kw)
        config = config_from(kw)
        identity = _read_identity(draft) if in_place and not check_only else None
        result = mark(draft, ledger=ledger, sources=sources, config=config, fmt=kw["draft_format"])
        target = draft if in_place else output
        if check_only:
            target = None
        elif identity is not None:
            _replace_in_place(draft, identity, result.original, result.text)
        elif target is not None:
            atomic_write(target, result.text.encode("utf-8"))
        else:
            click.echo(result.text, nl=False)
        if receipt is not None and not check_only:
            write_run_receipt(
                receipt, command="mark", draft_path=target, draft_text=result.text,
                draft_format=result.report.reproducibility.get("draft", {}).get("format"),
                ledger_path=ledger, extra_sources=sources, config=config,
                outcome=result.report.outcome.value, findings=result.report.findings,
            )  # fmt: skip
    except InputError as exc:
        _fail_input(str(exc))
        return
    except OSError as exc:
        _fail_input(f"cannot write: {exc}")
        return
    c = result.counts
    click.echo(f"claimledger mark: {c['V']} [V], {c['D']} [D], {c['changed']} changed or added", err=True)
    sys.exit(1 if check_only and result.changed else 0)


def _read_identity(draft: Path) -> FileIdentity | None:
    try:
        return FileIdentity.read(draft)[0]
    except OSError:
        return None  # mark() reports the unreadable draft with its own message


def _replace_in_place(draft: Path, identity: FileIdentity, original: str, marked: str) -> None:
    """Replace DRAFT only if it is still the file that was marked, and only if something changes."""
    if hashlib.sha256(original.encode("utf-8")).hexdigest() != identity.sha256:
        _fail_input(f"{draft} changed while it was being marked; nothing was written. Run mark again")
    data = marked.encode("utf-8")
    if hashlib.sha256(data).hexdigest() == identity.sha256:
        return  # nothing to change: the file is left untouched (same bytes, same modification time)
    try:
        replace_if_unchanged(draft, identity, data)
    except FileChanged:
        _fail_input(f"{draft} changed while it was being marked (an edit or another program); "
                    "nothing was written, your edit is kept. Run mark again")  # fmt: skip


@cli.command("lint")
@DRAFT_ARG
@_LEDGER
@source_options
@run_options
def lint_cmd(draft: Path, ledger: Path | None, **kw: Any) -> None:
    """Fail (exit 1) when a [V] in DRAFT does not re-verify or a cited quotation has no mark.

    Prints `file:line:col: message` lines, for editors, CI and pre-commit.
    """
    from claimledger._drafts import lint

    try:
        result = lint(draft, ledger=ledger, sources=sources_from(kw), config=config_from(kw),
                      fmt=kw["draft_format"])  # fmt: skip
    except InputError as exc:
        _fail_input(str(exc))
        return
    for p in result.problems:
        click.echo(str(p))
    n = len(result.verdicts)
    if result.ok:
        click.echo(f"claimledger lint: {n} marked or cited claims, all marks honest", err=True)
    else:
        click.echo(f"claimledger lint: {len(result.problems)} problem(s) in {n} claims", err=True)
    sys.exit(0 if result.ok else 1)


@cli.command("audit")
@DRAFT_ARG
@click.option("--ledger", "-l", type=click.Path(path_type=Path),
              help="The ledger that backs claims (without it: --source KEY=PATH, claims drafted as `extract` does).")
@source_options
@allow_options
@click.option("--format", "-f", "fmt", type=click.Choice(("markdown", "json")), default="markdown",
              show_default=True, help="Report format.")  # fmt: skip
@click.option("--min-quote-chars", type=click.IntRange(1), default=8, show_default=True,
              help="Uncited quotations shorter than this are not audited.")  # fmt: skip
def audit_cmd(draft: Path, ledger: Path | None, fmt: str, min_quote_chars: int, **kw: Any) -> None:
    """Flag every figure, quotation and citation key in DRAFT that no ledger claim backs (HIGH).

    Without --ledger, give the cited sources with --source KEY=PATH: the claims are drafted
    from the draft as `extract` does, and what they cannot back is reported."""
    from claimledger._config import GateConfig
    from claimledger._drafts import audit

    try:
        backing: Any = ledger
        if ledger is None:
            from claimledger._drafts import drafted_ledger

            backing = drafted_ledger(draft, sources_from(kw), min_quote_chars=min_quote_chars,
                                     fmt=kw["draft_format"])  # fmt: skip
        report = audit(draft, ledger=backing, allow=allow_from(kw), section=kw["section"],
                       config=GateConfig(min_quote_chars=min_quote_chars), fmt=kw["draft_format"])  # fmt: skip
    except InputError as exc:
        _fail_input(str(exc))
        return
    click.echo(render(report, fmt), nl=False)
    sys.exit(report.exit_code)


@cli.command("verify-receipt")
@click.argument("receipt", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--draft", type=click.Path(path_type=Path, dir_okay=False),
              help="The draft to check (default: the path the receipt records).")  # fmt: skip
@click.option("--no-recheck", is_flag=True, help="Compare hashes and marks only; do not re-run the checks.")
def verify_receipt_cmd(receipt: Path, draft: Path | None, no_recheck: bool) -> None:
    """Re-check a receipt: fail (exit 1) when the draft, the ledger, a source, a dataset
    or a mark differs from what the receipt records, or the run gives another result today."""
    from claimledger.receipts import verify_receipt

    try:
        result = verify_receipt(receipt, draft=draft, recheck=not no_recheck)
    except InputError as exc:
        _fail_input(str(exc))
        return
    for problem in result.problems:
        click.echo(f"{receipt}: {problem}")
    if result.ok:
        click.echo(f"{receipt}: OK ({', '.join(result.checked)})")
        sys.exit(0)
    sys.exit(1 if result.problems else EXIT_USAGE)
