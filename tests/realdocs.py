"""Real-format documents for the issue-13 tests, generated here (no downloads, no copied text).

* :func:`paper_pdf`: a reportlab PDF shaped like a research paper: a running
  header and a page number on every page, a figure caption and a footnote, body
  text wrapped over lines (English in DejaVu Sans, Japanese in HeiseiMin-W3).
* :func:`release_html`: release notes in HTML with a nav bar, a hidden block, a
  script and ruby annotations.
* :func:`survey_csv`: a public-data-style CSV (Shift_JIS for Japanese headers,
  UTF-8 with BOM otherwise), with a comment-free header row.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
_fonts_done = False


def _fonts() -> tuple[str, str]:
    global _fonts_done
    from reportlab.pdfbase import pdfmetrics  # type: ignore[import-untyped]
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont  # type: ignore[import-untyped]
    from reportlab.pdfbase.ttfonts import TTFont  # type: ignore[import-untyped]

    if not _fonts_done:
        if Path(DEJAVU).exists():
            pdfmetrics.registerFont(TTFont("DejaVu", DEJAVU))
        pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
        _fonts_done = True
    return ("DejaVu" if Path(DEJAVU).exists() else "Helvetica"), "HeiseiMin-W3"


def paper_pdf(path: Path, title: str, paragraphs: list[str], *, lang: str = "en",
              caption: str = "", footnote: str = "") -> Path:  # fmt: skip
    """Write a paper-like PDF: header, page numbers, wrapped body, a caption and a footnote."""
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    en_font, ja_font = _fonts()
    font = en_font if lang == "en" else ja_font
    width = 88 if lang == "en" else 38
    lines: list[str] = []
    for para in paragraphs:
        if lang == "en":
            lines += textwrap.wrap(para, width, break_long_words=False, break_on_hyphens=False)
        else:
            lines += [para[i : i + width] for i in range(0, len(para), width)]
        lines.append("")
    c = canvas.Canvas(str(path), invariant=True)
    per_page = 30
    pages = [lines[i : i + per_page] for i in range(0, len(lines), per_page)] or [[]]
    for n, page in enumerate(pages, start=1):
        c.setFont(font, 8)
        c.drawString(36, 815, title)  # running header
        c.setFont(font, 10)
        y = 780.0
        for line in page:
            c.drawString(48, y, line)
            y -= 14
        if n == 1 and caption:
            c.setFont(font, 8)
            c.drawString(60, y - 10, caption)
        if n == len(pages) and footnote:
            c.setFont(font, 7)
            c.drawString(48, 60, footnote)
        c.setFont(font, 8)
        c.drawString(290, 30, str(n))  # page number
        c.showPage()
    c.save()
    return path


def release_html(path: Path, title: str, body_html: str) -> Path:
    """Release notes with navigation, a hidden block and a script around the body."""
    path.write_text(
        f"""<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>
<script>var tracking = "about 99 users";</script></head><body>
<nav><a href="/">Home</a> | <a href="/releases">Releases</a> | <a href="/docs">Docs</a></nav>
<div style="display:none">Hidden: latency is always 1 ms.</div>
<main><h1>{title}</h1>
{body_html}
</main><footer>© 2026 Example project · <a href="/privacy">Privacy</a></footer></body></html>
""",
        encoding="utf-8",
    )
    return path


def survey_csv(
    path: Path, header: list[str], rows: list[list[object]], *, encoding: str = "utf-8-sig"
) -> Path:
    lines = [",".join(header)] + [",".join(str(v) for v in row) for row in rows]
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode(encoding))
    return path
