"""Finding the jobs: ledger files, folders searched for ledgers, and manifests of (ledger, draft) pairs.

A job whose inputs cannot be read is still a job: it runs, fails closed, and its line says why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from claimledger._exceptions import InputError

LEDGER_NAMES = ("ledger.yaml", "ledger.yml", "ledger.json")
DRAFT_SUFFIXES = (".md", ".qmd", ".tex", ".txt", ".docx")
MANIFEST_SUFFIXES = (".jsonl", ".txt", ".tsv", ".csv", ".list")


@dataclass(frozen=True)
class Job:
    """One unit of work: a ledger and, optionally, the draft it backs."""

    index: int
    ledger: str
    draft: str | None = None

    @property
    def name(self) -> str:
        return self.ledger if self.draft is None else f"{self.ledger} + {self.draft}"


def discover(paths: list[Path]) -> list[Job]:
    """Every job named by ``paths``, in a stable order (the order given, folders sorted).

    A path is a ledger file, a folder (searched recursively for ``ledger.yaml``/``ledger.json``),
    or a manifest: JSON lines ``{"ledger": ..., "draft": ...}`` or text lines ``LEDGER [DRAFT]``
    (tab or whitespace separated; ``#`` comments). Raises :class:`InputError` for a path that does
    not exist or a manifest line that cannot be read.
    """
    pairs: list[tuple[str, str | None]] = []
    for path in paths:
        if path.is_dir():
            for found in sorted(p for name in LEDGER_NAMES for p in path.rglob(name)):
                pairs.append((str(found), None))
        elif path.is_file():
            if path.name in LEDGER_NAMES or _looks_like_ledger(path):
                pairs.append((str(path), None))
            else:
                pairs.extend(_manifest(path))
        else:
            raise InputError(f"{path}: no such file or folder")
    return [
        Job(i, name, draft if draft is not None else draft_beside(Path(name)))
        for i, (name, draft) in enumerate(pairs)
    ]


def _looks_like_ledger(path: Path) -> bool:
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        return False
    try:
        head = path.read_text("utf-8", errors="replace")[:4096]
    except OSError:
        return False
    return "claims" in head and "version" in head


def _manifest(path: Path) -> list[tuple[str, str | None]]:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the manifest ({exc})") from exc
    base = path.parent
    out: list[tuple[str, str | None]] = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{n}: not a JSON object ({exc.msg})") from exc
            if not isinstance(row, dict) or not isinstance(row.get("ledger"), str):
                raise InputError(f'{path}:{n}: a manifest line needs "ledger" (and optionally "draft")')
            draft = row.get("draft")
            if draft is not None and not isinstance(draft, str):
                raise InputError(f'{path}:{n}: "draft" must be a path')
            out.append((_rel(base, row["ledger"]), _rel(base, draft) if draft else None))
        else:
            fields = line.split("\t") if "\t" in line else line.split()
            if len(fields) > 2:
                raise InputError(f"{path}:{n}: expected LEDGER [DRAFT], got {len(fields)} fields")
            out.append((_rel(base, fields[0]), _rel(base, fields[1]) if len(fields) == 2 else None))
    return out


def _rel(base: Path, name: str) -> str:
    p = Path(name)
    return str(p if p.is_absolute() else base / p)


def draft_beside(ledger: Path) -> str | None:
    """The draft a ledger names (``draft:``), else the one draft file beside it, else None."""
    named = _named_draft(ledger)
    if named is not None:
        return named
    if not ledger.parent.is_dir():
        return None
    candidates = sorted(
        p for p in ledger.parent.iterdir()
        if p.is_file() and p.suffix.lower() in DRAFT_SUFFIXES and p.stem.lower() in ("draft", "report", "digest")
    )  # fmt: skip
    return str(candidates[0]) if len(candidates) == 1 else None


def _named_draft(ledger: Path) -> str | None:
    try:
        from claimledger.load.ledger import load_ledger

        parsed = load_ledger(ledger)
    except Exception:  # a malformed ledger fails in its own job, with the loader's message
        return None
    draft = getattr(parsed, "draft", None)
    if not draft:
        return None
    p = Path(draft)
    return str(p if p.is_absolute() else ledger.parent / p)
