"""Time every text-processing stage on crafted hostile inputs (regex backtracking, nesting, huge lines).

Each case feeds one public function a string built to make a naive regex or
parser work super-linearly: long runs of a trigger character, unclosed
brackets, alternating separators, deep nesting. The script prints one line
per case (input size, seconds, characters per second) and exits 1 only when
a case raises something other than the function's documented errors.

    .venv/bin/python scripts/bench_hostile.py            # 200,000-character inputs
    .venv/bin/python scripts/bench_hostile.py --chars 20000 --quiet
    .venv/bin/python scripts/bench_hostile.py --limits   # hostile SQL, PDF, HTML and allow patterns
                                                         # through the CLI: time and peak RSS of the
                                                         # whole process tree under the default limits

tests/test_limits.py runs it with small inputs under a 60 s subprocess
timeout: the assertion is that every case finishes, not how fast.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from claimledger._exceptions import ClaimledgerError

Case = tuple[str, Callable[[str], object], str]

PATTERNS: dict[str, str] = {
    "zero-width": "a\u200b",
    "bidi": "\u202ea\u202c",
    "spaces-newlines": " \n",
    "line-break hyphens": "verifi-\n",
    "hyphen-newline": "-\n",
    "ideographic space": "日\u3000",
    "combining marks": "e\u0301\u0301",
    "digits-commas": "1,",
    "digits-dots": "1.",
    "digits": "1",
    "full-width digits": "１",
    "kanji numerals": "一二三万億",
    "number words": "one hundred and ",
    "exponent": "1e",
    "minus signs": "-",
    "percent": "1%",
    "asterisks": "*",
    "underscores": "_a",
    "brackets": "[",
    "link opens": "[a](",
    "backticks": "`",
    "angle brackets": "<",
    "image opens": "![",
    "hashes": "#",
    "quote markers": "> ",
    "citations": "[@",
    "latex cite": "\\cite{",
    "braces": "{",
    "backslashes": "\\",
    "dollars": "$",
    "ascii quotes": '"',
    "curly quotes": "\u201c",
    "japanese quotes": "「",
    "marks": "[V]",
    "dots": ". ",
    "abbreviations": "e.g. ",
    "html tags": "<div>",
    "unclosed html": "<span><b>",
    "html comments": "<!--",
    "html entities": "&#",
    "unclosed attribute quote": "<a b='",
    "unclosed attributes": '<a b="x" ',
    "unclosed start tags": "<a",
}


def cases() -> Iterator[Case]:
    from claimledger.extract.draft import parse_draft
    from claimledger.extract.marks import Analysis
    from claimledger.load.html import html_extract
    from claimledger.load.text import markdown_to_text
    from claimledger.normalize import normalize, normalize_quote
    from claimledger.numbers import find_numbers, parse_value

    def draft(fmt: str) -> Callable[[str], object]:
        def run(text: str) -> object:
            return Analysis(parse_draft(text, fmt), known_keys={"a", "smith2019"})

        return run

    stages: dict[str, Callable[[str], object]] = {
        "normalize": normalize,
        "normalize_quote": normalize_quote,
        "find_numbers": find_numbers,
        "parse_value": lambda s: parse_value(s[:20_000]),
        "markdown_to_text": markdown_to_text,
        "html_extract(20 s)": lambda s: html_extract(s, timeout=20.0),
        "draft(markdown)": draft("markdown"),
        "draft(latex)": draft("latex"),
        "draft(text)": draft("text"),
    }
    for stage, fn in stages.items():
        for name in PATTERNS:
            yield stage, fn, name


def build(name: str, chars: int) -> str:
    unit = PATTERNS[name]
    text = unit * max(1, chars // len(unit))
    if name == "unclosed html":  # many open elements, then many stray closing tags
        text += "</i>" * max(1, chars // 8)
    return text + " x"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=200_000, help="size of each crafted input")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    parser.add_argument("--limits", action="store_true",
                        help="run the hostile SQL/PDF/HTML/regex cases through the CLI and print time and peak RSS")
    parser.add_argument("--sql-timeout", type=float, default=5.0, help="--sql-timeout for the SQL cases (--limits)")
    args = parser.parse_args(argv)
    if args.limits:
        from scripts.hostile_limits import run_limits

        return run_limits(sql_timeout=args.sql_timeout)
    failures = 0
    total = 0.0
    slowest: tuple[float, str] = (0.0, "")
    count = 0
    for stage, fn, name in cases():
        text = build(name, args.chars)
        start = time.perf_counter()
        try:
            fn(text)
        except ClaimledgerError:
            pass  # a documented refusal is a fine answer to hostile input
        except Exception as exc:
            failures += 1
            print(f"FAIL {stage:18} {name:20} {type(exc).__name__}: {exc}", file=sys.stderr)
        elapsed = time.perf_counter() - start
        total += elapsed
        count += 1
        slowest = max(slowest, (elapsed, f"{stage} on {name}"))
        if not args.quiet:
            rate = len(text) / elapsed / 1e6 if elapsed > 0 else float("inf")
            print(f"{stage:18} {name:20} {len(text):>9,} chars {elapsed:8.3f} s {rate:8.2f} Mchar/s")
    print(
        f"{count} crafted inputs of ~{args.chars:,} characters: {total:.1f} s in all, "
        f"slowest {slowest[0]:.2f} s ({slowest[1]}), {failures} unexpected errors"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
