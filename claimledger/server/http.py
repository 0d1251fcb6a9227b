"""The HTTP service: JSON endpoints mirroring the CLI (optional extra ``server``).

``POST /v1/check``, ``/v1/mark``, ``/v1/lint``, ``/v1/audit``, ``/v1/references`` take a JSON
body with inline content or paths under the root, and return the report
envelope (``Report.to_dict()``); ``/v1/mark`` adds ``marked_text``, ``/v1/lint``
adds ``lint``. ``GET /openapi.json`` describes them (OpenAPI 3.1), ``GET
/healthz`` answers ``{"status": "ok"}``.

Built on Starlette (routing, request streaming) and Uvicorn (the HTTP/1.1
server): both small, typed and well kept, and already what the ``mcp`` SDK
runs on, so the two extras share one stack. The gate itself is synchronous;
``serve`` runs it in a pool of worker processes (:mod:`claimledger.server._pool`):
several checks at once, each bounded in time, the wait bounded in length.

Errors are ``{"error": {"code", "message"}}``: 400 malformed JSON or request,
403 a path outside the root (or a URL source without ``--allow-urls``), 404 a
path not found, 405 wrong method, 413 a body over the size limit, 415 not
``application/json``, 422 an invalid ledger or unusable input, 500 an internal
error (nothing verified), 503 busy (with ``Retry-After``), 504 a check stopped
at its time limit. A request whose ``Host`` header names another host is
refused (400), so a web page cannot reach the service through DNS rebinding;
with a bearer token (required beyond loopback) every path but ``/healthz``
answers 401 without it.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.json_schema import models_json_schema

from claimledger._config import GateConfig
from claimledger._exceptions import InputError, MissingExtraError
from claimledger._version import __version__
from claimledger.model.claim import LedgerReference
from claimledger.server._core import (
    Content,
    Options,
    ServeError,
    Workspace,
    error_info,
    run_audit,
    run_check,
    run_lint,
    run_mark,
    run_references,
)
from claimledger.server._pool import (
    DEFAULT_MAX_READ_BYTES,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_QUEUE,
    DEFAULT_TIMEOUT,
    Busy,
    PoolError,
    PoolSettings,
    WorkerPool,
    default_size,
)
from claimledger.server.judge_spec import JudgeSpec

INSTALL_HINT = "the HTTP service needs starlette and uvicorn: pip install 'claimledger[server]'"
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_PORT = 8765

ContentOrPath = Content | str

_SOURCES = (
    "Source id -> {path} under the root or inline {text, format: text|markdown|html} (overrides the ledger)."
)
_DATASETS = "Dataset name -> {path} under the root or inline {text, format: csv|tsv|json|jsonl}."


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    options: Options | None = Field(default=None, description="min_quote_chars, tolerance, fail_closed.")


class CheckRequest(_Request):
    """``claimledger check [DRAFT] --ledger L``."""

    ledger: ContentOrPath = Field(
        description="The ledger: a path under the root, {path}, or {text, format: yaml|json}."
    )
    draft: ContentOrPath | None = Field(
        default=None, description="Optional draft: re-verify its marks, audit it."
    )
    sources: dict[str, ContentOrPath] | None = Field(default=None, description=_SOURCES)
    datasets: dict[str, ContentOrPath] | None = Field(default=None, description=_DATASETS)
    section: str | None = Field(default=None, description="Audit only the section under this heading.")
    allow: list[str] = Field(
        default_factory=list, description="Regexes of figures, quotations or keys not audited."
    )


class MarkRequest(_Request):
    """``claimledger mark DRAFT [--ledger L]``: the marked text is returned, never written."""

    draft: ContentOrPath = Field(description="The draft: a path under the root, {path}, or {text, format}.")
    ledger: ContentOrPath | None = Field(
        default=None, description="Ledger whose sources and number claims to use."
    )
    sources: dict[str, ContentOrPath] | None = Field(default=None, description=_SOURCES)
    datasets: dict[str, ContentOrPath] | None = Field(default=None, description=_DATASETS)


class LintRequest(MarkRequest):
    """``claimledger lint DRAFT [--ledger L]``."""


class AuditRequest(_Request):
    """``claimledger audit DRAFT --ledger L``."""

    draft: ContentOrPath = Field(description="The draft or summary to audit.")
    ledger: ContentOrPath = Field(description="The ledger that backs claims.")
    section: str | None = Field(default=None, description="Audit only the section under this heading.")
    allow: list[str] = Field(
        default_factory=list, description="Regexes of figures, quotations or keys not audited."
    )


class ReferencesRequest(_Request):
    """``claimledger refs FILE.bib``: bibliography entries against Crossref, DataCite, arXiv and OpenAlex."""

    bibliography: ContentOrPath | None = Field(
        default=None, description="A .bib or CSL-JSON file under the root, {path}, or {text, format: bibtex|csl-json}."
    )
    references: list[LedgerReference] | None = Field(
        default=None, description="Entries {key, title, authors, year, venue, doi, arxiv} (as under `references:`)."
    )
    offline: bool = Field(default=False, description="Answers only from the cache; the rest MED 'not checked'.")


class ErrorDetail(BaseModel):
    code: str = Field(description="bad_request, path_outside_root, url_refused, path_not_found, "
                      "method_not_allowed, not_found, too_large, unsupported_media_type, invalid_ledger, "
                      "invalid_input, internal_error, unauthorized, busy, timeout, worker_died")  # fmt: skip
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail


class HttpError(ServeError):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def run_request(ws: Workspace, kind: str, req: BaseModel) -> dict[str, Any]:
    """Run one validated request (in a worker process, or in this one when there is no pool)."""
    return _runner(ws, kind, req)()


def _runner(ws: Workspace, kind: str, req: BaseModel) -> Callable[[], dict[str, Any]]:
    if isinstance(req, CheckRequest):
        return lambda: run_check(ws, ledger=req.ledger, draft=req.draft, sources=req.sources,
                                 datasets=req.datasets, section=req.section, allow=req.allow,
                                 options=req.options)  # fmt: skip
    if isinstance(req, LintRequest):
        return lambda: run_lint(ws, draft=req.draft, ledger=req.ledger, sources=req.sources,
                                datasets=req.datasets, options=req.options)  # fmt: skip
    if isinstance(req, MarkRequest):
        return lambda: run_mark(ws, draft=req.draft, ledger=req.ledger, sources=req.sources,
                                datasets=req.datasets, options=req.options)  # fmt: skip
    if isinstance(req, ReferencesRequest):
        return lambda: run_references(ws, bibliography=req.bibliography, references=req.references,
                                      offline=req.offline, options=req.options)  # fmt: skip
    assert isinstance(req, AuditRequest)
    return lambda: run_audit(ws, draft=req.draft, ledger=req.ledger, section=req.section, allow=req.allow,
                             options=req.options)  # fmt: skip


ENDPOINTS: dict[str, tuple[type[BaseModel], str, str]] = {
    "check": (CheckRequest, "Check a ledger (and optionally a draft)",
              "The report envelope. HTTP 200 whatever the outcome; read `outcome` (PASS, PARTIAL, FAIL, NO_CLAIMS)."),
    "mark": (MarkRequest, "Recompute every [V]/[D] mark of a draft",
             "The report envelope plus `marked_text`, `marks` ({V, D, changed}), `changed` and `written` (null)."),
    "lint": (LintRequest, "Lint a draft's marks",
             "The report envelope plus `lint`: {ok, problems: [{file, line, column, reason, message}], lines}."),
    "audit": (AuditRequest, "Audit a draft or summary for unbacked figures, quotations and keys",
              "The report envelope of the unlisted audit."),
    "references": (ReferencesRequest, "Check bibliography entries against Crossref, DataCite, arXiv, OpenAlex",
                   "The report envelope: one finding per entry (claim_id = its citation key)."),
}  # fmt: skip


def _rewrite_refs(node: Any, prefix: str) -> Any:
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith("#/$defs/"):
                out[k] = "#/components/schemas/" + prefix + v.removeprefix("#/$defs/")
            else:
                out[k] = _rewrite_refs(v, prefix)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v, prefix) for v in node]
    return node


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the service (schemas from the pydantic models and report.schema.json)."""
    from claimledger.schemas import REPORT_SCHEMA_PATH, load

    models: list[tuple[type[BaseModel], Literal["validation", "serialization"]]] = [
        (m, "validation") for m, _, _ in ENDPOINTS.values()
    ]
    models.append((ErrorBody, "serialization"))
    _, defs = models_json_schema(models, ref_template="#/components/schemas/{model}")
    schemas: dict[str, Any] = dict(defs.get("$defs", {}))
    report = load(REPORT_SCHEMA_PATH)
    for name, sub in report.pop("$defs", {}).items():
        schemas["Report_" + name] = _rewrite_refs(sub, "Report_")
    report = _rewrite_refs({k: v for k, v in report.items() if not k.startswith("$")}, "Report_")
    schemas["Report"] = report
    ref = {"$ref": "#/components/schemas/ErrorBody"}
    errors = {
        "400": "Malformed JSON or request (or a Host header naming another host)",
        "401": "Missing or wrong bearer token (when the service was started with one)",
        "403": "A path outside the root, or a URL source without --allow-urls",
        "404": "A path not found under the root",
        "413": "Body over the size limit (--max-bytes)",
        "415": "Content-Type is not application/json",
        "422": "Invalid ledger or unusable input",
        "500": "Internal error, or the worker running the check died: nothing was verified",
        "503": "Every worker is busy and the queue is full: try again after Retry-After seconds",
        "504": "The check ran past --request-timeout and was stopped: nothing was verified",
    }
    paths: dict[str, Any] = {}
    for kind, (model, summary, answer) in ENDPOINTS.items():
        paths[f"/v1/{kind}"] = {"post": {
            "operationId": kind,
            "summary": summary,
            "description": (model.__doc__ or "").strip(),
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}},
            "responses": {
                "200": {"description": answer, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Report"}}}},
                **{code: {"description": text, "content": {"application/json": {"schema": ref}}}
                   for code, text in errors.items()},
            },
        }}  # fmt: skip
    paths["/healthz"] = {"get": {"operationId": "healthz", "summary": "Liveness", "responses": {"200": {
        "description": "The service is up", "content": {"application/json": {"schema": {
            "type": "object", "required": ["status"], "properties": {
                "status": {"const": "ok"}, "version": {"type": "string"}}}}}}}}}  # fmt: skip
    paths["/openapi.json"] = {"get": {"operationId": "openapi", "summary": "This document",
                                      "responses": {"200": {"description": "OpenAPI 3.1"}}}}  # fmt: skip
    return {
        "openapi": "3.1.0",
        "info": {"title": "claimledger", "version": __version__,
                 "description": "A verification gate between an AI writer and publication: quotes checked "
                 "literally, numbers recomputed, marks applied by the program. Paths are relative to the "
                 "server's root; inline content is written to a private temporary folder per request."},
        "paths": paths,
        "components": {"schemas": schemas},
    }  # fmt: skip


def _host_allowed(host_header: str, allowed: frozenset[str]) -> bool:
    host = host_header.strip().lower()
    if host.startswith("["):  # [::1]:8765
        host = host[1 : host.find("]")] if "]" in host else host
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".") in allowed


WILDCARD_BINDS = ("0.0.0.0", "::", "")


def allowed_host_names(host: str, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The names a request's Host header may carry: loopback names, the bound address, this machine's
    names when bound to every address, and ``extra`` (``--allowed-host``)."""
    import socket

    names = {"localhost", "127.0.0.1", "::1"} | {h.strip().lower().rstrip(".") for h in extra if h.strip()}
    if host in WILDCARD_BINDS:
        for name in (socket.gethostname(), socket.getfqdn()):
            if name:
                names.add(name.lower())
    else:
        names.add(host.strip("[]").lower())
    return frozenset(names)


def is_loopback(host: str) -> bool:
    """Whether binding to ``host`` listens on this machine only."""
    import ipaddress

    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere


def read_token(token_file: str | None) -> str | None:
    """The bearer token: the file's content (surrounding whitespace stripped), else ``$CLAIMLEDGER_TOKEN``."""
    import os

    if token_file is not None:
        try:
            token = Path(token_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(
                f"--token-file {token_file}: cannot read ({getattr(exc, 'strerror', None) or exc})"
            ) from None
        if not token:
            raise InputError(f"--token-file {token_file}: the file is empty")
        return token
    token = os.environ.get("CLAIMLEDGER_TOKEN", "").strip()
    return token or None


class _Guard:
    """ASGI middleware: the Host check on every request, the bearer token on every path but /healthz."""

    def __init__(self, app: Any, allowed_hosts: frozenset[str], token: str | None) -> None:
        self.app, self.allowed_hosts = app, allowed_hosts
        self.token = token.encode("utf-8") if token else None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        if not _host_allowed(host, self.allowed_hosts):
            await _send_error(
                send, 400, "bad_request", "Host header names a host this service does not serve"
            )
            return
        if self.token is not None and scope.get("path") != "/healthz":
            scheme, _, given = headers.get(b"authorization", b"").partition(b" ")
            # the scheme is case-insensitive (RFC 9110); the token is compared in constant time
            if not (hmac.compare_digest(given.strip(), self.token) and scheme.lower() == b"bearer"):
                await _send_error(send, 401, "unauthorized",
                                  "missing or wrong bearer token: send Authorization: Bearer <token>",
                                  [(b"www-authenticate", b'Bearer realm="claimledger"')])  # fmt: skip
                return
        await self.app(scope, receive, send)


async def _send_error(send: Any, status: int, code: str, message: str,
                      extra: list[tuple[bytes, bytes]] | None = None) -> None:  # fmt: skip
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(
    ws: Workspace,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    allowed_hosts: frozenset[str],
    token: str | None = None,
    pool: PoolSettings | None = None,
) -> Any:
    """The application; ``allowed_hosts`` are the names the Host header may carry, ``token`` the bearer
    token every path but /healthz requires, ``pool`` the worker processes (None: run in this process)."""
    try:
        from starlette.applications import Starlette
        from starlette.concurrency import run_in_threadpool
        from starlette.exceptions import HTTPException
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route
    except ImportError:
        raise MissingExtraError(INSTALL_HINT) from None

    workers = WorkerPool(pool) if pool is not None else None

    def error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": code, "message": message}}, status_code=status, headers=headers
        )

    async def read_json(request: Request) -> dict[str, Any]:
        ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            raise HttpError(415, "unsupported_media_type",
                             f"Content-Type must be application/json, not {ctype or 'missing'!r}")  # fmt: skip
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            raise HttpError(
                413, "too_large", f"body of {int(declared):,} bytes is over the {max_bytes:,}-byte limit"
            )
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_bytes:
                raise HttpError(413, "too_large", f"body is over the {max_bytes:,}-byte limit")
        try:
            data = json.loads(bytes(body).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise HttpError(400, "bad_request", f"malformed JSON: {exc}") from None
        if not isinstance(data, dict):
            raise HttpError(400, "bad_request", "the body must be a JSON object")
        return data

    async def execute(kind: str, req: BaseModel) -> JSONResponse:
        if workers is None:
            return JSONResponse(await run_in_threadpool(_runner(ws, kind, req)))
        try:
            answer = await workers.run(kind, req)
        except Busy as exc:
            return error(exc.status, exc.code, str(exc), {"Retry-After": "1"})
        except PoolError as exc:
            return error(exc.status, exc.code, str(exc))
        if answer[0] == "ok":
            return JSONResponse(answer[1])
        return error(answer[1], answer[2], answer[3])

    def endpoint(kind: str) -> Callable[[Request], Any]:
        model = ENDPOINTS[kind][0]

        async def handle(request: Request) -> JSONResponse:
            try:
                data = await read_json(request)
                try:
                    req = model.model_validate(data)
                except ValidationError as exc:
                    first = exc.errors()[0]
                    where = ".".join(str(p) for p in first["loc"]) or "body"
                    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
                    raise HttpError(400, "bad_request", f"{where}: {first['msg']}{more}") from None
                return await execute(kind, req)
            except HttpError as exc:
                return error(exc.status, exc.code, exc.message)
            except Exception as exc:  # every failure is a JSON error, never a traceback
                status, code, message = error_info(exc)
                if status >= 500:
                    import logging

                    logging.getLogger("claimledger.http").exception("request failed")
                return error(status, code, message)

        return handle

    async def healthz(request: Request) -> JSONResponse:
        body: dict[str, Any] = {"status": "ok", "version": __version__}
        if workers is not None:
            body["pool"] = workers.stats()
        return JSONResponse(body)

    document = openapi_document()

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(document)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
        return error(exc.status_code, code, str(exc.detail))

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        if workers is not None:
            await workers.start()
        try:
            yield
        finally:
            if workers is not None:
                await workers.stop()

    routes = [Route(f"/v1/{kind}", endpoint(kind), methods=["POST"]) for kind in ENDPOINTS]
    routes += [Route("/healthz", healthz, methods=["GET"]), Route("/openapi.json", openapi, methods=["GET"])]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error}, lifespan=lifespan)
    return _Guard(app, allowed_hosts, token)


def serve(
    root: str,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    allowed_hosts: tuple[str, ...] = (),
    config: GateConfig | None = None,
    allow_urls: bool = False,
    token_file: str | None = None,
    workers: int | None = None,
    queue: int = DEFAULT_QUEUE,
    request_timeout: float = DEFAULT_TIMEOUT,
    max_requests: int = DEFAULT_MAX_REQUESTS,
    judge: JudgeSpec | None = None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
) -> None:
    """Run the service until interrupted (Ctrl-C or SIGTERM). Refuses (:class:`InputError`) to listen
    beyond loopback without a bearer token; with ``tls_cert`` and ``tls_key`` it speaks HTTPS."""
    try:
        import uvicorn
    except ImportError:
        raise MissingExtraError(INSTALL_HINT) from None
    if "*" in allowed_hosts:
        raise InputError("--allowed-host '*' would switch the Host check off; name each host clients use")
    token = read_token(token_file)
    if token is None and not is_loopback(host):
        raise InputError(f"--host {host} listens beyond this machine: give a bearer token with --token-file FILE "
                         "or CLAIMLEDGER_TOKEN (clients send Authorization: Bearer <token>)")  # fmt: skip
    check_tls(tls_cert, tls_key)
    ws = Workspace.open(root, config=config, allow_urls=allow_urls, judge=judge, max_read_bytes=max_read_bytes)
    settings = PoolSettings(ws.root, ws.config, allow_urls, size=workers or default_size(), queue=queue,
                            timeout=request_timeout, max_requests=max_requests, judge=judge,
                            max_read_bytes=max_read_bytes)  # fmt: skip
    app = build_app(ws, max_bytes=max_bytes, allowed_hosts=allowed_host_names(host, allowed_hosts), token=token,
                    pool=settings)  # fmt: skip
    shown = f"[{host}]" if ":" in host else host
    scheme = "https" if tls_cert else "http"
    print(f"claimledger serve: {scheme}://{shown}:{port} (root {ws.root}; {settings.size} workers; "
          f"{'bearer token required' if token else 'no token'}; OpenAPI at /openapi.json)",
          file=sys.stderr, flush=True)  # fmt: skip
    if token and not tls_cert and not is_loopback(host):
        print("claimledger serve: warning: without --tls-cert/--tls-key the bearer token crosses the network in "
              "clear text; give a certificate or put a TLS proxy in front", file=sys.stderr, flush=True)  # fmt: skip
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False,
                h11_max_incomplete_event_size=64 * 1024, ssl_certfile=tls_cert, ssl_keyfile=tls_key)  # fmt: skip


def check_tls(cert: str | None, key: str | None) -> None:
    """Both or neither, and a pair that loads (so a bad certificate stops the start, not the first request)."""
    if cert is None and key is None:
        return
    if cert is None or key is None:
        raise InputError("--tls-cert and --tls-key go together: give the certificate chain and its private key")
    import ssl

    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except FileNotFoundError as exc:
        raise InputError(f"TLS: no such file: {exc.filename}") from None
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise InputError(f"TLS: cannot use {cert} with {key}: {exc} (a PEM certificate chain and the PEM "
                         "private key that matches it, unencrypted)") from None  # fmt: skip
