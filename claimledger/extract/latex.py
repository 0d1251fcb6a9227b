"""LaTeX (.tex): what is prose and what is not.

Not prose: the preamble, comments, math (``$``, ``$$``, ``\\( \\)``,
``\\[ \\]``, equation-like environments), verbatim environments, command
names and the arguments of non-prose commands (``\\label``, ``\\ref``,
``\\url``, ``\\includegraphics`` ...). Citation commands (``\\cite``,
``\\citep``, ``\\citet``, ``\\parencite`` ...) are kept verbatim so the
citation reader sees them. ``\\section``, ``\\item``, ``\\begin``/``\\end``,
``\\par``, ``\\\\`` and ``&`` are block boundaries. ```` ``…'' ```` is a quotation.
"""

from __future__ import annotations

import re

from claimledger.extract.edits import PARA, Edits, Heading

CITE_COMMAND = r"\\(?:[a-zA-Z]*cite[a-zA-Z]*|citet|citep)\*?(?:\[[^\]]*\]){0,2}\{[^{}]*\}"
_HIDE_ENVS = "verbatim|Verbatim|lstlisting|minted|comment|tikzpicture"
_MATH_ENVS = "equation|align|gather|multline|eqnarray|math|displaymath|flalign|alignat"
_NON_PROSE = (
    "label|ref|eqref|pageref|autoref|cref|Cref|nameref|url|includegraphics|input|include|"
    "bibliography|bibliographystyle|usepackage|documentclass|vspace|hspace|setlength|"
    "newcommand|renewcommand|providecommand|def|graphicspath|addbibresource|hypersetup|"
    "setcounter|addtocounter|newenvironment|pagestyle|thispagestyle|numberwithin"
)
_SECTIONS = {"part": 0, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4, "paragraph": 5}

_BLOCKS = re.compile(
    rf"""
    (?P<comment>(?<!\\)%[^\n]*)
    |(?P<hideenv>\\begin\{{(?P<henv>{_HIDE_ENVS})\*?\}}.*?(?:\\end\{{(?P=henv)\*?\}}|\Z))
    |(?P<mathenv>\\begin\{{(?P<menv>{_MATH_ENVS})\*?\}}.*?(?:\\end\{{(?P=menv)\*?\}}|\Z))
    """,
    re.VERBOSE | re.DOTALL,
)
_INLINE = re.compile(
    rf"""
    (?P<cite>{CITE_COMMAND})
    |(?P<dmath>\$\$.+?\$\$|\\\[.+?\\\])
    |(?P<imath>(?<!\\)\$(?:\\.|[^$\\])+?\$|\\\(.+?\\\))
    |(?P<nonprose>\\(?:{_NON_PROSE})\*?(?:\[[^\]]*\])*(?:\{{(?:[^{{}}]|\{{[^{{}}]*\}})*\}})*)
    |(?P<href>\\href\{{[^{{}}]*\}}\{{)
    |(?P<section>\\(?P<sec>{"|".join(_SECTIONS)})\*?(?:\[[^\]]*\])?\{{)
    |(?P<block>\\(?:begin|end)\{{[^{{}}]*\}}(?:\[[^\]]*\])?|\\item\b(?:\[[^\]]*\])?|\\par\b|\\\\(?:\[[^\]]*\])?|&)
    |(?P<escape>\\[%$&#_{{}}])
    |(?P<command>\\[A-Za-z@]+\*?(?:\[[^\]\n]*\])?|\\.)
    |(?P<brace>[{{}}])
    |(?P<tilde>~)
    """,
    re.VERBOSE | re.DOTALL,
)
_SEC_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)*\.?[ \t]+")


def _matching_brace(text: str, open_end: int) -> int:
    """Offset of the ``}`` closing a group whose ``{`` ends at ``open_end``; -1 when unclosed."""
    depth = 1
    i = open_end
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def scan(text: str) -> Edits:
    edits = Edits()
    begin = re.search(r"\\begin\{document\}", text)
    start = 0
    end = len(text)
    if begin:
        edits.add(0, begin.end(), PARA)
        start = begin.end()
        fin = re.search(r"\\end\{document\}", text)
        if fin and fin.start() >= start:
            edits.add(fin.start(), len(text), PARA)
            end = fin.start()
    hidden: list[tuple[int, int]] = []
    for m in _BLOCKS.finditer(text, start, end):
        kind = m.lastgroup
        repl = "" if kind == "comment" else (PARA if kind == "hideenv" else " ")
        edits.add(m.start(), m.end(), repl)
        hidden.append(m.span())
    pos = start
    for a, b in [*hidden, (end, end)]:
        if a > pos:
            _inline(text, pos, a, edits)
        pos = max(pos, b)
    return edits


def _inline(text: str, pos: int, endpos: int, edits: Edits) -> None:
    closers: dict[int, str] = {}
    for m in _INLINE.finditer(text, pos, endpos):
        kind = m.lastgroup
        s, e = m.span()
        if kind == "cite":
            continue
        if kind in ("dmath", "imath", "nonprose"):
            edits.add(s, e, " ")
        elif kind == "href":
            edits.add(s, e, "")
        elif kind == "section":
            edits.add(s, e, PARA)
            close = _matching_brace(text, e)
            title_end = close if close >= 0 else e
            num = _SEC_NUMBER.match(text, e, title_end)
            if num:
                edits.add(num.start(), num.end(), "")
            if close >= 0:
                closers[close] = PARA
            title = re.sub(r"\\[A-Za-z]+\*?|[{}]", "", text[num.end() if num else e : title_end])
            edits.headings.append(Heading(_SECTIONS[m.group("sec")], title.strip(), s))
        elif kind == "block":
            edits.add(s, e, PARA)
        elif kind == "escape":
            edits.add(s, s + 1, "")
        elif kind == "command":
            edits.add(s, e, " " if m.group() in ("\\ ", "\\,", "\\;", "\\quad", "\\qquad") else "")
        elif kind == "brace":
            edits.add(s, e, closers.pop(s, ""))
        elif kind == "tilde":
            edits.add(s, e, " ")
