"""Source documents shaped like real survey reports, for the scope tests (generated, no external text).

A Japanese PDF with a running header, a page number, section headings and a
table caption (reportlab, CID font HeiseiMin-W3, lines wrapped as a PDF does),
and an English HTML page with navigation and a hidden part.
"""

from __future__ import annotations

from pathlib import Path

JA_SURVEY_PAGES = [
    [
        "## 生成AIの利用に関する調査（2024年）",
        "1. 企業の中の開発",
        "企業の中で、社員が会社の方針より先に、個人として生成AIを業務で使い始めている割合は32％だった。",
        "会社として導入を決めた企業は、まだ2割にとどまる。",
        "表1 企業に勤める社員の生成AI利用（2024年、国内）",
    ],
    [
        "2. 個人開発者",
        "個人開発者のうち、生成AIを毎日使う人は45％だった。",
        "調査は2024年5月に、国内の企業に勤める社員2,000人と個人開発者800人を対象に実施した。",
    ],
]


def write_ja_survey_pdf(path: Path) -> Path:
    from reportlab.lib.pagesizes import A4  # type: ignore[import-untyped]
    from reportlab.pdfbase import pdfmetrics  # type: ignore[import-untyped]
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont  # type: ignore[import-untyped]
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    width, height = A4
    for number, page in enumerate(JA_SURVEY_PAGES, 1):
        c.setFont("HeiseiMin-W3", 8)
        c.drawString(60, height - 40, "生成AI利用調査 2024 速報")  # running header
        c.drawString(width / 2, 30, f"- {number} -")  # page number
        y = height - 80
        for para in page:
            heading = not para.endswith("。")
            c.setFont("HeiseiMin-W3", 13 if heading else 10.5)
            text = para.removeprefix("## ")
            while text:  # wrap at 38 characters, as a narrow PDF column does
                c.drawString(60, y, text[:38])
                text = text[38:]
                y -= 18
            y -= 8
        c.showPage()
    c.save()
    return path


EN_SURVEY_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>AI at work 2023</title></head>
<body>
<nav><a href="/">Home</a> | <a href="/reports">Reports</a></nav>
<main>
<h1>AI at work: survey of employees, 2023</h1>
<h2>Adoption inside companies</h2>
<p>In 2023, 32% of employees at large firms said they had started using generative AI tools before their
employer adopted them. Adoption was higher among younger staff.</p>
<figure><figcaption>Table 2. Employees' use of generative AI, United States, 2023</figcaption></figure>
<h2>Productivity</h2>
<p>Employees who used AI assistants daily reported 20% higher output, an association that held across
sectors.</p>
<p>Firms' spending on AI tools grew 40% year on year.</p>
<div hidden>Draft note: 45% of individual developers use AI daily.</div>
<h2>Method</h2>
<p>We surveyed 3,000 employees of US companies with more than 250 staff between March and May 2023.</p>
</main>
</body></html>
"""


def write_en_survey_html(path: Path) -> Path:
    path.write_text(EN_SURVEY_HTML, encoding="utf-8")
    return path
