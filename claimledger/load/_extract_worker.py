"""Source text extraction (PDF, HTML), meant to run in a child process that can be stopped.

PDFium and Python's ``html.parser`` can be made to work for a very long time
by crafted input (the latter is quadratic on unclosed comments, tags and
attribute quotes in Python 3.11), so the gate extracts in a child process it
kills after a time limit. This module imports only the standard library (and
pypdfium2 for PDFs), so the child starts quickly::

    python -I _extract_worker.py pdf MEMORY PARENT_PID MAX_CHARS MAX_PAGES < file.pdf
    python -I _extract_worker.py html MEMORY PARENT_PID MAX_CHARS < page.html      (UTF-8)

The child limits its own memory to MEMORY bytes (``RLIMIT_DATA``, and ``RLIMIT_AS``
at its start-up size plus MEMORY), is killed when its parent dies
(``PR_SET_PDEATHSIG``), and stops with ``source_too_large`` once the text it
extracted passes MAX_CHARS characters. It reads its input from stdin and
writes nothing to disk.

It writes one JSON object to stdout: ``{"pages": [...], "hidden": [...]}``
(PDF), ``{"visible": ..., "hidden": ...}`` (HTML) or ``{"error": reason,
"message": ...}``.

Text a reader cannot see is kept apart, page by page (OCR layers over scans
are reported as hidden, never silently dropped). Whether a character is seen
is decided from the rendered page (:mod:`._pdf_ink`): a page of plain dark
text takes the fast path (one call for the whole page); any other page is
rendered and read character by character. When rendering cannot judge a page
(its fonts could not be drawn), the attribute rules below decide: render mode
3, white or near-white fill, fully transparent, smaller than half a point.
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path
from typing import Any

WHITE = 245  # each of R, G and B at least this: white on (presumed) white paper
MIN_FONT_SIZE = 0.5  # points


def _hidden_object(raw: Any, obj: Any) -> bool:
    mode = raw.FPDFTextObj_GetTextRenderMode(obj)
    if mode == raw.FPDF_TEXTRENDERMODE_INVISIBLE:
        return True
    r, g, b, a = (ctypes.c_uint() for _ in range(4))
    filled = mode in (
        raw.FPDF_TEXTRENDERMODE_FILL,
        raw.FPDF_TEXTRENDERMODE_FILL_CLIP,
        raw.FPDF_TEXTRENDERMODE_FILL_STROKE,
        raw.FPDF_TEXTRENDERMODE_FILL_STROKE_CLIP,
    )
    if filled and raw.FPDFPageObj_GetFillColor(obj, r, g, b, a):
        if a.value == 0:
            return True
        if min(r.value, g.value, b.value) >= WHITE and mode in (
            raw.FPDF_TEXTRENDERMODE_FILL,
            raw.FPDF_TEXTRENDERMODE_FILL_CLIP,
        ):
            return True
    size = ctypes.c_float()
    return bool(raw.FPDFTextObj_GetFontSize(obj, size)) and 0 <= size.value < MIN_FONT_SIZE


def _hidden_objects(raw: Any, count: int, get: Any, depth: int = 0) -> set[int]:
    """Addresses of the hidden text objects, looking into form XObjects (bounded depth)."""
    found: set[int] = set()
    for i in range(count):
        obj = get(i)
        if not obj:
            continue
        kind = raw.FPDFPageObj_GetType(obj)
        if kind == raw.FPDF_PAGEOBJ_TEXT and _hidden_object(raw, obj):
            found.add(ctypes.cast(obj, ctypes.c_void_p).value or 0)
        elif kind == raw.FPDF_PAGEOBJ_FORM and depth < 8:
            n = raw.FPDFFormObj_CountObjects(obj)
            found |= _hidden_objects(raw, n, lambda j, o=obj: raw.FPDFFormObj_GetObject(o, j), depth + 1)
    return found


def _split_page(raw: Any, ink: Any, textpage: Any, hidden_objs: set[int]) -> tuple[str, str]:
    """Visible and hidden text of a page, one character at a time."""
    tp = textpage.raw
    visible: list[str] = []
    hidden: list[str] = []
    last_hidden: int | None = None  # the hidden text object being read
    for i in range(raw.FPDFText_CountChars(tp)):
        ch = ink.char_at(raw, tp, i)
        obj = raw.FPDFText_GetTextObject(tp, i)
        addr = ctypes.cast(obj, ctypes.c_void_p).value if obj else None
        if addr is not None and addr in hidden_objs:
            if addr != last_hidden and hidden:
                hidden.append("\n")
            hidden.append(ch)
            last_hidden = addr
        elif addr is not None:
            visible.append(ch)
            last_hidden = None
        elif last_hidden is None:
            visible.append(ch)  # a generated space or line break right after hidden text belongs to neither
    return "".join(visible), "".join(hidden)


def _too_much_text(max_chars: int) -> dict[str, Any]:
    return {
        "error": "source_too_large",
        "message": f"the extracted text is over the limit of {max_chars:,} characters (--max-source-chars); "
        "a file crafted to expand, or raise the limit if the source is just very long",
    }


def _by_ink(chars: list[tuple[str, int | None, Any]], seen: list[bool]) -> tuple[str, str]:
    """Visible and hidden text of a page from the per-character decision of :mod:`._pdf_ink`."""
    visible: list[str] = []
    hidden: list[str] = []
    was_hidden = False
    broken = ""  # a line break inside hidden text: the visible text after it starts a new line
    for (ch, _addr, _box), ok in zip(chars, seen, strict=True):
        if ok:
            if broken and visible and not visible[-1].isspace() and not ch.isspace():
                visible.append(broken)  # else a line's last visible word and the next line's first join
            broken = ""
            visible.append(ch)
        else:
            if not was_hidden and hidden:
                hidden.append("\n")
            hidden.append(ch)
            if ch in "\r\n":
                broken = "\n"
        was_hidden = not ok
    return "".join(visible), "".join(hidden).strip()


def _read_page(raw: Any, ink: Any, page: Any, textpage: Any) -> tuple[str, str]:
    """Visible and hidden text of one page: rendered and judged by ink; by attributes when it cannot be."""
    tp = textpage.raw
    if raw.FPDFText_CountChars(tp) <= 0:
        return "", ""
    whole = textpage.get_text_range()
    if not ink.needs_rendering(raw, page, tp):
        return whole, ""  # only plain dark text on the page: nothing can hide any of it
    chars = ink.char_boxes(raw, tp)
    hidden_objs = _hidden_objects(
        raw, raw.FPDFPage_CountObjects(page.raw), lambda j, p=page.raw: raw.FPDFPage_GetObject(p, j)
    )
    seen = ink.visible_chars(raw, page, tp, chars)  # removes the page's text objects: the last use of the page
    if seen is None:  # the page could not be judged by rendering: the attribute checks
        return _split_page(raw, ink, textpage, hidden_objs) if hidden_objs else (whole, "")
    if all(seen):
        return whole, ""
    return _by_ink(chars, seen)


def extract(data: bytes, max_pages: int, max_chars: int | None = None) -> dict[str, Any]:
    """Visible and hidden text of every page, or an error (reason code and message)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        return {"error": "source_unreadable", "message": f"not a readable PDF ({exc})"}
    try:
        n = len(doc)
        if n > max_pages:
            return {
                "error": "source_too_large",
                "message": f"PDF has {n} pages, over the limit of {max_pages} (--max-pdf-pages)",
            }
        pages: list[str] = []
        hidden: list[str] = []
        total = 0
        ink = _module("_pdf_ink")
        for i in range(n):
            page = doc[i]
            textpage = page.get_textpage()
            try:
                text, secret = _read_page(raw, ink, page, textpage)
            finally:
                textpage.close()
                page.close()
            pages.append(text)
            hidden.append(secret)
            total += len(text) + len(secret)
            if max_chars is not None and total > max_chars:
                return _too_much_text(max_chars)
    except pdfium.PdfiumError as exc:
        return {"error": "source_unreadable", "message": f"PDF text cannot be extracted ({exc})"}
    finally:
        doc.close()
    return {"pages": pages, "hidden": hidden}


def _module(name: str) -> Any:
    """A sibling module, loaded by path: importing the package would cost a second of start-up."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_claimledger_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(kind: str, data: bytes, max_chars: int, rest: list[str]) -> dict[str, Any]:
    if kind == "pdf":
        return extract(data, int(rest[0]), max_chars)
    html = _module("html")
    try:
        result: dict[str, Any] = html.html_to_dict(data.decode("utf-8", "surrogatepass"))
    except html.HTMLUnreadable as exc:
        return {"error": "source_unreadable", "message": str(exc)}
    if len(result.get("visible", "")) + len(result.get("hidden", "")) > max_chars:
        return _too_much_text(max_chars)
    return result


def main() -> None:
    kind, memory, parent, max_chars = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    child = _module("_child")
    child.die_with_parent(parent)
    child.limit_memory(memory)
    if kind == "pdf":
        import pypdfium2  # noqa: F401  (mapped before the address-space limit is set)
    child.limit_address_space(memory)
    try:
        data = sys.stdin.buffer.read()
        result = _run(kind, data, max_chars, sys.argv[5:])
        del data
        blob = json.dumps(result).encode("ascii")  # \u escapes: lone surrogates survive
    except MemoryError:
        blob = json.dumps({"error": "source_too_large", "message": "memory"}).encode("ascii")
    sys.stdout.buffer.write(blob)


if __name__ == "__main__":
    # run as a script, this folder is sys.path[0]: drop it, or claimledger/load/html.py would shadow
    # the standard library's html package
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        del sys.path[0]
    main()
