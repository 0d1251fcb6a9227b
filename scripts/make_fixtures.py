"""Regenerate the PDF fixtures and example PDFs (committed; this script documents how they were made).

Needs reportlab and the DejaVu Sans font (Debian: fonts-dejavu-core). Japanese
text uses the standard CID font HeiseiMin-W3, which reportlab references
without embedding a font file; PDFium maps it back to Unicode.

    .venv/bin/python scripts/make_fixtures.py
"""

from __future__ import annotations

from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

ROOT = Path(__file__).resolve().parent.parent
DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _fonts() -> None:
    pdfmetrics.registerFont(TTFont("DejaVu", DEJAVU))
    pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))


def write_pdf(path: Path, pages: list[tuple[str, list[str]]], invariant: bool = True) -> None:
    """Each page is (font, lines); one line per drawString, 14 pt apart."""
    path.parent.mkdir(parents=True, exist_ok=True)
    c = canvas.Canvas(str(path), invariant=invariant)
    c.setTitle(path.stem)
    for font, lines in pages:
        c.setFont(font, 11)
        y = 760
        for line in lines:
            c.drawString(72, y, line)
            y -= 14
        c.showPage()
    c.save()


def write_report_pdf(path: Path, header: str, pages: list[dict[str, list[str]]], font: str) -> None:
    """A report as offices print one: a running header over a rule, body lines, a figure box with
    its caption, footnotes under a short rule in small type, and the page number at the foot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    c = canvas.Canvas(str(path), invariant=True)
    c.setTitle(path.stem)
    for number, page in enumerate(pages, 1):
        c.setFont(font, 8)
        c.drawString(56, 810, header)
        c.line(56, 805, 540, 805)
        c.setFont(font, 10.5)
        y = 770.0
        for line in page.get("body", []):
            c.drawString(56, y, line)
            y -= 16
        if page.get("caption"):
            c.rect(56, y - 110, 320, 100)
            y -= 124
            c.setFont(font, 8.5)
            for line in page["caption"]:
                c.drawString(56, y, line)
                y -= 12
        if page.get("footnotes"):
            c.line(56, 96, 200, 96)
            c.setFont(font, 7.5)
            fy = 84.0
            for line in page["footnotes"]:
                c.drawString(56, fy, line)
                fy -= 10
        c.setFont(font, 9)
        c.drawCentredString(297, 36, f"- {number} -")
        c.showPage()
    c.save()


RUBY_ESSAY = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="ja">
<head><meta charset="UTF-8"/><title>現場の言葉</title></head>
<body>
<nav><a href="index.html">目次</a></nav>
<h1 class="title">現場の言葉</h1>
<div class="main_text">
<p>生成AIの導入を進めた担当者は、まず<ruby><rb>現場</rb><rp>（</rp><rt>げんば</rt><rp>）</rp></ruby>の<ruby><rb>声</rb><rp>（</rp><rt>こえ</rt><rp>）</rp></ruby>を聞くことから始めたという。</p>
<p>「道具は<ruby><rb>使</rb><rp>（</rp><rt>つか</rt><rp>）</rp></ruby>い手の<ruby><rb>習慣</rb><rp>（</rp><rt>しゅうかん</rt><rp>）</rp></ruby>に合わせて育てるものだ」と同氏は話す。</p>
</div>
</body>
</html>
"""


def write_hidden_text_pdf(path: Path) -> None:
    """One page: visible lines, plus lines a reader cannot see (render mode 3, white, tiny, transparent)."""
    c = canvas.Canvas(str(path), invariant=True)
    c.setTitle(path.stem)
    c.setFont("DejaVu", 11)
    c.drawString(72, 760, "The visible finding: the pilot cut costs by 12 percent.")
    c.saveState()  # the text render mode is graphics state: it outlives the text object
    t = c.beginText(72, 740)
    t.setFont("DejaVu", 11)
    t.setTextRenderMode(3)
    t.textLine("Invisible render mode text: the pilot tripled revenue overnight.")
    c.drawText(t)
    c.restoreState()
    c.setFillColorRGB(1, 1, 1)
    c.drawString(72, 720, "White on white text: every reviewer endorsed the method.")
    c.setFillColorRGB(0, 0, 0)
    c.setFont("DejaVu", 0.1)
    c.drawString(72, 700, "Microscopic text: the trial was stopped for benefit.")
    c.setFont("DejaVu", 11)
    c.setFillColorRGB(0, 0, 0, alpha=0)
    c.drawString(72, 680, "Transparent text: nobody saw any side effects.")
    c.setFillColorRGB(0, 0, 0, alpha=1)
    c.drawString(72, 660, "A second visible sentence closes the page.")
    c.showPage()
    c.save()


def write_invisible_only_pdf(path: Path) -> None:
    """A page whose only text is drawn in render mode 3 (like an OCR layer without the image)."""
    c = canvas.Canvas(str(path), invariant=True)
    c.setTitle(path.stem)
    t = c.beginText(72, 760)
    t.setFont("DejaVu", 11)
    t.setTextRenderMode(3)
    t.textLine("Only invisible text lives on this page.")
    c.drawText(t)
    c.showPage()
    c.save()


def form_bomb_pdf(depth: int = 28) -> bytes:
    """A small PDF whose page draws form X0, which draws X1 twice, ... : 2**depth text draws.

    Written by hand (a few hundred bytes); it makes the extractor work for a
    very long time, which is what the extraction time limit is for.
    """
    objects: dict[int, bytes] = {}
    first_form = 10
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
    objects[5] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    objects[3] = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> /XObject << /X 10 0 R >> >> >>"
    )

    def stream(dictionary: bytes, body: bytes) -> bytes:
        return b"<< " + dictionary + b" /Length " + str(len(body)).encode() + b" >>\nstream\n" + body + b"\nendstream"

    objects[4] = stream(b"", b"BT /F1 12 Tf 72 720 Td (Visible text on the page.) Tj ET q /X Do Q")
    for level in range(depth):
        num = first_form + level
        if level == depth - 1:
            body = b"BT /F1 1 Tf 0 0 Td (x) Tj ET"
            res = b"/Resources << /Font << /F1 5 0 R >> >>"
        else:
            body = b"q /X Do Q q /X Do Q"
            res = b"/Resources << /XObject << /X " + str(num + 1).encode() + b" 0 R >> >>"
        objects[num] = stream(b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] " + res, body)
    out = bytearray(b"%PDF-1.7\n")
    offsets: dict[int, int] = {}
    for num in sorted(objects):
        offsets[num] = len(out)
        out += str(num).encode() + b" 0 obj\n" + objects[num] + b"\nendobj\n"
    size = max(objects) + 1
    xref = len(out)
    out += b"xref\n0 " + str(size).encode() + b"\n0000000000 65535 f \n"
    for num in range(1, size):
        out += (b"%010d 00000 n \n" % offsets[num]) if num in offsets else b"0000000000 65535 f \n"
    out += b"trailer\n<< /Size " + str(size).encode() + b" /Root 1 0 R >>\nstartxref\n" + str(xref).encode() + b"\n%%EOF\n"
    return bytes(out)


def main() -> None:
    _fonts()
    fixtures = ROOT / "tests" / "fixtures"
    write_hidden_text_pdf(fixtures / "hidden_text.pdf")
    write_invisible_only_pdf(fixtures / "invisible_only.pdf")
    (fixtures / "form_bomb.pdf").write_bytes(form_bomb_pdf())
    write_pdf(
        fixtures / "hyphenated.pdf",
        [
            ("DejaVu", [
                "Smith et al. (2019), Verification in practice",
                "",
                "In our trial, adding an independent verifi-",
                "cation step reduced errors by 37 percent.",
                "The \ufb01nal \u201cresults\u201d were well-",
                "known to all reviewers, and the cost rose",
                "to $1.2 million over two years.",
            ]),
            ("DejaVu", [
                "Page two. Errors fell in 2-3 weeks; the baseline was -5%.",
                "We suggest that checks may reduce errors in some settings.",
            ]),
        ],
    )  # fmt: skip
    write_pdf(
        fixtures / "japanese.pdf",
        [
            ("HeiseiMin-W3", [
                "生成AIの業務利用に関する調査（2024年）",
                "言葉を扱う生成AIの業務利用は、前年の約4倍に増えた。",
                "回答した企業のうち３０％が、全社で導入済みと答えた。",
            ]),
            ("HeiseiMin-W3", [
                "一部の企業では、利用の可能性があると考えられる。",
                "市場規模は1.2万社、売上は3億円であった。",
            ]),
        ],
    )  # fmt: skip
    (fixtures / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage, not a real PDF\n")
    examples = ROOT / "examples"
    write_pdf(examples / "en" / "sources" / "smith2019.pdf", [
        ("DejaVu", [
            "Smith, Jones & Lee (2019). Independent checks in editorial pipelines.",
            "",
            "Abstract. In a randomized trial across 12 newsrooms, adding an",
            "independent verifi-",
            "cation step reduced errors by 37 percent. The e\ufb00ect was",
            "largest for numeric claims.",
        ]),
        ("DejaVu", [
            "2. Costs. The programme cost $1.2 million over two years and",
            "may not generalize to smaller organisations.",
        ]),
    ])  # fmt: skip
    write_pdf(examples / "ja" / "sources" / "chosa2024.pdf", [
        ("HeiseiMin-W3", [
            "生成AIの業務利用に関する調査（2024年）",
            "",
            "言葉を扱う生成AIを業務で使う企業は、前年の約4倍に",
            "増えた。一方で、画像を生成するAIの利用は横ばいだった。",
        ]),
        ("HeiseiMin-W3", [
            "回答企業は1.2万社で、そのうち３０％が全社で導入済みと答えた。",
        ]),
    ])  # fmt: skip
    write_report_pdf(examples / "ja" / "sources" / "hokoku2024.pdf", "生成AI活用実態調査　報告書（2024年度）", [
        {
            "body": [
                "本報告書は、国内の事業所を対象に行った生成AIの活用実態調査の",
                "結果をまとめたものである。調査の結果、文書の作成や要約に生成AIを",
                "使う事業所では、確認作業にかかる時間が",
            ],
            "caption": ["図1　業務別の生成AI利用率（2024年）"],
            "footnotes": ["※　回答数は速報値であり、確定値とは異なる場合がある。"],
        },
        {
            "body": [
                "かえって増えたと答えた割合が最も高かった。",
                "詳しい集計の方法は付録に示す。",
            ],
        },
    ], "HeiseiMin-W3")  # fmt: skip
    (examples / "ja" / "sources" / "essay.xhtml").write_text(RUBY_ESSAY, encoding="utf-8")


if __name__ == "__main__":
    main()
