"""Render a document to a real PDF with reportlab (the text layer is what PDFium reads back).

English uses DejaVu Sans (embedded TrueType); Japanese uses the standard CID
font HeiseiMin-W3, as ``scripts/make_fixtures.py`` does. Lines are wrapped at
``EN_WIDTH`` / ``JA_WIDTH`` characters; a long English word that does not fit
is hyphenated at the line end, as typeset PDFs are.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
EN_FONT, JA_FONT = "DejaVu", "HeiseiMin-W3"
EN_WIDTH, JA_WIDTH = 90, 40
LINES_PER_PAGE = 62
_registered = False


def _fonts() -> None:
    global _registered
    if _registered:
        return
    from reportlab.pdfbase import pdfmetrics  # type: ignore[import-untyped]
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont  # type: ignore[import-untyped]
    from reportlab.pdfbase.ttfonts import TTFont  # type: ignore[import-untyped]

    if Path(DEJAVU).exists():
        pdfmetrics.registerFont(TTFont(EN_FONT, DEJAVU))
    pdfmetrics.registerFont(UnicodeCIDFont(JA_FONT))
    _registered = True


def wrap_en(text: str, rng: random.Random) -> list[str]:
    lines: list[str] = []
    for para in text.splitlines():
        out = textwrap.wrap(para, EN_WIDTH, break_long_words=False, break_on_hyphens=False) or [""]
        lines += _hyphenate(out, rng)
    return lines


def _hyphenate(lines: list[str], rng: random.Random) -> list[str]:
    """Move the start of the next line's first long word up, with a hyphen (half the time)."""
    out = list(lines)
    for i in range(len(out) - 1):
        nxt = out[i + 1]
        first = nxt.split(" ", 1)[0]
        if len(first) >= 8 and first.isalpha() and rng.random() < 0.5 and len(out[i]) + 5 < EN_WIDTH + 8:
            cut = rng.randint(3, len(first) - 3)
            out[i] = out[i] + " " + first[:cut] + "-"
            out[i + 1] = first[cut:] + nxt[len(first) :]
    return out


def wrap_ja(text: str) -> list[str]:
    lines: list[str] = []
    for para in text.splitlines():
        lines += [para[i : i + JA_WIDTH] for i in range(0, len(para), JA_WIDTH)] or [""]
    return lines


def render_pdf(path: Path, text: str, lang: str, seed: str) -> None:
    """Write ``text`` as a PDF at ``path`` (deterministic: invariant mode, seeded hyphenation)."""
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    _fonts()
    lines = wrap_en(text, random.Random(seed)) if lang == "en" else wrap_ja(text)
    c = canvas.Canvas(str(path), invariant=True)
    en_font = EN_FONT if Path(DEJAVU).exists() else "Helvetica"  # without DejaVu: ASCII text only
    font = en_font if lang == "en" else JA_FONT
    for page_start in range(0, max(1, len(lines)), LINES_PER_PAGE):
        c.setFont(font, 9)
        y = 800.0
        for line in lines[page_start : page_start + LINES_PER_PAGE]:
            c.drawString(36, y, line)
            y -= 12.5
        c.showPage()
    c.save()
