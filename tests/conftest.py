"""Shared fixtures. No test touches the network or the user's cache."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent

# Property tests: `make test` and CI select the "ci" profile (derandomized, no example database), so
# the same examples run every time; a plain `pytest` explores at random ("explore"). A failure that
# random exploration finds becomes an explicit regression case next to the property.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "explore"))


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for var in ("CLAIMLEDGER_CACHE_DIR", "XDG_CACHE_HOME", "NO_COLOR", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CLAIMLEDGER_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def write_ledger(tmp_path: Path) -> Callable[[str], Path]:
    """Write a YAML ledger (dedented) into tmp_path and return its path."""

    def write(text: str, name: str = "ledger.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        return path

    return write


@pytest.fixture
def source_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the sources a run reads (``read_source`` calls, the read-ahead thread's included)."""
    from claimledger.checks import context

    reads: list[str] = []
    real = context.read_source

    def counted(source_id: str, *args: object, **kwargs: object) -> object:
        reads.append(source_id)
        return real(source_id, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(context, "read_source", counted)
    return reads
