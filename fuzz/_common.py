"""Shared set-up of the atheris fuzz targets (see fuzz/README.md)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import atheris


def run(test_one_input: Callable[[bytes], None]) -> None:
    """Hand the target to libFuzzer; argv carries corpus folders and -max_total_time etc."""
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
