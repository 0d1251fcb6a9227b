"""verify_references (MCP), POST /v1/references (HTTP), the servers' bibliography confinement, HTML side by side."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from claimledger._config import GateConfig
from claimledger._exceptions import InputError
from claimledger.model.claim import LedgerReference
from claimledger.server._core import BadRequest, Content, Workspace, run_check, run_references
from tests.refs_fake import Fake, fake_services
from tests.refs_world import ATTENTION, WORLD
from tests.surface_data import http_server

BIB = """@inproceedings{vaswani2017, title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam}, year = {2017}, doi = {10.5555/nips.2017.7181}}
@article{invented2020, title = {Quantum Gravity Explains Consumer Sentiment}, author = {Smith, John}, year = {2020}}
"""


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Fake]:
    with fake_services(list(WORLD), {}) as f:
        for k, v in f.env().items():
            monkeypatch.setenv(k, v)
        yield f


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    (root / "refs.bib").write_text(BIB, "utf-8")
    (root / "ledger.yaml").write_text("version: 1\nbibliography: refs.bib\n", "utf-8")
    (tmp_path / "secret.bib").write_text("@article{s, title = {TOP-SECRET-TITLE}}\n", "utf-8")
    return root


def _reasons(envelope: dict[str, Any]) -> dict[str, str]:
    return {f["claim_id"]: f["reason"] for f in envelope["findings"]}


def test_run_references_and_check_with_a_bibliography_in_the_root(fake: Fake, tmp_path: Path) -> None:
    root = _root(tmp_path)
    ws = Workspace.open(root, config=GateConfig(allow_private_urls=True, cache_dir=tmp_path / "cache"))
    out = run_references(ws, bibliography="refs.bib")
    assert _reasons(out) == {"vaswani2017": "reference_verified", "invented2020": "reference_not_found"}
    assert out["outcome"] == "FAIL"
    assert str(root) not in json.dumps(out)  # no server path in the reply
    inline = run_references(ws, bibliography=Content(text=BIB, format="bibtex"))
    assert _reasons(inline) == _reasons(out)
    entry = LedgerReference(key="v", title="Attention Is All You Need", authors=["Vaswani, Ashish"], doi=ATTENTION.doi)
    listed = run_references(ws, references=[entry])
    assert _reasons(listed) == {"v": "reference_verified"}
    checked = run_check(ws, ledger="ledger.yaml")
    assert _reasons(checked) == _reasons(out)


def test_servers_never_read_a_bibliography_outside_the_root(tmp_path: Path) -> None:
    root = _root(tmp_path)
    ws = Workspace.open(root)
    with pytest.raises(InputError) as exc:
        run_references(ws, bibliography="../secret.bib")
    assert "TOP-SECRET" not in str(exc.value)
    (root / "escape.yaml").write_text(f"version: 1\nbibliography: {tmp_path / 'secret.bib'}\n", "utf-8")
    with pytest.raises(InputError) as exc:
        run_check(ws, ledger="escape.yaml")
    assert "is outside the root" in str(exc.value) and "TOP-SECRET" not in str(exc.value)  # refused, not read
    (root / "url.yaml").write_text("version: 1\nbibliography: https://example.org/refs.bib\n", "utf-8")
    with pytest.raises(InputError, match="URL"):
        run_check(ws, ledger="url.yaml")
    with pytest.raises(BadRequest, match="give a `bibliography` or `references`"):
        run_references(ws)


def test_http_references_endpoint(tmp_path: Path) -> None:
    root = _root(tmp_path)
    with http_server(root, tmp_path) as url, httpx.Client(base_url=url, timeout=60) as client:
        r = client.post("/v1/references", json={"bibliography": "refs.bib", "offline": True})
        assert r.status_code == 200, r.text
        body = r.json()
        assert _reasons(body) == {"vaswani2017": "reference_not_checked", "invented2020": "reference_not_checked"}
        r = client.post("/v1/references", json={"bibliography": {"text": "@article{x, title = {oops", "format": "bibtex"}})
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_input"
        assert "/v1/references" in client.get("/openapi.json").json()["paths"]


def test_mcp_verify_references_tool(tmp_path: Path) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    root = _root(tmp_path)
    (tmp_path / "tmp").mkdir()

    async def session() -> tuple[Any, Any, Any]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "claimledger", "mcp", "--root", str(root)],
                                       env={"CLAIMLEDGER_CACHE_DIR": str(tmp_path / "cache"),
                                            "TMPDIR": str(tmp_path / "tmp")}, cwd=str(tmp_path))  # fmt: skip
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                tools = (await s.list_tools()).tools
                ok = await s.call_tool("verify_references", {"bibliography": "refs.bib", "offline": True})
                bad = await s.call_tool("verify_references", {"bibliography": "../secret.bib"})
                return tools, ok, bad

    tools, ok, bad = anyio.run(session)
    tool = next(t for t in tools if t.name == "verify_references")
    assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is True
    assert not ok.is_error and _reasons(ok.structured_content)["invented2020"] == "reference_not_checked"
    assert bad.is_error and "TOP-SECRET" not in bad.content[0].text


def test_html_shows_the_reference_and_the_record_side_by_side(fake: Fake, tmp_path: Path) -> None:
    from claimledger.output.html import render_html
    from claimledger.refs.api import check_references
    from claimledger.refs.model import Reference

    ref = Reference("v", "Attention Is All You Need", ("Vaswani, Ashish",), 2014, doi=ATTENTION.doi)
    report = check_references([ref], allow_private_urls=True, cache_dir=tmp_path / "c")
    page = render_html(report, None, None)
    assert 'class="refpair"' in page and "the record says" in page
    assert '<tr class="differs"><th>year</th>' in page and "2014" in page and "2017" in page
