"""Which characters of a PDF page a reader sees: decided from the rendered page, not from attributes.

A character counts as visible only when its box, on the page as rendered, shows ink of its own:
the page is rendered twice in grey (at :data:`SCALE`, 72 dpi), once as it is and once with every
text object removed, and a character is kept when some pixel of its box differs between the two
by at least :data:`INK` (of 255). That one test covers every trick that attributes miss or get
wrong: text under an image or a filled box (a black redaction bar included: both renders show the
box), text in the page's background colour, white or light grey on white, near-transparent text,
stroke-only text in the paper's colour, render modes 3 and 7, and text off the page (its box holds no pixel) -- and white text on a dark box, which
a reader does see, is kept.

Text too small or squeezed too thin to read (under :data:`MIN_HEIGHT` points high, or narrower
than :data:`MIN_WIDTH_RATIO` of its height: 0.6 pt text, 1 % horizontal scale) is hidden by its
geometry, since a few antialiased pixels of it may still differ.

Characters that leave no ink by nature (spaces, line breaks, zero-width characters) take the
decision of the character before them. When a page leaves no ink for any of its characters, holds
nothing but text (no image, path or shading that could cover it) and some of that text is plain
dark text that must show, the renderer could not draw its fonts (a non-embedded font with no substitute on this machine): the caller falls back to
the attribute checks for that page rather than hide a whole page of ordinary text.

Standard library and pypdfium2 only (this runs in the extraction child).
"""

from __future__ import annotations

import ctypes
import math
import unicodedata
from itertools import chain
from typing import Any

SCALE = 2.0  # pixels per point: 144 dpi (at 72, thin strokes of small print fall between pixels)
INK = 32  # grey levels a pixel must change by for a character to count as drawn
MIN_HEIGHT = 1.5  # points: a character box (font ascent to descent) lower than this is not read
MIN_WIDTH_RATIO = 0.05  # a character squeezed narrower than this part of its height is not read

Box = tuple[float, float, float, float]  # left, right, bottom, top in page points
TOO_SMALL: Box = (0.0, 0.0, 0.0, 0.0)  # stands for a character too small or too thin to read


def char_at(raw: Any, tp: Any, i: int) -> str:
    """Character ``i`` of a text page as the page's text reads it ("" for a code that is not one).

    PDFium marks a hyphen it found at a line break, with the break removed, by the code 2 in its
    per-character API and by U+FFFE in its text API (``get_text_range``); both readers of this
    package read U+FFFE (:mod:`claimledger.normalize` joins the word), so 2 becomes U+FFFE here.
    """
    code = raw.FPDFText_GetUnicode(tp, i)
    if code == 2:
        return "\ufffe"
    return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code <= 0xDFFF else ""


def char_boxes(raw: Any, tp: Any) -> list[tuple[str, int | None, Box | None]]:
    """Every character of a text page: the character, 1 (None when PDFium added it), its cell.

    The cell is the loose box (the advance width by the font's ascent to descent): the glyph's
    ink lands in it even where a substituted font's outline differs from the tight box. A
    character whose cell is under :data:`MIN_HEIGHT` or squeezed under :data:`MIN_WIDTH_RATIO`
    of its height gets :data:`TOO_SMALL`.
    """
    out: list[tuple[str, int | None, Box | None]] = []
    loose = raw.FS_RECTF()
    for i in range(raw.FPDFText_CountChars(tp)):
        ch = char_at(raw, tp, i)
        addr = 1 if raw.FPDFText_GetTextObject(tp, i) else None  # None: a space or break PDFium added
        box: Box | None = None
        if addr is not None and not _silent(ch) and raw.FPDFText_GetLooseCharBox(tp, i, loose):
            box = (loose.left, loose.right, loose.bottom, loose.top)
            h = abs(loose.top - loose.bottom)
            if h < MIN_HEIGHT or abs(loose.right - loose.left) < MIN_WIDTH_RATIO * h:
                box = TOO_SMALL
        out.append((ch, addr, box))
    return out


PLAIN_DARK = 128  # each of R, G, B at most this: dark ink that shows on white paper


def _plain_text(raw: Any, obj: Any, page_box: Box, tp: Any) -> bool:
    """A text object that shows on white paper as it is: filled, opaque, dark, readable size, on the page."""
    if raw.FPDFTextObj_GetTextRenderMode(obj) != raw.FPDF_TEXTRENDERMODE_FILL:
        return False
    r, g, b, alpha = (ctypes.c_uint() for _ in range(4))
    if not raw.FPDFPageObj_GetFillColor(obj, r, g, b, alpha) or alpha.value != 255:
        return False
    if max(r.value, g.value, b.value) > PLAIN_DARK:
        return False
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    if not raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
        return False
    pl, pr, pb, pt = page_box
    if left.value < pl or right.value > pr or bottom.value < pb or top.value > pt:
        return False  # partly off the page
    height = top.value - bottom.value
    if height < MIN_HEIGHT:
        return False
    chars = max(0, raw.FPDFTextObj_GetText(obj, tp, None, 0) // 2 - 1)  # UTF-16 with its NUL
    return bool(right.value - left.value >= MIN_WIDTH_RATIO * height * chars * 0.5)  # squeezed (Tz 1 %)?


def needs_rendering(raw: Any, page: Any, tp: Any) -> bool:
    """Whether the page could hide text from a reader in a way only rendering shows.

    No: every object is a plain text object (:func:`_plain_text`) and there are no annotations.
    Then nothing can cover, blend or recolour the text, and the per-character geometry (size,
    squeeze) is all that is left to judge. Yes: an image, a path, a shading, a form, an
    annotation, or a text object that is not plain.
    """
    if raw.FPDFPage_GetAnnotCount(page.raw) > 0:
        return True
    width, height = page.get_size()
    box: Box = (-0.5, width + 0.5, -0.5, height + 0.5)
    for i in range(raw.FPDFPage_CountObjects(page.raw)):
        obj = raw.FPDFPage_GetObject(page.raw, i)
        if not obj or raw.FPDFPageObj_GetType(obj) != raw.FPDF_PAGEOBJ_TEXT or not _plain_text(raw, obj, box, tp):
            return True
    return False


def _remove_text(raw: Any, count: int, get: Any, remove: Any, depth: int = 0) -> bool:
    """Remove every text object (also inside form XObjects); whether anything else is on the page."""
    other = False
    for i in reversed(range(count)):
        obj = get(i)
        if not obj:
            continue
        kind = raw.FPDFPageObj_GetType(obj)
        if kind == raw.FPDF_PAGEOBJ_TEXT:
            if remove(obj):
                raw.FPDFPageObj_Destroy(obj)
        elif kind == raw.FPDF_PAGEOBJ_FORM and depth < 8:
            n = raw.FPDFFormObj_CountObjects(obj)
            other |= _remove_text(
                raw, n, lambda j, o=obj: raw.FPDFFormObj_GetObject(o, j),
                lambda t, o=obj: raw.FPDFFormObj_RemoveObject(o, t), depth + 1,
            )  # fmt: skip
        else:
            other = True
    return other


def _render(page: Any) -> tuple[bytes, int, int, int]:
    bitmap = page.render(scale=SCALE, grayscale=True, draw_annots=True)
    try:
        return bytes(bitmap.buffer), bitmap.width, bitmap.height, bitmap.stride
    finally:
        bitmap.close()


_COARSE = bytes(v // INK for v in range(256))  # two pixels INK apart always differ here


def _inks(full: bytes, bare: bytes, coarse: tuple[bytes, bytes], stride: int, box: tuple[int, int, int, int]) -> bool:
    """Whether some pixel of the box differs by INK or more; rows from the middle down, then up."""
    x0, x1, y0, y1 = box
    mid = (y0 + y1) // 2
    cf, cb = coarse
    for y in chain(range(mid, y1), range(mid - 1, y0 - 1, -1)):
        off = y * stride
        lo, hi = off + x0, off + x1
        if cf[lo:hi] == cb[lo:hi]:
            continue  # no pixel of this row moved by INK
        if any(abs(p - q) >= INK for p, q in zip(full[lo:hi], bare[lo:hi], strict=True)):
            return True
    return False


def _silent(ch: str) -> bool:
    """A character that leaves no ink by nature (space, line break, format character)."""
    if ch.isalnum():
        return False
    return not ch or ch.isspace() or unicodedata.category(ch) in ("Cf", "Zs", "Zl", "Zp", "Cc")


def visible_chars(
    raw: Any, page: Any, tp: Any, chars: list[tuple[str, int | None, Box | None]]
) -> list[bool] | None:
    """Per character, whether a reader sees it; None when the page could not be judged by rendering.

    Mutates ``page`` (its text objects are removed for the second rendering): call it last.
    """
    width_pt, height_pt = page.get_size()
    page_box: Box = (-0.5, width_pt + 0.5, -0.5, height_pt + 0.5)
    plain = False  # a text object that must leave ink if its font can be drawn at all
    for i in range(raw.FPDFPage_CountObjects(page.raw)):
        obj = raw.FPDFPage_GetObject(page.raw, i)
        if obj and raw.FPDFPageObj_GetType(obj) == raw.FPDF_PAGEOBJ_TEXT and _plain_text(raw, obj, page_box, tp):
            plain = True
            break
    full, width, height, stride = _render(page)
    other = _remove_text(
        raw, raw.FPDFPage_CountObjects(page.raw), lambda j: raw.FPDFPage_GetObject(page.raw, j),
        lambda t: raw.FPDFPage_RemoveObject(page.raw, t),
    )  # fmt: skip
    bare, w2, h2, s2 = _render(page)
    if (w2, h2, s2) != (width, height, stride):
        return None
    # page points to bitmap pixels: an affine map, measured at three points (rotation included)
    dx, dy = ctypes.c_int(), ctypes.c_int()

    def at(x: float, y: float) -> tuple[int, int]:
        raw.FPDF_PageToDevice(page.raw, 0, 0, width * 64, height * 64, 0, x, y, dx, dy)
        return dx.value, dy.value

    (ox, oy), (xx, xy), (yx, yy) = at(0, 0), at(100, 0), at(0, 100)
    a, b = (xx - ox) / 6400, (yx - ox) / 6400
    c, d = (xy - oy) / 6400, (yy - oy) / 6400
    ox_, oy_ = ox / 64, oy / 64

    def device(x: float, y: float) -> tuple[float, float]:
        return ox_ + a * x + b * y, oy_ + c * x + d * y

    coarse = (full.translate(_COARSE), bare.translate(_COARSE))

    seen: list[bool] = []
    decided = True  # before the first inked character: visible
    any_ink = False
    for ch, addr, box in chars:
        if addr is None or box is None or _silent(ch):
            seen.append(decided)
            continue
        if box is TOO_SMALL:
            decided = False
            seen.append(False)
            continue
        left, right, bottom, top = box
        (ax, ay), (bx, by) = device(left, top), device(right, bottom)
        x0, x1 = max(0, math.floor(min(ax, bx))), min(width, math.ceil(max(ax, bx)))
        y0, y1 = max(0, math.floor(min(ay, by))), min(height, math.ceil(max(ay, by)))
        ok = x0 < x1 and y0 < y1 and _inks(full, bare, coarse, stride, (x0, x1, y0, y1))
        if ok:
            any_ink = True
        decided = ok
        seen.append(ok)
    if not any_ink and not other and plain:
        return None  # plain dark text left no ink and nothing could cover it: its fonts did not render here
    return seen
