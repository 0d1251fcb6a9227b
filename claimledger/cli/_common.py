"""Options and helpers shared by the subcommands.

Exit codes: 0 PASS, 1 FAIL, 2 usage or input error, 3 PARTIAL (or FAIL under
``--no-fail-closed``), 4 NO_CLAIMS.
"""

from __future__ import annotations

import hashlib
import re
import stat
import sys
from pathlib import Path
from typing import Any

import click

from claimledger._config import (
    DEFAULT_EXTRACT_MEMORY,
    DEFAULT_FETCH_TIMEOUT,
    DEFAULT_MAX_PDF_PAGES,
    DEFAULT_MAX_SOURCE_BYTES,
    DEFAULT_MAX_SOURCE_CHARS,
    DEFAULT_MIN_QUOTE_CHARS,
    DEFAULT_PDF_TIMEOUT,
    DEFAULT_REFS_TIMEOUT,
    DEFAULT_SQL_MEMORY,
    DEFAULT_SQL_PROCESS_MEMORY,
    DEFAULT_SQL_TIMEOUT,
    DEFAULT_TOLERANCE,
    GateConfig,
)
from claimledger._exceptions import InputError
from claimledger._files import atomic_write
from claimledger.model.report import EXIT_USAGE, Report
from claimledger.output.json import render_json
from claimledger.output.markdown import render_markdown

FORMATS = ("markdown", "json", "sarif", "html")


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _Silent:
    """No progress output (not a terminal, or --quiet): rich is not even imported."""

    def __call__(self, stage: str, done: int, total: int) -> None:
        return None

    def close(self) -> None:
        return None


def _Progress(quiet: bool) -> Any:
    """Progress bar on stderr for runs that take more than a moment; silent when not a terminal."""
    if quiet or not _isatty(sys.stderr):
        return _Silent()
    from claimledger.output.terminal import TerminalProgress

    return TerminalProgress(quiet=quiet)


class _Rendered(str):
    """A rendered report that remembers its report, so a terminal can get the rich summary."""

    report: Report | None = None


def _fail_input(message: str) -> None:
    click.echo(f"claimledger: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _emit(text: str, output: Path | None) -> None:
    """Write the report: to ``output``, or to stdout (a rich summary when stdout is a terminal)."""
    if output is None:
        if isinstance(text, _Rendered) and text.report is not None and _isatty(sys.stdout):
            from claimledger.output.terminal import print_summary

            print_summary(text.report)
            return
        click.echo(text, nl=False)
    else:
        try:
            write_output(output, text.encode("utf-8"))
        except OSError as exc:
            _fail_input(f"cannot write the report to {output}: {exc.strerror or exc}")


def write_output(path: Path, data: bytes) -> None:
    """A regular file (or a new one) atomically; a device or pipe (``/dev/stdout``, a FIFO) by writing into it.

    Never renames a file over a device node. Raises :class:`OSError` (full disk, read-only folder, ...).
    """
    try:
        regular = stat.S_ISREG(path.stat().st_mode)
    except FileNotFoundError:
        regular = True
    if regular:
        atomic_write(path, data)
        return
    with path.open("wb", buffering=0) as fh:
        view = memoryview(data)
        while view:
            view = view[fh.write(view) or 0 :]


def _draft_of(report: Report) -> tuple[str | None, str | None]:
    """The draft's text and name when the report names a draft file that is still as checked."""
    draft = report.reproducibility.get("draft")
    path = draft.get("path") if isinstance(draft, dict) else draft
    if not isinstance(path, str) or not path:
        # else the one draft file that the findings' locations name (``check DRAFT``)
        files = {str(f.location["file"]) for f in report.findings
                 if f.location and f.location.get("file") and f.location.get("in") != "ledger"}  # fmt: skip
        if len(files) != 1:
            return None, None
        path = files.pop()
    try:
        raw = Path(path).read_bytes()
    except OSError:
        return None, None
    sha = draft.get("sha256") if isinstance(draft, dict) else None
    if isinstance(sha, str) and sha != hashlib.sha256(raw).hexdigest():
        return None, None  # changed since the check: its lines no longer match the findings
    return raw.decode("utf-8", errors="replace"), path


def render(report: Report, fmt: str) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "sarif":
        from claimledger.output.sarif import render_sarif

        return render_sarif(report)
    if fmt == "html":
        from claimledger.output.html import render_html  # jinja2 is loaded only when asked for

        draft_text, draft_name = _draft_of(report)
        return render_html(report, draft_text, draft_name)
    text = _Rendered(render_markdown(report))
    text.report = report
    return text


def _memory_size(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A DuckDB memory size such as ``512MB`` or ``2GB``."""
    if not re.fullmatch(r"\d{1,9}(\.\d{1,3})?\s?(K|M|G|T)?i?B", value.strip(), re.IGNORECASE):
        raise click.BadParameter(f"{value!r} is not a size such as 512MB or 2GB")
    return value.strip()


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _byte_size(ctx: click.Context, param: click.Parameter, value: str | int) -> int:
    """A size such as ``1GB`` or ``768MB`` (binary units) in bytes; at least 64 MB."""
    if isinstance(value, int):
        return value
    match = re.fullmatch(r"(\d{1,9}(?:\.\d{1,3})?)\s?([KMGT]?)i?B", value.strip(), re.IGNORECASE)
    if not match:
        raise click.BadParameter(f"{value!r} is not a size such as 768MB or 1GB")
    size = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
    if size < 64 << 20:
        raise click.BadParameter(f"{value!r} is too small: at least 64MB")
    return size


def _apply(fn: Any, options: list[Any]) -> Any:
    for option in reversed(options):
        fn = option(fn)
    return fn


def report_options(fn: Any) -> Any:
    """--ledger, --format, --output, --no-fail-closed."""
    options = [
        click.option("--ledger", "-l", type=click.Path(path_type=Path),
                     help="Ledger file (YAML or JSON). Paths inside it are relative to it. Without it, "
                          "give DRAFT and --source KEY=PATH: the claims are drafted as `extract` does."),
        click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="markdown",
                     show_default=True, help="Report format."),
        click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False),
                     help="Write the report to this file (atomically) instead of stdout."),
        click.option("--no-fail-closed", is_flag=True,
                     help="Report HIGH findings as warnings (still listed as HIGH); do not exit 1."),
    ]  # fmt: skip
    return _apply(fn, options)


def run_options(fn: Any) -> Any:
    """How a run checks: metrics, tolerances, fetching, caches and resource limits (every command)."""
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
        click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False),
                     help="Cache for fetched URLs [default: $CLAIMLEDGER_CACHE_DIR or ~/.cache/claimledger]."),
        click.option("--refresh", is_flag=True, help="Fetch URL sources again instead of using the cache."),
        click.option("--max-source-bytes", type=click.IntRange(1), default=DEFAULT_MAX_SOURCE_BYTES,
                     show_default=True, help="Larger sources are not read (HIGH finding)."),
        click.option("--max-pdf-pages", type=click.IntRange(1), default=DEFAULT_MAX_PDF_PAGES,
                     show_default=True, help="PDFs with more pages are not read (HIGH finding)."),
        click.option("--extract-timeout", "--pdf-timeout", "pdf_timeout", type=click.FloatRange(0.1),
                     default=DEFAULT_PDF_TIMEOUT, show_default=True,
                     help="Seconds to extract one PDF or HTML source (in a child process; stopped after, HIGH finding)."),
        click.option("--sql-timeout", type=click.FloatRange(0.01), default=DEFAULT_SQL_TIMEOUT, show_default=True,
                     help="Seconds per ledger SQL query; a longer query is stopped (HIGH finding)."),
        click.option("--sql-memory-limit", default=DEFAULT_SQL_MEMORY, show_default=True, metavar="SIZE",
                     callback=_memory_size,
                     help="DuckDB memory limit for ledger SQL, e.g. 512MB or 2GB."),
        click.option("--sql-process-memory", default="1GB", show_default=True, metavar="SIZE",
                     callback=_byte_size,
                     help="Memory limit of the process that runs ledger SQL (killed past it, HIGH finding)."),
        click.option("--extract-memory", default="1GB", show_default=True, metavar="SIZE", callback=_byte_size,
                     help="Memory limit of the process that extracts a PDF or HTML source (HIGH finding past it)."),
        click.option("--max-source-chars", type=click.IntRange(1), default=DEFAULT_MAX_SOURCE_CHARS,
                     show_default=True, help="Text extracted from one PDF or HTML source beyond this is a HIGH finding."),
        click.option("--quiet", "-q", is_flag=True, help="No progress output on stderr."),
    ]  # fmt: skip
    return _apply(fn, options)


def refs_options(fn: Any) -> Any:
    """--bib, --offline, --fetch-sources, --refs-timeout: the reference check (``check`` and ``batch``)."""
    options = [
        click.option("--bib", "bib", type=click.Path(path_type=Path, dir_okay=False), multiple=True,
                     help="BibTeX/BibLaTeX (.bib) or CSL-JSON (.json) bibliography to check (repeatable)."),
        click.option("--offline", is_flag=True,
                     help="Do not ask the reference services: answers only from the cache; the rest is MED "
                          "'not checked'."),
        click.option("--fetch-sources", is_flag=True,
                     help="A quote citing a verified bibliography entry that `sources:` does not declare is checked "
                          "against the entry's arXiv or open-access PDF (fetched under the URL policy, cached)."),
        click.option("--refs-timeout", type=click.FloatRange(0.1), default=DEFAULT_REFS_TIMEOUT,
                     show_default=True, help="Seconds per reference-service request (Crossref, DataCite, arXiv, OpenAlex)."),
    ]  # fmt: skip
    return _apply(fn, options)


def judge_options(fn: Any) -> Any:
    """--judge and its settings: the independent meaning check (``check`` and ``batch``)."""
    options = [
        click.option("--judge", type=click.Choice(["openai", "anthropic", "nli"]),
                     help="Also check meaning with an independent judge that never sees the draft."),
        click.option("--judge-model", help="Model name (openai/anthropic) or folder of a local NLI model (nli)."),
        click.option("--judge-url", help="Base URL of the judge endpoint [default: $CLAIMLEDGER_JUDGE_URL or the vendor's]."),
        click.option("--judge-timeout", type=click.FloatRange(0.1), default=60.0, show_default=True,
                     help="Seconds per judge request."),
        click.option("--judge-cache", type=click.Path(path_type=Path, dir_okay=False),
                     help="SQLite cache of judge answers [default: in the cache folder]."),
        click.option("--judge-questions", type=click.Choice(["template", "model"]), default="template",
                     show_default=True, help="Verification questions from a fixed template, or written by the model "
                                             "in its own fresh request that sees only the claim."),
        click.option("--summary-section", metavar="HEADING",
                     help="Every sentence under this heading must keep the scope (population, place, period) of the "
                          "claims it rests on; with --judge each must also be supported by the rest of the draft."),
    ]  # fmt: skip
    return _apply(fn, options)


def check_judge_options(kw: dict[str, Any]) -> None:
    """Refuse judge settings without --judge, and --judge without a model (exit 2 before any work)."""
    if kw["judge"] is None:
        if kw["judge_model"] or kw["judge_url"]:
            raise InputError("--judge-model/--judge-url need --judge openai|anthropic|nli")
    elif not kw["judge_model"]:
        raise InputError(f"--judge {kw['judge']} needs --judge-model")


def common_check_options(fn: Any) -> Any:
    return report_options(run_options(fn))


def config_from(kw: dict[str, Any]) -> GateConfig:
    return GateConfig(
        fail_closed=not kw.get("no_fail_closed", False),
        min_quote_chars=kw["min_quote_chars"],
        default_tolerance=kw["tolerance"],
        fetch_timeout=kw["timeout"],
        allow_private_urls=kw["allow_private_urls"],
        cache_dir=kw["cache_dir"],
        refresh=kw["refresh"],
        max_source_bytes=kw["max_source_bytes"],
        max_pdf_pages=kw["max_pdf_pages"],
        pdf_timeout=kw.get("pdf_timeout", DEFAULT_PDF_TIMEOUT),
        sql_timeout=kw.get("sql_timeout", DEFAULT_SQL_TIMEOUT),
        sql_memory_limit=kw.get("sql_memory_limit", DEFAULT_SQL_MEMORY),
        sql_process_memory=kw.get("sql_process_memory", DEFAULT_SQL_PROCESS_MEMORY),
        extract_memory=kw.get("extract_memory", DEFAULT_EXTRACT_MEMORY),
        max_source_chars=kw.get("max_source_chars", DEFAULT_MAX_SOURCE_CHARS),
        metrics_files=tuple(kw["metrics_files"]),
        bib_files=tuple(kw.get("bib") or ()),
        offline=bool(kw.get("offline", False)),
        fetch_sources=bool(kw.get("fetch_sources", False)),
        refs_timeout=kw.get("refs_timeout") or DEFAULT_REFS_TIMEOUT,
    )


