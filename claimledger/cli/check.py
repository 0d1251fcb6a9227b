"""``claimledger check``: verify every claim of a ledger."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from claimledger._api import gate
from claimledger._exceptions import InputError
from claimledger.cli._common import (
    _emit,
    _fail_input,
    _Progress,
    check_judge_options,
    common_check_options,
    config_from,
    judge_options,
    refs_options,
    render,
)
from claimledger.cli._draft_options import allow_from, allow_options, source_options, sources_from
from claimledger.cli._group import cli

if TYPE_CHECKING:
    from claimledger.judge import Judge


@cli.command()
@click.argument("draft", required=False, type=click.Path(path_type=Path))
@common_check_options
@refs_options
@source_options
@allow_options
@click.option("--receipt", type=click.Path(path_type=Path, dir_okay=False),
              help="Write a receipt (RFC 8785 canonical JSON) of this run.")
@judge_options
def check(draft: Path | None, receipt: Path | None, **kw: Any) -> None:
    """Check every claim of a ledger: quotes against sources, numbers against data.

    With DRAFT (.md, .qmd, .tex or text) the draft is checked too: every
    [V]/[D] mark is re-verified and every figure, quotation and citation key
    that no ledger claim backs is a HIGH finding (the unlisted audit).

    Every bibliography entry (the ledger's `references:` and `bibliography:`,
    and --bib files) is looked up on Crossref, DataCite, arXiv and OpenAlex.

    \b
    Without --judge the semantic check is not run, and the report says so:
    an attribution ("Smith (2019) shows X", from the ledger or from every
    cited sentence of DRAFT without a quotation) is then MED "meaning not
    checked" (PARTIAL at best), after its figures and names are checked.

    \b
    Example:
      claimledger check --ledger examples/en/ledger.yaml --metrics examples/en/metrics.py
      claimledger check examples/ja_digest/digest.md --ledger examples/ja_digest/ledger.yaml
      claimledger check --ledger L.yaml --judge openai --judge-model qwen2.5 --judge-url http://127.0.0.1:8080/v1
    """
    progress = _Progress(kw["quiet"])
    try:
        if receipt is not None:  # the receipt's and the draft's modules only when they are asked for
            from claimledger.receipts import ensure_receipt_target

            ensure_receipt_target(receipt)
        config = config_from(kw)
        sources = sources_from(kw)
        ledger: Any = kw["ledger"]
        base_dir = None
        if ledger is None:
            if draft is None:
                raise InputError("check needs --ledger LEDGER, or a DRAFT with --source KEY=PATH")
            if receipt is not None:
                raise InputError("--receipt needs a ledger file (--ledger)")
            from claimledger._drafts import drafted_ledger

            ledger = drafted_ledger(draft, sources, min_quote_chars=config.min_quote_chars,
                                    fmt=kw["draft_format"])  # fmt: skip
            base_dir = Path.cwd()
        judge = _judge_from(kw)
        try:
            report = gate(ledger, base_dir=base_dir, config=config, progress=progress, draft=draft, sources=sources,
                          allow=allow_from(kw), section=kw["section"], draft_format=kw["draft_format"],
                          judge=judge, judge_cache=kw["judge_cache"],
                          summary_section=kw["summary_section"], judge_questions=kw["judge_questions"])  # fmt: skip
        finally:
            if judge is not None:
                judge.close()
        if receipt is not None:
            from claimledger.extract.draft import detect_format, read_draft
            from claimledger.receipts import write_run_receipt

            text = read_draft(draft, kw["draft_format"]).text if draft is not None else None
            fmt = detect_format(draft, kw["draft_format"]) if draft is not None else None
            write_run_receipt(
                receipt, command="check", draft_path=draft, draft_text=text, draft_format=fmt,
                ledger_path=kw["ledger"], extra_sources=sources, config=config,
                outcome=report.outcome.value, findings=report.findings,
            )  # fmt: skip
    except InputError as exc:
        progress.close()
        _fail_input(str(exc))
        return
    progress.close()
    _emit(render(report, kw["fmt"]), kw["output"])
    sys.exit(report.exit_code)


def _judge_from(kw: dict[str, Any]) -> Judge | None:
    check_judge_options(kw)
    if kw["judge"] is None:
        return None
    from claimledger.judge import make_judge

    return make_judge(kw["judge"], kw["judge_model"], kw["judge_url"], timeout=kw["judge_timeout"])
