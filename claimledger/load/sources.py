"""Load a source by id: local file or URL -> :class:`Source` with its SHA-256.

Media type comes from the extension, then the HTTP content type, then a sniff
of the bytes. Every failure is a :class:`SourceError` with a reason code; the
checks turn it into a finding.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from claimledger._config import GateConfig
from claimledger._exceptions import SourceError
from claimledger.load.extracted import Extracted
from claimledger.load.fetch import UrlCache, default_cache_dir, fetch_url
from claimledger.load.html import html_extract
from claimledger.load.pdf import pdf_extract
from claimledger.load.text import decode_text, decode_text_utf8, markdown_mapped, text_mapped
from claimledger.model.source import Source

_EXT_TYPES = {
    ".pdf": "application/pdf",
    ".html": "text/html",
    ".htm": "text/html",
    ".xhtml": "text/html",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".qmd": "text/markdown",
    ".txt": "text/plain",
    ".text": "text/plain",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
DOCX = _EXT_TYPES[".docx"]


def is_url(origin: str) -> bool:
    return origin.lower().startswith(("http://", "https://"))


def resolve_origin(origin: str, base_dir: Path) -> str:
    """A URL as is; a local path made absolute relative to the ledger's folder."""
    if is_url(origin):
        return origin
    path = Path(origin).expanduser()
    return str(path if path.is_absolute() else (base_dir / path))


def sniff_media_type(origin: str, data: bytes, content_type: str = "") -> str:
    suffix = Path(origin.split("?", 1)[0]).suffix.lower()
    if suffix in _EXT_TYPES:
        return _EXT_TYPES[suffix]
    if content_type.startswith(("application/pdf", "text/html", "application/xhtml", "text/markdown")):
        return "text/html" if "html" in content_type else content_type
    if content_type.startswith(DOCX):
        return DOCX
    if data[:2] == b"PK" and b"word/" in data[:4096]:
        return DOCX
    head = data[:1024].lstrip().lower()
    if head.startswith(b"%pdf"):
        return "application/pdf"
    if head.startswith((b"<!doctype html", b"<html")) or b"<body" in head:
        return "text/html"
    return "text/plain"


def read_bytes(origin: str, config: GateConfig) -> tuple[bytes, str]:
    """Raw bytes and content type of a local file or URL."""
    if is_url(origin):
        cache = UrlCache(config.cache_dir or default_cache_dir())
        fetched = fetch_url(
            origin,
            cache=cache,
            timeout=config.fetch_timeout,
            allow_private=config.allow_private_urls,
            max_bytes=config.max_source_bytes,
            refresh=config.refresh,
        )
        return fetched.data, fetched.content_type
    return _read_file(origin, config.max_source_bytes), ""


def _read_file(origin: str, limit: int) -> bytes:
    """A regular file's bytes, at most ``limit`` of them. The file is opened once and what was
    opened is what is checked (a regular file, its size) and read, never more than the limit: a
    file that grows after its size was seen, or a path swapped for a FIFO, cannot get past the
    checks (and one open and one fstat cost less than four lookups of the path)."""
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)  # a FIFO never blocks the run
    try:
        fd = os.open(origin, flags)
    except FileNotFoundError:
        raise SourceError("source_file_missing", f"declared source file {origin} does not exist") from None
    except OSError as exc:
        raise SourceError("source_unreadable", f"cannot read {origin}: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SourceError("source_unreadable", f"{origin} is not a regular file")
        if st.st_size > limit:
            raise SourceError(
                "source_too_large",
                f"{origin} is {st.st_size:,} bytes, over the limit of {limit:,} (--max-source-bytes)",
            )
        chunks: list[bytes] = []
        total, want = 0, st.st_size + 1  # the size seen, and one byte more to see the end
        while total <= limit:
            chunk = os.read(fd, min(max(want, 1 << 16), limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            want = 1 << 20  # it grew after its size was seen: read on, never past the limit
    except OSError as exc:
        raise SourceError("source_unreadable", f"cannot read {origin}: {exc.strerror}") from None
    finally:
        os.close(fd)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if len(data) > limit:
        raise SourceError(
            "source_too_large", f"{origin} grew past the limit of {limit:,} bytes while it was read (--max-source-bytes)"
        )
    return data


def extract(data: bytes, media_type: str, config: GateConfig) -> Extracted:
    """Text a reader sees, page starts (PDF), hidden text (HTML; invisible PDF text), readings
    and notes kept apart, and anchors back to lines and columns of the file."""
    if media_type == "application/pdf":
        text, pages, hidden = pdf_extract(data, max_pages=config.max_pdf_pages, timeout=config.pdf_timeout,
                                          memory=config.extract_memory, max_chars=config.max_source_chars)  # fmt: skip
        return Extracted(text, pages, hidden)
    if media_type == DOCX:
        from claimledger.load.docx import docx_extract

        return docx_extract(data)
    if media_type == "text/html":
        visible, hidden, *extras = html_extract(decode_text(data), timeout=config.pdf_timeout,
                                                memory=config.extract_memory, max_chars=config.max_source_chars)  # fmt: skip
        more = extras[0] if extras else {}
        readings = tuple((int(o), "ruby", str(t)) for o, t in more.get("readings", []))
        anchors = tuple((int(o), int(line), int(col)) for o, line, col in more.get("anchors", []))
        return Extracted(visible, (), hidden, readings, anchors)
    if media_type == "text/markdown":
        text, anchors = markdown_mapped(decode_text(data))
        return Extracted(text, anchors=anchors)
    decoded, utf8 = decode_text_utf8(data)
    text, notes, anchors = text_mapped(decoded)
    return Extracted(text, annotations=notes, anchors=anchors, utf8=utf8 and text is decoded)


def extract_text(data: bytes, media_type: str, config: GateConfig) -> tuple[str, tuple[int, ...], str]:
    """Text a reader sees, page starts (PDF) and hidden text (HTML; invisible PDF text)."""
    got = extract(data, media_type, config)
    return got.text, got.page_starts, got.hidden


def load_source(source_id: str, origin: str, config: GateConfig) -> Source:
    """Load one source (no normalization, no cache). ``origin`` is an absolute path or a URL."""
    data, content_type = read_bytes(origin, config)
    sha = hashlib.sha256(data).hexdigest()
    media_type = sniff_media_type(origin, data, content_type)
    got = extract(data, media_type, config)
    if not got.text or got.text.isspace():
        raise SourceError("source_no_text", f"source {source_id} has no readable text")
    return Source(
        id=source_id,
        origin=origin,
        media_type=media_type,
        text=got.text,
        sha256=sha,
        page_starts=got.page_starts,
        hidden_text=got.hidden,
        annotations=got.annotations,
        anchors=got.anchors,
    )
