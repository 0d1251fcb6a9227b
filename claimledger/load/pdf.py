"""PDF text with page numbers, through pypdfium2 (PDFium).

Extraction runs in a child process (:mod:`claimledger.load._extract_worker`) with
a time limit, so a PDF crafted to hang or crash the extractor is stopped and
reported (``source_extraction_timeout``) instead of stopping the gate. Text
drawn invisibly (render mode 3, white fill, transparent or tiny text) is
returned apart as hidden text: a quote found only there is not verified.
"""

from __future__ import annotations

from claimledger._config import DEFAULT_EXTRACT_MEMORY, DEFAULT_MAX_SOURCE_CHARS
from claimledger._exceptions import SourceError
from claimledger.load import _extract_worker
from claimledger.load.isolate import run_extractor

PAGE_SEPARATOR = "\n\n"


def pdf_extract(
    data: bytes,
    *,
    max_pages: int = 2000,
    timeout: float | None = None,
    memory: int = DEFAULT_EXTRACT_MEMORY,
    max_chars: int = DEFAULT_MAX_SOURCE_CHARS,
) -> tuple[str, tuple[int, ...], str]:
    """Visible text, the offset where each page starts, and the hidden text of a PDF.

    With ``timeout`` (seconds) extraction runs in a child process that is
    killed when the time is up; without, in this process. PDFium marks a
    hyphenated line break with U+FFFE; :mod:`claimledger.normalize` reads it.
    Raises :class:`SourceError` for an unreadable, encrypted, text-less, too
    long or too slow PDF.
    """
    if timeout is None:
        result = _extract_worker.extract(data, max_pages, max_chars)
        if "error" in result:
            raise SourceError(str(result["error"]), str(result.get("message", "")))
    else:
        result = run_extractor("pdf", data, (str(max_pages),), timeout, memory=memory, max_chars=max_chars)
    parts = [str(p) for p in result.get("pages", [])]
    hidden_parts = [str(h) for h in result.get("hidden", [])]
    starts: list[int] = []
    offset = 0
    for text in parts:
        starts.append(offset)
        offset += len(text) + len(PAGE_SEPARATOR)
    full = PAGE_SEPARATOR.join(parts)
    hidden = PAGE_SEPARATOR.join(h for h in hidden_parts if h.strip())
    if not full.strip():
        if hidden.strip():
            raise SourceError(
                "source_no_text",
                "PDF has no visible text, only invisible text (an OCR layer, or text hidden on purpose); "
                "cite a text version of the source",
            )
        raise SourceError(
            "source_no_text",
            "PDF has no text layer (a scan?); run OCR or cite a text version of the source",
        )
    return full, tuple(starts), hidden


def pdf_to_text(data: bytes, *, max_pages: int = 2000, timeout: float | None = None) -> tuple[str, tuple[int, ...]]:
    """Return the visible text layer of a PDF and the offset where each page starts."""
    text, starts, _hidden = pdf_extract(data, max_pages=max_pages, timeout=timeout)
    return text, starts
