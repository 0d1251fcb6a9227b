"""Coverage-guided fuzzing of the ledger loader: any bytes give a Ledger or a LedgerError, nothing else."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))

with atheris.instrument_imports():
    import yaml  # noqa: F401  (instrumented: the parser's branches guide the fuzzer)

    from claimledger._exceptions import LedgerError
    from claimledger.load.ledger import parse_ledger


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    is_json = fdp.ConsumeBool()
    text = fdp.ConsumeUnicodeNoSurrogates(len(data))
    with contextlib.suppress(LedgerError):
        parse_ledger(text, "fuzz.json" if is_json else "fuzz.yaml", is_json=is_json)


if __name__ == "__main__":
    from _common import run

    run(test_one_input)
