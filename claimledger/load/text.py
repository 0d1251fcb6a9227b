"""Plain text and Markdown sources, and Aozora Bunko ruby notation.

Aozora Bunko plain text writes furigana as ``｜漢字《かんじ》`` or ``漢字《かんじ》``
and editor notes as ``［＃「…」に傍点］``: the body is the base text; readings and
notes are kept apart as annotations (offset, kind, text), neither body nor hidden.
"""

from __future__ import annotations

import re

from claimledger._exceptions import SourceError
from claimledger.load import utf8
from claimledger.textmap import Segments, anchors, sub_mapped

Annotation = tuple[int, str, str]  # (offset in the text, kind, text)
Anchors = tuple[tuple[int, int, int], ...]


def decode_text(data: bytes) -> str:
    """Decode UTF-8 (with or without BOM), UTF-16 with BOM, or Shift_JIS (cp932)."""
    return decode_text_utf8(data)[0]


def decode_text_utf8(data: bytes) -> tuple[str, bool]:
    """:func:`decode_text`, and whether that is ``data.decode("utf-8-sig")`` (the index cache then
    keeps no copy of a plain-text source's text: it decodes the bytes again, load/index.py)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), False
        except UnicodeDecodeError as exc:  # a UTF-16 byte-order mark, then bytes that are not UTF-16
            raise SourceError(
                "source_unreadable", f"text starts like UTF-16 but is not ({exc.reason} at byte {exc.start})"
            ) from None
    try:
        return utf8.decode(data), True  # data.decode("utf-8-sig"), without the GIL when long
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp932"), False
    except UnicodeDecodeError:
        raise SourceError(
            "source_unreadable", "text is neither UTF-8, UTF-16 nor Shift_JIS; re-save it as UTF-8"
        ) from None


_FRONT_MATTER = re.compile(r"\A---\r?\n.*?\r?\n(?:---|\.\.\.)\r?\n", re.S)
# Character classes exclude the opening delimiter, so no attempt runs past the next one: every rule
# is linear even on a 50 MB line of "[" or "<" (tests/test_limits.py, scripts/bench_hostile.py).
_MD_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"!\[([^\[\]]*)\]\(([^()]*)\)"), r"\1"),  # images -> alt text
    (re.compile(r"\[([^\[\]]+)\]\(([^()]*)\)"), r"\1"),  # links -> text
    (re.compile(r"\[([^\[\]]+)\]\[[^\[\]]*\]"), r"\1"),  # reference links
    (re.compile(r"<[^<>\n]+>"), ""),  # inline HTML tags
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # strong
    (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),  # emphasis
    (re.compile(r"(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])"), r"\1"),
    (re.compile(r"`([^`\n]+)`"), r"\1"),  # inline code
    (re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+", re.M), ""),  # heading marks
    (re.compile(r"^[ \t]{0,3}>[ \t]?", re.M), ""),  # blockquote marks
]


def markdown_to_text(markdown: str) -> str:
    """The prose of a Markdown document: markup removed, words and punctuation kept."""
    return markdown_mapped(markdown)[0]


def _groups(repl: str) -> tuple[int, ...]:
    return (int(repl[1:]),) if repl else ()


def markdown_mapped(markdown: str) -> tuple[str, Anchors]:
    """:func:`markdown_to_text` with the anchors back to lines and columns of the file."""
    text, seg = sub_mapped(_FRONT_MATTER, lambda m: (), markdown)
    for pattern, repl in _MD_RULES:
        groups = _groups(repl)

        def keep(m: re.Match[str], g: tuple[int, ...] = groups) -> tuple[int, ...]:
            return g

        text, later = sub_mapped(pattern, keep, text)
        seg = seg.then(later)
    return text, anchors(markdown, text, seg)


# ｜base《reading》, base《reading》 (the base is the run of kanji before it), ［＃note］
_AOZORA_RUBY = re.compile(r"｜([^｜《》\n]{1,40})《([^《》\n]{1,40})》|《([^《》\n]{1,40})》")
_AOZORA_NOTE = re.compile(r"［＃([^［］\n]{1,200})］")
_RUBY_HEAD = 200_000  # ruby is looked for in the first characters only


def looks_aozora(text: str) -> bool:
    """Aozora Bunko notation: ruby in 《》 or editor notes in ［＃］."""
    # the regular expressions run only when their literal marks are there (a plain scan for one
    # character is many times faster than the expressions over a large file; same answer)
    # ("［" first: a search for one character is several times faster than for two, in a UCS-2 text)
    if "［" in text and "［＃" in text and _AOZORA_NOTE.search(text):
        return True
    # the marks looked for in the head without copying it (a copy of a two-byte text cost more
    # than the search); the expression reads the copy only when both are there. "》" first: a
    # two-byte search for "《" (U+300A) stops at every newline, whose low byte it shares (4x slower)
    if text.find("》", 0, _RUBY_HEAD) < 0 or text.find("《", 0, _RUBY_HEAD) < 0:
        return False
    return len(_AOZORA_RUBY.findall(text[:_RUBY_HEAD])) >= 2


# A plain-text source none of these characters occurs in reads as its decoding, unchanged:
# :func:`looks_aozora` needs "《" or "［＃" (the misattribution search tests such a file's bytes
# before decoding them, claimledger.skeleton.Prefilter.rules_out_utf8)
AOZORA_MARKS = "《［"


def aozora_mapped(original: str) -> tuple[str, tuple[Annotation, ...], Anchors]:
    """Base text of Aozora Bunko notation, readings and notes apart, and location anchors."""
    parts: list[str] = []
    seg = Segments()
    notes: list[Annotation] = []
    n = 0
    pos = 0
    marks = sorted(
        [(m.start(), m.end(), m) for m in _AOZORA_RUBY.finditer(original)]
        + [(m.start(), m.end(), m) for m in _AOZORA_NOTE.finditer(original)],
        key=lambda t: t[0],
    )
    for start, end, m in marks:
        if start < pos:
            continue
        seg.keep(n, pos, start - pos)
        parts.append(original[pos:start])
        n += start - pos
        if m.re is _AOZORA_NOTE:
            notes.append((n, "note", m.group(1)))
        elif m.group(1) is not None:  # ｜base《reading》
            base = m.group(1)
            seg.keep(n, m.start(1), len(base))
            parts.append(base)
            n += len(base)
            notes.append((n, "ruby", m.group(2)))
        else:
            notes.append((n, "ruby", m.group(3)))
        pos = end
    seg.keep(n, pos, len(original) - pos)
    parts.append(original[pos:])
    text = "".join(parts)
    return text, tuple(notes), anchors(original, text, seg)


def text_mapped(original: str) -> tuple[str, tuple[Annotation, ...], Anchors]:
    """A plain-text source: Aozora notation read when present; otherwise the text as is
    (its locations are counted from the text itself, so no anchors are kept)."""
    if looks_aozora(original):
        return aozora_mapped(original)
    return original, (), ()

