"""Run a source extractor in a child process with a time limit.

A crafted PDF or HTML page can make an extractor work for hours; the child
is killed when the time is up and the source becomes a HIGH finding
(``source_extraction_timeout``) instead of a hung gate.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from claimledger._exceptions import SourceError
from claimledger.load import _extract_worker

WORKER_COMMAND: tuple[str, ...] = (sys.executable, "-I", str(Path(_extract_worker.__file__).resolve()))


def run_extractor(kind: str, data: bytes, args: tuple[str, ...], timeout: float) -> dict[str, Any]:
    """Extract ``kind`` ("pdf" or "html") from ``data`` in a child process; kill it after ``timeout`` seconds."""
    what = kind.upper()
    try:
        done = subprocess.run(
            [*WORKER_COMMAND, kind, *args],
            input=data,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SourceError(
            "source_extraction_timeout",
            f"{what} text extraction did not finish within {timeout:g}s and was stopped "
            f"(a file crafted to hang the extractor?); raise --extract-timeout if the {what} is just very long",
        ) from None
    except OSError as exc:
        raise SourceError("source_unreadable", f"cannot start the {what} extractor: {exc}") from None
    try:
        result = json.loads(done.stdout)
        if not isinstance(result, dict):
            raise ValueError("not an object")
    except ValueError:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = f"exit code {done.returncode}" + (f": {err[-1][:200]}" if err else "")
        raise SourceError("source_unreadable", f"the {what} extractor failed on this file ({why})") from None
    if "error" in result:
        raise SourceError(str(result["error"]), str(result.get("message", "")))
    return result
