"""PDFs (reportlab) with text a reader cannot see, one trick per page, each next to a visible line.

Every page prints a visible sentence ``VISIBLE[name]`` and hides ``HIDDEN[name]`` with one trick;
``CONTROLS`` are pages whose special-looking text a reader does see (small print, light grey,
white on a dark box, Japanese).
"""

from __future__ import annotations

import io
from collections.abc import Callable

from reportlab.lib.colors import Color, black, white
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

W, H = A4

Draw = Callable[[Canvas, str], None]


def _text(c: Canvas, s: str, x: float, y: float, size: float = 11, font: str = "Helvetica") -> None:
    c.setFont(font, size)
    c.drawString(x, y, s)


def _tiny_image() -> object:
    # a 2x2 grey PNG written by hand would need zlib+crc; reportlab reads a PIL image when present
    from PIL import Image
    from reportlab.lib.utils import ImageReader

    img = Image.new("RGB", (8, 8), (90, 120, 160))
    return ImageReader(img)


def mode7(c: Canvas, s: str) -> None:
    t = c.beginText(72, 600)
    t.setFont("Helvetica", 11)
    t.setTextRenderMode(7)
    t.textOut(s)
    c.drawText(t)


def white_stroke(c: Canvas, s: str) -> None:
    t = c.beginText(72, 600)
    t.setFont("Helvetica", 11)
    t.setTextRenderMode(1)
    c.setStrokeColor(white)
    t.textOut(s)
    c.drawText(t)


def alpha5(c: Canvas, s: str) -> None:
    c.setFillColor(Color(0, 0, 0, alpha=5 / 255))
    _text(c, s, 72, 600)


def tiny(c: Canvas, s: str) -> None:
    _text(c, s, 72, 600, size=0.6)


def grey240(c: Canvas, s: str) -> None:
    c.setFillColorRGB(240 / 255, 240 / 255, 240 / 255)
    _text(c, s, 72, 600)


def hscale1(c: Canvas, s: str) -> None:
    t = c.beginText(72, 600)
    t.setFont("Helvetica", 11)
    t.setHorizScale(1)
    t.textOut(s)
    c.drawText(t)


def under_image(c: Canvas, s: str) -> None:
    _text(c, s, 72, 600)
    c.drawImage(_tiny_image(), 60, 590, width=400, height=30)


def under_box(c: Canvas, s: str) -> None:
    _text(c, s, 72, 600)
    c.setFillColorRGB(0.85, 0.9, 1.0)
    c.rect(60, 590, 400, 30, stroke=0, fill=1)


def redaction_bar(c: Canvas, s: str) -> None:
    _text(c, s, 72, 600)
    c.setFillColor(black)
    c.rect(60, 590, 400, 30, stroke=0, fill=1)


def background_colour(c: Canvas, s: str) -> None:
    c.setFillColorRGB(0.1, 0.3, 0.6)
    c.rect(0, 560, W, 80, stroke=0, fill=1)
    c.setFillColorRGB(0.1, 0.3, 0.6)
    _text(c, s, 72, 600)


def off_page(c: Canvas, s: str) -> None:
    _text(c, s, W + 200, 600)
    _text(c, s + " (below)", 72, -300)


TRICKS: dict[str, Draw] = {
    "render mode 7": mode7,
    "white stroke-only": white_stroke,
    "fill alpha 5/255": alpha5,
    "0.6 pt text": tiny,
    "grey 240 on white": grey240,
    "1% horizontal scale": hscale1,
    "under an image": under_image,
    "under a filled box": under_box,
    "under a black redaction bar": redaction_bar,
    "in the background colour": background_colour,
    "off the page": off_page,
}


def hidden_sentence(name: str) -> str:
    return f"Hidden claim {list(TRICKS).index(name) + 1:02d}: sales rose by 93 percent"


def visible_sentence(name: str) -> str:
    return "The report states that sales rose by 12 percent in the year."


def build(tricks: dict[str, Draw] | None = None) -> bytes:
    """One page per trick: a running header, the visible sentence, the hidden one, a page number."""
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=A4)
    for n, (name, draw) in enumerate((tricks or TRICKS).items(), 1):
        c.setFillColor(black)
        _text(c, "Annual Report 2024 — running header", 72, H - 40, size=8)
        _text(c, visible_sentence(name), 72, 700)
        c.saveState()
        draw(c, hidden_sentence(name))
        c.restoreState()
        _text(c, f"Page {n}", W / 2, 30, size=8)
        c.showPage()
    c.save()
    return buf.getvalue()


def controls() -> bytes:
    """Text a reader does see, though it looks special: small print, light grey, white on dark, Japanese."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=A4)
    _text(c, "Footnote 1: small print of six points is read.", 72, 100, size=6)
    c.setFillColorRGB(150 / 255, 150 / 255, 150 / 255)
    _text(c, "A light grey caption is read too.", 72, 300)
    c.setFillColor(black)
    c.rect(60, 390, 400, 30, stroke=0, fill=1)
    c.setFillColor(white)
    _text(c, "White words on a dark box are read.", 72, 400)
    c.setFillColor(black)
    _text(c, "調査によれば、生成AIを業務で使う企業は増えた。", 72, 500, font="HeiseiMin-W3")
    c.setFillColor(Color(0, 0, 0, alpha=0.6))
    _text(c, "Semi-transparent text at sixty percent is read.", 72, 600)
    c.showPage()
    c.save()
    return buf.getvalue()
