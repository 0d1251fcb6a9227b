"""The source index: each source extracted and normalized once, cached across runs.

The cache key is the SHA-256 of the source's raw bytes plus the index format
version, so an unchanged PDF is never extracted twice and a changed one is
never served stale. A cache file carries the SHA-256 of its own payload and is
ignored (and rebuilt) when it does not match. Writes are atomic.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from claimledger._config import GateConfig
from claimledger._exceptions import SourceError
from claimledger.load.fetch import atomic_write, default_cache_dir
from claimledger.load.sources import extract_text, read_bytes, sniff_media_type
from claimledger.model.source import Source
from claimledger.normalize import Normalized, normalize

INDEX_VERSION = 7  # bump when extraction or normalization changes


@dataclass
class IndexedSource:
    """A source with its normalized text. The reading that keeps line-break hyphens is never
    built whole: :func:`claimledger.checks.quote_scan.find_in_hyphen_reading` normalizes only
    windows around candidate places."""

    source: Source
    primary: Normalized
    hidden: str | None
    from_cache: bool = False


def _cache_paths(config: GateConfig, sha: str) -> tuple[Path, Path]:
    root = config.cache_dir or default_cache_dir()
    base = root / "index" / f"v{INDEX_VERSION}" / sha[:2] / sha
    return base.with_suffix(".bin"), base.with_suffix(".json")


def _parts(ix: IndexedSource) -> Iterator[bytes]:
    """The payload, one part at a time (never all of it in memory at once)."""
    norm = ix.primary
    yield ix.source.text.encode("utf-8")
    yield norm.text.encode("utf-8")
    yield (ix.hidden or "").encode("utf-8")
    yield norm.norm_start.tobytes()
    yield norm.orig_start.tobytes()
    yield norm.orig_end.tobytes()
    yield bytes(norm.linear)


def _store(ix: IndexedSource, config: GateConfig) -> None:
    """Payload first, then the header that names its SHA-256: a reader trusts neither alone."""
    bin_path, json_path = _cache_paths(config, ix.source.sha256)
    bin_path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    lengths: list[int] = []
    fd, tmp = tempfile.mkstemp(dir=bin_path.parent, prefix=f".{bin_path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            for part in _parts(ix):
                digest.update(part)
                lengths.append(len(part))
                fh.write(part)
        os.replace(tmp, bin_path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    header = {
        "version": INDEX_VERSION,
        "media_type": ix.source.media_type,
        "page_starts": list(ix.source.page_starts),
        "hidden_text": ix.source.hidden_text != "",
        "lengths": lengths,
        "byteorder": sys.byteorder,
        "payload_sha256": digest.hexdigest(),
    }
    atomic_write(json_path, json.dumps(header).encode("utf-8"))


def _load(config: GateConfig, source_id: str, origin: str, sha: str) -> IndexedSource | None:
    bin_path, json_path = _cache_paths(config, sha)
    try:
        header = json.loads(json_path.read_bytes())
        if header.get("version") != INDEX_VERSION or header.get("byteorder") != sys.byteorder:
            return None
        digest = hashlib.sha256()
        chunks: list[bytes] = []
        with bin_path.open("rb") as fh:
            for n in header["lengths"]:
                chunk = fh.read(n)
                if len(chunk) != n:
                    return None
                digest.update(chunk)
                chunks.append(chunk)
        if digest.hexdigest() != header["payload_sha256"]:
            return None  # corrupted or tampered: rebuild
        text, norm_text, hidden = (chunks[i].decode("utf-8") for i in range(3))
        chunks[0] = chunks[1] = chunks[2] = b""
        arrays: list[array[int]] = []
        for raw in chunks[3:6]:
            arr: array[int] = array("q")
            arr.frombytes(raw)
            arrays.append(arr)
        linear = bytearray(chunks[6])
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    source = Source(
        id=source_id,
        origin=origin,
        media_type=str(header["media_type"]),
        text=text,
        sha256=sha,
        page_starts=tuple(int(p) for p in header["page_starts"]),
        hidden_text=hidden if header.get("hidden_text") else "",
    )
    norm = Normalized(norm_text, text, arrays[0], arrays[1], arrays[2], linear)
    return IndexedSource(source, norm, hidden or None, from_cache=True)


def index_source(source_id: str, origin: str, config: GateConfig) -> IndexedSource:
    """Load, extract and normalize one source, through the cross-run cache.

    Raises :class:`SourceError` with a reason code when the source cannot be used.
    """
    data, content_type = read_bytes(origin, config)
    sha = hashlib.sha256(data).hexdigest()
    if config.index_cache:
        cached = _load(config, source_id, origin, sha)
        if cached is not None:
            return cached
    media_type = sniff_media_type(origin, data, content_type)
    text, pages, hidden = extract_text(data, media_type, config)
    del data
    if not text.strip():
        raise SourceError("source_no_text", f"source {source_id} has no readable text")
    source = Source(source_id, origin, media_type, text, sha, pages, hidden_text=hidden)
    ix = IndexedSource(source, normalize(text), normalize(hidden).text if hidden else None)
    if config.index_cache:
        with contextlib.suppress(OSError):  # a read-only cache only costs speed
            _store(ix, config)
    return ix
