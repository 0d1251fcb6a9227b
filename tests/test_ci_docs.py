"""docs/ci.md and .pre-commit-hooks.yaml stay in step with the CLI."""

from __future__ import annotations

import re
import shlex

import yaml

from claimledger.cli import cli
from claimledger.cli._common import FORMATS
from tests.report_helpers import ROOT


def test_pre_commit_hooks_run_real_commands() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    by_id = {hook["id"]: hook for hook in hooks}
    assert set(by_id) == {"claimledger-check", "claimledger-lint"}
    for hook_id, command in (("claimledger-check", "check"), ("claimledger-lint", "lint")):
        hook = by_id[hook_id]
        assert hook["entry"] == f"claimledger {command}" and hook["language"] == "python"
        assert hook["pass_filenames"] is False and "--ledger" in hook["args"]
        assert command in cli.commands
        re.compile(hook["files"])


def test_ci_doc_workflow_uploads_the_sarif_of_a_real_check() -> None:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(name: claimledger\n.*?)```", text, re.S)
    assert block is not None
    workflow = yaml.safe_load(block.group(1))
    steps = workflow["jobs"]["verify-claims"]["steps"]
    uses = [step.get("uses", "") for step in steps]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    upload = next(
        step for step in steps if step.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    )
    assert upload["with"]["sarif_file"] == "claimledger.sarif"
    assert workflow["permissions"]["security-events"] == "write"
    run = next(step["run"] for step in steps if step.get("id") == "gate")
    commands = [shlex.split(line) for line in run.splitlines() if line.startswith("claimledger ")]
    assert commands and all(c[1] == "check" for c in commands)
    formats = {c[c.index("--format") + 1] for c in commands}
    assert formats == {"sarif", "html"} and formats <= set(FORMATS)
    # every option the workflow passes exists on `claimledger check`
    check_options = {opt for p in cli.commands["check"].params for opt in p.opts}
    for c in commands:
        assert {a for a in c if a.startswith("-")} <= check_options
