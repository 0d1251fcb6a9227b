"""Race the servers' root confinement: a folder swapped for a symbolic link to outside, again and again.

A separate process swaps ``root/d`` (a real folder) with a symbolic link to a
folder outside the root, in a tight loop, while this process calls the
functions both servers (HTTP and MCP) run for a request. Each call is one
attempt; a hit is a call that read or wrote outside the root:

* ``source``   - /v1/check, verify_quotes: a source named by the client (``d/s.txt``)
* ``declared`` - a source a ledger under the root declares (``d/s.txt``)
* ``ledger``   - check_ledger: the ledger itself (``d/ledger.yaml``)
* ``draft``    - lint_draft: a draft under the root (``d/draft.md``)
* ``write``    - mark_draft with ``write_to: d/out.md``

A read hit is a secret sentence that exists only outside the root coming back
verified (or the outside ledger's claim id coming back); a write hit is
``outside/out.md`` appearing. Refusals (403/404) are the expected answers
while the link is in place.

    .venv/bin/python scripts/race_roots.py --attempts 5000
    .venv/bin/python scripts/race_roots.py --attempts 300 --json   # tests/test_root_race.py

Exit status 1 when any attempt hit.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SECRET = "the launch codes are kept in the blue folder behind the third shelf"
INSIDE = "nothing to see in here, only an ordinary public sentence about the weather"
KINDS = ("source", "declared", "ledger", "draft", "write")


def layout(base: Path) -> tuple[Path, Path]:
    root, outside = base / "root", base / "outside"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    (outside / "s.txt").write_text(f"Outside the root: {SECRET}.\n", encoding="utf-8")
    (root / "d" / "s.txt").write_text(f"Inside the root: {INSIDE}.\n", encoding="utf-8")
    claim = f"claims:\n  - {{id: Q, kind: quote, source: s, quote: {SECRET!r}}}\n"
    (outside / "ledger.yaml").write_text(
        f"version: 1\nsources: {{s: s.txt}}\nclaims:\n  - {{id: OUTSIDE, kind: quote, source: s, quote: {SECRET!r}}}\n",
        encoding="utf-8",
    )
    (root / "d" / "ledger.yaml").write_text(f"version: 1\nsources: {{s: s.txt}}\n{claim}", encoding="utf-8")
    (root / "ledger.yaml").write_text(f"version: 1\nsources: {{s: d/s.txt}}\n{claim}", encoding="utf-8")
    draft = f"# Notes\n\nThey wrote “{SECRET}”[V] [@s].\n"
    (outside / "draft.md").write_text(draft, encoding="utf-8")
    (root / "d" / "draft.md").write_text(draft.replace(SECRET, INSIDE), encoding="utf-8")
    (root / "s.txt").write_text(f"Inside the root: {INSIDE}.\n", encoding="utf-8")
    os.symlink(outside, root / "link", target_is_directory=True)
    return root, outside


def _exchange() -> Any:
    """``renameat2(RENAME_EXCHANGE)`` through libc: swaps two names atomically (Linux), else None."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    at_fdcwd, rename_exchange = -100, 2

    def exchange(a: str, b: str) -> None:
        if fn(at_fdcwd, a.encode(), at_fdcwd, b.encode(), rename_exchange) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")

    return exchange


def swapper(root: str, stop: Any) -> None:
    """Swap root/d between the real folder and the link to outside until told to stop.

    With ``renameat2(RENAME_EXCHANGE)`` ``d`` is always either the folder or
    the link (never missing); without it, four renames a round.
    """
    d, real, link = os.path.join(root, "d"), os.path.join(root, "d.real"), os.path.join(root, "link")
    exchange = _exchange()
    while not stop.is_set():
        with contextlib.suppress(OSError):
            if exchange is not None:
                exchange(d, link)
                continue
            os.rename(d, real)
            os.rename(link, d)
            os.rename(d, link)
            os.rename(real, d)


def attempt(ws: Any, kind: str, outside: Path) -> str:
    """One call: ``hit``, ``clean`` (answered from inside the root) or ``refused`` (an error)."""
    from claimledger.server import _core as core

    try:
        if kind == "source":
            ledger = f"version: 1\nclaims:\n  - {{id: Q, kind: quote, source: s, quote: {SECRET!r}}}\n"
            out = core.run_check(ws, ledger=core.Content(text=ledger, format="yaml"),
                                 sources={"s": core.Content(path="d/s.txt")})  # fmt: skip
        elif kind == "declared":
            out = core.run_check(ws, ledger="ledger.yaml")
        elif kind == "ledger":
            out = core.run_check(ws, ledger="d/ledger.yaml")
        elif kind == "draft":
            out = core.run_lint(ws, draft="d/draft.md", sources={"s": core.Content(path="s.txt")})
        else:
            core.run_mark(ws, draft=core.Content(text="A draft.\n", format="markdown"), write_to="d/out.md")
            if (outside / "out.md").exists():
                (outside / "out.md").unlink()
                return "hit"
            return "clean"
    except Exception:
        return "refused"
    text = json.dumps(out)
    if kind == "draft":  # the draft under the root quotes only the inside sentence
        return "hit" if SECRET in text else "clean"
    verified = [f for f in out["findings"] if f.get("status") == "verified"]
    return "hit" if verified or "OUTSIDE" in text else "clean"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--attempts", type=int, default=5000, help="calls per kind")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    from claimledger.server._core import Workspace

    results: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="claimledger-race-") as tmp:
        root, outside = layout(Path(tmp))
        ws = Workspace.open(root)
        ctx = multiprocessing.get_context("spawn")
        stop = ctx.Event()
        proc = ctx.Process(target=swapper, args=(str(root), stop), daemon=True)
        proc.start()
        started = time.monotonic()
        try:
            for kind in args.kinds.split(","):
                counts = {"attempts": 0, "hit": 0, "clean": 0, "refused": 0}
                for _ in range(args.attempts):
                    counts["attempts"] += 1
                    counts[attempt(ws, kind, outside)] += 1
                results[kind] = counts
                if not args.json:
                    print(f"{kind:9s} attempts {counts['attempts']:6d}  hits {counts['hit']:5d}  "
                          f"answered from inside {counts['clean']:5d}  refused {counts['refused']:5d}",
                          flush=True)  # fmt: skip
        finally:
            stop.set()
            proc.join(5)
            if proc.is_alive():
                proc.kill()
    hits = sum(c["hit"] for c in results.values())
    if args.json:
        print(json.dumps({"results": results, "hits": hits, "seconds": round(time.monotonic() - started, 1)}))
    else:
        print(f"total hits {hits} in {sum(c['attempts'] for c in results.values())} attempts "
              f"({time.monotonic() - started:.0f} s)")  # fmt: skip
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
