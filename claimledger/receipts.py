"""Receipts: what a ``mark`` or ``check`` run saw, in canonical JSON (RFC 8785); writing them and
:func:`verify_receipt`.

A receipt holds the SHA-256 of the draft, the ledger, every source, every
dataset and metrics file, the tool version, the configuration, the marks the
program wrote (line, column, letter) and the findings. Paths are stored
relative to the receipt's folder. :func:`verify_receipt` fails when any hash no
longer matches (one changed character is enough), when a mark in the draft is
not the one the receipt records, or when re-running the command today gives a
different result.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import rfc8785

from claimledger._config import GateConfig
from claimledger._exceptions import ClaimledgerError, InputError, SourceError
from claimledger._files import atomic_write
from claimledger._version import __version__
from claimledger.extract.draft import detect_format
from claimledger.load.ledger import load_ledger
from claimledger.load.sources import is_url, read_bytes, resolve_origin
from claimledger.model.finding import Finding

RECEIPT_VERSION = 1


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str | None:
    try:
        return sha256_bytes(Path(path).read_bytes())
    except OSError:
        return None


def rel(path: str | Path, base: Path) -> str:
    """``path`` relative to ``base`` when local (POSIX separators); URLs unchanged."""
    s = str(path)
    if is_url(s):
        return s
    return Path(os.path.relpath(Path(s).resolve(), base.resolve())).as_posix()


def resolve(stored: str, base: Path) -> str:
    if is_url(stored):
        return stored
    p = Path(stored)
    return str(p if p.is_absolute() else (base / p).resolve())


def source_sha(origin: str, config: GateConfig) -> tuple[str | None, str | None]:
    """SHA-256 of a source's raw bytes, or (None, reason) when it cannot be read."""
    try:
        data, _ctype = read_bytes(origin, config)
    except SourceError as exc:
        return None, exc.reason
    return sha256_bytes(data), None


def build_receipt(
    *,
    command: str,
    receipt_path: Path,
    draft_path: str | Path | None,
    draft_bytes: bytes | None,
    draft_format: str | None,
    ledger_path: str | Path | None,
    extra_sources: dict[str, str],
    origins: dict[str, str],
    datasets: dict[str, str],
    metrics_files: tuple[Path, ...],
    config: GateConfig,
    marks: list[dict[str, Any]],
    outcome: str,
    findings: list[dict[str, Any]],
) -> dict[str, Any]:
    """The receipt as a plain dict (serialize with :func:`write_receipt`)."""
    base = receipt_path.resolve().parent
    sources: dict[str, Any] = {}
    for sid, origin in sorted(origins.items()):
        sha, error = source_sha(origin, config)
        sources[sid] = {"origin": rel(origin, base), "sha256": sha, "error": error}
    data: dict[str, Any] = {}
    for name, origin in sorted(datasets.items()):
        data[name] = {"origin": rel(origin, base), "sha256": None if is_url(origin) else sha256_file(origin)}
    return {
        "receipt_version": RECEIPT_VERSION,
        "tool": "claimledger",
        "tool_version": __version__,
        "command": command,
        "created_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "draft": None if draft_path is None and draft_bytes is None else {
            "path": rel(draft_path, base) if draft_path is not None else None,
            "sha256": sha256_bytes(draft_bytes or b""),
            "format": draft_format,
        },
        "ledger": None if ledger_path is None else {
            "path": rel(ledger_path, base), "sha256": sha256_file(ledger_path),
        },
        "extra_sources": {k: rel(v, base) for k, v in sorted(extra_sources.items())},
        "metrics_files": [{"path": rel(p, base), "sha256": sha256_file(p)} for p in metrics_files],
        "sources": sources,
        "datasets": data,
        "config": {
            "min_quote_chars": config.min_quote_chars,
            "default_tolerance": config.default_tolerance,
            "fail_closed": config.fail_closed,
        },
        "marks": marks,
        "outcome": outcome,
        "findings": findings,
    }  # fmt: skip


def _jsonable(value: Any) -> Any:
    """Round-trip through json so RFC 8785 sees only plain types (and no NaN)."""
    return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False, default=str))


def canonical(receipt: dict[str, Any]) -> bytes:
    return bytes(rfc8785.dumps(_jsonable(receipt)))


def write_receipt(path: Path, receipt: dict[str, Any]) -> None:
    atomic_write(path, canonical(receipt))


def load_receipt(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: receipt not found") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the receipt ({exc.strerror})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a claimledger receipt (invalid JSON: {exc})") from None
    if not isinstance(data, dict) or data.get("tool") != "claimledger" or "receipt_version" not in data:
        raise InputError(f"{path}: not a claimledger receipt")
    if data["receipt_version"] != RECEIPT_VERSION:
        raise InputError(f"{path}: receipt version {data['receipt_version']!r} is not supported")
    for name in ("sources", "datasets", "extra_sources", "config"):
        if not isinstance(data.get(name), dict):
            raise InputError(f"{path}: malformed receipt: `{name}` must be an object")
    if not isinstance(data.get("marks"), list) or not isinstance(data.get("metrics_files"), list):
        raise InputError(f"{path}: malformed receipt: `marks` and `metrics_files` must be lists")
    return data


@dataclass
class ReceiptCheck:
    """The result of :func:`claimledger.verify_receipt`: ``ok`` only when nothing differs."""

    receipt: str
    problems: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def compare_hashes(data: dict[str, Any], base: Path, config: GateConfig, result: ReceiptCheck) -> None:
    """Re-hash every file the receipt names; record each difference as a problem."""

    def same(label: str, stored: str, expected: str | None, actual: str | None) -> None:
        result.checked.append(f"{label} {stored}")
        if actual is None:
            result.problems.append(f"{label} {stored}: cannot be read now")
        elif expected != actual:
            result.problems.append(
                f"{label} {stored} changed since the receipt (sha256 {str(expected)[:12]}… → {actual[:12]}…)"
            )

    draft = data.get("draft")
    if isinstance(draft, dict) and draft.get("path"):
        same("draft", draft["path"], draft.get("sha256"), sha256_file(resolve(draft["path"], base)))
    ledger = data.get("ledger")
    if isinstance(ledger, dict) and ledger.get("path"):
        same("ledger", ledger["path"], ledger.get("sha256"), sha256_file(resolve(ledger["path"], base)))
    for sid, entry in sorted(data["sources"].items()):
        if not isinstance(entry, dict) or not isinstance(entry.get("origin"), str):
            result.problems.append(f"source {sid}: malformed entry in the receipt")
            continue
        actual, _err = source_sha(resolve(entry["origin"], base), config)
        if entry.get("sha256") is None:
            result.problems.append(f"source {sid} could not be read when the receipt was written")
            continue
        same(f"source {sid}:", entry["origin"], entry.get("sha256"), actual)
    for name, entry in sorted(data["datasets"].items()):
        if isinstance(entry, dict) and isinstance(entry.get("origin"), str) and entry.get("sha256"):
            same(f"dataset {name}:", entry["origin"], entry["sha256"], sha256_file(resolve(entry["origin"], base)))
    for entry in data["metrics_files"]:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            same("metrics file", entry["path"], entry.get("sha256"), sha256_file(resolve(entry["path"], base)))



def _origins(ledger_path: str | Path | None, extra_sources: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """Absolute origins of every declared source and dataset (ledger ones relative to the ledger)."""
    origins: dict[str, str] = {}
    datasets: dict[str, str] = {}
    if ledger_path is not None:
        ledger = load_ledger(ledger_path)
        folder = Path(ledger_path).resolve().parent
        origins = {k: resolve_origin(v, folder) for k, v in ledger.sources.items()}
        datasets = {k: resolve_origin(v, folder) for k, v in ledger.datasets.items()}
    origins.update(extra_sources)
    return origins, datasets


def write_run_receipt(
    receipt_path: Path,
    *,
    command: str,
    draft_path: str | Path | None,
    draft_text: str | None,
    draft_format: str | None,
    ledger_path: str | Path | None,
    extra_sources: dict[str, str],
    config: GateConfig,
    outcome: str,
    findings: Sequence[Finding],
) -> dict[str, Any]:
    """Build and atomically write the receipt of one run; returns it."""
    from claimledger._drafts import program_marks

    origins, datasets = _origins(ledger_path, extra_sources)
    marks = program_marks(draft_text, draft_format or "text") if draft_text is not None else []
    receipt = build_receipt(
        command=command,
        receipt_path=receipt_path,
        draft_path=draft_path,
        draft_bytes=draft_text.encode("utf-8") if draft_text is not None else None,
        draft_format=draft_format,
        ledger_path=ledger_path,
        extra_sources=extra_sources,
        origins=origins,
        datasets=datasets,
        metrics_files=config.metrics_files,
        config=config,
        marks=marks,
        outcome=outcome,
        findings=[f.to_dict() for f in findings],
    )
    try:
        write_receipt(receipt_path, receipt)
    except OSError as exc:  # a full disk or a read-only folder: a clear input error, not a traceback
        raise InputError(f"cannot write the receipt to {receipt_path}: {exc.strerror or exc}") from None
    return receipt


def verify_receipt(
    receipt: str | Path, *, draft: str | Path | None = None, config: GateConfig | None = None, recheck: bool = True
) -> ReceiptCheck:
    """Re-check a receipt: every hash, every mark, and (``recheck``) the run's result today.

    Raises :class:`~claimledger.InputError` when the receipt itself is unusable.
    """
    from claimledger._api import gate
    from claimledger._drafts import mark, program_marks

    data = load_receipt(receipt)
    base = Path(receipt).resolve().parent
    result = ReceiptCheck(str(receipt))
    stored = data.get("config", {})
    config = config or GateConfig()
    config = dataclasses.replace(
        config,
        min_quote_chars=int(stored.get("min_quote_chars", config.min_quote_chars)),
        default_tolerance=float(stored.get("default_tolerance", config.default_tolerance)),
        metrics_files=tuple(Path(resolve(m["path"], base)) for m in data["metrics_files"] if isinstance(m, dict)),
    )
    draft_entry = data.get("draft") if isinstance(data.get("draft"), dict) else None
    if draft is not None and draft_entry is not None:
        draft_entry = {**draft_entry, "path": str(Path(draft).resolve())}
        data["draft"] = draft_entry
    compare_hashes(data, base, config, result)
    ledger_entry = data.get("ledger") if isinstance(data.get("ledger"), dict) else None
    ledger_path = resolve(ledger_entry["path"], base) if ledger_entry and ledger_entry.get("path") else None
    extra = {k: resolve(v, base) for k, v in data["extra_sources"].items() if isinstance(v, str)}
    draft_path: str | None = None
    draft_text: str | None = None
    fmt = "text"
    if draft_entry is not None:
        if not draft_entry.get("path"):
            result.problems.append("the receipt names no draft file (it was written to stdout); pass --draft FILE")
        else:
            draft_path = resolve(str(draft_entry["path"]), base)
            fmt = str(draft_entry.get("format") or detect_format(draft_path))
            try:
                raw = Path(draft_path).read_bytes()
                draft_text = raw.decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                result.problems.append(f"draft {draft_path}: cannot be read ({exc})")
    if draft_text is not None:
        now = program_marks(draft_text, fmt)
        _compare_marks(data["marks"], now, result)
    if not recheck or result.problems:
        return result
    try:
        if data.get("command") == "mark" and draft_path is not None and draft_text is not None:
            again = mark(draft_path, ledger=ledger_path, sources=extra, config=config, fmt=fmt)
            result.checked.append("marks recomputed")
            if sha256_bytes(again.text.encode("utf-8")) != sha256_bytes(draft_text.encode("utf-8")):
                changed = [f"line {v.line}: [{v.writer_letter}] -> [{v.letter}]" for v in again.verdicts
                           if v.writer_letter != v.letter]  # fmt: skip
                result.problems.append(
                    "marking the draft again today gives different marks: " + ("; ".join(changed[:10]) or "?")
                )
        elif data.get("command") == "check" and ledger_path is not None:
            report = gate(ledger_path, config=config, draft=draft_path, sources=extra)
            result.checked.append("check re-run")
            if report.outcome.value != data.get("outcome"):
                result.problems.append(
                    f"checking again today gives {report.outcome.value}, the receipt says {data.get('outcome')}"
                )
    except ClaimledgerError as exc:
        result.problems.append(f"re-running the {data.get('command')} failed: {exc}")
    return result


def _compare_marks(recorded: list[Any], now: list[dict[str, Any]], result: ReceiptCheck) -> None:
    result.checked.append(f"{len(now)} marks")
    want = {(m.get("line"), m.get("column")): m.get("mark") for m in recorded if isinstance(m, dict)}
    have = {(m["line"], m["column"]): m["mark"] for m in now}
    for pos in sorted(set(want) | set(have), key=lambda p: (int(p[0] or 0), int(p[1] or 0))):
        w, h = want.get(pos), have.get(pos)
        if w != h:
            line, col = pos
            if h is None:
                result.problems.append(f"line {line}:{col}: the receipt records [{w}] but the draft has no mark there")
            elif w is None:
                result.problems.append(f"line {line}:{col}: the draft has [{h}], which the receipt does not record")
            else:
                result.problems.append(f"line {line}:{col}: the draft has [{h}], the receipt records [{w}]")


def ensure_receipt_target(path: Path | None) -> None:
    if path is not None and path.exists() and path.is_dir():
        raise InputError(f"--receipt {path}: is a directory")
