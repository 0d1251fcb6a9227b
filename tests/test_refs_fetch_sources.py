"""--fetch-sources: quotes checked against a verified reference's arXiv or open-access PDF.

The PDFs are real (reportlab, tests/realdocs.py: running header, page numbers), served with the
reference services by the local fake on 127.0.0.1 (tests/refs_fake.py).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from claimledger.cli import cli
from tests.realdocs import paper_pdf
from tests.refs_fake import Fake, Fault, Work, fake_services
from tests.refs_world import ATTENTION

JA_PREPRINT = Work(
    "長文書における引用検証の手法", [("一郎", "鈴木"), ("直子", "高橋")], 2023, arxiv="2304.01234",
    kind="posted-content", services=("arxiv", "datacite"),
)  # fmt: skip
OA_ONLY = Work(  # no arXiv id; OpenAlex alone holds it, with an open-access PDF
    "Urban Heat Islands and Night-Time Mortality", [("Ines", "Moreau"), ("Kofi", "Mensah")], 2018,
    venue="Urban Climate", doi="10.5555/uclim.2018.3", services=("openalex",), oa_pdf="uclim-2018-3.pdf",
)  # fmt: skip
EN_BODY = [
    "The dominant sequence transduction models are based on complex recurrent or convolutional neural "
    "networks. We propose a new simple network architecture based solely on attention mechanisms.",
    "Experiments on two machine translation tasks show these models to be superior in quality.",
]
JA_BODY = ["本研究では、長い文書の引用を原文と照合する手法を提案する。照合は正規化した文字列で行う。",
           "評価の結果、誤った引用の九割以上を検出できた。"]  # fmt: skip
OA_BODY = ["Night-time temperatures in the urban core stayed above the rural baseline on most summer nights.",
           "Mortality rose by four percent on nights above the threshold."]  # fmt: skip

LEDGER = """version: 1
references:
  - {key: vaswani2017, title: Attention Is All You Need, authors: ['Vaswani, Ashish'], year: 2017, arxiv: '1706.03762'}
  - {key: fake2019, title: Attention Is Everything We Ever Wanted, authors: ['Doe, Jane'], year: 2019, arxiv: '1901.00001'}
  - {key: suzuki2023, title: 長文書における引用検証の手法, authors: ['鈴木 一郎'], year: 2023, arxiv: '2304.01234'}
  - {key: moreau2018, title: Urban Heat Islands and Night-Time Mortality, authors: ['Moreau, Ines'], year: 2018,
     doi: 10.5555/uclim.2018.3}
claims:
  - {id: Q1, kind: quote, source: vaswani2017, quote: 'based solely on attention mechanisms'}
  - {id: Q2, kind: quote, source: vaswani2017, quote: 'based solely on recurrence'}
  - {id: Q3, kind: quote, source: fake2019, quote: 'superior in quality'}
  - {id: Q4, kind: quote, source: suzuki2023, quote: '誤った引用の九割以上を検出できた'}
  - {id: Q5, kind: quote, source: moreau2018, quote: 'Mortality rose by four percent'}
"""


@pytest.fixture
def pdfs(tmp_path: Path) -> dict[str, bytes]:
    out = {}
    for name, title, body, lang in (("1706.03762", ATTENTION.title, EN_BODY, "en"),
                                    ("1901.00001", "Attention Is Everything", EN_BODY, "en"),
                                    ("2304.01234", JA_PREPRINT.title, JA_BODY, "ja"),
                                    ("uclim-2018-3.pdf", OA_ONLY.title, OA_BODY, "en")):  # fmt: skip
        path = paper_pdf(tmp_path / f"{name}.pdf", title, body, lang=lang)
        out[name] = path.read_bytes()
    return out


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pdfs: dict[str, bytes]) -> Iterator[Fake]:
    faults: dict[str, Fault] = {}
    with fake_services([ATTENTION, JA_PREPRINT, OA_ONLY], faults, pdfs) as f:
        for k, v in f.env().items():
            monkeypatch.setenv(k, v)
        monkeypatch.setenv("CLAIMLEDGER_ARXIV_PDF_URL", f.base + "/pdf")
        monkeypatch.setenv("CLAIMLEDGER_CACHE_DIR", str(tmp_path / "cache"))
        (tmp_path / "ledger.yaml").write_text(LEDGER, "utf-8")
        yield f


def _run(tmp_path: Path, *extra: str, private: bool = True) -> tuple[dict[str, str], dict[str, Any], int]:
    args = ["check", "--ledger", str(tmp_path / "ledger.yaml"), "-f", "json", *extra]
    result = CliRunner().invoke(cli, args + (["--allow-private-urls"] if private else []))
    report = json.loads(result.stdout)
    return {f["claim_id"]: f["reason"] for f in report["findings"]}, report, result.exit_code


def _pdf_hits(fake: Fake) -> list[str]:
    return [h for h in fake.hits if h.startswith("/pdf/")]


def test_quotes_are_checked_against_the_verified_references_pdfs(tmp_path: Path, fake: Fake) -> None:
    without, _, _ = _run(tmp_path)
    assert without["Q1"] == "source_undeclared" and not _pdf_hits(fake)  # nothing is inferred unless asked
    found, report, _ = _run(tmp_path, "--fetch-sources")
    assert found["vaswani2017"] == "reference_verified" and found["Q1"] == "quote_found"
    assert found["Q2"] in ("quote_absent", "quote_near_miss")  # checked against the PDF: not there
    assert found["suzuki2023"] == "reference_verified" and found["Q4"] == "quote_found"  # Japanese arXiv PDF
    assert found["moreau2018"] == "reference_verified" and found["Q5"] == "quote_found"  # OpenAlex open-access PDF
    # a reference that is not verified never lends its PDF: its quotes stay unchecked (HIGH)
    assert found["fake2019"] == "reference_not_found" and found["Q3"] == "source_undeclared"
    assert "/pdf/1901.00001" not in _pdf_hits(fake)
    notes = " ".join(report["notes"])
    assert "vaswani2017 <- " + fake.base + "/pdf/1706.03762" in notes and "fake2019: the reference is" in notes
    src = report["reproducibility"]["sources"]["vaswani2017"]
    assert src["origin"] == fake.base + "/pdf/1706.03762" and len(src["sha256"]) == 64
    assert report["reproducibility"]["references"]["fetch_sources"]["suzuki2023"].endswith("/pdf/2304.01234")
    # a second run reads the PDFs from the URL cache
    fetched = len(_pdf_hits(fake))
    again, _, _ = _run(tmp_path, "--fetch-sources")
    assert again == found and len(_pdf_hits(fake)) == fetched


def test_offline_uses_only_pdfs_already_in_the_cache(tmp_path: Path, fake: Fake) -> None:
    warm, _, _ = _run(tmp_path, "--fetch-sources")
    asked = len(fake.hits)
    offline, report, _ = _run(tmp_path, "--fetch-sources", "--offline")
    assert offline == warm and len(fake.hits) == asked  # references and PDFs from the caches, no request
    shutil.rmtree(tmp_path / "cache" / "urls")  # the answers stay cached, the PDFs are gone
    offline, report, code = _run(tmp_path, "--fetch-sources", "--offline")
    assert offline["vaswani2017"] == "reference_verified" and offline["Q1"] == "source_undeclared"
    assert offline["Q4"] == "source_undeclared" and len(fake.hits) == asked and code == 1
    assert "is not in the URL cache" in " ".join(report["notes"])


def test_the_size_and_time_limits_apply(tmp_path: Path, fake: Fake) -> None:
    small, _, _ = _run(tmp_path, "--fetch-sources", "--max-source-bytes", "300")
    assert small["vaswani2017"] == "reference_verified" and small["Q1"] == "source_too_large"
    assert small["Q4"] == "source_too_large"
    fake.faults["/pdf/1706.03762"] = Fault(status=200, delay=3.0)
    slow, _, _ = _run(tmp_path, "--fetch-sources", "--timeout", "0.5", "--cache-dir", str(tmp_path / "cold"))
    assert slow["Q1"] == "source_timeout" and slow["Q4"] == "quote_found"


def test_a_loopback_pdf_needs_allow_private_urls(tmp_path: Path, fake: Fake) -> None:
    """The inferred URL is fetched under the URL policy like any URL source (the services' answers come from
    a run that allowed the fake; the PDF fetch itself does not)."""
    from claimledger import GateConfig, gate
    from claimledger.load.ledger import load_ledger
    from claimledger.refs import RefSettings, verify_references
    from claimledger.refs.findings import ledger_references
    from claimledger.refs.sources import inferred_sources

    ledger = load_ledger(tmp_path / "ledger.yaml")
    refs = ledger_references(ledger, tmp_path)
    verdicts = verify_references(refs, RefSettings(allow_private_urls=True))
    strict = GateConfig(cache_dir=tmp_path / "strict")
    inferred = inferred_sources(ledger, verdicts, strict)
    assert set(inferred.sources) == {"vaswani2017", "suzuki2023", "moreau2018"}
    report = gate(tmp_path / "ledger.yaml", config=strict, sources=inferred.sources)
    q1 = next(f for f in report.findings if f.claim_id == "Q1")
    assert q1.reason == "source_url_refused" and "--allow-private-urls" in q1.message
    assert not _pdf_hits(fake)  # refused before any connection


def _draft_checks(report: dict[str, Any]) -> dict[int, str]:
    return {f["location"]["line"]: f["reason"] for f in report["findings"] if f["check"] == "draft_marks"}


def test_a_drafts_citations_take_the_pdf_too(tmp_path: Path, fake: Fake) -> None:
    """check DRAFT: a quotation the draft cites to a verified entry is checked against its PDF (EN and JA)."""
    (tmp_path / "ledger.yaml").write_text(LEDGER.split("claims:")[0], "utf-8")
    draft = tmp_path / "draft.md"
    draft.write_text(
        'Vaswani et al. propose a model "based solely on attention mechanisms" [@vaswani2017].\n\n'
        'They also claim it is "based solely on recurrence" [@vaswani2017].\n\n'
        "鈴木らは「誤った引用の九割以上を検出できた」と報告している [@suzuki2023]。\n", "utf-8",
    )  # fmt: skip
    args = ["check", str(draft), "--ledger", str(tmp_path / "ledger.yaml"), "--allow-private-urls", "-f", "json"]
    without = _draft_checks(json.loads(CliRunner().invoke(cli, args).stdout))
    assert "quote_found" not in without.values() and not _pdf_hits(fake)
    found = _draft_checks(json.loads(CliRunner().invoke(cli, [*args, "--fetch-sources"]).stdout))
    assert found[1] == "quote_found" and found[5] == "quote_found"  # English and Japanese PDFs
    assert found[3] in ("quote_absent", "quote_near_miss")
    assert sorted(_pdf_hits(fake)) == ["/pdf/1706.03762", "/pdf/2304.01234"]  # only the cited, verified entries
