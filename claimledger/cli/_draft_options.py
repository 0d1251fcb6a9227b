"""Options shared by the draft commands (extract, mark, lint, audit, check DRAFT)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from claimledger._config import DEFAULT_FETCH_TIMEOUT, DEFAULT_MIN_QUOTE_CHARS, DEFAULT_TOLERANCE, GateConfig
from claimledger._drafts import parse_source_pairs
from claimledger.checks.audit import read_allow_file
from claimledger.extract.draft import FORMATS

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
                     help="Do not audit a figure, quotation or key that this regex matches in full (repeatable)."),
        click.option("--allow-file", type=click.Path(path_type=Path, dir_okay=False),
                     help="File of allow patterns, one regex a line (# comments)."),
        click.option("--section", metavar="HEADING", help="Audit only the section under this heading."),
    ]  # fmt: skip
    for option in reversed(options):
        fn = option(fn)
    return fn


def run_options(fn: Any) -> Any:
    options = [
        click.option("--metrics", "metrics_files", type=click.Path(path_type=Path, dir_okay=False),
                     multiple=True, help="Python file registering metrics with @metric (repeatable)."),
        click.option("--min-quote-chars", type=click.IntRange(1), default=DEFAULT_MIN_QUOTE_CHARS,
                     show_default=True, help="Shorter quotes (after normalization) are not verified."),
        click.option("--tolerance", type=click.FloatRange(0), default=DEFAULT_TOLERANCE, show_default=True,
                     help="Default relative tolerance for numbers."),
        click.option("--timeout", type=click.FloatRange(0.1), default=DEFAULT_FETCH_TIMEOUT,
                     show_default=True, help="Seconds to wait for a URL source."),
        click.option("--allow-private-urls", is_flag=True,
                     help="Allow URL sources on loopback, private or link-local addresses."),
    ]  # fmt: skip
    for option in reversed(options):
        fn = option(fn)
    return fn


def sources_from(kw: dict[str, Any]) -> dict[str, str]:
    return parse_source_pairs(kw.get("source_pairs") or ())


def allow_from(kw: dict[str, Any]) -> list[str]:
    patterns = list(kw.get("allow") or ())
    if kw.get("allow_file"):
        patterns += read_allow_file(str(kw["allow_file"]))
    return patterns


def draft_config(kw: dict[str, Any]) -> GateConfig:
    return GateConfig(
        min_quote_chars=kw["min_quote_chars"],
        default_tolerance=kw["tolerance"],
        fetch_timeout=kw["timeout"],
        allow_private_urls=kw["allow_private_urls"],
        metrics_files=tuple(kw["metrics_files"]),
    )
