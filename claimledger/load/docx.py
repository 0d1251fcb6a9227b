"""Word documents (.docx) as sources and drafts, through python-docx (the ``docx`` extra).

The body is read in document order: each paragraph is a paragraph, each table
cell its own line (a quote never runs from one cell into the next). Footnotes
and endnotes follow the body as paragraphs of their own (a reader sees them at
the foot of the page). Review comments are not part of the document: they are
kept apart as hidden text, so a quote found only there is not verified.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from claimledger._exceptions import SourceError
from claimledger.load.extracted import Extracted

INSTALL_HINT = (
    "reading .docx files needs python-docx: pip install 'claimledger[docx]' (from a clone: pip install -e '.[docx]')"
)
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _module() -> Any:
    try:
        import docx
    except ImportError:
        raise SourceError("source_unreadable", INSTALL_HINT) from None
    return docx


def _para_text(p: Any) -> str:
    """Text of a w:p element: runs, tabs and breaks (footnote references are not text)."""
    out: list[str] = []
    for el in p.iter():
        if el.tag == f"{_W}t" and el.text:
            out.append(el.text)
        elif el.tag == f"{_W}tab":
            out.append("\t")
        elif el.tag in (f"{_W}br", f"{_W}cr"):
            out.append("\n")
    return "".join(out)


def _notes(package: Any, name: str, tag: str) -> list[str]:
    """Paragraph texts of footnotes.xml / endnotes.xml / comments.xml (separator notes skipped)."""
    from lxml import etree  # a dependency of python-docx

    for part in package.parts:
        if str(part.partname) == f"/word/{name}":
            root = etree.fromstring(part.blob)
            texts: list[str] = []
            for note in root.iter(f"{_W}{tag}"):
                kind = note.get(f"{_W}type")
                if kind in ("separator", "continuationSeparator", "continuationNotice"):
                    continue
                text = " ".join(t for t in (_para_text(p).strip() for p in note.iter(f"{_W}p")) if t)
                if text:
                    texts.append(text)
            return texts
    return []


def docx_blocks(data: bytes) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """``([(style, text)] of the body in order, footnotes and endnotes, comments)``."""
    docx = _module()
    try:
        doc = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise SourceError("source_unreadable", f"not a readable .docx file ({type(exc).__name__}: {exc})") from None
    except Exception as exc:  # python-docx raises its own PackageNotFoundError and lxml errors
        raise SourceError("source_unreadable", f"not a readable .docx file ({type(exc).__name__}: {exc})") from None
    blocks: list[tuple[str, str]] = []
    for child in doc.element.body.iterchildren():
        if child.tag == f"{_W}p":
            style = ""
            ppr = child.find(f"{_W}pPr")
            if ppr is not None:
                ps = ppr.find(f"{_W}pStyle")
                if ps is not None:
                    style = str(ps.get(f"{_W}val") or "")
            blocks.append((style, _para_text(child)))
        elif child.tag == f"{_W}tbl":
            for tc in child.iter(f"{_W}tc"):
                cell = "\n".join(_para_text(p) for p in tc.iter(f"{_W}p")).strip()
                if cell:
                    blocks.append(("TableCell", cell))
    package = doc.part.package
    notes = _notes(package, "footnotes.xml", "footnote") + _notes(package, "endnotes.xml", "endnote")
    comments = _notes(package, "comments.xml", "comment")
    return blocks, notes, comments


def docx_extract(data: bytes) -> Extracted:
    """A .docx source: body paragraphs and table cells, then notes; comments kept apart."""
    blocks, notes, comments = docx_blocks(data)
    paras = [t.strip() for _, t in blocks if t.strip()] + [n for n in notes if n.strip()]
    return Extracted("\n\n".join(paras), (), "\n".join(comments))


def docx_to_markdown(data: bytes) -> str:
    """A .docx draft as Markdown: headings (Heading N / Title styles) get ``#``, table cells are
    list items of their own, footnotes follow under a rule; review comments are left out."""
    blocks, notes, _comments = docx_blocks(data)
    out: list[str] = []
    for style, text in blocks:
        text = text.strip()
        if not text:
            continue
        low = style.lower().replace(" ", "")
        if low == "title":
            out.append(f"# {text}")
        elif low.startswith("heading") and low[7:].isdigit():
            out.append("#" * min(6, int(low[7:])) + f" {text}")
        elif style == "TableCell":
            out.append(f"- {text}")
        else:
            out.append(text)
    if notes:
        out.append("---")
        out.extend(notes)
    return "\n\n".join(out) + "\n"
