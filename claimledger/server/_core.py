"""What the MCP server and the HTTP service share: a root, confined paths, the runs.

Every path a client gives (a ledger, a draft, a source, a dataset, a file to
write) and every path a ledger declares must stay inside the root given at
start-up; a client path may not contain ``..``. Nothing is opened by a path
checked earlier: every file is opened through the root's directory descriptor
(:mod:`claimledger.server._rootfs`, no symbolic link followed by the kernel)
and copied into the request's private temporary folder, and the checks read
only those copies; a file to write is written through its folder's
descriptor. URL sources are refused unless the server was started with
``--allow-urls``; a ledger's ``bibliography:`` must be a file under the root
(never a URL). Reference lookups go only to the services' base URLs of the
server's environment, under the URL policy. Inline content (ledger text, draft text, source text, CSV
text) goes to the same private folder, removed afterwards, so the same gate
code runs as for the CLI: a request's own ``sources`` and ``datasets`` are
handed to gate, mark, lint and audit like ``--source KEY=PATH``, and joined to
the ledger in one place, :meth:`claimledger.run.Run.open`.

Each run returns :meth:`claimledger.Report.to_dict`, with absolute paths under
the root or the temporary folder shortened (``draft.md``, ``<inline>/draft.md``)
so that a reply never shows where the server keeps its files.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from claimledger._config import DEFAULT_MIN_QUOTE_CHARS, DEFAULT_TOLERANCE, GateConfig
from claimledger._exceptions import InputError
from claimledger.load.ledger import load_ledger, parse_ledger
from claimledger.load.sources import is_url
from claimledger.model.claim import Ledger, LedgerReference
from claimledger.model.report import Report
from claimledger.refs.bib import MAX_BIB_BYTES
from claimledger.refs.model import Reference
from claimledger.run import replaced, with_sources
from claimledger.server._rootfs import DEFAULT_MAX_READ_BYTES, RootError, RootFS
from claimledger.server.judge_spec import JudgeSpec

DRAFT_EXT = {"markdown": ".md", "latex": ".tex", "text": ".txt"}
SOURCE_EXT = {"text": ".txt", "txt": ".txt", "markdown": ".md", "md": ".md", "html": ".html"}
BIB_EXT = {"bibtex": ".bib", "biblatex": ".bib", "csl-json": ".json", "csl": ".json"}
DATASET_EXT = {"csv": ".csv", "tsv": ".tsv", "json": ".json", "jsonl": ".jsonl", "ndjson": ".ndjson"}


class ServeError(InputError):
    """A request the server refuses; ``status`` is the HTTP status, ``code`` a stable name."""

    status = 400
    code = "bad_request"


class BadRequest(ServeError):
    status, code = 400, "bad_request"


class PathNotFound(ServeError):
    status, code = 404, "path_not_found"


class PathOutsideRoot(ServeError):
    status, code = 403, "path_outside_root"


class UrlRefused(ServeError):
    status, code = 403, "url_refused"


class Content(BaseModel):
    """A file under the root (``path``) or inline text (``text``); ``format`` names the inline kind."""

    model_config = ConfigDict(extra="forbid")
    path: str | None = Field(default=None, description="Path relative to the server's root.")
    text: str | None = Field(default=None, description="Inline content.")
    format: str | None = Field(
        default=None,
        description="Inline kind: ledger yaml|json; draft markdown|latex|text; "
        "source text|markdown|html; dataset csv|tsv|json|jsonl.",
    )

    @model_validator(mode="after")
    def _one(self) -> Content:
        if (self.path is None) == (self.text is None):
            raise ValueError("give exactly one of `path` or `text`")
        return self


ContentArg = Content | str  # a plain string is a path under the root


class Options(BaseModel):
    """Per-request settings (the CLI's options of the same names)."""

    model_config = ConfigDict(extra="forbid")
    min_quote_chars: int = Field(default=DEFAULT_MIN_QUOTE_CHARS, ge=1, le=10_000)
    tolerance: float = Field(default=DEFAULT_TOLERANCE, ge=0, le=1e6)
    fail_closed: bool = True


class QuoteItem(BaseModel):
    """One quote to verify literally against a named source."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, description="Claim id, e.g. C1.")
    source: str = Field(
        min_length=1, description="Source id (a key of `sources`, or declared in the ledger)."
    )
    quote: str = Field(min_length=1, description="The quoted text exactly as the draft gives it.")
    statement: str | None = Field(
        default=None, description="The draft's sentence that uses the quote (enables the overclaim rules)."
    )


class NumberItem(BaseModel):
    """One figure to recompute from the datasets (``sql`` or ``metric``)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, description="Claim id, e.g. N1.")
    value: float | int | str = Field(
        description='The claimed value, a number or as displayed ("11.7%", "1.2万").'
    )
    sql: str | None = Field(default=None, description="One read-only DuckDB SELECT over the datasets.")
    metric: str | None = Field(default=None, description="A metric declared in the ledger's `metrics:`.")
    tolerance: float | None = Field(default=None, ge=0, description="Relative tolerance (default 0.005).")
    scale: float | None = Field(default=None, description="Multiply the recomputed value by this first.")
    statement: str | None = None
    author_alternative: str | None = Field(
        default=None, description="A concrete, named reason for a known difference."
    )

    @model_validator(mode="after")
    def _one(self) -> NumberItem:
        if (self.sql is None) == (self.metric is None):
            raise ValueError("give exactly one of `sql` or `metric`")
        return self


def _reject_dotdot(given: str, what: str) -> None:
    parts = given.replace("\\", "/").split("/")
    if ".." in parts:
        raise PathOutsideRoot(f"{what} {given!r}: `..` is not allowed; give a path inside the root")


_ROOT_ERRORS: dict[str, type[ServeError]] = {
    "outside": PathOutsideRoot, "missing": PathNotFound, "not_file": BadRequest, "not_dir": PathNotFound,
    "io": BadRequest, "too_large": BadRequest,
}  # fmt: skip


def _refused(exc: RootError, what: str, given: str) -> ServeError:
    detail = exc.message
    if exc.kind == "outside":
        detail += " (symbolic links are followed only while they stay inside the root)"
    return _ROOT_ERRORS[exc.kind](f"{what} {given!r} {detail}")


@dataclasses.dataclass(frozen=True)
class Workspace:
    """The root every path must stay in (open as a directory descriptor), and the base configuration of every run."""

    root: Path
    config: GateConfig = dataclasses.field(default_factory=GateConfig)
    allow_urls: bool = False
    fs: RootFS = dataclasses.field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    judge: JudgeSpec | None = None
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES  # all the files one request reads from the root, together

    @classmethod
    def open(
        cls, root: str | Path, *, config: GateConfig | None = None, allow_urls: bool = False,
        judge: JudgeSpec | None = None, max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
    ) -> Workspace:  # fmt: skip
        try:
            resolved = Path(root).expanduser().resolve(strict=True)
        except OSError:
            raise InputError(f"--root {root}: no such folder") from None
        if not resolved.is_dir():
            raise InputError(f"--root {root}: not a folder")
        try:
            fs = RootFS(resolved)
        except OSError as exc:
            raise InputError(f"--root {root}: cannot open ({exc.strerror})") from None
        sweep_stale_request_folders()
        return cls(resolved, config or GateConfig(), allow_urls, fs, judge, max_read_bytes)

    def client_parts(self, given: str, *, what: str) -> list[str]:
        """A client's path as components under the root: relative (or absolute inside it), no ``..``."""
        if not isinstance(given, str) or not given.strip() or "\x00" in given:
            raise BadRequest(f"{what}: expected a path relative to the root")
        if is_url(given):
            raise BadRequest(f"{what} {given!r}: give a path under the root, not a URL")
        _reject_dotdot(given, what)
        try:
            return self.fs.parts(str(Path(given).expanduser()) if given.startswith("~") else given)
        except RootError as exc:
            raise _refused(exc, what, given) from None

    def display(self, path: Path) -> str:
        inside = path == self.root or path.is_relative_to(self.root)
        return str(path.relative_to(self.root)) if inside and path != self.root else str(path)

    def run_config(self, options: Options | None) -> GateConfig:
        if options is None:
            return self.config
        return dataclasses.replace(self.config, min_quote_chars=options.min_quote_chars,
                                   default_tolerance=options.tolerance, fail_closed=options.fail_closed)  # fmt: skip


REQUEST_PREFIX = "claimledger-req-"


def sweep_stale_request_folders() -> int:
    """Remove the request folders (inline content) that a killed server left behind; how many.

    A folder is named ``claimledger-req-<pid>-...`` after the process that made it, and removed
    only when that process no longer exists.
    """
    removed = 0
    for folder in Path(tempfile.gettempdir()).glob(REQUEST_PREFIX + "*-*"):
        pid = folder.name[len(REQUEST_PREFIX) :].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
            continue  # its server is alive
        except ProcessLookupError:
            pass
        except OSError:
            continue  # alive, another user's
        shutil.rmtree(folder, ignore_errors=True)
        removed += 1
    return removed


def _content(value: ContentArg) -> Content:
    return Content(path=value) if isinstance(value, str) else value


@dataclasses.dataclass(frozen=True)
class Inputs:
    """A request's ledger (every path it declares confined to a private copy) and the extra
    sources and datasets the request names, merged into it by :meth:`claimledger.run.Run.open`
    as ``--source KEY=PATH`` is on the command line."""

    ledger: Ledger
    sources: dict[str, str]
    datasets: dict[str, str]


class Request:
    """One request: its private temporary folder (created on first use, removed on close).

    Every file under the root that the request names (or its ledger declares)
    is opened through the root's directory descriptor and copied into
    ``<tmp>/root/<its path>``; the checks read only those copies, so what is
    read is exactly what was confined, whatever happens to the root meanwhile.
    """

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._tmp: Path | None = None
        self._copies: dict[tuple[str, ...], Path] = {}
        self._read = 0  # bytes copied so far, bounded by ws.max_read_bytes

    def __enter__(self) -> Request:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def tmp(self) -> Path:
        if self._tmp is None:
            prefix = f"{REQUEST_PREFIX}{os.getpid()}-"
            self._tmp = Path(tempfile.mkdtemp(prefix=prefix)).resolve()  # mode 0700
        return self._tmp

    def _write(self, name: str, text: str) -> Path:
        path = self.tmp() / name
        path.write_text(text, encoding="utf-8")
        return path

    def _copy(
        self, parts: list[str], what: str, given: str, *, limit: int | None = None
    ) -> tuple[Path, list[str]]:
        """The private copy of the root's file ``parts`` (read through the root's descriptor)."""
        key = tuple(parts)
        if key in self._copies:
            path = self._copies[key]
            return path, list(path.relative_to(self.tmp() / "root").parts)
        staging = self.tmp() / "staging" / str(len(self._copies))
        budget = self.ws.max_read_bytes - self._read
        try:
            canonical = self.ws.fs.copy_to(parts, staging, budget if limit is None else min(limit, budget))
        except RootError as exc:
            if exc.kind == "too_large" and (limit is None or budget < limit):
                raise BadRequest(
                    f"{what} {given!r}: the files this request reads would add up to more than "
                    f"{self.ws.max_read_bytes:,} bytes (the server's --max-read-bytes); {exc.message}"
                ) from None
            raise _refused(exc, what, given) from None
        self._read += staging.stat().st_size
        dest = self.tmp().joinpath("root", *canonical)
        if dest.exists():  # the same file by another spelling (a link inside the root)
            staging.unlink()
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            staging.rename(dest)
        self._copies[key] = dest
        return dest, canonical

    def _client_copy(self, given: str, what: str, limit: int | None = None) -> tuple[Path, list[str]]:
        return self._copy(self.ws.client_parts(given, what=what), what, given, limit=limit)

    def _declared(self, origin: str, base: tuple[str, ...], what: str, limit: int | None) -> str:
        """A path a ledger declares (relative to the ledger's folder): a private copy, or a missing path."""
        if is_url(origin):
            if not self.ws.allow_urls:
                raise UrlRefused(f"{what} is a URL ({origin}); this server reads only files under its root "
                                 "(start it with --allow-urls to fetch public URLs)")  # fmt: skip
            return origin
        try:
            parts = self.ws.fs.parts(
                str(Path(origin).expanduser()) if origin.startswith("~") else origin, base
            )
            return str(self._copy(parts, what, origin, limit=limit)[0])
        except RootError as exc:
            raise _refused(exc, what, origin) from None
        except PathNotFound:  # the checks report a missing source or dataset as a finding
            shown = posixpath.normpath("/".join(parts)).lstrip("./") or "missing"
            return str(self.tmp().joinpath("root", shown))

    # -- inputs -------------------------------------------------------------

    def ledger(
        self,
        value: ContentArg | None,
        *,
        sources: Mapping[str, ContentArg] | None = None,
        datasets: Mapping[str, ContentArg] | None = None,
    ) -> Inputs:
        """The ledger with every source and dataset it declares confined and copied, and the request's
        own sources and datasets (files under the root, copied; or inline)."""
        base: tuple[str, ...] = ()
        if value is None:
            parsed = Ledger(version=1)
        else:
            content = _content(value)
            if content.path is not None:
                path, canonical = self._client_copy(content.path, "ledger")
                parsed = load_ledger(path)
                parsed._path = "/".join(canonical)
                base = tuple(canonical[:-1])
            else:
                fmt = (content.format or "yaml").lower()
                if fmt not in ("yaml", "yml", "json"):
                    raise BadRequest(f"ledger format {content.format!r}: expected yaml or json")
                parsed = parse_ledger(content.text or "", "<inline ledger>", is_json=fmt == "json")
        limit = self.ws.config.max_source_bytes
        src = {sid: self._declared(o, base, f"source {sid!r}", limit) for sid, o in parsed.sources.items()}
        data = {
            name: self._declared(o, base, f"dataset {name!r}", None) for name, o in parsed.datasets.items()
        }
        extra_src = {
            sid: self._file(item, f"source {sid!r}", f"source{i}", SOURCE_EXT, "text", limit)
            for i, (sid, item) in enumerate((sources or {}).items())
        }
        extra_data: dict[str, str] = {}
        for i, (name, item) in enumerate((datasets or {}).items()):
            if is_url(name) or not name.strip():
                raise BadRequest(f"dataset name {name!r} is not valid")
            extra_data[name] = self._file(item, f"dataset {name!r}", f"dataset{i}", DATASET_EXT, "csv", None)
        confined = with_sources(parsed, src, data)
        if parsed.bibliography is not None:  # .bib files: confined and copied like sources
            bibs = [self._declared(b, base, f"bibliography {b!r}", limit) for b in parsed.bibliography_files()]
            if any(is_url(b) for b in bibs):
                raise BadRequest("bibliography: give files under the root, not URLs")
            confined = replaced(confined, bibliography=bibs)
        return Inputs(confined, extra_src, extra_data)

    def references(
        self, bibliography: ContentArg | None, references: Sequence[LedgerReference] | None
    ) -> list[Reference]:
        """Entries from a bibliography file under the root (or inline BibTeX / CSL-JSON) and a list."""
        from claimledger.refs.bib import read_bibliography, read_ledger_references

        out: list[Reference] = []
        if bibliography is not None:
            content = _content(bibliography)
            if content.path is not None:
                path = self._client_copy(content.path, "bibliography", MAX_BIB_BYTES)[0]
            else:
                fmt = (content.format or "bibtex").lower()
                if fmt not in BIB_EXT:
                    raise BadRequest(f"bibliography format {content.format!r}: expected bibtex or csl-json")
                path = self._write("bibliography" + BIB_EXT[fmt], content.text or "")
            out += read_bibliography(path)
        if references:
            out += read_ledger_references([r.model_dump(exclude_none=True) for r in references], "references")
        seen: set[str] = set()
        for ref in out:
            if ref.key in seen:
                raise BadRequest(f"citation key {ref.key!r} is given twice")
            seen.add(ref.key)
        if not out:
            raise BadRequest("give a `bibliography` or `references` to check")
        return out

    def _file(
        self,
        value: ContentArg,
        what: str,
        stem: str,
        exts: Mapping[str, str],
        default: str,
        limit: int | None,
    ) -> str:
        content = _content(value)
        if content.path is not None:
            return str(self._client_copy(content.path, what, limit)[0])
        fmt = (content.format or default).lower()
        if fmt not in exts:
            raise BadRequest(f"{what}: format {content.format!r} is not one of {', '.join(sorted(exts))}")
        return str(self._write(stem + exts[fmt], content.text or ""))

    def draft(self, value: ContentArg) -> tuple[Path, str | None]:
        """The draft (a private copy of the file under the root, or the inline text) and its format."""
        content = _content(value)
        if content.path is not None:
            path = self._client_copy(content.path, "draft")[0]
            fmt = content.format
        else:
            fmt = (content.format or "markdown").lower()
            if fmt not in DRAFT_EXT:
                raise BadRequest(f"draft format {content.format!r}: expected markdown, latex or text")
            path = self._write("draft" + DRAFT_EXT[fmt], content.text or "")
        if fmt is not None and fmt not in DRAFT_EXT:
            raise BadRequest(f"draft format {fmt!r}: expected markdown, latex or text")
        return path, fmt

    def base_dir(self) -> Path:
        """The folder relative paths resolve against: the private copy of the root (never the root itself)."""
        folder = self.tmp() / "root"
        folder.mkdir(exist_ok=True)
        return folder

    def display(self, path: Path) -> str:
        if self._tmp is not None and path.is_relative_to(self._tmp / "root"):
            return str(path.relative_to(self._tmp / "root"))
        if self._tmp is not None and path.is_relative_to(self._tmp):
            return "<inline>/" + str(path.relative_to(self._tmp))
        return self.ws.display(path)

    # -- output -------------------------------------------------------------

    def envelope(self, report: Report) -> dict[str, Any]:
        """``Report.to_dict()`` with the root and the temporary folder taken out of paths and messages."""
        out = report.to_dict()
        out["reproducibility"] = self._scrub(out["reproducibility"])
        for f in out["findings"]:
            f["message"] = self._scrub(f["message"])
            if isinstance(f.get("location"), dict) and isinstance(f["location"].get("file"), str):
                f["location"]["file"] = self._scrub(f["location"]["file"])
        return out

    def _scrub(self, value: Any) -> Any:
        if isinstance(value, str):
            if self._tmp is not None:
                copies = str(self._tmp / "root")
                value = value.replace(copies + "/", "").replace(copies, ".")
                value = value.replace(str(self._tmp) + "/", "<inline>/").replace(str(self._tmp), "<inline>")
            return value.replace(str(self.ws.root) + "/", "")
        if isinstance(value, dict):
            return {k: self._scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub(v) for v in value]
        return value


def _claims_ledger(claims: list[dict[str, Any]], base: Ledger) -> Ledger:
    try:
        built = Ledger.model_validate({"version": 1, "claims": claims})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BadRequest(f"{where}: {first['msg']}") from None
    return replaced(base, claims=built.claims)


# -- the runs: each returns the report envelope ------------------------------


def run_check(
    ws: Workspace,
    *,
    ledger: ContentArg,
    draft: ContentArg | None = None,
    sources: Mapping[str, ContentArg] | None = None,
    datasets: Mapping[str, ContentArg] | None = None,
    section: str | None = None,
    allow: Sequence[str] = (),
    options: Options | None = None,
) -> dict[str, Any]:
    """``claimledger check [DRAFT] --ledger L``."""
    from claimledger._api import gate

    with Request(ws) as run:
        given = run.ledger(ledger, sources=sources, datasets=datasets)
        draft_path, fmt = run.draft(draft) if draft is not None else (None, None)
        judge = ws.judge.build() if ws.judge is not None else None
        try:
            report = gate(given.ledger, sources=given.sources, datasets=given.datasets,
                          config=ws.run_config(options), base_dir=run.base_dir(), draft=draft_path,
                          allow=allow, section=section, draft_format=fmt, judge=judge,
                          judge_questions=ws.judge.questions if ws.judge is not None else "template")  # fmt: skip
        finally:
            if judge is not None:
                judge.close()
        return run.envelope(report)


def run_quotes(
    ws: Workspace,
    quotes: Sequence[QuoteItem],
    *,
    sources: Mapping[str, ContentArg] | None = None,
    ledger: ContentArg | None = None,
    options: Options | None = None,
) -> dict[str, Any]:
    """Verify a list of quotes literally against named sources (and the overclaim rules when a statement is given)."""
    return _run_items(ws, "quote", quotes, ledger, options, sources=sources)


def run_numbers(
    ws: Workspace,
    numbers: Sequence[NumberItem],
    *,
    datasets: Mapping[str, ContentArg] | None = None,
    ledger: ContentArg | None = None,
    options: Options | None = None,
) -> dict[str, Any]:
    """Recompute a list of figures from datasets under the root (SQL or a ledger metric)."""
    return _run_items(ws, "number", numbers, ledger, options, datasets=datasets)


def _run_items(
    ws: Workspace,
    kind: str,
    items: Sequence[QuoteItem] | Sequence[NumberItem],
    ledger: ContentArg | None,
    options: Options | None,
    **declared: Mapping[str, ContentArg] | None,
) -> dict[str, Any]:
    """Gate a list of quote or number items on top of an optional base ledger."""
    from claimledger._api import gate

    if not items:
        raise BadRequest(f"{kind}s: give at least one {kind}")
    with Request(ws) as run:
        given = run.ledger(ledger, **declared)
        claims = [{"kind": kind, **item.model_dump(exclude_none=True)} for item in items]
        report = gate(_claims_ledger(claims, given.ledger), sources=given.sources, datasets=given.datasets,
                      config=ws.run_config(options), base_dir=run.base_dir())  # fmt: skip
        return run.envelope(report)


def run_mark(
    ws: Workspace,
    *,
    draft: ContentArg,
    ledger: ContentArg | None = None,
    sources: Mapping[str, ContentArg] | None = None,
    datasets: Mapping[str, ContentArg] | None = None,
    options: Options | None = None,
    write_to: str | None = None,
) -> dict[str, Any]:
    """The draft with every mark recomputed; written (atomically, under the root) only when ``write_to`` is given."""
    from claimledger._drafts import mark

    target = ws.client_parts(write_to, what="write_to") if write_to is not None else None
    written: list[str] | None = None
    with Request(ws) as run:
        given = run.ledger(ledger, sources=sources, datasets=datasets)
        path, fmt = run.draft(draft)
        result = mark(path, ledger=given.ledger, sources=given.sources, datasets=given.datasets,
                      config=ws.run_config(options), fmt=fmt)  # fmt: skip
        if target is not None:
            assert write_to is not None
            try:
                written = ws.fs.write_atomic(target, result.text.encode("utf-8"))
            except RootError as exc:
                raise _refused(exc, "write_to", write_to) from None
        out = run.envelope(result.report)
        out["marked_text"] = result.text
        out["marks"] = result.counts
        out["changed"] = result.changed
        out["written"] = "/".join(written) if written is not None else None
        return out


def run_lint(
    ws: Workspace,
    *,
    draft: ContentArg,
    ledger: ContentArg | None = None,
    sources: Mapping[str, ContentArg] | None = None,
    datasets: Mapping[str, ContentArg] | None = None,
    options: Options | None = None,
) -> dict[str, Any]:
    """Lint lines (a [V] that does not re-verify, a cited quotation without a mark) plus the marks' report."""
    from claimledger._drafts import lint_problems, mark

    with Request(ws) as run:
        given = run.ledger(ledger, sources=sources, datasets=datasets)
        path, fmt = run.draft(draft)
        result = mark(path, ledger=given.ledger, sources=given.sources, datasets=given.datasets,
                      config=ws.run_config(options), fmt=fmt)  # fmt: skip
        problems = lint_problems(result.verdicts, run.display(path))
        out = run.envelope(result.report)
        out["lint"] = {
            "ok": not problems,
            "problems": [
                {
                    "file": p.file,
                    "line": p.line,
                    "column": p.column,
                    "reason": p.reason.value,
                    "message": run._scrub(p.message),
                }
                for p in problems
            ],
            "lines": [run._scrub(str(p)) for p in problems],
        }
        return out


def run_audit(
    ws: Workspace,
    *,
    draft: ContentArg,
    ledger: ContentArg,
    section: str | None = None,
    allow: Sequence[str] = (),
    options: Options | None = None,
) -> dict[str, Any]:
    """The unlisted audit of a draft or summary: every figure, quotation and citation key no claim backs."""
    from claimledger._drafts import audit

    with Request(ws) as run:
        given = run.ledger(ledger)
        path, fmt = run.draft(draft)
        report = audit(path, ledger=given.ledger, allow=allow, section=section,
                       config=ws.run_config(options), fmt=fmt)  # fmt: skip
        return run.envelope(report)


def run_references(
    ws: Workspace,
    *,
    bibliography: ContentArg | None = None,
    references: Sequence[LedgerReference] | None = None,
    offline: bool = False,
    options: Options | None = None,
) -> dict[str, Any]:
    """Check bibliography entries against Crossref, DataCite, arXiv and OpenAlex (``claimledger refs``)."""
    from claimledger.refs.api import check_references

    config = ws.run_config(options)
    with Request(ws) as run:
        refs = run.references(bibliography, references)
        report = check_references(
            refs, offline=offline or config.offline, timeout=config.refs_timeout,
            allow_private_urls=config.allow_private_urls, cache_dir=config.cache_dir, refresh=config.refresh,
            fail_closed=config.fail_closed,
        )  # fmt: skip
        return run.envelope(report)


def error_info(exc: BaseException) -> tuple[int, str, str]:
    """(HTTP status, code, message) of an error a run raised."""
    from claimledger._exceptions import LedgerError

    if isinstance(exc, ServeError):
        return exc.status, exc.code, str(exc)
    if isinstance(exc, LedgerError):
        return 422, "invalid_ledger", str(exc)
    if isinstance(exc, InputError):
        return 422, "invalid_input", str(exc)
    return 500, "internal_error", f"internal error ({type(exc).__name__}); nothing was verified"
