"""`claimledger refs` and `check` with a bibliography, against the local fake services."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger.cli import cli
from tests.refs_fake import Fake, fake_services
from tests.refs_world import ATTENTION, JAPANESE, RETRACTED, WORLD

BIB = r"""
@inproceedings{vaswani2017,
  title = {Attention Is All You Need}, author = {Vaswani, Ashish and Shazeer, Noam and others},
  booktitle = {NeurIPS}, year = {2017}, doi = {10.5555/nips.2017.7181}}
@article{invented2020,
  title = {Quantum Gravity Explains Consumer Sentiment}, author = {Smith, John},
  journal = {Journal of Imaginary Results}, year = {2020}}
@article{keller2015,
  title = {Vitamin Intake and Memory in Older Adults: A Cohort Study}, author = {Keller, Ann},
  journal = {Journal of Ageing Research}, year = {2015}, doi = {10.5555/jar.2015.044}}
@article{yamada2022,
  title = {大規模言語モデルによる引用の検証}, author = {山田 太郎 and 佐藤 花子},
  journal = {自然言語処理}, year = {2022}, doi = {10.5555/jnlp.29.1}}
"""


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Fake]:
    with fake_services(list(WORLD), {}) as f:
        for k, v in f.env().items():
            monkeypatch.setenv(k, v)
        monkeypatch.setenv("CLAIMLEDGER_CACHE_DIR", str(tmp_path / "cache"))
        yield f


def _by_key(out: str) -> dict[str, list[dict[str, object]]]:
    report = json.loads(out)
    found: dict[str, list[dict[str, object]]] = {}
    for f in report["findings"]:
        found.setdefault(f["claim_id"], []).append(f)
    return found


def test_refs_command_checks_a_bib_file(fake: Fake, tmp_path: Path) -> None:
    bib = tmp_path / "paper.bib"
    bib.write_text(BIB, "utf-8")
    result = CliRunner().invoke(cli, ["refs", str(bib), "--allow-private-urls", "-f", "json"])
    assert result.exit_code == 1, result.output
    found = _by_key(result.stdout)
    assert found["vaswani2017"][0]["reason"] == "reference_verified"
    assert found["vaswani2017"][0]["extra"]["record"]["doi"] == ATTENTION.doi  # type: ignore[index]
    assert found["invented2020"][0]["reason"] == "reference_not_found"
    assert found["invented2020"][0]["tier"] == "HIGH"
    assert found["keller2015"][0]["reason"] == "reference_retracted"
    assert found["yamada2022"][0]["reason"] == "reference_verified"
    assert found["yamada2022"][0]["location"]["line"] == 11  # type: ignore[index]
    assert RETRACTED.doi in str(found["keller2015"][0]["extra"])


def test_refs_command_without_allow_private_urls_is_med_not_high(fake: Fake, tmp_path: Path) -> None:
    bib = tmp_path / "paper.bib"
    bib.write_text(BIB, "utf-8")
    result = CliRunner().invoke(cli, ["refs", str(bib), "-f", "json"])
    assert result.exit_code == 3, result.output  # PARTIAL: nothing checked, nothing called fabricated
    assert {f["reason"] for fs in _by_key(result.stdout).values() for f in fs} == {"reference_service_error"}
    assert fake.hits == []


def test_refs_command_bad_file_is_exit_2(tmp_path: Path) -> None:
    bib = tmp_path / "bad.bib"
    bib.write_text("@article{x, title = {unclosed\n", "utf-8")
    result = CliRunner().invoke(cli, ["refs", str(bib)])
    assert result.exit_code == 2 and "bad.bib:1" in result.output


def test_check_with_bibliography_and_a_draft(fake: Fake, tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB, "utf-8")
    (tmp_path / "ledger.yaml").write_text(
        "version: 1\nbibliography: refs.bib\nreferences:\n"
        f"  - key: jnlp\n    title: 大規模言語モデルによる引用の検証\n    authors: [山田 太郎]\n    doi: {JAPANESE.doi}\n",
        "utf-8",
    )
    (tmp_path / "draft.md").write_text(
        "# Notes\n\nTransformers replaced recurrence [@vaswani2017]. 引用の検証は重要である [@jnlp].\n"
        "A claim nobody can find [@ghost2023].\n",
        "utf-8",
    )
    result = CliRunner().invoke(cli, ["check", str(tmp_path / "draft.md"), "--ledger", str(tmp_path / "ledger.yaml"),
                                      "--allow-private-urls", "-f", "json"])  # fmt: skip
    assert result.exit_code == 1, result.output
    found = _by_key(result.stdout)
    assert found["vaswani2017"][0]["reason"] == "reference_verified"
    assert found["jnlp"][0]["reason"] == "reference_verified"
    assert found["invented2020"][0]["reason"] == "reference_not_found"  # checked with or without a citation
    unlisted = [f for fs in found.values() for f in fs if f["reason"] == "unlisted_citation"]
    assert [f["claimed"] for f in unlisted] == ["ghost2023"] and unlisted[0]["tier"] == "HIGH"


def test_check_bib_option_and_offline(fake: Fake, tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB, "utf-8")
    (tmp_path / "ledger.yaml").write_text("version: 1\n", "utf-8")
    result = CliRunner().invoke(cli, ["check", "--ledger", str(tmp_path / "ledger.yaml"), "--bib",
                                      str(tmp_path / "refs.bib"), "--offline", "-f", "json"])  # fmt: skip
    report = json.loads(result.stdout)
    assert {f["reason"] for f in report["findings"]} == {"reference_not_checked"}
    # a reference nobody checked is never PASS: MED, the outcome PARTIAL, exit 3, and the message says what to do
    assert all(f["tier"] == "MED" for f in report["findings"])
    assert report["outcome"] == "PARTIAL" and result.exit_code == 3, result.output
    assert all("run without --offline" in f["message"] for f in report["findings"])
    assert any("--offline" in n for n in report["notes"]) and fake.hits == []


@pytest.mark.parametrize("key", ["vaswani2017", "yamada2022"])
def test_offline_references_only_run_is_never_pass(fake: Fake, tmp_path: Path, key: str) -> None:
    """One real entry (EN or JA), nothing in the cache: PARTIAL (exit 3), not PASS; the `refs` command too."""
    bib = tmp_path / "one.bib"
    entry = next(e for e in BIB.split("\n@") if key in e)
    bib.write_text("@" + entry.lstrip("@").strip() + "\n", "utf-8")
    result = CliRunner().invoke(cli, ["refs", str(bib), "--allow-private-urls", "--offline", "-f", "json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 3 and report["outcome"] == "PARTIAL", result.output
    [finding] = report["findings"]
    assert finding["reason"] == "reference_not_checked" and finding["tier"] == "MED"
    assert "cache" in finding["message"] and fake.hits == []


def test_offline_answers_from_a_warm_cache(fake: Fake, tmp_path: Path) -> None:
    """An online run fills the cache; --offline then decides the same entries from it (EN and JA) without a
    request, and an entry the cache knows nothing about is MED 'not checked'."""
    bib = tmp_path / "paper.bib"
    bib.write_text(BIB, "utf-8")
    online = CliRunner().invoke(cli, ["refs", str(bib), "--allow-private-urls", "-f", "json"])
    asked = len(fake.hits)
    assert asked > 0
    bib.write_text(BIB + "@article{newer2023, title = {Tidal Locking of Small Moons}, author = {Ode, Kim},"
                   " journal = {Icarus}, year = {2023}}\n", "utf-8")  # fmt: skip
    offline = CliRunner().invoke(cli, ["refs", str(bib), "--allow-private-urls", "--offline", "-f", "json"])
    assert len(fake.hits) == asked  # nothing asked
    before, after = _by_key(online.stdout), _by_key(offline.stdout)
    for key in ("vaswani2017", "invented2020", "keller2015", "yamada2022"):
        assert [f["reason"] for f in after[key]] == [f["reason"] for f in before[key]], key
    assert after["yamada2022"][0]["reason"] == "reference_verified"
    assert after["newer2023"][0]["reason"] == "reference_not_checked" and after["newer2023"][0]["tier"] == "MED"
    assert offline.exit_code == 1  # the retracted and the invented entry are still HIGH from the cached answers
    # an answer fetched under --allow-private-urls is never served to a run without it
    strict = CliRunner().invoke(cli, ["refs", str(bib), "--offline", "-f", "json"])
    assert {f["reason"] for fs in _by_key(strict.stdout).values() for f in fs} == {"reference_not_checked"}


def test_sarif_and_html_carry_the_reference_and_the_record(fake: Fake, tmp_path: Path) -> None:
    bib = tmp_path / "paper.bib"
    bib.write_text(BIB, "utf-8")
    sarif = CliRunner().invoke(cli, ["refs", str(bib), "--allow-private-urls", "-f", "sarif"])
    log = json.loads(sarif.stdout)
    rules = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert {"reference_not_found", "reference_retracted"} <= rules
    html = CliRunner().invoke(cli, ["refs", str(bib), "--allow-private-urls", "-f", "html"]).stdout
    assert "Quantum Gravity Explains Consumer Sentiment" in html
    assert "Vitamin Intake and Memory in Older Adults" in html
