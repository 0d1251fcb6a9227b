"""Options shared by the servers (``mcp`` and ``serve``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from claimledger._config import DEFAULT_FETCH_TIMEOUT, GateConfig
from claimledger.metrics import load_metrics_file
from claimledger.server.judge_spec import JudgeSpec


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
