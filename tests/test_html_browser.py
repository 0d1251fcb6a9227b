"""The HTML report in a real headless browser: Debian's chromium driven by Playwright.

Never skipped: without chromium these tests fail and say how to install it
(``.ci/run`` installs it). Screenshots are saved under ``test-artifacts/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, expect, sync_playwright

from claimledger.model.report import Report
from claimledger.output.html import render_html
from tests.report_helpers import EN_DRAFT, JA_DRAFT, ROOT, en_report, ja_report, place_in_draft
from tests.test_html_report import HOSTILE, _hostile_report

CHROMIUM = os.environ.get("CLAIMLEDGER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"chromium not found at {CHROMIUM}: the HTML report must be tested in a real browser. "
            "Install it with `apt-get install -y --no-install-recommends chromium fonts-noto-cjk` "
            "(.ci/run does this), or point CLAIMLEDGER_CHROMIUM at a chromium binary."
        )
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


class Opened:
    """A page showing a report, recording console errors and dialogs (there must be none)."""

    def __init__(self, browser: Browser, html: str, path: Path) -> None:
        path.write_text(html, encoding="utf-8")
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page: Page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("dialog", self._dialog)
        self.page.goto(path.as_uri())

    def _console(self, msg: ConsoleMessage) -> None:
        if msg.type == "error":
            self.errors.append(msg.text)

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def selected_claim(self) -> str:
        panel = self.page.locator("section.evidence:visible")
        expect(panel).to_have_count(1)
        return panel.locator("h2 .cid").inner_text()

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        out = ARTIFACTS / name
        self.page.screenshot(path=str(out), full_page=True)
        assert out.stat().st_size > 10_000
        return out


def _open(browser: Browser, report: Report, tmp_path: Path, name: str, draft: str | None = None) -> Opened:
    return Opened(browser, render_html(report, draft, "draft.md" if draft else None), tmp_path / name)


def test_claim_list_click_keys_and_filters(browser: Browser, tmp_path: Path) -> None:
    view = _open(browser, en_report(), tmp_path, "en.html")
    page = view.page
    expect(page.locator("#outcome")).to_have_text("FAIL")
    expect(page.locator("#placeholder")).to_be_visible()
    expect(page.locator("section.evidence:visible")).to_have_count(0)

    # click the near-miss quote: the evidence panel shows the nearest passage and the word diff
    page.locator("li.finding", has_text="C2").click()
    assert view.selected_claim() == "C2"
    panel = page.locator("section.evidence:visible")
    nearest = panel.locator("blockquote.nearest-text")
    expect(nearest).to_contain_text("cation step reduced errors by 37 percent")
    expect(nearest).to_have_attribute("class", "source-text nearest-text")
    expect(panel.locator(".place").first).to_have_text("smith2019, p. 1, characters 124–194")
    expect(panel.locator(".diff del")).to_have_text("73")
    expect(panel.locator(".diff ins")).to_have_text("37")
    expect(page.locator("li.finding.selected")).to_contain_text("C2")

    # keyboard: j moves to the next finding, k back, n/p likewise
    page.keyboard.press("j")
    assert view.selected_claim() == "C3"
    expect(page.locator("li.finding.selected")).to_contain_text("C3")
    expect(page.locator("section.evidence:visible blockquote.evidence-text")).to_have_text(
        "Verification is a discipline, not a mood"
    )
    page.keyboard.press("k")
    assert view.selected_claim() == "C2"
    page.keyboard.press("n")
    page.keyboard.press("n")
    assert view.selected_claim() == "C4"
    page.keyboard.press("p")
    assert view.selected_claim() == "C3"

    # a recomputed number
    page.locator("li.finding", has_text="N4").click()
    expect(page.locator("section.evidence:visible .expected")).to_have_text("11.7086")

    # filters: hide the verified claims, then HIGH
    items = page.locator("li.finding")
    expect(items).to_have_count(9)
    page.locator("input[data-tier-filter=verified]").uncheck()
    for claim_id in ("N1", "N2", "C1", "N5"):
        expect(page.locator("li.finding", has_text=claim_id)).to_be_hidden()
    for claim_id in ("N3", "C2", "N4"):
        expect(page.locator("li.finding", has_text=claim_id)).to_be_visible()
    page.locator("input[data-tier-filter=HIGH]").uncheck()
    expect(page.locator("li.finding:visible")).to_have_count(1)  # only the EXPLAINED N4 is left
    # the keys now only visit what is shown
    page.keyboard.press("Escape")
    expect(page.locator("section.evidence:visible")).to_have_count(0)
    page.keyboard.press("j")
    assert view.selected_claim() == "N4"
    page.keyboard.press("j")
    assert view.selected_claim() == "N4"
    page.locator("input[data-tier-filter=HIGH]").check()
    page.locator("input[data-tier-filter=verified]").check()
    expect(page.locator("li.finding:visible")).to_have_count(9)

    page.locator("li.finding", has_text="C2").click()
    view.screenshot("html-report-en-claims.png")
    assert view.errors == [] and view.dialogs == []


def test_draft_highlights_open_their_evidence(browser: Browser, tmp_path: Path) -> None:
    report = place_in_draft(en_report(), EN_DRAFT, "draft.md", keep_in_ledger=("N3",))
    view = _open(browser, report, tmp_path, "en-draft.html", EN_DRAFT)
    page = view.page
    marks = page.locator("#draft mark.finding")
    expect(marks).to_have_count(8)
    near_miss = page.locator("#draft mark.finding.tier-HIGH", has_text="reduced errors by 73 percent")
    near_miss.click()
    assert view.selected_claim() == "C2"
    expect(page.locator("section.evidence:visible blockquote.nearest-text")).to_contain_text(
        "reduced errors by 37 percent"
    )
    expect(near_miss).to_have_class("finding tier-HIGH selected")
    # next finding in reading order: the verified C1 on the next line
    page.keyboard.press("j")
    assert view.selected_claim() == "C1"
    expect(page.locator("#draft mark.selected")).to_have_text(
        "adding an independent verification step reduced errors by 37 percent"
    )
    # the finding not in the draft comes after the draft's, in the list below it
    for _ in range(4):
        page.keyboard.press("j")
    assert view.selected_claim() == "N3"
    expect(page.locator("li.finding.selected")).to_contain_text("result_non_finite")
    # hiding HIGH removes the highlight from HIGH marks (the draft text stays)
    page.locator("input[data-tier-filter=HIGH]").uncheck()
    expect(near_miss).to_have_class("finding tier-HIGH filtered")
    expect(near_miss).to_be_visible()
    expect(page.locator("li.finding", has_text="N3")).to_be_hidden()
    expect(page.locator("section.evidence:visible")).to_have_count(0)  # the selection was hidden
    page.locator("input[data-tier-filter=HIGH]").check()
    near_miss.click()
    view.screenshot("html-report-en-draft.png")
    assert view.errors == [] and view.dialogs == []


def test_japanese_draft_renders(browser: Browser, tmp_path: Path) -> None:
    report = place_in_draft(ja_report(), JA_DRAFT, "draft.md")
    view = _open(browser, report, tmp_path, "ja.html", JA_DRAFT)
    page = view.page
    draft = page.locator("#draft")
    expect(draft).to_have_attribute("lang", "ja")
    expect(draft).to_contain_text(
        "調査は「言葉を扱う生成AIを業務で使う企業は、前年の約4倍に増えた」と述べる。"
    )
    page.locator("#draft mark.finding", has_text="生成AIを業務で使う企業は、前年の4倍に増えた").last.click()
    assert view.selected_claim() == "Q2"
    panel = page.locator("section.evidence:visible")
    expect(panel.locator("blockquote.nearest-text")).to_contain_text("前年の約4倍に")
    expect(panel.locator(".diff ins")).to_have_text("約")
    # a Japanese font is used for Japanese text (not a fallback box font)
    family = draft.evaluate("el => getComputedStyle(el).fontFamily")
    assert "Noto Sans CJK JP" in family
    width = page.evaluate(
        """() => { const c = document.createElement('canvas').getContext('2d');
                   c.font = '20px "Noto Sans CJK JP"'; return c.measureText('日本語').width; }"""
    )
    assert 50 < width < 70  # three full-width glyphs at 20px
    view.screenshot("html-report-ja-draft.png")
    assert view.errors == [] and view.dialogs == []


def test_hostile_source_shows_as_text(browser: Browser, tmp_path: Path) -> None:
    view = _open(browser, _hostile_report(), tmp_path, "hostile.html")
    page = view.page
    page.locator("li.finding", has_text="C1").click()
    expect(page.locator("section.evidence:visible blockquote.nearest-text")).to_contain_text(HOSTILE)
    expect(page.locator("section.evidence:visible .diff")).to_contain_text(HOSTILE)
    assert page.evaluate("() => window.pwned === undefined")
    expect(page.locator("img")).to_have_count(0)
    page.locator("li.finding", has_text="C1").hover()
    assert view.dialogs == [] and view.errors == []


def test_real_run_marks_quotes_where_the_draft_prints_them(browser: Browser, tmp_path: Path) -> None:
    """A real `check DRAFT --ledger` run over a ruby page: the ledger's quote claim (located in the
    ledger) is highlighted where the draft prints it, green because it verified, with the writer's
    [V]; an unlisted quotation is red, and a highlight holding a HIGH finding is never green."""
    import dataclasses

    from claimledger import gate
    from tests.realdocs import ruby_html
    from tests.test_real_documents import RUBY_PARAS

    ruby_html(tmp_path / "neko.xhtml", RUBY_PARAS)
    draft_text = (
        "# 読書メモ\n\n"
        "漱石は「どこで生れたかとんと見当がつかぬ」[V] と書いた [@neko]。\n\n"
        "別の箇所には「何でも薄暗いじめじめした所で泣いていた事だけは記憶している」とある。\n"
    )
    (tmp_path / "draft.md").write_text(draft_text, encoding="utf-8")
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text(
        "version: 1\nsources:\n  neko: neko.xhtml\nclaims:\n"
        '  - id: Q1\n    kind: quote\n    source: neko\n    quote: "どこで生れたかとんと見当がつかぬ"\n',
        encoding="utf-8",
    )
    report = gate(ledger, draft=tmp_path / "draft.md")
    by = {f.claim_id: f for f in report.findings}
    assert by["Q1"].verified and (by["Q1"].location or {}).get("in") == "ledger"
    unlisted = [f for f in report.findings if f.reason.value == "unlisted_quote"]
    assert len(unlisted) == 1
    view = _open(browser, report, tmp_path, "real-run.html", draft_text)
    page = view.page
    green = page.locator("#draft mark.finding.tier-verified")
    expect(green).to_have_text("どこで生れたかとんと見当がつかぬ")  # located in the draft, shown verified
    green.click()
    assert view.selected_claim() == "Q1"
    expect(page.locator("section.evidence:visible blockquote").first).to_contain_text("どこで生れたかとんと見当がつかぬ")
    red = page.locator("#draft mark.finding.tier-HIGH")
    expect(red).to_have_count(1)
    expect(red).to_contain_text("何でも薄暗いじめじめした所で泣いていた")
    expect(page.locator("li.finding", has_text="Q1")).to_have_count(0)  # not listed again below the draft
    view.screenshot("html-report-real-run.png")
    assert view.errors == [] and view.dialogs == []
    # the same report with the verified claim's highlight overlapping the unlisted quotation:
    # the shared highlight takes the worst tier (before, the first finding's colour: green)
    line = draft_text.count("\n", 0, draft_text.index("別の箇所")) + 1
    moved = [
        dataclasses.replace(f, location={"file": "draft.md", "line": line, "column": 1, "end_line": line,
                                         "end_column": len("別の箇所には「何でも薄暗いじめじめ") + 1})
        if f.claim_id == "Q1" else f
        for f in report.findings
    ]  # fmt: skip
    view2 = _open(browser, dataclasses.replace(report, findings=moved), tmp_path, "overlap.html", draft_text)
    shared = view2.page.locator("#draft mark.finding", has_text="別の箇所")
    expect(shared).to_have_class("finding tier-HIGH")
    worst = view2.page.evaluate(
        """() => [...document.querySelectorAll('#draft mark.finding')].every(m => {
               const tiers = m.dataset.idxs.split(' ').map(i => document.getElementById('ev-' + i).className);
               return !tiers.some(t => t.includes('tier-HIGH')) || m.classList.contains('tier-HIGH'); })"""
    )
    assert worst is True
    view2.screenshot("html-report-overlap.png")
    assert view2.errors == [] and view2.dialogs == []
