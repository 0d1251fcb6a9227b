"""`claimledger check` of a ledger imports neither the draft modules, PyYAML nor the references'
services and comparison (a warm run is mostly imports; a ledger without references registers their
claim kind and no more), and importing them lazily changes nothing: the same report byte for byte as a
process that imported them all first, and the public names still resolve to the same objects."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import claimledger

LAZY = ["claimledger._drafts", "claimledger.receipts", "claimledger.checks.marks", "claimledger.checks.unlisted",
        "claimledger.extract.marks", "claimledger.extract.draft", "yaml", "claimledger.refs.verify",
        "claimledger.refs.verdicts", "claimledger.refs.client", "claimledger.refs.match"]  # fmt: skip

_RUN = """
import sys
{preload}
from claimledger.cli import main
sys.argv = ["claimledger"] + {argv!r}
try:
    main()
finally:
    sys.stderr.write("\\nIMPORTED " + " ".join(m for m in {lazy!r} if m in sys.modules) + "\\n")
"""


def _check(argv: list[str], preload: bool, cwd: Path) -> tuple[str, list[str], int]:
    code = _RUN.format(preload="\n".join(f"import {m}" for m in LAZY) if preload else "", argv=argv, lazy=LAZY)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, check=False)
    imported = done.stderr.rsplit("IMPORTED", 1)[1].split()
    return done.stdout, imported, done.returncode


def _ledger(tmp_path: Path) -> Path:
    (tmp_path / "src.txt").write_text(
        "The model, it seems, reduced errors by 37 percent in the first trial.\n"
        "検証の段階を加えると誤りが減った。\n", encoding="utf-8")  # fmt: skip
    ledger = {
        "version": 1,
        "sources": {"src": "src.txt"},
        "claims": [
            {"id": "Q1", "kind": "quote", "source": "src", "quote": "reduced errors by 37 percent"},
            {"id": "Q2", "kind": "quote", "source": "src", "quote": "reduced errors by 73 percent"},
            {"id": "Q3", "kind": "quote", "source": "src", "quote": "検証の段階を加えると誤りが減った"},
        ],
    }
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(ledger, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def test_a_ledger_check_imports_no_draft_module_and_reports_the_same(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    outputs = {}
    for fmt in ("json", "markdown"):
        argv = ["check", "--ledger", str(ledger), "-f", fmt, "--cache-dir", str(tmp_path / "cache"), "--quiet"]
        lazy_out, lazy_imported, lazy_rc = _check(argv, preload=False, cwd=tmp_path)
        eager_out, eager_imported, eager_rc = _check(argv, preload=True, cwd=tmp_path)
        assert lazy_imported == []
        assert eager_imported == LAZY
        assert lazy_out == eager_out and lazy_rc == eager_rc == 1  # Q2 is a discrepancy
        outputs[fmt] = lazy_out
    report = json.loads(outputs["json"])
    assert report["counts"]["verified"] == 2
    lines = {f["claim_id"]: f["location"]["line"] for f in report["findings"] if f.get("location")}
    assert lines == {"Q1": 7, "Q2": 13, "Q3": 19}  # the JSON ledger's lines, read without YAML


def test_a_draft_check_still_imports_what_it_needs(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    draft = tmp_path / "draft.md"
    draft.write_text('The authors write that it "reduced errors by 37 percent" [@src] [V].\n', encoding="utf-8")
    argv = ["check", str(draft), "--ledger", str(ledger), "-f", "json", "--cache-dir", str(tmp_path / "c"), "--quiet"]
    lazy_out, lazy_imported, lazy_rc = _check(argv, preload=False, cwd=tmp_path)
    eager_out, _, eager_rc = _check(argv, preload=True, cwd=tmp_path)
    assert "claimledger.checks.marks" in lazy_imported and "claimledger.extract.draft" in lazy_imported
    assert lazy_out == eager_out and lazy_rc == eager_rc


def test_the_public_names_resolve_lazily_to_the_same_objects() -> None:
    from claimledger import _drafts, receipts

    assert claimledger.mark is _drafts.mark and claimledger.lint is _drafts.lint
    assert claimledger.audit is _drafts.audit and claimledger.extract_ledger is _drafts.extract_ledger
    assert claimledger.MarkResult is _drafts.MarkResult and claimledger.LintResult is _drafts.LintResult
    assert claimledger.verify_receipt is receipts.verify_receipt
    from claimledger import refs
    from claimledger.refs import match, model, verdicts, verify

    assert refs.verify_references is verify.verify_references
    assert refs.RefSettings is verify.RefSettings and refs.SERVICES is verify.SERVICES
    assert refs.Reference is model.Reference and refs.Record is model.Record
    assert refs.Verdict is verdicts.Verdict and refs.MatchOptions is match.MatchOptions
    for package in (claimledger, refs):  # an unknown name raises AttributeError, naming it
        with pytest.raises(AttributeError, match="no_such_name"):
            package.no_such_name  # noqa: B018
