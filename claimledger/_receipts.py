"""Writing receipts for ``mark`` and ``check`` runs, and :func:`verify_receipt`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from claimledger._config import GateConfig
from claimledger._exceptions import ClaimledgerError, InputError
from claimledger.extract.draft import detect_format
from claimledger.load.ledger import load_ledger
from claimledger.load.sources import resolve_origin
from claimledger.model.finding import Finding
from claimledger.receipts import (
    ReceiptCheck,
    build_receipt,
    compare_hashes,
    load_receipt,
    resolve,
    sha256_bytes,
    write_receipt,
)


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
