"""One rooted exception tree: every exception claimledger raises on purpose derives from ClaimledgerError."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import claimledger
from claimledger import _exceptions
from claimledger._exceptions import ClaimledgerError, InputError, MissingExtraError

PACKAGE = Path(claimledger.__file__).parent

# Exceptions that stay outside the tree on purpose, each with why.
OUTSIDE_THE_TREE = {
    # load/html.py imports nothing from claimledger (the extractor child loads it alone);
    # every caller turns it into a SourceError("source_unreadable")
    "claimledger.load.html.HTMLUnreadable",
}

# `raise <foreign exception>` allowed where a protocol needs that type, with why.
FOREIGN_RAISES = {
    # httpx's transport contract: the client maps it to a network error (a SourceError upstream)
    ("claimledger/load/_transport.py", "httpcore.ConnectError"),
    # click's option-parsing contract: shown as a usage error (exit 2)
    ("claimledger/cli/_common.py", "click.BadParameter"),
    # the MCP SDK turns ToolError into a tool error result for the agent
    ("claimledger/server/mcp.py", "ToolError"),
    # caught two lines below and turned into SourceError("source_unreadable")
    ("claimledger/load/isolate.py", "ValueError"),
    # caught by parse_ledger and turned into a LedgerError
    ("claimledger/load/ledger.py", "ValueError"),
    # an OSError like the os.open right after it: Workspace.open turns either into an InputError
    ("claimledger/server/_rootfs.py", "OSError"),
    # PEP 562's contract: the package's module __getattr__ raises AttributeError for an unknown name
    ("claimledger/__init__.py", "AttributeError"),
    ("claimledger/checks/overclaim/__init__.py", "AttributeError"),
    ("claimledger/refs/__init__.py", "AttributeError"),
}
_VALIDATORS = {"model_validator", "field_validator"}


def _modules() -> list[str]:
    names = ["claimledger"]
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="claimledger."):
        if info.name.endswith("__main__") or info.name == "claimledger.load._extract_worker":
            continue
        names.append(info.name)
    return names


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in _modules():
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional extra that is not installed
            continue
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__.startswith("claimledger"):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def test_every_exception_class_of_the_package_derives_from_the_root() -> None:
    classes = _exception_classes()
    assert len(classes) >= 10, sorted(classes)  # the walk really found the tree
    outside = {name for name, cls in classes.items() if not issubclass(cls, ClaimledgerError)}
    assert outside == OUTSIDE_THE_TREE


def test_the_tree_is_drawn_in_the_docstring_of_exceptions() -> None:
    doc = _exceptions.__doc__ or ""
    for name, cls in _exception_classes().items():
        if issubclass(cls, ClaimledgerError):
            assert f"``{cls.__name__}``" in doc, f"{name} is missing from the tree in _exceptions.py"


def _decorator_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    out: set[str] = set()
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Name):
            out.add(target.id)
        elif isinstance(target, ast.Attribute):
            out.add(target.attr)
    return out


def _raises(path: Path) -> list[tuple[str, int, bool]]:
    """(raised name, line, inside a pydantic validator) for every ``raise X(...)``."""
    tree = ast.parse(path.read_text("utf-8"))
    out: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_validator: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_validator
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inside = bool(_decorator_names(child) & _VALIDATORS)
            if isinstance(child, ast.Raise) and isinstance(child.exc, ast.Call):
                out.append((ast.unparse(child.exc.func), child.lineno, inside))
            visit(child, inside)

    visit(tree, False)
    return out


def test_the_package_raises_only_its_own_exceptions() -> None:
    """A builtin or foreign exception is raised only inside a pydantic validator (pydantic turns it
    into a ValidationError, then a LedgerError) or where a protocol needs that type (listed above)."""
    own = {name for name, obj in vars(_exceptions).items() if isinstance(obj, type)}
    own |= {cls.__name__ for cls in _exception_classes().values()}
    foreign: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for name, line, in_validator in _raises(path):
            short = name.split(".")[-1]
            if short in own or in_validator or not short[:1].isupper():
                continue  # an own class, pydantic's contract, or a factory (raise _refused(...))
            if (rel, name) in FOREIGN_RAISES:
                used.add((rel, name))
                continue
            foreign.append(f"{rel}:{line}: raise {name}(...)")
    assert foreign == []
    assert used == FOREIGN_RAISES, "an allowance above is no longer needed: remove it"


def test_builtin_names_are_not_reused_for_our_exceptions() -> None:
    for cls in _exception_classes().values():
        assert not hasattr(builtins, cls.__name__), cls


def test_a_missing_extra_is_an_input_error_and_an_import_error() -> None:
    with pytest.raises(ImportError, match="pip install"):
        raise MissingExtraError("the HTTP service needs starlette: pip install 'claimledger[server]'")
    assert issubclass(MissingExtraError, InputError)


def test_the_judge_and_data_errors_are_in_the_tree() -> None:
    from claimledger.judge.types import JudgeConfigError, JudgeError
    from claimledger.load.data import QueryError

    assert issubclass(JudgeError, _exceptions.BackendError)
    assert issubclass(JudgeConfigError, _exceptions.ConfigError)
    assert issubclass(QueryError, ClaimledgerError)
    from claimledger.judge.anthropic_api import AnthropicJudge
    from claimledger.judge.openai_compat import OpenAIJudge

    for backend in (OpenAIJudge, AnthropicJudge):
        with pytest.raises(JudgeConfigError, match="model name"):
            backend(model="")
