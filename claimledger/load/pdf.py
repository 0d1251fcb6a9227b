"""PDF text with page numbers, through pypdfium2 (PDFium)."""

from __future__ import annotations

from claimledger._exceptions import SourceError

PAGE_SEPARATOR = "\n\n"


def pdf_to_text(data: bytes, *, max_pages: int = 2000) -> tuple[str, tuple[int, ...]]:
    """Return the text layer of a PDF and the offset where each page starts.

    PDFium marks a hyphenated line break with U+FFFE; :mod:`claimledger.normalize`
    reads it. Raises :class:`SourceError` for an unreadable, encrypted or
    text-less PDF.
    """
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise SourceError("source_unreadable", f"not a readable PDF ({exc})") from None
    try:
        n = len(doc)
        if n > max_pages:
            raise SourceError(
                "source_too_large", f"PDF has {n} pages, over the limit of {max_pages} (--max-pdf-pages)"
            )
        parts: list[str] = []
        starts: list[int] = []
        offset = 0
        for i in range(n):
            page = doc[i]
            textpage = page.get_textpage()
            try:
                text = textpage.get_text_range()
            finally:
                textpage.close()
                page.close()
            starts.append(offset)
            parts.append(text)
            offset += len(text) + len(PAGE_SEPARATOR)
        full = PAGE_SEPARATOR.join(parts)
    finally:
        doc.close()
    if not full.strip():
        raise SourceError(
            "source_no_text",
            "PDF has no text layer (a scan?); run OCR or cite a text version of the source",
        )
    return full, tuple(starts)
