"""Opening under the servers' root through a directory descriptor: links, `..`, odd files, writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claimledger.server._core import (
    Content,
    PathNotFound,
    PathOutsideRoot,
    Request,
    Workspace,
    run_check,
    run_mark,
)
from claimledger.server._rootfs import RootError, RootFS

INSIDE = "An ordinary sentence inside the root.\n"


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "a" / "b").mkdir(parents=True)
    outside.mkdir()
    (root / "a" / "b" / "f.txt").write_text(INSIDE)
    (outside / "secret.txt").write_text("secret\n")
    (root / "in_rel").symlink_to("a/b")  # relative, stays inside
    (root / "in_abs").symlink_to(root / "a")  # absolute, inside
    (root / "a" / "up").symlink_to("../a/b/f.txt")  # a file link through `..`, inside
    (root / "out_abs").symlink_to(outside)
    (root / "out_rel").symlink_to("../outside")
    (root / "a" / "sneaky").symlink_to("../../outside/secret.txt")
    (root / "loop").symlink_to("loop")
    os.mkfifo(root / "fifo")
    return root, outside


def read(fs: RootFS, path: str) -> str:
    with fs.open_file(fs.parts(path)) as (fd, _):
        return os.read(fd, 1000).decode()


def test_links_that_stay_inside_are_followed(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    fs = RootFS(root)
    assert read(fs, "a/b/f.txt") == INSIDE
    assert read(fs, "in_rel/f.txt") == INSIDE
    assert read(fs, "in_abs/b/f.txt") == INSIDE
    assert read(fs, "a/up") == INSIDE
    assert read(fs, str(root / "a" / "b" / "f.txt")) == INSIDE
    with fs.open_file(fs.parts("in_rel/f.txt")) as (_, canonical):
        assert canonical == ["a", "b", "f.txt"]


@pytest.mark.parametrize(
    ("path", "kind"),
    [("out_abs/secret.txt", "outside"), ("out_rel/secret.txt", "outside"), ("a/sneaky", "outside"),
     ("loop/x", "outside"), ("loop", "outside"), ("a/../../outside/secret.txt", "outside"),
     ("fifo", "not_file"), ("a", "not_file"), ("a/b/f.txt/x", "not_dir"), ("nope.txt", "missing")],
)  # fmt: skip
def test_escapes_and_odd_files_are_refused(tree: tuple[Path, Path], path: str, kind: str) -> None:
    root, _ = tree
    fs = RootFS(root)
    with pytest.raises(RootError) as info:
        read(fs, path)
    assert info.value.kind == kind


def test_an_absolute_path_outside_the_root_is_refused(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    with pytest.raises(RootError) as info:
        RootFS(root).parts(str(outside / "secret.txt"))
    assert info.value.kind == "outside"


def test_writes_go_through_the_folder_descriptor(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    fs = RootFS(root)
    assert fs.write_atomic(fs.parts("in_rel/new.md"), b"new\n") == ["a", "b", "new.md"]
    assert (root / "a" / "b" / "new.md").read_bytes() == b"new\n"
    with pytest.raises(RootError) as info:
        fs.write_atomic(fs.parts("out_abs/evil.md"), b"x")
    assert info.value.kind == "outside" and not (outside / "evil.md").exists()
    fs.write_atomic(fs.parts("a/sneaky"), b"replaced the link\n")  # a link at the target is replaced itself
    assert (outside / "secret.txt").read_text() == "secret\n"
    assert not (root / "a" / "sneaky").is_symlink() and (root / "a" / "sneaky").read_text() == "replaced the link\n"
    with pytest.raises(RootError):
        fs.write_atomic(fs.parts("a/b"), b"x")  # a folder
    assert not [p for p in (root / "a").rglob("*.tmp")]


def test_the_runs_read_private_copies_and_say_where_from(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    ws = Workspace.open(root)
    ledger = "version: 1\nclaims:\n  - {id: Q, kind: quote, source: s, quote: an ordinary sentence inside the root}\n"
    out = run_check(ws, ledger=Content(text=ledger, format="yaml"), sources={"s": Content(path="in_rel/f.txt")},
                    options=None)  # fmt: skip
    assert out["findings"][0]["status"] == "verified"
    assert str(root) not in str(out) and "claimledger-req-" not in str(out)
    with pytest.raises(PathOutsideRoot):
        run_check(ws, ledger=Content(text=ledger, format="yaml"), sources={"s": Content(path="out_abs/secret.txt")})
    with pytest.raises(PathNotFound):
        run_check(ws, ledger=Content(text=ledger, format="yaml"), sources={"s": Content(path="missing.txt")})
    marked = run_mark(ws, draft=Content(text="Text.\n", format="markdown"), write_to="in_abs/out.md")
    assert marked["written"] == "a/out.md" and (root / "a" / "out.md").read_text() == "Text.\n"


def test_a_ledger_bibliography_is_confined_and_read_from_the_copy(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (outside / "refs.bib").write_text("@article{secret, title={Outside the root}}\n")
    (root / "a" / "refs.bib").write_text("@article{inside, title={Inside the root}, year={2020}}\n")
    ws = Workspace.open(root)
    for bib in (str(outside / "refs.bib"), "../outside/refs.bib", "out_abs/refs.bib"):
        with pytest.raises(PathOutsideRoot):
            run_check(ws, ledger=Content(text=f"version: 1\nbibliography: {bib}\n", format="yaml"))
    run = Request(ws)
    with run:
        parsed = run.ledger(Content(text="version: 1\nbibliography: [a/refs.bib]\n", format="yaml")).ledger
        (copy,) = parsed.bibliography_files()
        assert Path(copy).is_relative_to(run.tmp()) and Path(copy).read_text().startswith("@article{inside")
