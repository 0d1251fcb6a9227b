"""Quotations in prose: “…”, "…", 「…」, 『…』 and, in LaTeX, ``…''.

Only the outermost quotation counts (a 『…』 inside a 「…」 belongs to it). A
quotation never runs across a blank line or block boundary; an unclosed one
is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimledger.extract.draft import PARA

_PAIRS = {"“": "”", "「": "」", "『": "』", "``": "''"}
_TOKEN = re.compile(r"\n[ \t\r]*\n|\u2029|``|''|[“”「」『』\"]")
_TOKEN_NO_TEX = re.compile(r"\n[ \t\r]*\n|\u2029|[“”「」『』\"]")


@dataclass(frozen=True)
class Quotation:
    """A quotation: ``start``/``end`` include the quotation marks; ``inner_*`` exclude them."""

    start: int
    end: int
    inner_start: int
    inner_end: int
    text: str

    @property
    def open_mark(self) -> str:
        return self.text[: self.inner_start - self.start]


def find_quotations(prose: str, fmt: str = "markdown") -> list[Quotation]:
    out: list[Quotation] = []
    stack: list[tuple[str, int, int]] = []  # closer, start, inner_start
    pattern = _TOKEN if fmt == "latex" else _TOKEN_NO_TEX
    for m in pattern.finditer(prose):
        tok = m.group()
        s, e = m.span()
        if tok[0] in "\n\r" + PARA:
            stack.clear()
            continue
        if tok == '"':
            if stack and stack[-1][0] == '"':
                _c, start, inner = stack.pop()
                if not stack:
                    out.append(Quotation(start, e, inner, s, prose[start:e]))
            else:
                stack.append(('"', s, e))
            continue
        if tok in _PAIRS:
            stack.append((_PAIRS[tok], s, e))
            continue
        # a closing mark: close the innermost matching quotation
        for depth in range(len(stack) - 1, -1, -1):
            if stack[depth][0] == tok:
                _closer, start, inner = stack[depth]
                del stack[depth:]
                if not stack:
                    out.append(Quotation(start, e, inner, s, prose[start:e]))
                break
    return out
