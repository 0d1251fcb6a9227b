"""Page and section locators (PDF pages from 1, heading paths) and dataset claims against DuckDB."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from claimledger import Reason, Status, Tier, gate
from claimledger.checks.locator import headings, parse_locator

PAGES_EN = [
    ["Remote Work and Output", "We study 1,204 call-centre workers who moved home in 2019."],
    ["Results", "Output per hour fell by about 4% in the first six months.", "Table 2: Output by month."],
    ["Discussion", "The effect faded after a year, and quits fell by half."],
]
PAGES_JA = [
    ["在宅勤務と生産性", "本研究はコールセンター従業員1,204人を対象とした。"],
    ["結果", "移行後6か月の時間当たり生産量は約4%低下した。"],
]


def _pdf(path: Path, pages: list[list[str]], ja: bool = False) -> Path:
    """A real PDF with a running header, a page number in the footer and a footnote on page 1."""
    from reportlab.lib.pagesizes import A4  # type: ignore[import-untyped]
    from reportlab.pdfbase import pdfmetrics  # type: ignore[import-untyped]
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont  # type: ignore[import-untyped]
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    font = "Helvetica"
    if ja:
        pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
        font = "HeiseiMin-W3"
    c = canvas.Canvas(str(path), pagesize=A4)
    for n, lines in enumerate(pages, 1):
        c.setFont(font, 8)
        c.drawString(72, 800, "Journal of Examples 12 (2019)" if not ja else "例示学会誌 12 (2019)")
        c.setFont(font, 11)
        y = 760
        for line in lines:
            c.drawString(72, y, line)
            y -= 16
        if n == 1:
            c.setFont(font, 7)
            c.drawString(72, 90, "1 Data from a partner firm." if not ja else "1 協力企業のデータ。")
        c.setFont(font, 9)
        c.drawString(290, 40, str(n))
        c.showPage()
    c.save()
    return path


@pytest.mark.parametrize(
    ("text", "pages", "section", "label"),
    [
        ("p. 4", (4, 4), None, None), ("pp. 4–5", (4, 5), None, None), ("pp.~4--5", (4, 5), None, None),
        ("p. 4f.", (4, 5), None, None), ("S. 4", (4, 4), None, None), ("page 12", (12, 12), None, None),
        ("4頁", (4, 4), None, None), ("4-5頁", (4, 5), None, None), ("４ページ", (4, 4), None, None),
        ("Section 3", None, "3", None), ("Sec. 3.2", None, "3.2", None), ("§3", None, "3", None),
        ("第3章", None, "3", None), ("Table 2", None, None, ("table", "2")), ("図3", None, None, ("figure", "3")),
    ],
)
def test_locators_are_read(
    text: str, pages: tuple[int, int] | None, section: str | None, label: tuple[str, str] | None
) -> None:
    loc = parse_locator(text)
    assert loc is not None
    assert (loc.pages, loc.section, loc.label) == (pages, section, label)


@pytest.mark.parametrize("text", ["p. 0", "pp. 5-4", "somewhere", "p. four"])
def test_unreadable_locators(text: str) -> None:
    assert parse_locator(text) is None


def _quote(cid: str, source: str, quote: str, locator: str) -> str:
    return f"  - id: {cid}\n    kind: quote\n    source: {source}\n    quote: {quote!r}\n    locator: {locator!r}\n"


@pytest.mark.parametrize(
    ("source", "quote", "locator", "wrong", "right"),
    [
        ("en", "Output per hour fell by about 4%", "p. 2", False, ""),
        ("en", "Output per hour fell by about 4%", "pp. 1–2", False, ""),
        ("en", "Output per hour fell by about 4%", "p. 1", True, "p. 2"),
        ("en", "quits fell by half", "S. 2", True, "p. 3"),
        ("en", "quits fell by half", "p. 9", True, "has 3 pages"),
        ("en", "Output per hour fell by about 4%", "Table 2", False, ""),
        ("en", "quits fell by half", "Table 2", True, "p. 3"),
        # the whole restriction is quoted: a quote cut after 移行後6か月の would be overclaim_quote_omits_hedge
        ("ja", "移行後6か月の時間当たり生産量は約4%低下した", "2頁", False, ""),
        ("ja", "移行後6か月の時間当たり生産量は約4%低下した", "1頁", True, "p. 2"),
    ],
)
def test_page_locators_on_pdf_quotes(
    tmp_path: Path, write_ledger: Callable[..., Path], source: str, quote: str, locator: str, wrong: bool, right: str
) -> None:
    _pdf(tmp_path / "en.pdf", PAGES_EN)
    _pdf(tmp_path / "ja.pdf", PAGES_JA, ja=True)
    ledger = write_ledger("version: 1\nsources: {en: en.pdf, ja: ja.pdf}\nclaims:\n" + _quote("Q1", source, quote, locator))
    report = gate(ledger)
    literal = [f for f in report.findings if f.check == "literal_quote"]
    assert literal[0].status is Status.VERIFIED, literal[0].message
    bad = [f for f in report.findings if f.reason is Reason.LOCATOR_WRONG]
    if wrong:
        assert bad and bad[0].tier is Tier.HIGH and right in bad[0].message
        assert report.outcome.value == "FAIL"
    else:
        assert not bad and report.outcome.value == "PASS", [f.message for f in report.findings]


HTML = """<html><head><title>Remote work</title></head><body>
<nav>Home | About</nav>
<h1>Remote Work and Output</h1>
<h2>1 Introduction</h2><p>Home working spread quickly in 2019.</p>
<h2>2 Methods</h2><p>We use payroll records.</p>
<h3>2.1 Data</h3><p>The panel covers 1,204 call-centre workers over two years.</p>
<h2>3 Results</h2><p>Output per hour fell by about 4% in the first six months.</p>
</body></html>"""


@pytest.mark.parametrize(
    ("locator", "wrong", "shown"),
    [("Section 2", False, ""), ("Sec. 2.1", False, ""), ("§2", False, ""), ("Section 3", True, "2 Methods > 2.1 Data"),
     ("Section 7", True, "has no section 7"), ("第1章", True, "2.1 Data")],
)
def test_section_locators_follow_the_heading_path(
    tmp_path: Path, write_ledger: Callable[..., Path], locator: str, wrong: bool, shown: str
) -> None:
    (tmp_path / "paper.html").write_text(HTML, "utf-8")
    ledger = write_ledger("version: 1\nsources: {p: paper.html}\nclaims:\n"
                          + _quote("Q1", "p", "covers 1,204 call-centre workers", locator))  # fmt: skip
    report = gate(ledger)
    bad = [f for f in report.findings if f.reason is Reason.LOCATOR_WRONG]
    assert bool(bad) is wrong, [f.message for f in report.findings]
    if wrong:
        assert shown in bad[0].message and bad[0].tier is Tier.HIGH


def test_markdown_headings_and_a_source_without_structure(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    (tmp_path / "notes.md").write_text("# 1 Background\n\nA survey.\n\n# 2 Findings\n\nQuits fell by half in 2020.\n", "utf-8")
    (tmp_path / "plain.txt").write_text("Quits fell by half in 2020, the survey says.", "utf-8")
    ledger = write_ledger(
        "version: 1\nsources: {md: notes.md, txt: plain.txt}\nclaims:\n"
        + _quote("M1", "md", "Quits fell by half in 2020", "Section 1")
        + _quote("T1", "txt", "Quits fell by half in 2020", "p. 3")
    )
    report = gate(ledger)
    by = {f.claim_id: f for f in report.findings if f.check == "locator"}
    assert by["M1"].reason is Reason.LOCATOR_WRONG and "2 Findings" in by["M1"].message
    assert by["T1"].reason is Reason.LOCATOR_UNCHECKED and by["T1"].tier is Tier.MED
    assert "no pages" in by["T1"].message


def test_headings_skip_sentences_and_figures() -> None:
    text = "1 Introduction\n2019 was a hard year.\n2 Methods\n3.5 percent of workers quit.\n42\n"
    assert [h.label for h in headings(text)] == ["1 Introduction", "2 Methods"]


def test_attribution_figure_on_the_wrong_page(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    _pdf(tmp_path / "en.pdf", PAGES_EN)
    claims = ""
    for cid, loc in (("A1", "p. 2"), ("A2", "p. 3")):
        claims += (f"  - id: {cid}\n    kind: attribution\n    source: en\n"
                   f"    attributed: \"output per hour fell by about 4%\"\n    locator: {loc!r}\n")  # fmt: skip
    report = gate(write_ledger("version: 1\nsources: {en: en.pdf}\nclaims:\n" + claims))
    wrong = [f for f in report.findings if f.reason is Reason.LOCATOR_WRONG]
    assert [f.claim_id for f in wrong] == ["A2"] and "p. 2" in wrong[0].message


# --- dataset claims ---------------------------------------------------------------------------

CSV = "person_id,educ_attain,Wage,region\n1,BA,21.5,north\n2,HS,,south\n3,MA,30.0,\n4,BA,25.0,north\n"


def _dataset(cid: str, **fields: object) -> str:
    out = f"  - id: {cid}\n    kind: dataset\n"
    for k, v in fields.items():
        out += f"    {k}: {'true' if v is True else v}\n"
    return out


@pytest.mark.parametrize(
    ("fields", "reason", "text"),
    [
        ({"dataset": "cps", "field": "educ_attain"}, Reason.DATASET_FACT_CONFIRMED, "exists"),
        ({"dataset": "cps", "rows": 4}, Reason.DATASET_FACT_CONFIRMED, "4 rows"),
        ({"dataset": "cps", "field": "educ_attain", "never_null": True, "rows": 4}, Reason.DATASET_FACT_CONFIRMED,
         "never null"),
        ({"dataset": "cps", "field": "wage"}, Reason.DATASET_FIELD_ABSENT, "did you mean 'Wage'? names are case-sensitive"),
        ({"dataset": "cps", "field": "educ_attainment"}, Reason.DATASET_FIELD_ABSENT, "did you mean 'educ_attain'"),
        ({"dataset": "cps", "field": "income"}, Reason.DATASET_FIELD_ABSENT, "its fields: person_id"),
        ({"dataset": "cps", "rows": 12000}, Reason.DATASET_ROWS_MISMATCH, "has 4"),
        ({"dataset": "cps", "field": "Wage", "never_null": True}, Reason.DATASET_FIELD_HAS_NULLS, "1 rows"),
        ({"dataset": "CPS", "field": "Wage"}, Reason.DATASET_UNDECLARED, "did you mean 'cps'"),
        ({"dataset": "broken", "rows": 1}, Reason.DATASET_FILE_MISSING, "does not exist"),
    ],
)
def test_dataset_claims(
    tmp_path: Path, write_ledger: Callable[..., Path], fields: dict[str, object], reason: Reason, text: str
) -> None:
    (tmp_path / "cps.csv").write_text(CSV, "utf-8")
    ledger = write_ledger(
        "version: 1\ndatasets: {cps: cps.csv, broken: nowhere.csv}\nclaims:\n" + _dataset("D1", **fields)
    )
    report = gate(ledger)
    (finding,) = report.findings
    assert finding.reason is reason and text in finding.message, finding.message
    if reason is Reason.DATASET_FACT_CONFIRMED:
        assert finding.status is Status.VERIFIED and report.outcome.value == "PASS"
    else:
        assert finding.tier is Tier.HIGH and report.outcome.value == "FAIL"


def test_dataset_claim_needs_something_to_check(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    from claimledger import LedgerError

    with pytest.raises(LedgerError, match="needs `field:`"):
        gate(write_ledger("version: 1\ndatasets: {cps: cps.csv}\nclaims:\n" + _dataset("D1", dataset="cps")))


@pytest.mark.parametrize(("locator", "wrong"), [("p. 2", False), ("p. 1", True), ("S. 2", False), ("2頁", False)])
def test_a_draft_quotation_locator_is_checked(
    tmp_path: Path, write_ledger: Callable[..., Path], locator: str, wrong: bool
) -> None:
    _pdf(tmp_path / "en.pdf", PAGES_EN)
    draft = tmp_path / "draft.md"
    draft.write_text(f"# Notes\n\nThey write that \u201cOutput per hour fell by about 4%\u201d [@en, {locator}].\n", "utf-8")
    ledger = write_ledger("version: 1\nsources: {en: en.pdf}\nclaims: []\n")
    report = gate(ledger, draft=draft, allow=[".*"])
    bad = [f for f in report.findings if f.reason is Reason.LOCATOR_WRONG]
    assert bool(bad) is wrong, [f.message for f in report.findings]
    if wrong:
        assert bad[0].location is not None and bad[0].location["line"] == 3 and "p. 2" in bad[0].message
    from claimledger._drafts import extract_ledger

    assert f"locator: {json.dumps(locator, ensure_ascii=False)}" in extract_ledger(draft, sources={"en": "en.pdf"})
