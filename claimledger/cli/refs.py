"""``claimledger refs FILE.bib``: check a bibliography alone, with a progress bar."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from claimledger._config import DEFAULT_REFS_TIMEOUT
from claimledger._exceptions import InputError
from claimledger.cli._common import FORMATS, _emit, _fail_input, _Progress, render
from claimledger.cli._group import cli


@cli.command()
@click.argument("bibliography", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="markdown", show_default=True,
              help="Report format.")
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the report to this file (atomically) instead of stdout.")
@click.option("--offline", is_flag=True,
              help="Do not ask the services: answers only from the cache; the rest is MED 'not checked'.")
@click.option("--timeout", type=click.FloatRange(0.1), default=DEFAULT_REFS_TIMEOUT, show_default=True,
              help="Seconds per service request.")
@click.option("--allow-private-urls", is_flag=True,
              help="Allow service base URLs on loopback, private or link-local addresses.")
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False),
              help="Cache folder for service answers [default: $CLAIMLEDGER_CACHE_DIR or ~/.cache/claimledger].")
@click.option("--refresh", is_flag=True, help="Ask the services again instead of using cached answers.")
@click.option("--no-fail-closed", is_flag=True, help="Report HIGH findings as warnings; do not exit 1.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output on stderr.")  # fmt: skip
def refs(bibliography: tuple[Path, ...], **kw: Any) -> None:
    """Check a bibliography (.bib or CSL-JSON) against Crossref, DataCite, arXiv and OpenAlex.

    Each entry is verified (every given field confirmed, naming the service),
    or not found / mismatched / its DOI names another work / retracted (HIGH),
    corrected (LOW), or not checked because a service failed (MED).

    \b
    Example:
      claimledger refs paper.bib
      claimledger refs refs.json --format json -o refs-report.json
    """
    from claimledger.refs.api import check_bibliography

    progress = _Progress(kw["quiet"])
    try:
        report = check_bibliography(
            list(bibliography), offline=kw["offline"], timeout=kw["timeout"],
            allow_private_urls=kw["allow_private_urls"], cache_dir=kw["cache_dir"], refresh=kw["refresh"],
            fail_closed=not kw["no_fail_closed"], progress=progress,
        )  # fmt: skip
    except InputError as exc:
        progress.close()
        _fail_input(str(exc))
        return
    progress.close()
    _emit(render(report, kw["fmt"]), kw["output"])
    sys.exit(report.exit_code)
