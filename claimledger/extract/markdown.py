"""Markdown and Quarto (.qmd): what is prose and what is not.

Not prose: YAML/TOML front matter, fenced and indented code, ``$$`` and ``$``
math, ``\\[ \\]`` and equation environments, HTML comments and tags, URLs,
link targets, images, Quarto shortcodes, attributes and div fences, table
delimiter rows, link reference definitions. Structural numbers (ordered-list
markers, heading numbers, footnote labels) are dropped. Headings, list items
and table cells become block boundaries.
"""

from __future__ import annotations

import re

from claimledger.extract.edits import PARA, Edits, Heading

_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})")
_MATH_ENV = re.compile(
    r"\\begin\{(equation|align|gather|multline|eqnarray|math|displaymath|flalign|alignat)(\*?)\}"
)
_ATX = re.compile(r"( {0,3})(#{1,6})(?:[ \t]+|(?=\r?\n|$))")
_HEADING_NUMBER = re.compile(
    r"(?:第[0-9０-９]+[章節項部][ \t]*|[0-9０-９]+(?:[.．][0-9０-９]+)*[.．][ \t]+|[IVXLC]+\.[ \t]+"
    r"|[0-9]{1,2}(?:\.[0-9]+)*[ \t]+(?=[A-Z\u3040-\u30ff\u4e00-\u9fff]))"
)
_LIST = re.compile(
    r"[ \t]*(?:[-+*•・]|[0-9]{1,9}[.)]|[0-9０-９]{1,3}[．）]|\([0-9]{1,3}\)|（[0-9０-９]{1,3}）|[①-⑳])"
    r"(?:[ \t]+|(?=\r?\n|$))(?:\[[ xX]\][ \t]+)?"
)
_QUOTE_MARKER = re.compile(r"[ \t]{0,3}(?:>[ \t]?)+")
_HR = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT = re.compile(r" {0,3}(={2,}|-{2,})[ \t]*$")
_TABLE_DELIM = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")
_FOOTNOTE_DEF = re.compile(r" {0,3}\[\^[^\]\s]+\]:[ \t]*")
_LINK_DEF = re.compile(r" {0,3}\[(?![@^])[^\]]+\]:[ \t]+\S+.*$")
_DIV = re.compile(r" {0,3}:{3,}.*$")

_INLINE = re.compile(
    r"""
    (?P<comment><!--.*?(?:-->|\Z))
    |(?P<code>(?P<ticks>`+)(?:(?!\n[ \t]*\n).)+?(?P=ticks))
    |(?P<dmath>\$\$(?:(?!\n[ \t]*\n).)+?\$\$)
    |(?P<imath>(?<!\\)\$(?=[^\s$])(?:\\.|[^$\\\n])*?(?<=[^\s\\])\$(?![0-9]))
    |(?P<tmath>\\\((?:(?!\n[ \t]*\n)(?!\\\().)+?\\\)|\\\[(?!(?:V|D)\\\])(?:(?!\n[ \t]*\n)(?!\\\[).)+?\\\])
    |(?P<shortcode>\{\{<(?:(?!\{\{<).)*?>\}\})
    |(?P<image>!\[[^\[\]\n]*\]\([^)\n]*\)(?:\{[^}\n]*\})?)
    |(?P<attr>\{[#.][^{}\n]*\})
    |(?P<link>\[(?![@^])(?!(?:V|D)\])[^\[\]\n]*(?P<ltarget>\]\((?:[^()\s]|\([^()\s]*\))*(?:[ \t]+"[^"\n]*")?\)|\]\[[^\]\n]*\]))
    |(?P<fnref>\[\^[^\[\]\s]+\])
    |(?P<autolink><(?:https?|mailto|ftp):[^>\s]*>)
    |(?P<url>\b(?:https?|ftp)://[^\s<>\])}]+|\bwww\.[^\s<>\])}]+)
    |(?P<tag></?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>)
    |(?P<escape>\\[\\`*_{}\[\]()#+\-.!$%&|<>"'~^])
    |(?P<emph>\*+|(?<!\w)_+|_+(?!\w)|~~)
    """,
    re.VERBOSE | re.DOTALL,
)


def _lines(text: str) -> list[tuple[int, int, str]]:
    """(start, end-without-newline, line) for every line."""
    out: list[tuple[int, int, str]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        out.append((pos, pos + len(body), body))
        pos += len(line)
    return out


def _front_matter(text: str, edits: Edits) -> int:
    for marker in ("---", "+++"):
        if text.startswith(marker + "\n") or text.startswith(marker + "\r\n"):
            m = re.compile(rf"^(?:{re.escape(marker)}|\.\.\.)[ \t]*$", re.M).search(text, len(marker) + 1)
            if m:
                edits.add(0, m.end(), PARA)
                return m.end()
    return 0


def scan_plain(text: str) -> Edits:
    """Plain text: only list markers are structural."""
    edits = Edits()
    for start, _end, line in _lines(text):
        m = _LIST.match(line)
        if m and line[m.end() :].strip():
            edits.add(start, start + m.end(), PARA)
    return edits


def scan(text: str) -> Edits:
    edits = Edits()
    hidden: list[tuple[int, int]] = []
    lines = _lines(text)
    skip_to = _front_matter(text, edits)
    if skip_to:
        hidden.append((0, skip_to))
    i = 0
    prev_blank = True
    prev_list = False
    in_quote_block = False
    while i < len(lines):
        start, end, line = lines[i]
        if end <= skip_to:
            i += 1
            continue
        stripped = line.strip()
        nxt = _block(lines, i, text, edits, hidden, prev_blank, prev_list)
        if nxt is not None:
            i = nxt
            prev_blank, prev_list = True, False
            continue
        if not stripped:
            prev_blank = True
            in_quote_block = False
            i += 1
            continue
        offset = 0
        q = _QUOTE_MARKER.match(line)
        if q and ">" in q.group():
            edits.add(start, start + q.end(), "" if in_quote_block else PARA)
            in_quote_block = True
            offset = q.end()
        is_list = _line_structure(line, offset, start, end, edits, lines, i)
        prev_list = is_list or (prev_list and not prev_blank)
        prev_blank = False
        i += 1
    _inline(text, edits, hidden)
    return edits


def _block(
    lines: list[tuple[int, int, str]],
    i: int,
    text: str,
    edits: Edits,
    hidden: list[tuple[int, int]],
    prev_blank: bool,
    prev_list: bool,
) -> int | None:
    """Hide a non-prose block starting at line ``i``; return the next line index."""
    start, _end, line = lines[i]
    m = _FENCE.match(line)
    if m:
        close = re.compile(rf" {{0,3}}{re.escape(m.group(2)[0])}{{{len(m.group(2))},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j][2]):
            j += 1
        return _hide_lines(lines, i, min(j, len(lines) - 1), edits, hidden)
    if line.lstrip().startswith("$$") and line.count("$$") == 1:
        j = i + 1
        while j < len(lines) and "$$" not in lines[j][2]:
            j += 1
        return _hide_lines(lines, i, min(j, len(lines) - 1), edits, hidden)
    env = _MATH_ENV.search(line)
    if env and line.lstrip().startswith("\\begin"):
        end_marker = f"\\end{{{env.group(1)}{env.group(2)}}}"
        j = i
        while j < len(lines) and end_marker not in lines[j][2]:
            j += 1
        return _hide_lines(lines, i, min(j, len(lines) - 1), edits, hidden)
    if "<!--" in line and "-->" not in line[line.index("<!--") :]:
        close_at = text.find("-->", start + line.index("<!--"))
        j = i + 1
        while j < len(lines) and (close_at < 0 or lines[j][0] <= close_at):
            j += 1
        c0 = start + line.index("<!--")
        c1 = len(text) if close_at < 0 else close_at + 3
        edits.add(c0, c1, " ")
        hidden.append((c0, c1))
        return j
    if prev_blank and not prev_list and line.startswith(("    ", "\t")) and line.strip():
        j = i
        while j + 1 < len(lines) and (not lines[j + 1][2].strip() or lines[j + 1][2].startswith(("    ", "\t"))):
            j += 1
        while j > i and not lines[j][2].strip():
            j -= 1
        return _hide_lines(lines, i, j, edits, hidden)
    if _HR.match(line) and (prev_blank or line.strip()[0] != "-"):
        return _hide_lines(lines, i, i, edits, hidden)
    if _TABLE_DELIM.match(line) and "|" in line:
        return _hide_lines(lines, i, i, edits, hidden)
    if _LINK_DEF.match(line) or _DIV.match(line):
        return _hide_lines(lines, i, i, edits, hidden)
    return None


def _hide_lines(
    lines: list[tuple[int, int, str]], i: int, j: int, edits: Edits, hidden: list[tuple[int, int]]
) -> int:
    a, b = lines[i][0], lines[j][1]
    edits.add(a, b, PARA)
    hidden.append((a, b))
    return j + 1


def _line_structure(
    line: str, offset: int, start: int, end: int, edits: Edits, lines: list[tuple[int, int, str]], i: int
) -> bool:
    """Headings, list markers, table rows, footnote definitions. Returns True for a list item."""
    rest = line[offset:]
    h = _ATX.match(rest)
    if h:
        a = start + offset
        edits.add(a, a + h.end(), PARA)
        title_start = h.end()
        num = _HEADING_NUMBER.match(rest, title_start)
        if num:
            edits.add(a + num.start(), a + num.end(), "")
        closing = re.search(r"[ \t]+#+[ \t]*$", rest)
        if closing and closing.start() >= title_start:
            edits.add(a + closing.start(), a + len(rest), "")
        title = rest[(num.end() if num else title_start) : closing.start() if closing else len(rest)]
        edits.headings.append(Heading(len(h.group(2)), _plain_title(title), start))
        edits.add(end, end, PARA)
        return False
    if i + 1 < len(lines) and lines[i + 1][2].strip() and _SETEXT.match(lines[i + 1][2]) and not _LIST.match(rest):
        level = 1 if lines[i + 1][2].strip()[0] == "=" else 2
        num = _HEADING_NUMBER.match(rest)
        if num:
            edits.add(start + offset, start + offset + num.end(), "")
        edits.headings.append(Heading(level, _plain_title(rest[num.end() if num else 0 :]), start))
        edits.add(start, start, PARA)
        edits.add(lines[i + 1][0], lines[i + 1][1], PARA)
        return False
    f = _FOOTNOTE_DEF.match(rest)
    if f:
        edits.add(start + offset, start + offset + f.end(), PARA)
        return False
    m = _LIST.match(rest)
    if m:
        edits.add(start + offset, start + offset + m.end(), PARA)
        return True
    if rest.lstrip().startswith("|"):
        for k, ch in enumerate(rest):
            if ch == "|" and (k == 0 or rest[k - 1] != "\\"):
                edits.add(start + offset + k, start + offset + k + 1, PARA)
    return False


def _plain_title(title: str) -> str:
    title = re.sub(r"\{[#.][^}]*\}", "", title)
    return re.sub(r"[*_`]", "", title).strip()


def _inline(text: str, edits: Edits, hidden: list[tuple[int, int]]) -> None:
    pos = 0
    for a, b in [*sorted(hidden), (len(text), len(text))]:
        if a > pos:
            _inline_segment(text, pos, a, edits)
        pos = max(pos, b)


def _inline_segment(text: str, pos: int, endpos: int, edits: Edits) -> None:
    for m in _INLINE.finditer(text, pos, endpos):
        kind = m.lastgroup
        s, e = m.span()
        if kind in ("comment", "code", "dmath", "imath", "tmath", "image", "autolink", "url"):
            edits.add(s, e, " ")
        elif kind in ("shortcode", "attr", "fnref", "tag", "emph"):
            edits.add(s, e, "")
        elif kind == "link":
            edits.add(s, s + 1, "")
            edits.add(m.start("ltarget"), e, "")
        elif kind == "escape":
            edits.add(s, s + 1, "")
