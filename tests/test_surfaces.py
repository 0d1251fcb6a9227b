"""One input, four surfaces, the same findings: CLI JSON, the Python API, MCP and HTTP.

The input has English and Japanese quotes, a number over a CSV, a near miss and
a draft whose writer set a false [V]. Compared: outcome, counts, claims total,
notes, every finding's (claim id, check, status, tier, reason, evidence,
nearest passage, diff, expected, claimed), and the reproducibility block with
only its paths left out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from claimledger import gate
from tests.surface_data import finding_keys, http_server, make_workspace, without_paths


def _cli(root: Path, cache: Path, *draft: str) -> dict[str, Any]:
    env = {**os.environ, "CLAIMLEDGER_CACHE_DIR": str(cache)}
    proc = subprocess.run(
        [sys.executable, "-m", "claimledger", "check", *draft, "--ledger", "ledger.yaml", "-f", "json"],
        cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # FAIL
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def _api(root: Path, *draft: str) -> dict[str, Any]:
    return gate(root / "ledger.yaml", draft=root / draft[0] if draft else None).to_dict()


async def _mcp_calls(root: Path, cache: Path) -> list[dict[str, Any]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "claimledger", "mcp", "--root", str(root)],
                                   env={"CLAIMLEDGER_CACHE_DIR": str(cache)})  # fmt: skip
    out = []
    with anyio.fail_after(120), (cache / "mcp.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for args in ({"ledger": "ledger.yaml"}, {"ledger": "ledger.yaml", "draft": "draft.md"}):
                result = await session.call_tool("check_ledger", args)
                assert not result.is_error, result.content
                assert isinstance(result.structured_content, dict)
                out.append(result.structured_content)
    return out


def _http(root: Path, work: Path) -> list[dict[str, Any]]:
    out = []
    with http_server(root, work) as url, httpx.Client(base_url=url, timeout=120) as client:
        for body in ({"ledger": "ledger.yaml"}, {"ledger": "ledger.yaml", "draft": "draft.md"}):
            r = client.post("/v1/check", json=body)
            assert r.status_code == 200, r.text
            out.append(r.json())
    return out


@pytest.fixture(scope="module")
def surfaces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    base = tmp_path_factory.mktemp("surfaces")
    root = make_workspace(base / "root")
    cache = base / "cache"
    cache.mkdir()
    return {
        "cli": [_cli(root, cache), _cli(root, cache, "draft.md")],
        "api": [_api(root), _api(root, "draft.md")],
        "mcp": anyio.run(_mcp_calls, root, cache),
        "http": _http(root, base),
    }


def _comparable(envelope: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema_version": envelope["schema_version"],
        "outcome": envelope["outcome"],
        "fail_closed": envelope["fail_closed"],
        "claims_total": envelope["claims_total"],
        "counts": envelope["counts"],
        "notes": envelope["notes"],
        "findings": finding_keys(envelope),
        "reproducibility": without_paths(envelope["reproducibility"]),
    }


@pytest.mark.parametrize("run", [0, 1], ids=["ledger", "ledger+draft"])
@pytest.mark.parametrize("surface", ["api", "mcp", "http"])
def test_same_findings_as_the_cli(surfaces: dict[str, list[dict[str, Any]]], surface: str, run: int) -> None:
    assert _comparable(surfaces[surface][run]) == _comparable(surfaces["cli"][run])


def test_the_shared_input_exercises_what_it_should(surfaces: dict[str, list[dict[str, Any]]]) -> None:
    ledger_only, with_draft = surfaces["cli"]
    assert ledger_only["outcome"] == "FAIL"
    assert ledger_only["counts"] == {"HIGH": 1, "MED": 0, "LOW": 0, "EXPLAINED": 0, "verified": 3}
    reasons = {f["claim_id"]: f["reason"] for f in ledger_only["findings"]}
    assert reasons == {
        "C1": "quote_found",
        "C2": "quote_near_miss",
        "J1": "quote_found",
        "N1": "number_match",
    }
    ja = next(f for f in ledger_only["findings"] if f["claim_id"] == "J1")
    assert ja["evidence"]["text"].startswith("この1年で")
    assert {f["reason"] for f in with_draft["findings"]} >= {"mark_not_verified", "unlisted_quote"}
    # the sources' hashes are part of what is compared
    assert all(len(s["sha256"]) == 64 for s in ledger_only["reproducibility"]["sources"].values())
