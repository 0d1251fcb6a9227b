"""Options shared by the draft commands (extract, mark, lint, audit, check DRAFT)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from claimledger.extract.formats import FORMATS  # not extract.draft: its parsers load only for a draft

DRAFT_ARG = click.argument("draft", type=click.Path(path_type=Path, dir_okay=True))


def source_options(fn: Any) -> Any:
    options = [
        click.option("--source", "-s", "source_pairs", multiple=True, metavar="KEY=PATH",
                     help="Resolve citation KEY to this file or URL (repeatable; overrides the ledger)."),
        click.option("--draft-format", type=click.Choice(FORMATS),
                     help="Draft format [default: from the extension: .md/.qmd markdown, .tex latex, else text]."),
    ]  # fmt: skip
    for option in reversed(options):
        fn = option(fn)
    return fn


def allow_options(fn: Any) -> Any:
    options = [
        click.option("--allow", "allow", multiple=True, metavar="REGEX",
                     help="Do not audit a figure, quotation or key that this regex (RE2: linear time, no lookarounds or backreferences) matches in full (repeatable)."),
        click.option("--allow-file", type=click.Path(path_type=Path, dir_okay=False),
                     help="File of allow patterns, one regex a line (# comments)."),
        click.option("--section", metavar="HEADING", help="Audit only the section under this heading."),
    ]  # fmt: skip
    for option in reversed(options):
        fn = option(fn)
    return fn


def sources_from(kw: dict[str, Any]) -> dict[str, str]:
    pairs = kw.get("source_pairs") or ()
    if not pairs:
        return {}
    from claimledger._drafts import parse_source_pairs  # the draft modules only when they are needed

    return parse_source_pairs(pairs)


def allow_from(kw: dict[str, Any]) -> list[str]:
    patterns = list(kw.get("allow") or ())
    if kw.get("allow_file"):
        from claimledger.checks.unlisted import read_allow_file

        patterns += read_allow_file(str(kw["allow_file"]))
    return patterns
