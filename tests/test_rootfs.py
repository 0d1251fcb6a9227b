"""Opening under the servers' root through a directory descriptor: links, `..`, odd files, writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claimledger.server._core import (
    BadRequest,
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


def _data_tree(root: Path) -> str:
    (root / "data").mkdir()
    rows = "".join(f"2026-01-{d:02d},{d * 10}\n" for d in range(1, 29))
    (root / "data" / "daily.csv").write_text("day,sales\n" + rows * 40)  # about 22 KB
    (root / "data" / "paper.txt").write_text(INSIDE * 100)  # 3.7 KB
    return (
        "version: 1\nsources: {paper: data/paper.txt}\ndatasets: {daily: data/daily.csv}\nclaims:\n"
        "  - {id: Q, kind: quote, source: paper, quote: an ordinary sentence inside the root}\n"
        "  - {id: N, kind: number, sql: 'SELECT count(*) FROM daily', value: '1120'}\n"
    )


def test_what_one_request_reads_from_the_root_is_bounded_in_total(tree: tuple[Path, Path]) -> None:
    """Sources had a size limit and datasets none: a ledger naming a large file made the server copy
    it whole for every request. Every file a request reads now counts against one budget."""
    root, _ = tree
    ledger = _data_tree(root)
    (root / "data" / "ledger.yaml").write_text(ledger.replace("data/", ""))
    size = sum((root / "data" / n).stat().st_size for n in ("daily.csv", "paper.txt", "ledger.yaml"))
    roomy = Workspace.open(root, max_read_bytes=size)
    out = run_check(roomy, ledger=Content(path="data/ledger.yaml"))
    assert [f["status"] for f in out["findings"]] == ["verified", "verified"]
    tight = Workspace.open(root, max_read_bytes=size - 1)
    with pytest.raises(BadRequest, match=r"--max-read-bytes") as info:
        run_check(tight, ledger=Content(path="data/ledger.yaml"))
    assert "dataset 'daily'" in str(info.value) or "source 'paper'" in str(info.value)
    # the same budget counts files named by the request itself (a dataset given by path)
    inline = ledger.replace("datasets: {daily: data/daily.csv}\n", "")
    small = Workspace.open(root, max_read_bytes=10_000)
    with pytest.raises(BadRequest, match=r"dataset 'daily'.*--max-read-bytes"):
        run_check(small, ledger=Content(text=inline, format="yaml"), datasets={"daily": Content(path="data/daily.csv")})
    # a request that reads only its own inline content is never refused by it
    done = run_check(small, ledger=Content(text=inline.replace("  - {id: N", "  - {id: N0"), format="yaml"),
                     sources={"paper": Content(text=INSIDE, format="text")},
                     datasets={"daily": Content(text="day,sales\n2026-01-01,10\n", format="csv")})  # fmt: skip
    assert {f["claim_id"]: f["status"] for f in done["findings"]}["Q"] == "verified"


def test_a_file_that_grows_while_copied_cannot_pass_its_limit(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size was checked once, before the copy: a file that grew after the check was copied whole.
    The copy now stops at the limit whatever the file's size said (the growth is simulated by a
    stat that reports the size the file had before a writer appended to it)."""
    root, _ = tree
    big = root / "a" / "grows.txt"
    big.write_text("x" * 50_000)
    fs = RootFS(root)
    real_fstat = os.fstat

    def stale_fstat(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, 100,
                               st.st_atime, st.st_mtime, st.st_ctime))  # fmt: skip

    monkeypatch.setattr("claimledger.server._rootfs.os.fstat", stale_fstat)
    with pytest.raises(RootError, match="grew past the 1,000-byte limit") as info:
        fs.copy_to(fs.parts("a/grows.txt"), root.parent / "copy.txt", 1_000)
    assert info.value.kind == "too_large"
    assert (root.parent / "copy.txt").stat().st_size <= 1_000
