"""One run: the extra sources and datasets of the CLI and of a server request join the ledger in one
place (claimledger.run.Run.open); the server keeps no merge code of its own."""

from __future__ import annotations

import inspect
from pathlib import Path

from claimledger import GateConfig
from claimledger.load.ledger import parse_ledger
from claimledger.run import Run, with_sources
from claimledger.server import _core
from claimledger.server._core import Content, Workspace, run_check, run_mark

LEDGER = """version: 1
sources:
  paper: sources/paper.txt
datasets:
  sales: data/sales.csv
claims:
  - id: Q1
    kind: quote
    source: paper
    quote: "the harvest was the largest on record"
  - id: N1
    kind: number
    value: 30
    sql: "SELECT SUM(n) FROM sales"
"""


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "sources").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "sources" / "paper.txt").write_text("In 2020 the harvest was the largest on record.\n")
    (root / "data" / "sales.csv").write_text("n\n10\n20\n")
    (root / "ledger.yaml").write_text(LEDGER)
    return root


def test_with_sources_adds_and_overrides_sources_and_datasets_keeping_path_and_hash() -> None:
    ledger = parse_ledger(LEDGER, "ledger.yaml")
    ledger._path, ledger._sha256 = "ledger.yaml", "abc"
    merged = with_sources(ledger, {"paper": "other.txt", "extra": "x.txt"}, {"more": "m.csv"})
    assert merged.sources == {"paper": "other.txt", "extra": "x.txt"}
    assert merged.datasets == {"sales": "data/sales.csv", "more": "m.csv"}
    assert (merged._path, merged._sha256) == ("ledger.yaml", "abc")
    assert ledger.sources == {"paper": "sources/paper.txt"}  # the ledger read is never changed
    assert with_sources(ledger, None, None) is ledger


def test_run_open_merges_datasets_like_sources(tmp_path: Path) -> None:
    root = _root(tmp_path)
    (root / "data" / "other.csv").write_text("n\n1\n")
    with Run.open(root / "ledger.yaml", datasets={"sales": str(root / "data" / "other.csv")}) as run:
        assert run.ledger.datasets["sales"].endswith("other.csv")


def test_the_server_has_no_merge_code_of_its_own() -> None:
    source = inspect.getsource(_core)
    assert "model_copy" not in source
    assert "with_sources(" in source  # the confined copies of the ledger's own paths use the same helper


def test_a_request_source_and_dataset_override_the_ledgers_through_the_run(tmp_path: Path) -> None:
    """A request's inline source and dataset replace the ledger's (as --source does on the command line):
    the quote is not in the inline source and the sum is recomputed from the inline CSV."""
    root = _root(tmp_path)
    ws = Workspace.open(root, config=GateConfig(cache_dir=tmp_path / "cache"))
    plain = run_check(ws, ledger="ledger.yaml")
    assert {f["claim_id"]: f["status"] for f in plain["findings"]} == {"Q1": "verified", "N1": "verified"}
    given = run_check(
        ws, ledger="ledger.yaml",
        sources={"paper": Content(text="The harvest was poor.", format="text")},
        datasets={"sales": Content(text="n\n5\n", format="csv")},
    )  # fmt: skip
    status = {f["claim_id"]: (f["status"], f["reason"]) for f in given["findings"]}
    assert status["Q1"][0] != "verified" and status["N1"] == ("discrepancy", "number_mismatch")
    assert given["reproducibility"]["sources"]["paper"]["origin"].startswith("<inline>/")
    assert given["reproducibility"]["datasets"]["sales"]["origin"].startswith("<inline>/")


def test_mark_through_the_server_sees_the_request_source(tmp_path: Path) -> None:
    root = _root(tmp_path)
    (root / "draft.md").write_text('The paper says "the harvest was the largest on record" [V] [@paper].\n')
    ws = Workspace.open(root, config=GateConfig(cache_dir=tmp_path / "cache"))
    same = run_mark(ws, draft="draft.md", ledger="ledger.yaml")
    assert same["marks"]["V"] == 1
    other = run_mark(ws, draft="draft.md", ledger="ledger.yaml",
                     sources={"paper": Content(text="Nothing about harvests.", format="text")})  # fmt: skip
    assert other["marks"]["V"] == 0 and "[D]" in other["marked_text"]
