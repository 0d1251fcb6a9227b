"""Documents for the mutation benchmark, read from the labelled bench (``../shared/bench``).

English documents are the ``source`` texts of WiCE and SummEdits; Japanese
documents are the short ``source`` texts of JNLI, JaNLI and JHARS,
concatenated (one per line) into documents of about ``JA_DOC_CHARS``
characters. Everything is sorted and drawn with a fixed seed, so the same
bench files always give the same documents. Nothing here is written to the
repository: the text is CC BY-SA for WiCE, JNLI and JaNLI.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

EN_SETS = ("wice", "summedits")
JA_SETS = ("jnli", "janli", "jhars")
SHARE_ALIKE = frozenset({"wice", "jnli", "janli"})
JA_DOC_CHARS = 800
EN_MAX_DOC_CHARS = 30_000  # longer web pages are skipped (the PDF rendering stays fast)


@dataclass(frozen=True)
class Document:
    doc_id: str
    lang: str
    text: str
    origin: str  # dataset name(s)

    @property
    def share_alike(self) -> bool:
        return any(part in SHARE_ALIKE for part in self.origin.split("+"))


def read_rows(bench: Path, name: str) -> list[dict[str, object]]:
    path = bench / name / "bench.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def input_hashes(bench: Path, names: tuple[str, ...]) -> dict[str, str]:
    """sha256 of each bench file read, keyed ``<dataset>/bench.jsonl``."""
    out: dict[str, str] = {}
    for name in sorted(names):
        path = bench / name / "bench.jsonl"
        out[f"{name}/bench.jsonl"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _unique_sources(rows: list[dict[str, object]]) -> list[str]:
    return sorted({str(r["source"]) for r in rows})


def english_documents(bench: Path, per_set: int, seed: int) -> list[Document]:
    docs: list[Document] = []
    for name in EN_SETS:
        sources = [s for s in _unique_sources(read_rows(bench, name)) if 400 <= len(s) <= EN_MAX_DOC_CHARS]
        rng = random.Random(f"{seed}/docs/{name}")
        for i, text in enumerate(rng.sample(sources, min(per_set, len(sources)))):
            docs.append(Document(f"{name}-{i:03d}", "en", text, name))
    return docs


def japanese_documents(bench: Path, count: int, seed: int) -> list[Document]:
    lines: list[tuple[str, str]] = []
    for name in JA_SETS:
        for text in _unique_sources(read_rows(bench, name)):
            for line in text.splitlines():
                if line.strip():
                    lines.append((name, line.strip()))
    random.Random(f"{seed}/docs/ja").shuffle(lines)
    docs: list[Document] = []
    buf: list[str] = []
    origins: set[str] = set()
    for name, line in lines:
        buf.append(line)
        origins.add(name)
        if sum(len(b) + 1 for b in buf) >= JA_DOC_CHARS:
            docs.append(
                Document(f"ja-{len(docs):03d}", "ja", "\n".join(buf) + "\n", "+".join(sorted(origins)))
            )
            buf, origins = [], set()
            if len(docs) >= count:
                break
    return docs
