"""Citation keys: Pandoc ``[@key]``, ``[@key, p. 4]``, ``[see @a; @b]``, ``[-@key]``, narrative
``@key`` (Markdown, only for declared keys), and LaTeX ``\\cite{a,b}``, ``\\citep[p.~4]{a}``,
``\\citet{a}``, ``\\parencite`` and friends.

Everything inside a citation (keys, years in keys, locators such as "p. 4") is
part of the citation, never a claim of its own.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from claimledger.extract.latex import CITE_COMMAND

_KEY = r"[\w][\w:.#$%&\-+?<>~/]*"
_PANDOC = re.compile(r"\[(?P<body>(?:[^\[\]\n]*?[\s;])?-?@[^\[\]\n]*)\]")
_PANDOC_KEY = re.compile(rf"(?:(?<=[\s;\[-])|^)-?@(?P<key>\{{[^}}]+\}}|{_KEY})")
_NARRATIVE = re.compile(rf"(?<![\w@\[])@(?P<key>{_KEY})")
_LATEX = re.compile(CITE_COMMAND)
_LATEX_KEYS = re.compile(r"\{([^{}]*)\}$")


@dataclass(frozen=True)
class Citation:
    """A citation in the prose view: its span and the keys it names."""

    start: int
    end: int
    keys: tuple[str, ...]
    key_starts: tuple[int, ...]


def _clean_key(key: str) -> str:
    key = key.strip("{}")
    return key.rstrip(".,:;?!") if not key.startswith("{") else key


def find_citations(prose: str, fmt: str, known_keys: Collection[str] = ()) -> list[Citation]:
    """Every citation in ``prose`` (format ``markdown``, ``latex`` or ``text``), in order."""
    out: list[Citation] = []
    if fmt == "latex":
        for m in _LATEX.finditer(prose):
            km = _LATEX_KEYS.search(m.group())
            if not km:
                continue
            base = m.start() + km.start(1)
            keys: list[str] = []
            starts: list[int] = []
            offset = 0
            for part in km.group(1).split(","):
                stripped = part.strip()
                if stripped:
                    keys.append(stripped)
                    starts.append(base + offset + part.index(stripped))
                offset += len(part) + 1
            if keys:
                out.append(Citation(m.start(), m.end(), tuple(keys), tuple(starts)))
        return out
    taken: list[tuple[int, int]] = []
    for m in _PANDOC.finditer(prose):
        body = m.group("body")
        keys_m = list(_PANDOC_KEY.finditer(body))
        if not keys_m:
            continue
        base = m.start("body")
        out.append(Citation(m.start(), m.end(), tuple(_clean_key(k.group("key")) for k in keys_m),
                            tuple(base + k.start("key") for k in keys_m)))  # fmt: skip
        taken.append(m.span())
    if known_keys and fmt == "markdown":
        known = set(known_keys)
        for m in _NARRATIVE.finditer(prose):
            key = _clean_key(m.group("key"))
            if key not in known or any(a <= m.start() < b for a, b in taken):
                continue
            end = m.start("key") + len(key)
            out.append(Citation(m.start(), end, (key,), (m.start("key"),)))
        out.sort(key=lambda c: c.start)
    return out
