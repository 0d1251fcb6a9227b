"""The overclaim rules' helper process (checks/rules_ahead.py): the cases of tests/rules_ahead_cases.py,
run by pytest in an interpreter of their own.

A helper is only ever forked from a process without other threads; an earlier test of this session
may have left some (Ray's client threads, tests/test_batch.py), and then none would start. The cases
need a process where one can.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_helper_cases_pass_in_a_process_without_other_threads() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/rules_ahead_cases.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "CLAIMLEDGER_RULES_AHEAD": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^13 passed in ", done.stdout, re.M) and "skipped" not in done.stdout, done.stdout
