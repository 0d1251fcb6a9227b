"""The MCP server (stdio): a writing agent gets its [V]/[D] marks from the program over a tool call.

Seed 004: a mark the writer sets itself proves nothing; the writer lists what
it quotes, the program checks each literally and writes the marks. Tools:

* ``verify_quotes``  - quotes ({id, source, quote[, statement]}) against named sources
* ``verify_numbers`` - figures recomputed from datasets (SQL or a ledger metric)
* ``check_ledger``   - ``claimledger check [DRAFT] --ledger L``
* ``mark_draft``     - the draft with every mark recomputed (written only when asked)
* ``lint_draft``     - a [V] that does not re-verify, a cited quotation without a mark
* ``audit_summary``  - figures, quotations and citation keys no ledger claim backs
* ``verify_references`` - bibliography entries against Crossref, DataCite, arXiv and OpenAlex

Each returns the report envelope (``Report.to_dict()``); ``mark_draft`` adds the
marked text and ``lint_draft`` the lint lines. Every path is confined to the
root given at start-up. The ``mcp`` SDK is imported only here, when the server
starts: ``pip install 'claimledger[mcp]'``.

``claimledger mcp`` runs every tool call in the same worker pool as the HTTP
service (:mod:`claimledger.server._pool`): calls run in parallel, each stopped
at ``--request-timeout`` (tool error ``timeout``, nothing verified, the worker's
process group killed and replaced), at most ``--queue`` waiting (``busy``).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import Field

from claimledger._config import GateConfig
from claimledger._exceptions import MissingExtraError
from claimledger._version import __version__
from claimledger.model.claim import LedgerReference
from claimledger.server._core import (
    NumberItem,
    QuoteItem,
    Workspace,
    error_info,
    run_audit,
    run_check,
    run_lint,
    run_mark,
    run_numbers,
    run_quotes,
    run_references,
)
from claimledger.server._pool import (
    DEFAULT_MAX_READ_BYTES,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_QUEUE,
    DEFAULT_TIMEOUT,
    PoolError,
    PoolSettings,
    WorkerPool,
    default_size,
)
from claimledger.server.judge_spec import JudgeSpec

INSTALL_HINT = "the MCP server needs the `mcp` package: pip install 'claimledger[mcp]'"

INSTRUCTIONS = """\
claimledger verifies what a writer claims. Never write [V] yourself: list the quotes
you use and call verify_quotes (or write the draft under the root and call mark_draft);
the program writes [V] only where the quote appears literally in the cited source, [D]
otherwise. Numbers are recomputed from data (verify_numbers). Paths are relative to the
server's root. Every result is a report: outcome PASS/PARTIAL/FAIL/NO_CLAIMS, counts,
and one finding per claim with its tier (HIGH/MED/LOW/EXPLAINED), reason and evidence.
"""

T = TypeVar("T")

PathArg = Annotated[str, Field(description="Path relative to the server's root (no `..`).")]
OptPath = Annotated[str | None, Field(description="Path relative to the server's root (no `..`).")]
SourceMap = Annotated[
    dict[str, str] | None,
    Field(description="Source id -> path of a text, Markdown, HTML or PDF file under the root."),
]
DatasetMap = Annotated[
    dict[str, str] | None,
    Field(description="Dataset (table) name -> path of a CSV, Parquet or JSON file under the root."),
]
DraftText = Annotated[
    str | None, Field(description="The draft's text, instead of `draft` (a path); not written anywhere.")
]
Section = Annotated[str | None, Field(description="Audit only the section under this heading.")]
Allow = Annotated[list[str] | None, Field(description="Regexes of figures/quotes/keys not to audit.")]
DraftFormat = Annotated[
    str | None, Field(description="markdown, latex or text [default: from the extension; markdown for text].")
]


# tool kind -> the run function it calls with the workspace and its keyword arguments
RUNNERS: dict[str, Callable[..., dict[str, Any]]] = {
    "quotes": run_quotes, "numbers": run_numbers, "check": run_check, "references": run_references,
    "mark": run_mark, "lint": run_lint, "audit": run_audit,
}  # fmt: skip

RUNNER = "claimledger.server.mcp:run_tool"


def run_tool(ws: Workspace, kind: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Run one tool call (in a pool worker, or in this process when there is no pool)."""
    return RUNNERS[kind](ws, **kwargs)


def _require_sdk() -> None:
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise MissingExtraError(INSTALL_HINT) from None


def _draft_arg(draft: str | None, draft_text: str | None, draft_format: str | None) -> Any:
    from claimledger.server._core import BadRequest, Content

    if (draft is None) == (draft_text is None):
        raise BadRequest("give exactly one of `draft` (a path under the root) or `draft_text`")
    if draft is not None:
        return Content(path=draft, format=draft_format)
    return Content(text=draft_text, format=draft_format or "markdown")


def build_server(ws: Workspace, workers: WorkerPool | None = None) -> Any:
    """The MCP server with claimledger's tools, every path confined to ``ws.root``; with ``workers`` every call
    runs in a worker process under its time limit (the pool is started at the first call), else in this one."""
    _require_sdk()
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    server = MCPServer("claimledger", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    starting: list[asyncio.Lock] = []
    started: list[bool] = []

    def guarded(fn: Callable[[], T]) -> T:
        try:
            return fn()
        except Exception as exc:  # every failure is a tool error with a message, never a crash
            status, code, message = error_info(exc)
            if status >= 500:
                logging.getLogger("claimledger.mcp").exception("tool failed")
            raise ToolError(f"{code}: {message}") from None

    async def call(kind: str, make_args: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Check the arguments here, then run the call in a worker (or inline without a pool)."""
        kwargs = guarded(make_args)
        if workers is None:
            return guarded(lambda: run_tool(ws, kind, kwargs))
        if not starting:
            starting.append(asyncio.Lock())
        async with starting[0]:
            if not started:
                await workers.start()
                started.append(True)
        try:
            answer = await workers.run(kind, kwargs)
        except PoolError as exc:
            raise ToolError(f"{exc.code}: {exc}") from None
        if answer[0] == "ok":
            result: dict[str, Any] = answer[1]
            return result
        raise ToolError(f"{answer[2]}: {answer[3]}")

    @server.tool(annotations=read_only)
    async def verify_quotes(
        quotes: Annotated[list[QuoteItem], Field(min_length=1, description="The quotes to verify.")],
        sources: SourceMap = None,
        ledger: Annotated[
            str | None, Field(description="A ledger under the root whose `sources:` declare the source ids.")
        ] = None,
    ) -> dict[str, Any]:
        """Verify quotes literally against their cited sources; the program decides [V] or [D].

        A quote is verified only when it appears verbatim in the source it names
        (after folding case, whitespace, quote and dash forms, full-width forms).
        A near miss returns the nearest passage and a word diff. With a
        `statement`, the overclaim rules compare the sentence with its quote.
        """
        return await call("quotes", lambda: {"quotes": quotes, "sources": sources, "ledger": ledger})

    @server.tool(annotations=read_only)
    async def verify_numbers(
        numbers: Annotated[list[NumberItem], Field(min_length=1, description="The figures to recompute.")],
        datasets: DatasetMap = None,
        ledger: Annotated[
            str | None, Field(description="A ledger under the root whose `datasets:` and `metrics:` to use.")
        ] = None,
    ) -> dict[str, Any]:
        """Recompute figures from datasets (DuckDB SQL or a ledger metric) and compare within tolerance.

        The displayed precision counts ("12%" covers 11.5-12.5). An unknown
        metric, a failing query or a non-finite result fails closed (HIGH).
        """
        return await call("numbers", lambda: {"numbers": numbers, "datasets": datasets, "ledger": ledger})

    @server.tool(annotations=read_only)
    async def check_ledger(
        ledger: PathArg,
        draft: OptPath = None,
        draft_text: DraftText = None,
        draft_format: DraftFormat = None,
        section: Section = None,
        allow: Allow = None,
    ) -> dict[str, Any]:
        """Check every claim of a ledger (`claimledger check`); with a draft, re-verify its marks and audit it."""

        def args() -> dict[str, Any]:
            d = _draft_arg(draft, draft_text, draft_format) if (draft or draft_text) is not None else None
            return {"ledger": ledger, "draft": d, "section": section, "allow": allow or ()}

        return await call("check", args)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True))
    async def verify_references(
        bibliography: OptPath = None,
        bibliography_text: Annotated[
            str | None, Field(description="BibTeX/BibLaTeX or CSL-JSON text, instead of `bibliography` (a path).")
        ] = None,
        bibliography_format: Annotated[
            str | None, Field(description="bibtex (default) or csl-json, for `bibliography_text`.")
        ] = None,
        references: Annotated[
            list[LedgerReference] | None,
            Field(description="Entries {key, title, authors, year, venue, doi, arxiv} (as under `references:`)."),
        ] = None,
        offline: Annotated[bool, Field(description="Answers only from the cache; the rest MED 'not checked'.")] = False,
    ) -> dict[str, Any]:
        """Check that cited works exist and match their entries (Crossref, DataCite, arXiv, OpenAlex).

        One finding per entry, claim_id = its citation key: verified (naming the
        service), or reference_not_found / reference_mismatch / doi_resolves_elsewhere
        / reference_retracted (HIGH), reference_corrected (LOW), a service failure (MED).
        """

        def args() -> dict[str, Any]:
            from claimledger.server._core import BadRequest, Content

            if bibliography is not None and bibliography_text is not None:
                raise BadRequest("give at most one of `bibliography` (a path) or `bibliography_text`")
            bib: Any = bibliography
            if bibliography_text is not None:
                bib = Content(text=bibliography_text, format=bibliography_format or "bibtex")
            return {"bibliography": bib, "references": references, "offline": offline}

        return await call("references", args)

    @server.tool()
    async def mark_draft(
        draft: OptPath = None,
        draft_text: DraftText = None,
        draft_format: DraftFormat = None,
        ledger: OptPath = None,
        sources: SourceMap = None,
        write_to: Annotated[
            str | None,
            Field(
                description="Write the marked draft here (under the root, atomically). Default: write nothing."
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Recompute every [V]/[D] mark of a draft; returns the marked text (`marked_text`) and the report.

        The writer's marks are discarded: [V] only where the quotation is found
        verbatim in a cited source or the figure's ledger claim recomputes, [D]
        otherwise. Nothing else in the text changes. Nothing is written unless
        `write_to` is given.
        """
        return await call("mark", lambda: {"draft": _draft_arg(draft, draft_text, draft_format), "ledger": ledger,
                                           "sources": sources, "write_to": write_to})  # fmt: skip

    @server.tool(annotations=read_only)
    async def lint_draft(
        draft: OptPath = None,
        draft_text: DraftText = None,
        draft_format: DraftFormat = None,
        ledger: OptPath = None,
        sources: SourceMap = None,
    ) -> dict[str, Any]:
        """Lint a draft's marks: `lint.ok` is false when a [V] does not re-verify or a cited quotation is unmarked.

        `lint.lines` reads `file:line:col: message [reason]`.
        """
        return await call("lint", lambda: {"draft": _draft_arg(draft, draft_text, draft_format), "ledger": ledger,
                                           "sources": sources})  # fmt: skip

    @server.tool(annotations=read_only)
    async def audit_summary(
        ledger: PathArg,
        draft: OptPath = None,
        draft_text: DraftText = None,
        draft_format: DraftFormat = None,
        section: Section = None,
        allow: Allow = None,
    ) -> dict[str, Any]:
        """Flag every figure, quotation and citation key in a draft or summary that no ledger claim backs (HIGH)."""
        return await call("audit", lambda: {"draft": _draft_arg(draft, draft_text, draft_format), "ledger": ledger,
                                            "section": section, "allow": allow or ()})  # fmt: skip

    return server


def serve_stdio(
    root: str | Path,
    *,
    config: GateConfig | None = None,
    allow_urls: bool = False,
    judge: JudgeSpec | None = None,
    workers: int | None = None,
    queue: int | None = None,
    request_timeout: float | None = None,
    max_requests: int | None = None,
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
) -> None:
    """Run the MCP server on stdin/stdout until the client closes the connection; every tool call runs in
    a pool of ``workers`` processes (default: the cores) under ``request_timeout``."""
    _require_sdk()
    ws = Workspace.open(root, config=config, allow_urls=allow_urls, judge=judge, max_read_bytes=max_read_bytes)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    settings = PoolSettings(
        ws.root, ws.config, allow_urls, size=workers or default_size(), queue=DEFAULT_QUEUE if queue is None else queue,
        timeout=DEFAULT_TIMEOUT if request_timeout is None else request_timeout,
        max_requests=DEFAULT_MAX_REQUESTS if max_requests is None else max_requests, judge=judge, runner=RUNNER,
        max_read_bytes=max_read_bytes,
    )  # fmt: skip
    pool = WorkerPool(settings)
    try:
        build_server(ws, pool).run("stdio")
    finally:
        asyncio.run(pool.stop())
