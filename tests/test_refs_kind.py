"""References as a registered claim kind (`kind: reference`), against the local fake services."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger.cli import cli
from tests.refs_fake import Fake, fake_services
from tests.refs_world import ATTENTION, JAPANESE, WORLD

LEDGER = f"""version: 1
references:
  - {{key: keller2015, title: 'Vitamin Intake and Memory in Older Adults: A Cohort Study', authors: ['Keller, Ann'],
     year: 2015, doi: 10.5555/jar.2015.044}}
claims:
  - id: vaswani2017
    kind: reference
    title: Attention Is All You Need
    authors: ['Vaswani, Ashish', 'Shazeer, Noam']
    year: 2017
    doi: {ATTENTION.doi}
  - id: yamada2022
    kind: reference
    title: {JAPANESE.title}
    authors: 山田 太郎 and 佐藤 花子
    year: 2021
    venue: 自然言語処理
  - {{id: invented2020, kind: reference, title: Quantum Gravity Explains Consumer Sentiment, authors: ['Smith, John'],
     year: 2020}}
"""


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Fake]:
    with fake_services(list(WORLD), {}) as f:
        for k, v in f.env().items():
            monkeypatch.setenv(k, v)
        monkeypatch.setenv("CLAIMLEDGER_CACHE_DIR", str(tmp_path / "cache"))
        (tmp_path / "ledger.yaml").write_text(LEDGER, "utf-8")
        yield f


def test_reference_claims_in_the_ledger_are_checked_through_the_registry(fake: Fake, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["check", "--ledger", str(tmp_path / "ledger.yaml"), "--allow-private-urls",
                                      "-f", "json"])  # fmt: skip
    report = json.loads(result.stdout)
    found = {f["claim_id"]: f for f in report["findings"]}
    assert found["vaswani2017"]["reason"] == "reference_verified" and found["vaswani2017"]["check"] == "reference"
    assert found["vaswani2017"]["location"]["line"] == 6  # the claim's line in the ledger
    assert found["yamada2022"]["reason"] == "reference_verified"  # Japanese title, year within ±1
    assert found["invented2020"]["reason"] == "reference_not_found" and found["invented2020"]["tier"] == "HIGH"
    assert found["keller2015"]["reason"] == "reference_retracted"  # a `references:` entry beside them
    assert report["claims_total"] == 4 and result.exit_code == 1  # each entry counted once


def test_a_key_listed_twice_is_an_input_error(fake: Fake, tmp_path: Path) -> None:
    (tmp_path / "ledger.yaml").write_text(LEDGER.replace("key: keller2015", "key: vaswani2017"), "utf-8")
    result = CliRunner().invoke(cli, ["check", "--ledger", str(tmp_path / "ledger.yaml"), "--allow-private-urls"])
    assert result.exit_code == 2 and "vaswani2017" in result.output and "also defined" in result.output


def test_a_draft_citing_a_reference_claim_is_not_unlisted(fake: Fake, tmp_path: Path) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text("Transformers changed translation [@vaswani2017]; 引用の検証 [@yamada2022]; see [@ghost2023].\n",
                     "utf-8")  # fmt: skip
    args = ["check", str(draft), "--ledger", str(tmp_path / "ledger.yaml"), "--allow-private-urls", "-f", "json"]
    report = json.loads(CliRunner().invoke(cli, args).stdout)
    unlisted = [f["claimed"] for f in report["findings"] if f["reason"] == "unlisted_citation"]
    assert unlisted == ["ghost2023"]


def test_a_reference_claim_checked_on_its_own_asks_the_services(fake: Fake, tmp_path: Path) -> None:
    """Without the run's prefetch (a plugin or another command running the registry) the check looks the entry
    up alone: still a verdict, never a silent pass."""
    from claimledger import GateConfig
    from claimledger.registry import run_checks
    from claimledger.run import Run

    with Run.open(tmp_path / "ledger.yaml", config=GateConfig(allow_private_urls=True)) as run:
        by_id = {c.id: c for c in run.ledger.claims}
        verified = run_checks(by_id["vaswani2017"], run.ctx)
        missing = run_checks(by_id["invented2020"], run.ctx)
    assert [f.reason for f in verified] == ["reference_verified"] and verified[0].tier is None
    assert [f.reason for f in missing] == ["reference_not_found"]
    assert any(h.startswith("/crossref/works/") for h in fake.hits)
