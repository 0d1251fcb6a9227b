"""The source index: each source extracted and normalized once, cached across runs.

A cached reading is keyed by everything that shapes it (:func:`index_key`): the
SHA-256 of the raw bytes, the media type they were read as (declared by the
extension or derived), the index format version, a fingerprint of the
extraction and normalization code and of the libraries they use, and the
options that bound the reading. The same bytes read as plain text and as HTML
are two entries, so hidden HTML text never becomes visible because the bytes
were first read as text. Each entry stores its key fields and the SHA-256 of
its payload; an entry whose stored fields differ from the ones asked for, or
whose payload does not match, is ignored and rebuilt.

An entry is one file, written once and atomically (a temporary file renamed into place): the
payload, then the header, then the header's length and a magic trailer. A plain-text source whose
text is the UTF-8 decoding of its bytes (``Extracted.utf8``) is stored without that text: the bytes
the entry is keyed by (their SHA-256 is in the key) are read for the key anyway, and their decoding
is the text, so a warm run decodes them instead of reading, hashing and decoding a copy. During a
run the writes
go to :class:`CacheWriter`, a background thread the run waits for only when it closes, after its
verdicts; the entries waiting there are bounded in characters, so memory stays bounded. A cheap
reading (a plain text that is its bytes' UTF-8 decoding, normalized by the compiled core: about as
quick to redo as its entry is to load) is cached the second time a run reads it, not the first
(:mod:`claimledger.load.seen`): a corpus checked once leaves no copy of itself here.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import platform
import struct
import sys
import tempfile
import threading
from array import array
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from claimledger._config import GateConfig
from claimledger._exceptions import SourceError
from claimledger._files import digest_files
from claimledger.load import utf8 as utf8_codec
from claimledger.load.fetch import default_cache_dir
from claimledger.load.seen import SeenReadings
from claimledger.load.sources import extract, read_bytes, sniff_media_type
from claimledger.load.text import AOZORA_MARKS
from claimledger.model.source import Source
from claimledger.normalize import Normalized, compiled_core, normalize

INDEX_VERSION = 11  # bump when the cache layout changes (code changes are caught by the fingerprint)

_PACKAGE = Path(__file__).resolve().parent.parent  # claimledger/: _READING_CODE paths are relative to it
# the code that turns bytes into an indexed reading: any change to it makes every entry stale
_READING_CODE = (
    "load/index.py",
    "normalize.py",
    "_normalize_core.py",  # the optional C core of the normalizer and its tables
    "_cnormalize.c",
    "load/sources.py",
    "load/isolate.py",
    "load/_extract_worker.py",
    "load/_pdf_ink.py",
    "load/html.py",
    "load/pdf.py",
    "load/text.py",
    "textmap.py",
    "load/docx.py",
    "load/utf8.py",  # decoding, and its compiled half (same answers as the codec, by test)
    "_cutf8skel.c",
)


@functools.cache
def code_fingerprint() -> str:
    """SHA-256 over the reading code's files, the Python version (html.parser) and pypdfium2's version."""
    digest = hashlib.sha256()
    digest_files(digest, _PACKAGE, _READING_CODE)
    try:
        from importlib.metadata import version

        pdfium = version("pypdfium2")
    except Exception:  # not installed: PDFs cannot be read at all
        pdfium = "none"
    digest.update(f"python {platform.python_version()}; pypdfium2 {pdfium}".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class IndexKey:
    """The fields that shape a reading (canonical JSON) and the SHA-256 naming its cache entry."""

    fields: dict[str, object]
    fields_json: str
    digest: str


def index_key(sha: str, media_type: str, config: GateConfig) -> IndexKey:
    """The cache key of the reading of bytes ``sha`` as ``media_type`` under ``config``."""
    return _index_key(sha, media_type, INDEX_VERSION, code_fingerprint(), config.max_pdf_pages, config.max_source_chars)


@functools.lru_cache(maxsize=1024)
def _index_key(sha: str, media_type: str, version: int, code: str, max_pdf_pages: int, max_source_chars: int) -> IndexKey:
    """:func:`index_key` of its fields, remembered: a run asks for a source's key on the reading
    thread, then again on the scan's (the scan memo's answers are keyed by it). Nobody changes a
    key's ``fields``."""
    fields = {
        "bytes_sha256": sha,
        "media_type": media_type,
        "index_version": version,
        "code": code,
        "options": {"max_pdf_pages": max_pdf_pages, "max_source_chars": max_source_chars},
    }
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return IndexKey(fields, canonical, hashlib.sha256(canonical.encode()).hexdigest())


@dataclass
class IndexedSource:
    """A source with its normalized text. The reading that keeps line-break hyphens is never
    built whole: :func:`claimledger.checks.quote_scan.find_in_hyphen_reading` normalizes only
    windows around candidate places."""

    source: Source
    primary: Normalized
    hidden: str | None
    from_cache: bool = False
    utf8: bool = False  # ``source.text`` is the UTF-8 decoding of the source's bytes (not cached)


def _cache_path(config: GateConfig, key: IndexKey) -> Path:
    return _index_dir(config.cache_dir or default_cache_dir()) / key.digest[:2] / f"{key.digest}.idx"


@functools.lru_cache(maxsize=16)
def _index_dir(cache_dir: Path) -> Path:
    """The entries' folder of a cache directory (a reading thread asked it for every source: four
    joins of paths, while the scan waited for the GIL)."""
    return cache_dir / "index" / f"v{INDEX_VERSION}"


_MAGIC = b"clidx\x00\x0a\x00"  # the last 8 bytes of an entry; the 8 before them: the header's length


def _parts(ix: IndexedSource) -> Iterator[bytes]:
    """The payload, one part at a time (never all of it in memory at once)."""
    norm = ix.primary
    # the texts encoded without the GIL when long (load/utf8.py): the run's other threads go on
    yield b"" if ix.utf8 else utf8_codec.encode(ix.source.text)  # else the text is the bytes' decoding
    yield utf8_codec.encode(norm.text)
    yield utf8_codec.encode(ix.hidden or "")
    yield norm.norm_start.tobytes()
    yield norm.orig_start.tobytes()
    yield norm.orig_end.tobytes()
    yield bytes(norm.linear)


def _store(ix: IndexedSource, config: GateConfig, key: IndexKey) -> None:
    """One file, written once: the payload, then the header that names its key and the payload's
    SHA-256, then the trailer. Atomic (a temporary file renamed into place) but not flushed to
    disk: an entry torn by a power loss fails its checks and is rebuilt, so an fsync per source
    (a few per cent of a cold run over many sources) buys nothing."""
    path = _cache_path(config, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    lengths: list[int] = []
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            for part in _parts(ix):
                digest.update(part)
                lengths.append(len(part))
                fh.write(part)
            header = json.dumps({
                "version": INDEX_VERSION,
                "key": key.fields,
                "media_type": ix.source.media_type,
                "page_starts": list(ix.source.page_starts),
                "hidden_text": ix.source.hidden_text != "",
                "text_is_utf8": ix.utf8,
                "annotations": [list(a) for a in ix.source.annotations],
                "anchors": [list(a) for a in ix.source.anchors],
                "lengths": lengths,
                "byteorder": sys.byteorder,
                "payload_sha256": digest.hexdigest(),
            }).encode("utf-8")  # fmt: skip
            fh.write(header)
            fh.write(struct.pack("<Q", len(header)) + _MAGIC)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _store_quietly(ix: IndexedSource, config: GateConfig, key: IndexKey) -> None:
    # a cache entry only saves time later: failing to write one (a read-only or full disk, a file
    # where a folder belongs) must never change a run
    with contextlib.suppress(Exception):
        _store(ix, config, key)


class Store(Protocol):
    """Where a run's index entries go (:class:`CacheWriter`; :data:`WRITE_NOW` outside a run)."""

    def put(self, ix: IndexedSource, config: GateConfig, key: IndexKey) -> None: ...

    def seen_before(self, config: GateConfig, key: IndexKey) -> bool:
        """Whether a run read the reading named ``key`` before (:mod:`claimledger.load.seen`);
        this reading is recorded."""
        ...


def _seen_path(config: GateConfig) -> Path:
    return _index_dir(config.cache_dir or default_cache_dir()) / "seen.sqlite"


class _WriteNow:
    """Outside a run: each entry written at once, each sighting recorded at once (one transaction)."""

    def put(self, ix: IndexedSource, config: GateConfig, key: IndexKey) -> None:
        _store_quietly(ix, config, key)

    def seen_before(self, config: GateConfig, key: IndexKey) -> bool:
        seen = SeenReadings(_seen_path(config))
        try:
            return seen.seen_before(key.digest)
        finally:
            seen.close()


WRITE_NOW: Store = _WriteNow()


# entries waiting for the cache writer hold at most this many characters (text and normalized text)
# together; one entry always may, however large, so a large source is never held twice over
CACHE_WRITE_MAX_CHARS = 8 * 1024 * 1024


class CacheWriter:
    """Index entries written on one background thread; :meth:`close` waits for them all. The
    entries waiting (the one being written included) hold at most ``max_chars`` characters
    together, or are one entry (a further one waits for the oldest), so memory stays bounded;
    small sources do not wait for each other's writes (with one entry at most, the reading
    threads waited for the writer in turn and left a core idle)."""

    def __init__(self, max_chars: int = CACHE_WRITE_MAX_CHARS) -> None:
        self.max_chars = max_chars
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="claimledger-cache-write")
        self._pending: deque[tuple[Future[None], int]] = deque()
        self._chars = 0
        self._lock = threading.Lock()
        self._seen: dict[Path, SeenReadings] = {}  # per cache folder; written when the run closes

    def put(self, ix: IndexedSource, config: GateConfig, key: IndexKey) -> None:
        size = len(ix.source.text) + len(ix.primary.text) + len(ix.hidden or "")
        with self._lock:
            while self._pending and (self._pending[0][0].done() or self._chars + size > self.max_chars):
                job, done = self._pending.popleft()
                job.result()
                self._chars -= done
            self._pending.append((self._pool.submit(_store_quietly, ix, config, key), size))
            self._chars += size

    def seen_before(self, config: GateConfig, key: IndexKey) -> bool:
        path = _seen_path(config)
        with self._lock:
            seen = self._seen.get(path)
            if seen is None:
                seen = self._seen[path] = SeenReadings(path)
        return seen.seen_before(key.digest)

    def close(self) -> None:
        with self._lock:
            while self._pending:
                self._pending.popleft()[0].result()
            self._chars = 0
            for seen in self._seen.values():
                seen.close()
            self._seen.clear()
        self._pool.shutdown(wait=True)


def _load(
    config: GateConfig, source_id: str, origin: str, key: IndexKey, data: bytes
) -> IndexedSource | None:
    """The cached reading of ``data`` (the source's bytes, whose SHA-256 is in ``key``), if any."""
    path = _cache_path(config, key)
    try:
        with path.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < 16:
                return None
            fh.seek(size - 16)
            trailer = fh.read(16)
            if trailer[8:] != _MAGIC:
                return None
            (hlen,) = struct.unpack("<Q", trailer[:8])
            if hlen > size - 16:
                return None
            fh.seek(size - 16 - hlen)
            header = json.loads(fh.read(hlen))
            if header.get("version") != INDEX_VERSION or header.get("byteorder") != sys.byteorder:
                return None
            if header.get("key") != key.fields or header.get("media_type") != key.fields["media_type"]:
                return None  # an entry for another reading (or planted under this name): rebuild
            if sum(header["lengths"]) != size - 16 - hlen:
                return None
            fh.seek(0)
            digest = hashlib.sha256()
            chunks: list[bytes] = []
            for n in header["lengths"]:
                chunk = fh.read(n)
                if len(chunk) != n:
                    return None
                digest.update(chunk)
                chunks.append(chunk)
        if digest.hexdigest() != header["payload_sha256"]:
            return None  # corrupted or tampered: rebuild
        utf8 = header.get("text_is_utf8") is True
        if utf8:  # the text is the decoding of the bytes the entry is keyed by
            if header["lengths"][0] != 0:
                return None
            chunks[0] = data
        decoded: list[str] = []
        for i in range(3):  # each encoded chunk dropped once decoded: a large source's text is never
            decoded.append(utf8_codec.decode(chunks[i], sig=utf8 and i == 0))  # held twice over
            chunks[i] = b""
        text, norm_text, hidden = decoded
        del decoded
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
        sha256=str(key.fields["bytes_sha256"]),
        page_starts=tuple(int(p) for p in header["page_starts"]),
        hidden_text=hidden if header.get("hidden_text") else "",
        annotations=tuple((int(o), str(k), str(t)) for o, k, t in header.get("annotations", [])),
        anchors=tuple((int(o), int(line), int(col)) for o, line, col in header.get("anchors", [])),
    )
    norm = Normalized(norm_text, text, arrays[0], arrays[1], arrays[2], linear)
    return IndexedSource(source, norm, hidden or None, from_cache=True, utf8=utf8)


# Media types read again cheaply (a decode and a few regular expressions): the misattribution
# search may test their extracted text with the skeleton prefilter (claimledger/skeleton.py) and
# never normalize or cache them. PDF, HTML and .docx extraction is costly: those are indexed and
# cached as before, so a warm run does not extract them again.
PREFILTER_MEDIA = frozenset({"text/plain", "text/markdown"})


@dataclass
class Reading:
    """A source read and extracted but not yet normalized (:func:`read_source` with ``lazy``)."""

    source: Source
    key: IndexKey
    config: GateConfig

    store: Store | None = None  # where the entry goes (a run's CacheWriter); None: written now
    utf8: bool = False  # the text is the UTF-8 decoding of the source's bytes (Extracted.utf8)

    def index(self) -> IndexedSource:
        """Normalize the reading and store it in the cache, as :func:`index_source` does."""
        source, config = self.source, self.config
        hidden = source.hidden_text
        ix = IndexedSource(
            source, normalize(source.text), normalize(hidden).text if hidden else None, utf8=self.utf8
        )
        store = self.store or WRITE_NOW
        if config.index_cache and (not self.cheap() or store.seen_before(config, self.key)):
            store.put(ix, config, self.key)
        return ix

    def cheap(self) -> bool:
        """Whether reading the source again costs about what loading its cache entry would: a plain
        text that is its bytes' UTF-8 decoding (the bytes are read and hashed on every run anyway),
        normalized by the compiled core. Such a reading is cached the second time a run reads it
        (:mod:`claimledger.load.seen`), not the first."""
        return self.utf8 and compiled_core()


class BytesPrefilter(Protocol):
    """What :func:`read_source` asks before decoding (:meth:`claimledger.skeleton.Prefilter.rules_out_utf8`)."""

    def rules_out_utf8(self, data: bytes, stop: str = "") -> bool: ...


@dataclass(frozen=True)
class RuledOut:
    """A plain-text source whose bytes a prefilter ruled out: read and hashed, never decoded."""

    source_id: str
    sha256: str
    media_type: str


def read_source(
    source_id: str,
    origin: str,
    config: GateConfig,
    *,
    lazy: bool = False,
    store: Store | None = None,
    prefilter: BytesPrefilter | None = None,
) -> IndexedSource | Reading | RuledOut:
    """Load and extract one source: its cached reading when there is one; else, with ``lazy`` and a
    media type of :data:`PREFILTER_MEDIA`, the extracted text not yet normalized; else indexed.
    With ``lazy`` and a ``prefilter``, a plain-text source whose text is its UTF-8 decoding (no
    Aozora marks) is first tested on its bytes: :class:`RuledOut` when the prefilter rules it out.

    Raises :class:`SourceError` with a reason code when the source cannot be used.
    """
    data, content_type = read_bytes(origin, config)
    sha = hashlib.sha256(data).hexdigest()
    media_type = sniff_media_type(origin, data, content_type)
    key = index_key(sha, media_type, config)
    if config.index_cache:
        cached = _load(config, source_id, origin, key, data)
        if cached is not None:
            return cached
    if lazy and prefilter is not None and media_type == "text/plain" and prefilter.rules_out_utf8(data, AOZORA_MARKS):
        return RuledOut(source_id, sha, media_type)
    got = extract(data, media_type, config)
    del data
    text, hidden = got.text, got.hidden
    if not text or text.isspace():  # (not text.strip(), without copying the text)
        raise SourceError("source_no_text", f"source {source_id} has no readable text")
    source = Source(
        source_id, origin, media_type, text, sha, got.page_starts,
        hidden_text=hidden, annotations=got.annotations, anchors=got.anchors,
    )  # fmt: skip
    reading = Reading(source, key, config, store, got.utf8)
    return reading if lazy and media_type in PREFILTER_MEDIA else reading.index()


def index_source(source_id: str, origin: str, config: GateConfig) -> IndexedSource:
    """Load, extract and normalize one source, through the cross-run cache.

    Raises :class:`SourceError` with a reason code when the source cannot be used.
    """
    got = read_source(source_id, origin, config)
    assert isinstance(got, IndexedSource)  # not lazy: always indexed
    return got
