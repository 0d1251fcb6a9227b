"""The HTML report as a file: self-contained, escaped, placed on the draft (no browser here)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html as html_lib
import re
from pathlib import Path

from click.testing import CliRunner

from claimledger.cli import cli
from claimledger.cli._common import render
from claimledger.model.finding import Evidence, Finding, Reason, Status, Tier
from claimledger.model.report import Outcome, Report
from claimledger.output.html import render_html
from tests.report_helpers import EN_DRAFT, EXAMPLES, JA_DRAFT, en_report, ja_report, place_in_draft

HOSTILE = "<script>window.pwned=1;alert('x')</script><img src=x onerror=alert(1)>"


def _hostile_report() -> Report:
    nearest = Evidence("evil", 0, 40, f"errors fell by 37 percent {HOSTILE}", page=None)
    findings = [
        Finding(
            "C1", "literal_quote", Status.DISCREPANCY, Reason.QUOTE_NEAR_MISS,
            f"not found verbatim in evil; nearest differs {HOSTILE}",
            tier=Tier.HIGH, nearest=nearest, diff=f"errors fell by [-73-]{{+37+}} percent {HOSTILE}",
            claimed='errors fell by 73 percent" onmouseover="alert(2)',
            location={"file": None, "line": 7, "in": "ledger"},
        ),
    ]  # fmt: skip
    return Report(Outcome.FAIL, findings, claims_total=1,
                  reproducibility={"ledger": {"path": "</title><script>alert(3)</script>"}})  # fmt: skip


def test_cli_writes_a_self_contained_html_file(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, [
        "check", "--ledger", str(EXAMPLES / "en" / "ledger.yaml"), "--metrics", str(EXAMPLES / "en" / "metrics.py"),
        "--format", "html", "-o", str(out),
    ])  # fmt: skip
    assert result.exit_code == 1, result.output  # FAIL: the format does not change the exit code
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in html
    # nothing is loaded from anywhere: no external src/href, no <link>, no @import, no url()
    assert not re.search(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "<link" not in html.lower() and "@import" not in html and "url(" not in html
    assert "http://" not in html and "https://" not in html
    for claim_id in ("N1", "N3", "N4", "C1", "C2", "C3", "C4", "N5"):
        assert f'<span class="cid">{claim_id}</span>' in html
    assert 'id="outcome">FAIL<' in html


def test_csp_pins_the_inline_script_and_style_by_hash() -> None:
    html = render_html(en_report())
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    policy = html_lib.unescape(csp.group(1))
    assert "default-src 'none'" in policy
    for tag in ("script", "style"):
        bodies = re.findall(rf"<{tag}>(.*?)</{tag}>", html, re.S)
        assert len(bodies) == 1
        digest = base64.b64encode(hashlib.sha256(bodies[0].encode()).digest()).decode()
        assert f"{tag}-src 'sha256-{digest}'" in policy


def test_untrusted_text_is_escaped_everywhere() -> None:
    html = render_html(_hostile_report())
    assert html.count("<script") == 1  # only the page's own script
    assert "<img" not in html and "onerror=alert" not in html.replace("onerror=alert(1)&gt;", "")
    assert "&lt;script&gt;window.pwned=1;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert 'onmouseover="alert(2)' not in html and "73 percent&#34; onmouseover=&#34;alert(2)" in html
    assert "&lt;/title&gt;&lt;script&gt;alert(3)" in html


def test_untrusted_draft_is_escaped() -> None:
    report = place_in_draft(en_report(), EN_DRAFT, "draft.md")
    draft = EN_DRAFT + f"\n{HOSTILE}\n"
    html = render_html(report, draft, "<b>draft</b>.md")
    assert html.count("<script") == 1 and "<img" not in html and "<b>draft" not in html
    assert "&lt;b&gt;draft&lt;/b&gt;.md" in html


def test_claim_list_shows_evidence_diff_and_recomputed_values() -> None:
    html = render_html(en_report())
    assert "<h2>Claims from the ledger</h2>" in html and 'id="draft"' not in html
    c2 = _panel(html, "C2")
    assert "Nearest passage" in c2 and "smith2019, p. 1, characters 124–194" in c2
    assert "independent verifi" in c2 and "cation step reduced errors by 37 percent" in c2
    assert "verifi-cation" in c2 and "\ufffe" not in c2  # the PDF's line-break hyphen as a reader sees it
    assert "<del" in c2 and ">73</del>" in c2 and ">37</ins>" in c2
    n4 = _panel(html, "N4")
    assert '<dd class="expected">11.7086</dd>' in n4 and "Author's explanation" in n4
    c3 = _panel(html, "C3")
    assert "Evidence" in c3 and "jones2021, line " in c3
    assert "Verification is a discipline, not a mood" in c3
    for key, n in (("HIGH", 4), ("MED", 0), ("LOW", 0), ("EXPLAINED", 1), ("verified", 4)):
        assert f'id="count-{key}">{n}<' in html
    assert "<kbd>j</kbd>" in html and "<kbd>k</kbd>" in html  # the keys are documented on the page


def _panel(html: str, claim_id: str) -> str:
    for section in re.findall(r'<section class="evidence.*?</section>', html, re.S):
        if f'<span class="cid">{claim_id}</span>' in section:
            return str(section)
    raise AssertionError(f"no evidence panel for {claim_id}")


def test_draft_mode_highlights_each_located_claim() -> None:
    report = place_in_draft(en_report(), EN_DRAFT, "draft.md", keep_in_ledger=("N3",))
    html = render_html(report, EN_DRAFT, "draft.md")
    marks = re.findall(r'<mark class="finding tier-(\S+)" data-idxs="([\d ]+)"[^>]*>(.*?)</mark>', html, re.S)
    by_text = {text: (tier, idxs) for tier, idxs, text in marks}
    assert by_text["adding an independent verification step reduced errors by 73 percent"][0] == "HIGH"
    assert by_text["adding an independent verification step reduced errors by 37 percent"][0] == "verified"
    assert by_text["11.9%"][0] == "EXPLAINED" and by_text["1,202"][0] == "verified"
    assert len(marks) == 8
    # the claim not in the draft is listed below it
    assert "Claims not located in the draft" in html
    listed = re.findall(r'<li class="finding item tier-(\S+)" data-idxs="(\d+)"', html)
    assert listed == [("HIGH", "2")]
    # the draft text itself is intact around the marks
    text = re.sub(r"<[^>]+>", "", re.search(r'<div class="draft"[^>]*>(.*?)</div>', html, re.S).group(1))  # type: ignore[union-attr]
    assert text.replace("&#34;", '"') == EN_DRAFT


def test_overlapping_claims_share_one_highlight() -> None:
    draft = "Growth was 12% in 2023.\n"
    base = Finding("N1", "numeric_recompute", Status.DISCREPANCY, Reason.NUMBER_MISMATCH, "off",
                   tier=Tier.HIGH, claimed="12% in 2023", location={"file": "d.md", "line": 1, "column": 12})  # fmt: skip
    inner = dataclasses.replace(base, claim_id="N2", status=Status.VERIFIED, reason=Reason.NUMBER_MATCH,
                                tier=None, claimed="12%")  # fmt: skip
    html = render_html(Report(Outcome.FAIL, [base, inner], claims_total=2), draft, "d.md")
    marks = re.findall(r'<mark class="finding tier-(\S+)" data-idxs="([\d ]+)"', html)
    assert marks == [("HIGH", "0 1")]


def test_unmatched_location_highlights_to_the_end_of_the_sentence() -> None:
    draft = "First sentence. The rate was high. Last.\n"
    f = Finding("N1", "numeric_recompute", Status.DISCREPANCY, Reason.NUMBER_MISMATCH, "off",
                tier=Tier.HIGH, claimed="not in the draft", location={"file": "d.md", "line": 1, "column": 17})  # fmt: skip
    html = render_html(Report(Outcome.FAIL, [f], claims_total=1), draft, "d.md")
    assert re.search(r"<mark [^>]*>The rate was high\.</mark>", html)
    # a line beyond the draft cannot be placed: the finding is listed instead
    far = dataclasses.replace(f, location={"file": "d.md", "line": 99, "column": 1})
    html = render_html(Report(Outcome.FAIL, [far], claims_total=1), draft, "d.md")
    assert "<mark" not in html and 'data-idxs="0"' in html


def test_japanese_has_lang_and_a_japanese_font_stack() -> None:
    report = place_in_draft(ja_report(), JA_DRAFT, "ダイジェスト.md")
    html = render_html(report, JA_DRAFT, "ダイジェスト.md")
    assert '<meta charset="utf-8">' in html and '<html lang="en">' in html
    assert re.search(r'<div class="draft" id="draft" lang="ja">', html)
    assert "Noto Sans CJK JP" in html and "Hiragino" in html and ":lang(ja)" in html
    assert ">生成AIを業務で使う企業は、前年の4倍に増えた</mark>" in html
    assert "ダイジェスト.md" in html
    listed = render_html(ja_report())
    assert '<q class="claimed" lang="ja">生成AIを業務で使う企業は、前年の4倍に増えた</q>' in listed


def test_render_uses_the_draft_named_in_the_report(tmp_path: Path) -> None:
    draft_path = tmp_path / "draft.md"
    draft_path.write_text(EN_DRAFT, encoding="utf-8")
    report = place_in_draft(en_report(), EN_DRAFT, str(draft_path))
    sha = hashlib.sha256(draft_path.read_bytes()).hexdigest()
    report.reproducibility["draft"] = {"path": str(draft_path), "sha256": sha}
    assert 'id="draft"' in render(report, "html")
    # a draft edited since the check no longer matches its findings: list the claims instead
    draft_path.write_text(EN_DRAFT + "edited\n", encoding="utf-8")
    html = render(report, "html")
    assert 'id="draft"' not in html and "Claims from the ledger" in html
    report.reproducibility["draft"] = str(tmp_path / "missing.md")
    assert "Claims from the ledger" in render(report, "html")


def test_no_findings_says_nothing_was_verified() -> None:
    html = render_html(Report(Outcome.NO_CLAIMS, [], claims_total=0))
    assert 'id="outcome">NO_CLAIMS<' in html and "nothing was verified" in html


def test_check_with_a_draft_shows_the_draft(tmp_path: Path) -> None:
    out = tmp_path / "digest.html"
    digest = EXAMPLES / "ja_digest"
    result = CliRunner().invoke(cli, [
        "check", str(digest / "digest.md"), "--ledger", str(digest / "ledger.yaml"), "-f", "html", "-o", str(out),
    ])  # fmt: skip
    assert result.exit_code == 1, result.output
    html = out.read_text(encoding="utf-8")
    assert '<div class="draft" id="draft" lang="ja">' in html and "digest.md</code>" in html
    marks = re.findall(r'<mark class="finding tier-(\S+)"[^>]*>(.*?)</mark>', html, re.S)
    # the writer's own [V] on the near miss does not re-verify: highlighted HIGH where it sits in the draft
    assert ("HIGH", "事務職から企画職へ移った人が最も多く、全体の約4割を占めた") in marks
    assert "Claims not located in the draft" in html  # the ledger's own claims are listed below it
