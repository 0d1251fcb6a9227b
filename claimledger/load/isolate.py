"""Run a source extractor in a child process with a time and a memory limit.

A crafted PDF or HTML page can make an extractor work for hours or take
gigabytes; the child is killed when the time is up, cannot grow past its
memory limit (``--extract-memory``), stops once its text passes
``--max-source-chars``, and dies with its parent. Each is a HIGH finding
instead of a hung or swapping gate. The input goes through a pipe: nothing is
written to disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from claimledger._config import DEFAULT_EXTRACT_MEMORY, DEFAULT_MAX_SOURCE_CHARS
from claimledger._exceptions import SourceError
from claimledger.load import _extract_worker

WORKER_COMMAND: tuple[str, ...] = (sys.executable, "-I", str(Path(_extract_worker.__file__).resolve()))


def _size(n: int) -> str:
    return f"{n / (1 << 30):g} GB" if n >= 1 << 30 else f"{n / (1 << 20):g} MB"


def run_extractor(
    kind: str,
    data: bytes,
    args: tuple[str, ...],
    timeout: float,
    *,
    memory: int = DEFAULT_EXTRACT_MEMORY,
    max_chars: int = DEFAULT_MAX_SOURCE_CHARS,
) -> dict[str, Any]:
    """Extract ``kind`` ("pdf" or "html") from ``data`` in a child process; kill it after ``timeout`` seconds."""
    what = kind.upper()
    over_memory = SourceError(
        "source_too_large",
        f"{what} text extraction needed more than its memory limit of {_size(memory)} and was stopped "
        f"(a file crafted to exhaust memory?); raise --extract-memory if the {what} is just very large",
    )
    try:
        done = subprocess.run(
            [*WORKER_COMMAND, kind, str(memory), str(os.getpid()), str(max_chars), *args],
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
        if any("MemoryError" in line or "bad_alloc" in line or "Out of memory" in line for line in err[-5:]):
            raise over_memory from None
        why = f"exit code {done.returncode}" + (f": {err[-1][:200]}" if err else "")
        if done.returncode < 0:  # killed by a signal: PDFium aborts when an allocation fails
            why += f"; it may have hit its memory limit of {_size(memory)} (--extract-memory)"
        raise SourceError("source_unreadable", f"the {what} extractor failed on this file ({why})") from None
    if "error" in result:
        if result.get("message") == "memory":
            raise over_memory
        raise SourceError(str(result["error"]), str(result.get("message", "")))
    return result
