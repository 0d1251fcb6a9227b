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
import sys
from array import array
from dataclasses import dataclass, field
from pathlib import Path

from claimledger._config import GateConfig
from claimledger._exceptions import SourceError
from claimledger.load.fetch import atomic_write, default_cache_dir
from claimledger.load.sources import extract_text, read_bytes, sniff_media_type
from claimledger.model.source import Source
from claimledger.normalize import Normalized, has_break_hyphens, normalize

INDEX_VERSION = 3  # bump when extraction or normalization changes


@dataclass
class IndexedSource:
    """A source with its normalized text (and, lazily, the hyphen-keeping reading)."""

    source: Source
    primary: Normalized
    hidden: str | None
    from_cache: bool = False
    _alternate: Normalized | None = field(default=None, repr=False)
    _alternate_done: bool = field(default=False, repr=False)

    @property
    def alternate(self) -> Normalized | None:
        """The reading that keeps line-break hyphens (``well-known``), when it differs."""
        if not self._alternate_done:
            self._alternate_done = True
            if has_break_hyphens(self.source.text):
                self._alternate = normalize(self.source.text, keep_break_hyphens=True)
        return self._alternate


def _cache_path(config: GateConfig, sha: str) -> Path:
    root = config.cache_dir or default_cache_dir()
    return root / "index" / f"v{INDEX_VERSION}" / sha[:2] / f"{sha}.idx"


def _pack(ix: IndexedSource) -> bytes:
    src, norm = ix.source, ix.primary
    parts = [
        src.text.encode("utf-8"),
        norm.text.encode("utf-8"),
        (ix.hidden or "").encode("utf-8"),
        norm.norm_start.tobytes(),
        norm.orig_start.tobytes(),
        norm.orig_end.tobytes(),
        bytes(norm.linear),
    ]
    payload = b"".join(parts)
    header = {
        "version": INDEX_VERSION,
        "media_type": src.media_type,
        "page_starts": list(src.page_starts),
        "hidden_text": src.hidden_text != "",
        "lengths": [len(p) for p in parts],
        "byteorder": sys.byteorder,
        "payload_sha256": hashlib.sha256(payload).hexdigest(),
    }
    return json.dumps(header).encode("utf-8") + b"\n" + payload


def _unpack(blob: bytes, source_id: str, origin: str, sha: str) -> IndexedSource | None:
    try:
        head, payload = blob.split(b"\n", 1)
        header = json.loads(head)
        if header.get("version") != INDEX_VERSION or header.get("byteorder") != sys.byteorder:
            return None
        if hashlib.sha256(payload).hexdigest() != header["payload_sha256"]:
            return None
        chunks: list[bytes] = []
        pos = 0
        for n in header["lengths"]:
            chunks.append(payload[pos : pos + n])
            pos += n
        text, norm_text, hidden = (c.decode("utf-8") for c in chunks[:3])
        arrays: list[array[int]] = []
        for raw in chunks[3:6]:
            arr: array[int] = array("q")
            arr.frombytes(raw)
            arrays.append(arr)
        linear = bytearray(chunks[6])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
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
    path = _cache_path(config, sha)
    if config.index_cache:
        try:
            cached = _unpack(path.read_bytes(), source_id, origin, sha)
        except OSError:
            cached = None
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
            atomic_write(path, _pack(ix))
    return ix
