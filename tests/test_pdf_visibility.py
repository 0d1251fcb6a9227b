"""PDF text is visible only when a reader sees it: decided from the rendered page (issue 14, item 7).

Every trick of tests/hidden_pdf_cases.py hides a sentence with a different means; the page's
other lines stay visible. The controls are text a reader does see although it looks special.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimledger import GateConfig
from claimledger.load.pdf import pdf_extract
from claimledger.model.finding import Reason, Status
from tests.hidden_pdf_cases import TRICKS, build, controls, hidden_sentence, visible_sentence


@pytest.fixture(scope="module")
def tricks_pdf() -> bytes:
    return build()


@pytest.mark.parametrize("name", list(TRICKS))
def test_each_trick_is_hidden_and_the_rest_of_the_page_is_not(tricks_pdf: bytes, name: str) -> None:
    text, starts, hidden = pdf_extract(tricks_pdf, timeout=120.0)
    page_no = list(TRICKS).index(name)
    page_end = starts[page_no + 1] if page_no + 1 < len(starts) else len(text)
    page = text[starts[page_no] : page_end]
    assert hidden_sentence(name) not in page, f"{name}: hidden text read as visible"
    assert "Hidden claim" not in page and "93 percent" not in page
    assert hidden_sentence(name) in hidden
    assert visible_sentence(name) in page
    assert "Annual Report 2024 — running header" in page and f"Page {page_no + 1}" in page


def test_text_a_reader_sees_stays_visible() -> None:
    text, _starts, hidden = pdf_extract(controls(), timeout=120.0)
    for line in ("Footnote 1: small print of six points is read.", "A light grey caption is read too.",
                 "White words on a dark box are read.", "調査によれば、生成AIを業務で使う企業は増えた。",
                 "Semi-transparent text at sixty percent is read."):  # fmt: skip
        assert line in text
    assert hidden == ""


@pytest.mark.parametrize("name", ["under a black redaction bar", "in the background colour", "1% horizontal scale"])
def test_a_quote_of_hidden_pdf_text_is_not_verified_through_the_gate(tmp_path: Path, name: str) -> None:
    from claimledger import gate

    (tmp_path / "report.pdf").write_bytes(build({name: TRICKS[name]}))
    (tmp_path / "ledger.yaml").write_text(
        "version: 1\nsources: {r: report.pdf}\nclaims:\n"
        f"  - {{id: H, kind: quote, source: r, quote: \"{hidden_sentence(name)}\"}}\n"
        f"  - {{id: V, kind: quote, source: r, quote: \"{visible_sentence(name)}\"}}\n",
        encoding="utf-8",
    )
    report = gate(tmp_path / "ledger.yaml", config=GateConfig(cache_dir=tmp_path / "cache"))
    by = {f.claim_id: f for f in report.findings}
    assert by["H"].reason is Reason.QUOTE_ONLY_IN_HIDDEN_TEXT and by["H"].status is not Status.VERIFIED
    assert by["V"].status is Status.VERIFIED


def test_a_page_whose_only_text_is_pale_has_no_visible_text() -> None:
    """Nothing on the page leaves ink, and nothing plain failed to render: no fall-back to attributes."""
    import io

    from reportlab.pdfgen.canvas import Canvas

    from claimledger._exceptions import SourceError

    buf = io.BytesIO()
    c = Canvas(buf)
    c.setFillColorRGB(240 / 255, 240 / 255, 240 / 255)
    c.setFont("Helvetica", 11)
    c.drawString(72, 600, "Only pale text on this page: sales rose by 93 percent")
    c.showPage()
    c.save()
    with pytest.raises(SourceError) as info:
        pdf_extract(buf.getvalue(), timeout=120.0)
    assert info.value.reason == "source_no_text" and "only invisible text" in str(info.value)


def _hyphenated_pdf(path: Path, *, off_page: bool) -> None:
    """A report page whose body breaks 'indepen-' / 'dent' and 'verifi-' / 'cation' at line ends, under
    a header rule; with ``off_page`` a long URL runs off the page's right edge (as web captures print),
    so part of the page is hidden and the page is read character by character."""
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    c = canvas.Canvas(str(path), invariant=True)
    c.setFont("Helvetica", 8)
    c.drawString(48, 815, "Annual report 2024 - Section 3")
    c.line(48, 810, 540, 810)
    if off_page:
        c.drawString(48, 800, "https://web.archive.org/web/20140603125451/http://www.example.gov/en/noticia/"
                              "transcript-of-the-conference-call-with-the-deputy-minister-of-sport-and-the-organising-committee")  # fmt: skip
    c.setFont("Helvetica", 10)
    for i, line in enumerate(["In the second trial, adding an indepen-", "dent verifi-",
                              "cation step reduced errors by 37 percent.", "Costs were unchanged."]):  # fmt: skip
        c.drawString(48, 780 - 14 * i, line)
    c.drawString(290, 30, "3")
    c.showPage()
    c.save()


@pytest.mark.parametrize("off_page", [False, True], ids=["all visible", "text off the page"])
def test_a_line_break_hyphen_reads_the_same_on_every_path(tmp_path: Path, off_page: bool) -> None:
    """PDFium marks a hyphen at a line break with code 2 in its per-character API (U+FFFE in its text
    API); read as 2, every hyphenated word on a page with any graphics missed (make eval: wice-005)."""
    from claimledger import gate

    _hyphenated_pdf(tmp_path / "report.pdf", off_page=off_page)
    text, _starts, hidden = pdf_extract((tmp_path / "report.pdf").read_bytes(), timeout=120.0)
    assert "\x02" not in text and "indepen\ufffedent verifi\ufffecation" in text
    assert ("organising-committee" in hidden) is off_page  # the part past the edge is not read
    assert "\nIn the second trial" in text  # the line after it still starts a line of its own
    (tmp_path / "ledger.yaml").write_text(
        "version: 1\nsources: {r: report.pdf}\nclaims:\n"
        "  - {id: Q, kind: quote, source: r, quote: \"adding an independent verification step reduced errors\"}\n"
        "  - {id: X, kind: quote, source: r, quote: \"adding an independent verification step raised errors\"}\n",
        encoding="utf-8",
    )
    report = gate(tmp_path / "ledger.yaml", config=GateConfig(cache_dir=tmp_path / "cache"))
    by = {f.claim_id: f for f in report.findings}
    assert by["Q"].status is Status.VERIFIED, by["Q"].message
    assert by["X"].status is not Status.VERIFIED
