"""Real-format documents for the tests, generated here (no downloads, no copied text).

* :func:`paper_pdf`: a reportlab PDF shaped like a research paper: a running
  header and a page number on every page, a figure caption and a footnote, body
  text wrapped over lines (English in DejaVu Sans, Japanese in HeiseiMin-W3).
* :func:`release_html`: release notes in HTML with a nav bar, a hidden block, a
  script and ruby annotations.
* :func:`report_pdf`: a report PDF with a running header and footer, page numbers, figure
  boxes with captions (bottom or top of a page) and footnotes, page by page (issue 15).
* :func:`ruby_html`, :func:`aozora_text`: ruby as Aozora Bunko XHTML and mdBook write it, and
  Aozora Bunko plain text (Shift_JIS, CRLF, ｜base《reading》, ［＃…］ notes).
* :func:`docx_file`: a Word file (python-docx) with headings, a table, a footnote and a comment.
* :func:`survey_csv`: a public-data-style CSV (Shift_JIS for Japanese headers,
  UTF-8 with BOM otherwise), with a comment-free header row.
"""

from __future__ import annotations

import textwrap
import zipfile
from dataclasses import dataclass, field
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


@dataclass
class Page:
    body: list[str]
    caption: list[str] = field(default_factory=list)  # a figure caption at the bottom of the page
    footnotes: list[str] = field(default_factory=list)  # footnotes under the body, small type
    top_caption: list[str] = field(default_factory=list)  # a figure and its caption at the top


def report_pdf(path: Path, pages: list[Page], *, header: str, lang: str = "en", footer: str = "") -> Path:
    """A report: running header and footer, a page number on every page, a box standing for a
    figure with its caption, footnotes in small type under a rule."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    if lang == "ja":
        pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
        font = "HeiseiMin-W3"
    elif Path(DEJAVU).exists():
        pdfmetrics.registerFont(TTFont("DejaVu", DEJAVU))
        font = "DejaVu"
    else:
        font = "Helvetica"
    c = canvas.Canvas(str(path), invariant=True)
    for number, page in enumerate(pages, 1):
        c.setFont(font, 8)
        c.drawString(56, 810, header)
        c.line(56, 805, 540, 805)
        y = 780.0
        if page.top_caption:
            c.rect(56, y - 100, 300, 95)
            y -= 112
            for line in page.top_caption:
                c.setFont(font, 8)
                c.drawString(56, y, line)
                y -= 11
            y -= 10
        c.setFont(font, 10)
        for line in page.body:
            c.drawString(56, y, line)
            y -= 14
        if page.caption:
            y -= 8
            c.rect(56, y - 90, 300, 85)
            y -= 102
            c.setFont(font, 8)
            for line in page.caption:
                c.drawString(56, y, line)
                y -= 11
        if page.footnotes:
            c.line(56, 90, 200, 90)
            fy = 80.0
            c.setFont(font, 7)
            for line in page.footnotes:
                c.drawString(56, fy, line)
                fy -= 9
        c.setFont(font, 8)
        if footer:
            c.drawString(56, 40, footer)
        c.drawCentredString(297, 28, str(number))
        c.showPage()
    c.save()
    return path


def ruby_html(path: Path, paragraphs: list[str], *, title: str = "本文") -> Path:
    """XHTML as Aozora Bunko and mdBook write ruby: ``{漢字|かんじ}`` in a paragraph becomes
    ``<ruby><rb>漢字</rb><rp>（</rp><rt>かんじ</rt><rp>）</rp></ruby>``."""
    import re

    def ruby(m: re.Match[str]) -> str:
        return f"<ruby><rb>{m.group(1)}</rb><rp>（</rp><rt>{m.group(2)}</rt><rp>）</rp></ruby>"

    marked = re.compile(r"{([^|}]+)\|([^}]+)}")
    body = "\n".join(f'<div class="jisage_1"><p>{marked.sub(ruby, p)}</p></div>' for p in paragraphs)
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
        f'<html xmlns="http://www.w3.org/1999/xhtml" lang="ja"><head><title>{title}</title></head>\n'
        f'<body>\n<nav><a href="index.html">目次</a></nav>\n<h1 class="title">{title}</h1>\n'
        f'<div class="main_text">\n{body}\n</div>\n'
        '<div class="bibliographical_information"><p>底本：架空の底本</p></div>\n</body></html>\n',
        encoding="utf-8",
    )
    return path


def aozora_text(path: Path, lines: list[str], *, title: str = "作品名") -> Path:
    """Aozora Bunko plain text (Shift_JIS, CRLF): the notation header, ｜base《reading》,
    base《reading》 and ［＃…］ editor notes, and the bibliographical footer."""
    head = [
        title,
        "架空　作者",
        "",
        "-------------------------------------------------------",
        "【テキスト中に現れる記号について】",
        "",
        "《》：ルビ",
        "（例）吾輩《わがはい》",
        "",
        "｜：ルビの付く文字列の始まりを特定する記号",
        "",
        "［＃］：入力者注　主に外字の説明や、傍点の位置の指定",
        "-------------------------------------------------------",
        "",
    ]
    tail = ["", "", "底本：「架空の本」架空書房", "入力：テスト"]
    path.write_bytes("\r\n".join(head + lines + tail).encode("cp932"))
    return path


def docx_file(
    path: Path,
    *,
    title: str,
    paragraphs: list[str],
    table: list[list[str]] | None = None,
    footnote: str | None = None,
    comment: tuple[str, str] | None = None,
    headings: dict[int, str] | None = None,
) -> Path:
    """A Word document: a title, headings, paragraphs, a table, a footnote (footnotes.xml, as Word
    writes it) and a review comment on the first paragraph."""
    import docx

    doc = docx.Document()
    doc.add_heading(title, level=0)
    first = None
    for i, text in enumerate(paragraphs):
        if headings and i in headings:
            doc.add_heading(headings[i], level=1)
        p = doc.add_paragraph(text)
        first = first or p
    if table:
        t = doc.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for col, cell in enumerate(row):
                t.cell(r, col).text = cell
    if comment and first is not None:
        doc.add_comment(first.runs, text=comment[1], author=comment[0])
    doc.save(str(path))
    if footnote:
        _add_footnote(path, footnote)
    return path


_FOOTNOTES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
    '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p>'
    "</w:footnote>"
    '<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> {text}</w:t></w:r>'
    "</w:p></w:footnote></w:footnotes>"
)


def _add_footnote(path: Path, text: str) -> None:
    """Add word/footnotes.xml with one footnote, its relationship and content type, and a
    reference to it at the end of the first body paragraph."""
    with zipfile.ZipFile(path) as z:
        files = {n: z.read(n) for n in z.namelist()}
    files["word/footnotes.xml"] = _FOOTNOTES.format(text=text).encode("utf-8")
    rels = files["word/_rels/document.xml.rels"].decode("utf-8")
    rels = rels.replace(
        "</Relationships>",
        '<Relationship Id="rIdFn1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'footnotes" Target="footnotes.xml"/></Relationships>',
    )
    files["word/_rels/document.xml.rels"] = rels.encode("utf-8")
    types = files["[Content_Types].xml"].decode("utf-8")
    types = types.replace(
        "</Types>",
        '<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'wordprocessingml.footnotes+xml"/></Types>',
    )
    files["[Content_Types].xml"] = types.encode("utf-8")
    doc = files["word/document.xml"].decode("utf-8")
    doc = doc.replace("</w:p>", '<w:r><w:footnoteReference w:id="1"/></w:r></w:p>', 1)
    files["word/document.xml"] = doc.encode("utf-8")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
