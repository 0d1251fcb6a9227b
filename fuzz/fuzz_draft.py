"""Coverage-guided fuzzing of the draft readers (Markdown, LaTeX, text) and mark analysis.

Any text gives a prose view whose offsets point into the draft, and an
analysis of its quotations, citations, figures and marks, or an InputError.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))

with atheris.instrument_imports():
    from claimledger._exceptions import InputError
    from claimledger.extract.draft import parse_draft
    from claimledger.extract.marks import Analysis

FORMATS = ("markdown", "latex", "text")


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    fmt = FORMATS[fdp.ConsumeIntInRange(0, 2)]
    text = fdp.ConsumeUnicodeNoSurrogates(len(data))
    try:
        draft = parse_draft(text, fmt)
        Analysis(draft, known_keys={"smith2019", "a"})
    except InputError:
        return


if __name__ == "__main__":
    from _common import run

    run(test_one_input)
