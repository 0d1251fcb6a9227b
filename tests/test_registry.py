"""The check registry: built-ins register like plugins; a plugin adds a claim kind, a reason and a check.

The plugin here is a real installed-style package (a module plus a dist-info
folder with an ``entry_points.txt``) found through ``PYTHONPATH`` by a fresh
``python -m claimledger`` process, so the entry-point path runs end to end and
the test process's registry is never changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Literal

import pytest

from claimledger._exceptions import PluginError
from claimledger.model.claim import ClaimBase, NegativeClaim, NumberClaim, QuoteClaim, claim_kind, claim_kinds
from claimledger.model.reasons import Reason, Tier
from claimledger.registry import BUILTIN_MODULES, check, checks_for

PLUGIN = '''
"""A claimledger plugin: a `retraction` claim kind (is the cited work retracted?)."""
from typing import Literal

from pydantic import Field

from claimledger.model.claim import ClaimBase, claim_kind
from claimledger.model.finding import Finding, Status
from claimledger.model.reasons import Reason, Tier
from claimledger.registry import check

RETRACTED = {"10.1000/retracted.1"}
SOURCE_RETRACTED = Reason.register(
    "source_retracted", Tier.HIGH,
    "The cited work has been retracted.", "Cite a work that stands, or say it was retracted.",
)
NOT_RETRACTED = Reason.register("source_not_retracted", None, "The cited work is not retracted.", "Nothing.")


@claim_kind
class RetractionClaim(ClaimBase):
    """The cited work is not retracted."""

    kind: Literal["retraction"]
    doi: str = Field(min_length=1, description="The cited work's DOI.")


@check("retraction", name="retraction_list")
def retraction_list(claim: RetractionClaim, ctx: object, earlier: object) -> list[Finding]:
    if claim.doi in RETRACTED:
        return [Finding(claim.id, "retraction_list", Status.DISCREPANCY, SOURCE_RETRACTED, f"{claim.doi} is retracted")]
    return [Finding(claim.id, "retraction_list", Status.VERIFIED, NOT_RETRACTED, f"{claim.doi} is not retracted")]
'''

LEDGER = """\
version: 1
claims:
  - id: R1
    kind: retraction
    doi: 10.1000/retracted.1
  - id: R2
    kind: retraction
    doi: 10.1000/fine.2
    statement: Smith (2020) showed it.
"""


def _install_plugin(root: Path, name: str = "retraction_plugin", body: str = PLUGIN) -> dict[str, str]:
    (root / f"{name}.py").write_text(textwrap.dedent(body), "utf-8")
    info = root / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", "utf-8")
    (info / "entry_points.txt").write_text(f"[claimledger.plugins]\n{name} = {name}\n", "utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _claimledger(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claimledger", *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def test_a_plugin_adds_a_claim_kind_a_reason_and_a_check(tmp_path: Path) -> None:
    env = _install_plugin(tmp_path)
    (tmp_path / "ledger.yaml").write_text(LEDGER, "utf-8")
    done = _claimledger(["check", "--ledger", "ledger.yaml", "-f", "json", "-q"], tmp_path, env)
    assert done.returncode == 1, done.stderr  # FAIL: R1 cites a retracted work
    report = json.loads(done.stdout)
    by_id = {f["claim_id"]: f for f in report["findings"]}
    assert by_id["R1"]["reason"] == "source_retracted" and by_id["R1"]["tier"] == "HIGH"
    assert by_id["R1"]["claimed"] is None  # the kind's own claimed(): no statement
    assert by_id["R2"]["status"] == "verified" and by_id["R2"]["tier"] is None
    assert by_id["R2"]["claimed"] == "Smith (2020) showed it."
    assert report["outcome"] == "FAIL"
    sarif = _claimledger(["check", "--ledger", "ledger.yaml", "-f", "sarif", "-q"], tmp_path, env)
    rules = {r["id"]: r for r in json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["source_retracted"]["shortDescription"]["text"] == "The cited work has been retracted."
    assert "source_not_retracted" not in rules  # a verified code is not a rule


def test_without_the_plugin_the_kind_is_a_ledger_error(tmp_path: Path) -> None:
    (tmp_path / "ledger.yaml").write_text(LEDGER, "utf-8")
    done = _claimledger(["check", "--ledger", "ledger.yaml", "-q"], tmp_path, dict(os.environ))
    assert done.returncode == 2
    assert "ledger.yaml:4: claims[0].kind" in done.stderr and "retraction" in done.stderr


def test_a_plugin_kind_joins_the_ledger_schema(tmp_path: Path) -> None:
    env = _install_plugin(tmp_path)
    code = (
        "import json; from claimledger.registry import load_plugins; load_plugins(); "
        "from claimledger.schemas import ledger_schema; print(json.dumps(ledger_schema()))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    schema = json.loads(done.stdout)
    assert "RetractionClaim" in schema["$defs"]
    mapping = schema["properties"]["claims"]["items"]["discriminator"]["mapping"]
    assert set(mapping) == {"quote", "number", "negative", "attribution", "dataset", "reference", "retraction"}


def test_a_kind_with_no_check_is_never_verified(tmp_path: Path) -> None:
    body = PLUGIN.split("@check(")[0]  # the kind and reasons, no check
    env = _install_plugin(tmp_path, "unchecked_plugin", body)
    (tmp_path / "ledger.yaml").write_text(LEDGER, "utf-8")
    done = _claimledger(["check", "--ledger", "ledger.yaml", "-f", "json", "-q"], tmp_path, env)
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert {f["reason"] for f in report["findings"]} == {"claim_kind_unchecked"}
    assert all(f["tier"] == "HIGH" for f in report["findings"])


def test_a_plugin_that_fails_to_import_is_an_input_error_not_a_traceback(tmp_path: Path) -> None:
    env = _install_plugin(tmp_path, "broken_plugin", "raise RuntimeError('boom')\n")
    (tmp_path / "ledger.yaml").write_text("version: 1\nclaims: []\n", "utf-8")
    done = _claimledger(["check", "--ledger", "ledger.yaml", "-q"], tmp_path, env)
    assert "Traceback" not in done.stderr
    assert "plugin 'broken_plugin'" in done.stderr and "boom" in done.stderr
    assert done.returncode == 2


def test_the_built_in_kinds_register_through_the_same_decorators() -> None:
    from claimledger.registry import load_plugins

    load_plugins()  # the kind modules of BUILTIN_MODULES (refs.kind: bibliography entries)
    kinds = claim_kinds()
    assert list(kinds) == ["quote", "number", "negative", "attribution", "dataset", "reference"]
    assert (kinds["quote"], kinds["number"], kinds["negative"]) == (QuoteClaim, NumberClaim, NegativeClaim)
    assert BUILTIN_MODULES == ("claimledger.checks.builtin", "claimledger.refs.kind")
    assert [s.name for s in checks_for("quote")] == ["literal_quote", "overclaim", "scope", "locator"]
    assert [s.name for s in checks_for("number")] == ["numeric_recompute", "overclaim", "scope"]
    assert [s.name for s in checks_for("negative")] == ["negative_claim"]
    assert [s.name for s in checks_for("attribution")] == ["attribution"]
    assert [s.name for s in checks_for("dataset")] == ["dataset"]
    assert [s.name for s in checks_for("reference")] == ["reference"]
    assert {s.module for k in kinds for s in checks_for(k)} == {"claimledger.checks.builtin", "claimledger.refs.kind"}


def test_the_registry_refuses_duplicates_and_unknown_kinds() -> None:
    with pytest.raises(PluginError, match="already registered"):
        check("quote", name="literal_quote")(lambda claim, ctx, earlier: [])
    with pytest.raises(PluginError, match="unknown claim kind 'nope'"):
        check("nope")(lambda claim, ctx, earlier: [])
    with pytest.raises(PluginError, match="already registered with another row"):
        Reason.register("quote_absent", Tier.LOW, "other", "other")
    with pytest.raises(PluginError, match="EXPLAINED"):
        Reason.register("my_code", Tier.EXPLAINED, "d", "a")
    with pytest.raises(PluginError, match="lower-case"):
        Reason.register("Bad Code", Tier.HIGH, "d", "a")
    assert "my_code" not in {r.value for r in Reason}

    class NoKind(ClaimBase):
        pass

    with pytest.raises(PluginError, match="needs a field `kind"):
        claim_kind(NoKind)
    with pytest.raises(PluginError, match="'quote' is already registered"):

        @claim_kind
        class OtherQuote(ClaimBase):
            kind: Literal["quote"]
