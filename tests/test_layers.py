"""The import rules of docs/architecture.md ("The folders"): each layer imports only the layers below it.

Every ``import`` of a claimledger module counts, including the ones inside
functions; imports under ``if TYPE_CHECKING:`` do not (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import claimledger

PACKAGE = Path(claimledger.__file__).parent

BASE = {
    "_exceptions", "_files", "_version", "_config", "_gcpause", "normalize", "_normalize_reference", "_normalize_core", "skeleton", "numbers",
    "operating_points", "metrics", "textmap", "_compiled",
}  # fmt: skip
# layer -> the layers it may import (besides itself)
LAYERS: dict[str, set[str]] = {
    "base": set(),
    "model": {"base"},
    "registry": {"base", "model"},
    "reconcile": {"base", "model"},
    "load": {"base", "model", "registry"},
    "extract": {"base", "model", "load"},  # a .docx draft is read by the .docx loader
    "judge": {"base", "model"},
    "output": {"base", "model"},
    "checks": {"base", "model", "registry", "reconcile", "load", "extract", "judge"},
    "runs": {"base", "model", "registry", "reconcile", "load", "extract", "judge", "checks", "runs"},
    "surfaces": {"base", "model", "registry", "reconcile", "load", "extract", "judge", "checks", "runs", "output"},
}
RUNS = {"run", "_api", "_drafts", "receipts"}
SURFACES = {"cli", "server", "schemas", "__init__", "__main__"}


def layer_of(module: str) -> str:
    """The layer of ``claimledger.x.y`` (by its first part under the package)."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    if top in BASE:
        return "base"
    if top in RUNS:
        return "runs"
    if top in SURFACES:
        return "surfaces"
    if top == "refs":  # reference checks: bibliographies against the services
        return "checks"
    if top == "batch":  # claimledger batch: many runs
        return "runs"
    if top in {"model", "registry", "reconcile", "load", "extract", "judge", "output", "checks"}:
        return top
    raise AssertionError(f"{module}: no layer; add it to tests/test_layers.py and docs/architecture.md")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path) -> list[tuple[str, int]]:
    """(imported claimledger module, line) for every import that runs."""
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking_only(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                out.extend((a.name, child.lineno) for a in child.names if a.name.startswith("claimledger"))
            elif (
                isinstance(child, ast.ImportFrom)
                and child.level == 0
                and child.module
                and (child.module == "claimledger" or child.module.startswith("claimledger."))
            ):
                # `from pkg import submodule` imports the submodule; `from mod import name`, the module
                subs = [f"{child.module}.{a.name}" for a in child.names]
                found = [s for s in subs if s in MODULES]
                out.extend((s, child.lineno) for s in found)
                if len(found) < len(subs) and child.module != "claimledger":
                    out.append((child.module, child.lineno))
            visit(child)

    visit(ast.parse(path.read_text("utf-8")))
    return out


def all_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


MODULES = {module_name(p) for p in all_modules()}


def import_cycles() -> list[list[str]]:
    """Every cycle of modules importing each other (strongly connected components of two or more)."""
    graph = {module_name(p): {m for m, _ in imports_of(p) if m in MODULES} for p in all_modules()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_import_cycles() -> None:
    """No two modules import each other, directly or around a loop (imports inside functions count)."""
    assert import_cycles() == []


def test_every_module_has_a_layer() -> None:
    layers = {layer_of(module_name(p)) for p in all_modules()}
    assert layers == set(LAYERS)


@pytest.mark.parametrize("path", all_modules(), ids=lambda p: module_name(p))
def test_imports_follow_the_layers(path: Path) -> None:
    me = module_name(path)
    mine = layer_of(me)
    wrong = []
    for target, line in imports_of(path):
        theirs = layer_of(target)
        if theirs != mine and theirs not in LAYERS[mine]:
            wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {mine} imports {target} ({theirs})")
    assert wrong == []


def test_the_rules_catch_a_wrong_import(tmp_path: Path) -> None:
    """The checker itself: an output module importing a check is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from claimledger.checks.context import RunContext\n"
        "def f():\n    from claimledger.checks.quote import quote_key\n",
        "utf-8",
    )
    found = imports_of(bad)
    assert found == [("claimledger.checks.quote", 5)]
    (tmp_path / "cyc.py").write_text("from claimledger.extract import draft, latex\n", "utf-8")
    assert imports_of(tmp_path / "cyc.py") == [("claimledger.extract.draft", 1), ("claimledger.extract.latex", 1)]
    assert "checks" not in LAYERS[layer_of("claimledger.output.sarif")]


def test_the_source_index_fingerprints_files_that_exist() -> None:
    """The index cache key hashes the reading code by path: a moved module must be followed there."""
    from claimledger.load import index

    missing = [name for name in index._READING_CODE if not (index._PACKAGE / name).is_file()]
    assert missing == []
