"""Options shared by the servers (``mcp`` and ``serve``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from claimledger._config import DEFAULT_FETCH_TIMEOUT, GateConfig
from claimledger.metrics import load_metrics_file
from claimledger.server._limits import (  # not server._pool: `claimledger check` need not import the pool
    DEFAULT_MAX_READ_BYTES,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_QUEUE,
    DEFAULT_TIMEOUT,
)
from claimledger.server.judge_spec import JudgeSpec


def pool_options(fn: Any) -> Any:
    """--workers, --queue, --request-timeout, --worker-max-requests, --max-read-bytes: the worker pool both
    servers run checks in, and what one request may read."""
    options = [
        click.option("--workers", type=click.IntRange(1, 256), default=None,
                     help="Worker processes running checks in parallel [default: the number of cores]."),
        click.option("--queue", type=click.IntRange(0, 100_000), default=DEFAULT_QUEUE, show_default=True,
                     help="Requests that may wait for a worker; one more is refused (HTTP 503 with "
                          "Retry-After; an MCP tool error `busy`)."),
        click.option("--request-timeout", type=click.FloatRange(1), default=DEFAULT_TIMEOUT, show_default=True,
                     help="Seconds one request may run; it is then stopped and nothing is verified "
                          "(HTTP 504; an MCP tool error `timeout`)."),
        click.option("--worker-max-requests", type=click.IntRange(1), default=DEFAULT_MAX_REQUESTS,
                     show_default=True, help="A worker process is replaced after this many requests "
                                             "(memory levels off)."),
        click.option("--max-read-bytes", type=click.IntRange(1), default=DEFAULT_MAX_READ_BYTES,
                     show_default=True, help="Bytes of files under --root one request may read, all together "
                     "(ledger, sources, datasets, draft, bibliographies: each is copied into the request's "
                     "private folder); over it the request is refused (HTTP 400; an MCP tool error)."),
    ]  # fmt: skip
    for option in reversed(options):
        fn = option(fn)
    return fn


def server_options(fn: Any) -> Any:
    """--allow-urls, --metrics, --cache-dir, --timeout, --judge and its settings."""
    options = [
        click.option("--allow-urls", is_flag=True,
                     help="Let ledgers declare http(s) sources (public addresses only); default: files under --root only."),
        click.option("--metrics", "metrics_files", type=click.Path(path_type=Path, dir_okay=False), multiple=True,
                     help="Python file registering metrics with @metric, loaded at start-up (repeatable; trusted code)."),
        click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False),
                     help="Cache for fetched URLs and source indexes [default: $CLAIMLEDGER_CACHE_DIR or ~/.cache/claimledger]."),
        click.option("--timeout", type=click.FloatRange(0.1), default=DEFAULT_FETCH_TIMEOUT, show_default=True,
                     help="Seconds to wait for a URL source (with --allow-urls)."),
        click.option("--judge", type=click.Choice(["openai", "anthropic", "nli"]),
                     help="Check meaning with this independent judge on every check request (set by the operator; "
                          "clients cannot choose it)."),
        click.option("--judge-model", help="Model name (openai/anthropic) or folder of a local NLI model (nli)."),
        click.option("--judge-url", help="Base URL of the judge endpoint [default: $CLAIMLEDGER_JUDGE_URL or the vendor's]."),
        click.option("--judge-timeout", type=click.FloatRange(0.1), default=60.0, show_default=True,
                     help="Seconds per judge request."),
        click.option("--judge-questions", type=click.Choice(["template", "model"]), default="template",
                     show_default=True, help="Verification questions from the template or from the model."),
    ]  # fmt: skip
    for option in reversed(options):
        fn = option(fn)
    return fn


def server_config(kw: dict[str, Any]) -> GateConfig:
    """The servers' run configuration; metrics files are loaded now, so a bad one fails at start-up."""
    metrics = tuple(kw["metrics_files"])
    for path in metrics:
        load_metrics_file(path)
    return GateConfig(metrics_files=metrics, cache_dir=kw["cache_dir"], fetch_timeout=kw["timeout"])


def server_judge(kw: dict[str, Any]) -> JudgeSpec | None:
    """The operator's judge settings (checked now, so a bad one fails at start-up), or None."""
    from claimledger._exceptions import InputError

    if kw.get("judge") is None:
        if kw.get("judge_model") or kw.get("judge_url"):
            raise InputError("--judge-model/--judge-url need --judge openai|anthropic|nli")
        return None
    if not kw.get("judge_model"):
        raise InputError(f"--judge {kw['judge']} needs --judge-model")
    spec = JudgeSpec(kw["judge"], kw["judge_model"], kw.get("judge_url"), kw["judge_timeout"], kw["judge_questions"])
    spec.build().close()  # a missing key or extra fails at start-up, not on the first request
    return spec
