"""docs/ stays complete: every CLI command and option, every reason code with its tier, every
exit code, every environment variable and every ledger field is documented; links resolve."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest

from claimledger.cli import cli
from claimledger.model.finding import Reason
from claimledger.model.report import EXIT_CODES, EXIT_USAGE
from claimledger.schemas import load
from tests.scripts_loader import load_script

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# pages other engineers are writing; a link to them may dangle until they land
PENDING = {"security.md"}


def doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def all_commands(group: click.Group = cli, prefix: str = "claimledger") -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    for name, cmd in sorted(group.commands.items()):
        out.append((f"{prefix} {name}", cmd))
        if isinstance(cmd, click.Group):
            out += all_commands(cmd, f"{prefix} {name}")
    return out


def section(text: str, heading: str) -> str:
    """The text under a Markdown heading, up to the next heading of the same or a higher level."""
    match = re.search(rf"^(#+) {re.escape(heading)}\s*$", text, re.M)
    assert match is not None, f"heading {heading!r} not found"
    level = len(match.group(1))
    rest = text[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def test_walks_every_command_including_the_servers() -> None:
    names = {path for path, _ in all_commands()}
    assert {"claimledger check", "claimledger mark", "claimledger lint", "claimledger audit",
            "claimledger mcp", "claimledger serve"} <= names  # fmt: skip


@pytest.mark.parametrize("path", [path for path, _ in all_commands()])
def test_every_command_has_a_section_in_cli_md(path: str) -> None:
    assert section(doc("cli.md"), f"`{path}`").strip()


@pytest.mark.parametrize(("path", "command"), all_commands())
def test_every_option_of_every_command_is_in_configuration_md(path: str, command: click.Command) -> None:
    body = section(doc("configuration.md"), f"`{path}`")
    for param in command.params:
        if isinstance(param, click.Option):
            for flag in param.opts + param.secondary_opts:
                assert f"`{flag}`" in body, (
                    f"{path}: option {flag} is not documented in docs/configuration.md (run python scripts/gen_cli_docs.py)"
                )
        else:
            assert param.human_readable_name in body


def _reason_rows() -> dict[str, str]:
    rows: dict[str, str] = {}
    for line in doc("checks.md").splitlines():
        m = re.match(r"^\| `([a-z_]+)` \| ([^|]+) \|", line)
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} is listed twice"
            rows[m.group(1)] = m.group(2).strip()
    return rows


@pytest.mark.parametrize("reason", list(Reason))
def test_every_reason_code_is_in_checks_md_with_its_tier(reason: Reason) -> None:
    rows = _reason_rows()
    assert reason.value in rows, f"reason {reason.value} is missing from docs/checks.md"
    tier = reason.tier
    cell = rows[reason.value]
    if tier is None:
        assert "verified" in cell
    else:
        assert cell.split()[0] == tier.value, (
            f"{reason.value}: docs say {cell!r}, the reason table says {tier.value}"
        )


def test_checks_md_reason_table_is_generated_from_the_reason_table() -> None:
    """docs/checks.md's reason block is exactly what scripts/gen_reason_docs.py renders now."""
    gen = load_script("gen_reason_docs")
    text = doc("checks.md")
    assert gen.updated(text) == text, "docs/checks.md is stale: run python scripts/gen_reason_docs.py"
    for reason in Reason:
        assert f"| {reason.description.replace('|', chr(92) + '|')} |" in text


def test_checks_md_lists_no_reason_that_does_not_exist() -> None:
    known = {r.value for r in Reason}
    check_names = {"literal_quote", "numeric_recompute", "gate", "scope", "summary_scope", "reference"}
    assert set(_reason_rows()) - known - check_names == set()


def test_every_exit_code_is_in_exit_codes_md() -> None:
    text = doc("exit-codes.md")
    codes = {code: outcome.value for outcome, code in EXIT_CODES.items()}
    codes[EXIT_USAGE] = "usage or input error"
    for code, name in codes.items():
        assert re.search(rf"^\| {code} \| {re.escape(name)} \|", text, re.M), f"exit code {code} ({name})"
    documented = {int(m) for m in re.findall(r"^\| (\d+) \|", text, re.M)}
    assert documented == set(codes)
    # the README's table and the CLI's help say the same codes
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(re.search(rf"^\| {code} \|", readme, re.M) for code in codes)


def test_every_environment_variable_the_code_reads_is_in_configuration_md() -> None:
    used: set[str] = set()
    for path in (ROOT / "claimledger").rglob("*.py"):
        used |= set(re.findall(r"\b(CLAIMLEDGER_[A-Z_]+|NO_COLOR|XDG_CACHE_HOME)\b", path.read_text("utf-8")))
    assert {"CLAIMLEDGER_CACHE_DIR", "NO_COLOR"} <= used
    table = section(doc("configuration.md"), "Environment variables")
    for var in sorted(used):
        assert f"`{var}`" in table, f"{var} is read by the code but not in docs/configuration.md"


def test_every_ledger_field_is_in_ledger_format_md() -> None:
    schema = load(ROOT / "claimledger" / "schemas" / "ledger.schema.json")
    text = doc("ledger-format.md")
    fields: set[str] = set(schema["properties"])
    for definition in schema.get("$defs", {}).values():
        fields |= set(definition.get("properties", {}))
    assert {
        "version",
        "claims",
        "quote",
        "sql",
        "metric",
        "tolerance",
        "author_alternative",
        "search",
    } <= fields
    for name in sorted(fields):
        assert f"`{name}`" in text or f"`search.{name}`" in text, f"ledger field {name} is not documented"
    for kind in ("quote", "number", "negative", "attribution", "dataset"):
        assert f"`kind: {kind}`" in text


def test_index_is_a_map_of_the_docs() -> None:
    index = doc("index.md")
    for page in ("quickstart.md", "ledger-format.md", "marks.md", "checks.md", "exit-codes.md",
                 "configuration.md", "cli.md", "ci.md", "mcp.md", "http.md", "judge.md", "security.md"):  # fmt: skip
        assert f"]({page})" in index, f"docs/index.md does not link {page}"


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_relative_links_resolve(page: str) -> None:
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc(page)):
        if re.match(r"^[a-z]+:", target):
            continue
        resolved = (DOCS / target).resolve()
        if resolved.name in PENDING and resolved.parent == DOCS:
            continue
        assert resolved.exists(), f"docs/{page}: link to {target} does not resolve"


def test_mcp_config_snippet_runs_a_real_command() -> None:
    block = re.search(r"```json\n(\{\n  \"mcpServers\".*?)```", doc("mcp.md"), re.S)
    assert block is not None
    entry = json.loads(block.group(1))["mcpServers"]["claimledger"]
    assert entry["command"] == "claimledger"
    args = entry["args"]
    command = cli.commands[args[0]]
    options = {opt for p in command.params for opt in p.opts}
    assert {a for a in args if a.startswith("-")} <= options and "--root" in args


def test_readme_gives_the_exact_server_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "claimledger mcp --root" in readme
    assert "claimledger serve --root" in readme and "--port 8765" in readme
    assert "pip install 'claimledger[mcp]'" in readme and "pip install 'claimledger[server]'" in readme


def test_readme_install_lines_work_from_a_clone() -> None:
    """claimledger is not on the package index yet: the first install line is the one that works
    from a clone (or a git URL); the index one is kept for when it is published."""
    import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for extra in ("mcp", "server"):
        clone, index = f"pip install -e '.[{extra}]'", f"pip install 'claimledger[{extra}]'"
        assert clone in readme and extra in extras
        assert readme.index(clone) < readme.index(index)
    assert "@ git+" in readme


def test_security_md_names_the_index_cache_folder_of_this_version() -> None:
    """docs/security.md's cache table names the source index's folder, which holds its format version."""
    from claimledger.load.index import INDEX_VERSION

    assert f"`<cache>/index/v{INDEX_VERSION}/`" in (DOCS / "security.md").read_text(encoding="utf-8")
