"""The HTTP service against a real `claimledger serve` process on 127.0.0.1 (httpx client)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from click.testing import CliRunner

from claimledger.cli import cli
from claimledger.schemas import REPORT_SCHEMA_PATH, load
from tests.surface_data import (
    DAILY_CSV,
    DRAFT,
    JA_QUOTE,
    LEDGER,
    MARKED,
    SECRET,
    SHOKUSHU,
    SMITH,
    hostile_layout,
    http_server,
)

MAX_BYTES = 200_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("http")
    root, outside = hostile_layout(base)
    with (
        http_server(root, base, "--max-bytes", str(MAX_BYTES)) as url,
        httpx.Client(base_url=url, timeout=60) as c,
    ):
        yield {"client": c, "root": root, "outside": outside, "base": base, "url": url}


def post(server: dict[str, Any], path: str, body: Any) -> httpx.Response:
    client: httpx.Client = server["client"]
    return client.post(path, json=body)


def error_of(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code
    message: str = body["error"]["message"]
    assert message
    return message


def test_healthz(server: dict[str, Any]) -> None:
    r = server["client"].get("/healthz")
    assert r.status_code == 200 and r.json()["status"] == "ok"


def test_openapi_document_describes_every_endpoint(server: dict[str, Any]) -> None:
    doc = server["client"].get("/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    for kind in ("check", "mark", "lint", "audit"):
        op = doc["paths"][f"/v1/{kind}"]["post"]
        assert op["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("Request")
        assert {"200", "400", "403", "404", "413", "415", "422"} <= set(op["responses"])
    assert "/healthz" in doc["paths"]
    schemas = doc["components"]["schemas"]
    # every $ref resolves, and every component is a valid JSON Schema (2020-12, as OpenAPI 3.1 uses)
    refs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    assert refs and all(r.removeprefix("#/components/schemas/") in schemas for r in refs)
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    # the request schema accepts a real request and refuses a malformed one
    check = {"$ref": "#/components/schemas/CheckRequest", "components": doc["components"]}
    jsonschema.validate({"ledger": {"path": "ledger.yaml"}, "options": {"tolerance": 0.01}}, check)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"ledger": "ledger.yaml", "surprise": 1}, check)


def test_check_by_path(server: dict[str, Any]) -> None:
    r = post(server, "/v1/check", {"ledger": "ledger.yaml"})
    assert r.status_code == 200
    report = r.json()
    jsonschema.validate(report, load(REPORT_SCHEMA_PATH))
    assert report["outcome"] == "FAIL" and report["counts"]["verified"] == 3 and report["counts"]["HIGH"] == 1
    by_id = {f["claim_id"]: f for f in report["findings"]}
    assert by_id["J1"]["evidence"]["text"] == JA_QUOTE
    assert by_id["C2"]["reason"] == "quote_near_miss"
    assert str(server["root"]) not in r.text


def test_check_inline_everything(server: dict[str, Any]) -> None:
    ledger = LEDGER.replace("sources/smith.txt", "unused.txt")  # inline sources override the ledger's paths
    body = {
        "ledger": {"text": ledger, "format": "yaml"},
        "draft": {"text": DRAFT, "format": "markdown"},
        "sources": {"smith": {"text": SMITH}, "shokushu": {"text": SHOKUSHU, "format": "markdown"}},
        "datasets": {"daily": {"text": DAILY_CSV, "format": "csv"}},
        "options": {"min_quote_chars": 8, "tolerance": 0.005, "fail_closed": True},
    }
    r = post(server, "/v1/check", body)
    assert r.status_code == 200, r.text
    report = r.json()
    reasons = [(f["claim_id"], f["reason"]) for f in report["findings"]]
    assert (
        ("C1", "quote_found") in reasons
        and ("J1", "quote_found") in reasons
        and ("N1", "number_match") in reasons
    )
    assert any(reason == "mark_not_verified" for _, reason in reasons)
    assert report["reproducibility"]["ledger"]["path"] == "<inline ledger>"
    assert report["reproducibility"]["sources"]["smith"]["origin"].startswith("<inline>/")
    # the per-request temporary folder is gone
    assert list((server["base"] / "tmp").iterdir()) == []


def test_check_inline_json_ledger(server: dict[str, Any]) -> None:
    ledger = {"version": 1, "sources": {"s": "sources/shokushu.md"},
              "claims": [{"id": "J", "kind": "quote", "source": "s", "quote": JA_QUOTE}]}  # fmt: skip
    r = post(
        server, "/v1/check", {"ledger": {"text": json.dumps(ledger, ensure_ascii=False), "format": "json"}}
    )
    assert r.status_code == 200 and r.json()["outcome"] == "PASS"


def test_no_fail_closed_option(server: dict[str, Any]) -> None:
    r = post(server, "/v1/check", {"ledger": "ledger.yaml", "options": {"fail_closed": False}})
    report = r.json()
    assert report["fail_closed"] is False and report["notes"]


def test_mark_returns_the_marked_text(server: dict[str, Any]) -> None:
    r = post(server, "/v1/mark", {"draft": "draft.md", "ledger": "ledger.yaml"})
    assert r.status_code == 200
    data = r.json()
    assert data["marked_text"] == MARKED and data["marks"]["D"] == 1 and data["written"] is None
    assert (server["root"] / "draft.md").read_text(encoding="utf-8") == DRAFT
    inline = post(server, "/v1/mark", {"draft": {"text": DRAFT}, "ledger": {"path": "ledger.yaml"}}).json()
    assert inline["marked_text"] == MARKED


def test_lint(server: dict[str, Any]) -> None:
    data = post(server, "/v1/lint", {"draft": "draft.md", "ledger": "ledger.yaml"}).json()
    assert data["lint"]["ok"] is False and data["lint"]["lines"][0].startswith("draft.md:4:")
    clean = post(server, "/v1/lint", {"draft": {"text": MARKED}, "ledger": "ledger.yaml"}).json()
    assert clean["lint"]["ok"] is True and clean["lint"]["lines"] == []


def test_audit(server: dict[str, Any]) -> None:
    report = post(server, "/v1/audit", {"draft": "draft.md", "ledger": "ledger.yaml"}).json()
    assert [f["reason"] for f in report["findings"]] == ["unlisted_quote"]
    allowed = post(
        server, "/v1/audit", {"draft": "draft.md", "ledger": "ledger.yaml", "allow": [".*15％.*"]}
    ).json()
    assert allowed["outcome"] == "PASS"


@pytest.mark.parametrize(
    "body",
    [
        {"ledger": "../outside/ledger.yaml"},
        {"ledger": "{outside}/ledger.yaml"},
        {"ledger": "link/ledger.yaml"},
        {"ledger": "evil.yaml"},
        {"ledger": "sub/evil.yaml"},
        {"ledger": "ledger.yaml", "sources": {"smith": {"path": "link/secret.txt"}}},
        {"ledger": "ledger.yaml", "draft": "../outside/secret.txt"},
        {"ledger": {"text": "version: 1\nsources: {s: ../outside/secret.txt}\n"}},
        {"ledger": {"text": "version: 1\ndatasets: {d: /etc/hostname}\n"}},
    ],
)
def test_paths_outside_the_root_are_403(server: dict[str, Any], body: dict[str, Any]) -> None:
    if isinstance(body["ledger"], str):
        body = {**body, "ledger": body["ledger"].replace("{outside}", str(server["outside"]))}
    message = error_of(post(server, "/v1/check", body), 403, "path_outside_root")
    assert SECRET not in message


def test_url_sources_are_403(server: dict[str, Any]) -> None:
    error_of(post(server, "/v1/check", {"ledger": "url.yaml"}), 403, "url_refused")


def test_missing_path_is_404(server: dict[str, Any]) -> None:
    assert "nope.yaml" in error_of(post(server, "/v1/check", {"ledger": "nope.yaml"}), 404, "path_not_found")
    error_of(post(server, "/v1/mark", {"draft": "nope.md"}), 404, "path_not_found")


def test_invalid_ledger_is_422(server: dict[str, Any]) -> None:
    assert "bad.yaml:3" in error_of(post(server, "/v1/check", {"ledger": "bad.yaml"}), 422, "invalid_ledger")
    error_of(post(server, "/v1/check", {"ledger": {"text": "version: 2\n"}}), 422, "invalid_ledger")
    error_of(post(server, "/v1/audit", {"draft": "draft.md", "ledger": "ledger.yaml", "section": "Nope"}),
             422, "invalid_input")  # fmt: skip


def test_malformed_requests_are_400(server: dict[str, Any]) -> None:
    client: httpx.Client = server["client"]
    headers = {"content-type": "application/json"}
    assert "malformed JSON" in error_of(
        client.post("/v1/check", content=b"{nope", headers=headers), 400, "bad_request"
    )
    error_of(client.post("/v1/check", content=b"[1, 2]", headers=headers), 400, "bad_request")
    assert "ledger" in error_of(post(server, "/v1/check", {}), 400, "bad_request")
    error_of(post(server, "/v1/check", {"ledger": "ledger.yaml", "surprise": 1}), 400, "bad_request")
    error_of(post(server, "/v1/check", {"ledger": {"path": "a", "text": "b"}}), 400, "bad_request")
    error_of(
        post(server, "/v1/check", {"ledger": "ledger.yaml", "options": {"tolerance": -1}}), 400, "bad_request"
    )
    error_of(post(server, "/v1/mark", {"draft": {"text": "x", "format": "docx"}}), 400, "bad_request")


def test_wrong_content_type_is_415(server: dict[str, Any]) -> None:
    client: httpx.Client = server["client"]
    r = client.post("/v1/check", content=b'{"ledger": "ledger.yaml"}', headers={"content-type": "text/plain"})
    error_of(r, 415, "unsupported_media_type")
    error_of(client.post("/v1/check", content=b"ledger=ledger.yaml"), 415, "unsupported_media_type")


def test_body_over_the_limit_is_413(server: dict[str, Any]) -> None:
    big = {"ledger": "ledger.yaml", "draft": {"text": "x" * (MAX_BYTES + 1)}}
    error_of(post(server, "/v1/check", big), 413, "too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit holds while streaming
        yield b'{"ledger": "ledger.yaml", "draft": {"text": "'
        for _ in range(MAX_BYTES // 1000 + 1):
            yield b"y" * 1000
        yield b'"}}'

    r = server["client"].post("/v1/check", content=chunks(), headers={"content-type": "application/json"})
    error_of(r, 413, "too_large")


def test_unknown_route_and_method(server: dict[str, Any]) -> None:
    client: httpx.Client = server["client"]
    error_of(client.get("/v1/nope"), 404, "not_found")
    error_of(client.get("/v1/check"), 405, "method_not_allowed")


def test_foreign_host_header_is_refused(server: dict[str, Any]) -> None:
    r = server["client"].get("/healthz", headers={"host": "attacker.example"})
    error_of(r, 400, "bad_request")
    r = server["client"].post(
        "/v1/check", json={"ledger": "ledger.yaml"}, headers={"host": "attacker.example:80"}
    )
    error_of(r, 400, "bad_request")


def test_service_still_answers_and_left_no_temp_files(server: dict[str, Any]) -> None:
    assert post(server, "/v1/check", {"ledger": "ledger.yaml"}).status_code == 200
    assert list((server["base"] / "tmp").iterdir()) == []
    logs = "".join(p.read_text() for p in server["base"].glob("serve-*.log"))
    assert "Traceback" not in logs


def test_missing_extra_gives_an_install_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    result = CliRunner().invoke(cli, ["serve", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert "pip install 'claimledger[server]'" in result.stderr
