"""The servers' root under a race: a folder swapped for a symbolic link to outside while requests run.

scripts/race_roots.py swaps ``root/d`` with a link to a folder outside the
root in a separate process (``renameat2(RENAME_EXCHANGE)``) while it calls the
functions the HTTP service and the MCP server run: a client-named source, a
ledger-declared source, a ledger, a draft, and mark_draft's ``write_to``.
Before the fix (paths checked, then opened by name) every kind hit: 45 hits in
5,000 calls. The test runs a shorter race and requires no hit, and that the
race was live (some calls answered from inside the root, some refused).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT


def test_no_read_or_write_escapes_the_root_while_a_folder_is_swapped_for_a_link() -> None:
    attempts = int(os.environ.get("CLAIMLEDGER_RACE_ATTEMPTS", "200"))
    done = subprocess.run(
        [sys.executable, "scripts/race_roots.py", "--attempts", str(attempts), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    result = json.loads(done.stdout.strip().splitlines()[-1])
    for kind, counts in result["results"].items():
        assert counts["hit"] == 0, (kind, counts)
        assert counts["attempts"] == attempts
        assert counts["refused"] > 0, (kind, counts)  # the link was seen: the race was live
    assert sum(c["clean"] for c in result["results"].values()) > 0  # and the folder too
    assert result["hits"] == 0 and done.returncode == 0
