"""Coverage-guided fuzzing of the source loaders and normalization.

Any bytes, read as text, HTML, Markdown or PDF, give text or a SourceError;
the normalized text maps back into the original within bounds; every number
found in the text spans exactly its own characters.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))

with atheris.instrument_imports():
    from claimledger._exceptions import SourceError
    from claimledger.load.html import html_extract
    from claimledger.load.pdf import pdf_extract
    from claimledger.load.text import decode_text, markdown_to_text
    from claimledger.normalize import normalize
    from claimledger.numbers import find_numbers


def _check_text(text: str) -> None:
    norm = normalize(text)
    for i in range(0, len(norm.text), max(1, len(norm.text) // 16)):
        start, end = norm.to_original(i, min(i + 8, len(norm.text)))
        assert 0 <= start <= end <= len(text), (i, start, end, len(text))
    for m in find_numbers(text):
        assert text[m.start : m.end] == m.text


def test_one_input(data: bytes) -> None:
    kind = data[0] % 4 if data else 0
    body = data[1:]
    try:
        if kind == 3:
            visible, _pages, hidden = pdf_extract(body, max_pages=5)
            _check_text(visible)
            return
        text = decode_text(body)
    except SourceError:
        return
    if kind == 1:
        try:
            visible, hidden, _extras = html_extract(text)
        except SourceError:
            return
        _check_text(visible)
        _check_text(hidden)
    elif kind == 2:
        _check_text(markdown_to_text(text))
    else:
        _check_text(text)


if __name__ == "__main__":
    from _common import run

    run(test_one_input)
