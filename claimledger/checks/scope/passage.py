"""The evidence passage around a verified quote, in the order a careful reader consults it.

1. the quote's own sentence;
2. its neighbours (the sentence before and after);
3. the table or figure caption nearest to it (表1, 図2, Table 1, Figure 2);
4. the section heading above it;
5. the survey's sample definition anywhere in the source (「会社員1,500人を対象に」,
   "we surveyed 1,500 employees"), which says who "respondents" are;
6. the document's title (its first line).

Each layer is a plain string; a slot is read from the first layer that states
it. Lines of a PDF that wrap inside a sentence are joined back first.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from claimledger.checks.scope import lexicon as lx
from claimledger.checks.scope.slots import fold, is_japanese, populations

_END = re.compile(r"(?<=[。！？!?])|(?<=[.](?=\s))|(?<=[.]$)")
_CAPTION = re.compile(r"^\s*(?:表|図|Table|Figure|Fig\.|Chart|Exhibit)\s*[0-9０-９IVX]+", re.IGNORECASE)
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
HEADING_MAX = 60


@dataclass(frozen=True)
class Layer:
    where: str  # quote sentence | neighbours | caption | heading | sample | title
    text: str


@dataclass(frozen=True)
class Passage:
    layers: tuple[Layer, ...]

    def text_of(self, *wheres: str) -> str:
        return " ".join(layer.text for layer in self.layers if layer.where in wheres)

    @property
    def all_text(self) -> str:
        return " ".join(layer.text for layer in self.layers)


@dataclass(frozen=True)
class _Line:
    start: int
    end: int
    text: str


def _lines(text: str) -> list[_Line]:
    out: list[_Line] = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        out.append(_Line(pos, pos + len(body), body))
        pos += len(raw)
    return out


def _is_heading(line: str) -> bool:
    s = line.strip()
    if not s:
        return False
    if _MD_HEADING.match(s):
        return True
    if len(s) > HEADING_MAX or _CAPTION.match(s):
        return False
    return not re.search(r"[。．.!?！？、,:：;；]\s*$", s) and not re.fullmatch(r"[-–—\d\s.]+", s)


def _is_block_break(line: str) -> bool:
    return not line.strip() or _is_heading(line) or bool(_CAPTION.match(line))


def _sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans over the whole text; headings, captions and blank lines are their own blocks."""
    spans: list[tuple[int, int]] = []
    block_start: int | None = None
    block_end = 0
    for line in _lines(text):
        if _is_block_break(line.text):
            if block_start is not None:
                spans += _split_block(text, block_start, block_end)
                block_start = None
            if line.text.strip():
                spans.append((line.start, line.end))
            continue
        if block_start is None:
            block_start = line.start
        block_end = line.end
    if block_start is not None:
        spans += _split_block(text, block_start, block_end)
    return spans


def _split_block(text: str, a: int, b: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = a
    for m in re.finditer(r"[。！？!?]+|\.(?=\s+[A-Z0-9\"“(]|\s*$)", text[a:b]):
        end = a + m.end()
        if text[start:end].strip():
            out.append((start, end))
        start = end
    if text[start:b].strip():
        out.append((start, b))
    return out


def _clean(text: str) -> str:
    t = text.strip()
    if is_japanese(t):
        t = re.sub(r"\s*\n\s*", "", t)
    return " ".join(t.split())


WINDOW = 4_000  # characters of context read on each side of the quote (sentences, captions)
HEADING_REACH = 20_000  # how far back the section heading is looked for
SAMPLE_MATCHES = 200  # at most this many sample-definition candidates are examined per source
SAMPLE_HEAD, SAMPLE_TAIL = 1_000_000, 300_000  # where a long source is searched for its sample definition


def build_passage(source_text: str, start: int, end: int) -> Passage:
    """The layers around ``source_text[start:end]`` (the verified quote or number passage).

    Only a bounded window around the quote is split into sentences, so the cost
    per claim does not grow with the source; the sample definition and the title
    are found once per source text (cached).
    """
    lo = max(0, start - WINDOW)
    lo = source_text.rfind("\n", 0, lo) + 1 if lo else 0  # start the window on a line boundary
    hi = min(len(source_text), end + WINDOW)
    nl = source_text.find("\n", hi)
    hi = len(source_text) if nl < 0 else nl
    window = source_text[lo:hi]
    a, b = start - lo, end - lo
    spans = _sentences(window)
    idx = [i for i, (x, y) in enumerate(spans) if x < b and y > a]
    layers: list[Layer] = []
    if idx:
        first, last = idx[0], idx[-1]
        own = window[spans[first][0] : spans[last][1]]
        layers.append(Layer("quote sentence", _clean(own)))
        near = []
        if first > 0 and not _is_heading(window[spans[first - 1][0] : spans[first - 1][1]]):
            near.append(window[spans[first - 1][0] : spans[first - 1][1]])
        if last + 1 < len(spans) and not _is_heading(window[spans[last + 1][0] : spans[last + 1][1]]):
            near.append(window[spans[last + 1][0] : spans[last + 1][1]])
        if near:
            layers.append(Layer("neighbours", _clean(" ".join(near))))
    else:
        layers.append(Layer("quote sentence", _clean(source_text[start:end])))
    caption = _nearest_caption(_lines(window), a)
    if caption:
        layers.append(Layer("caption", _clean(caption)))
    back_lo = max(0, start - HEADING_REACH)
    back = _lines(source_text[back_lo:start])
    heading = next((ln.text for ln in reversed(back) if ln.end < start - back_lo and _is_heading(ln.text)), None)
    if heading:
        layers.append(Layer("heading", _clean(_MD_HEADING.sub("", heading))))
    sample, title = _document_facts(source_text)
    if sample:
        layers.append(Layer("sample", sample))
    if title and title != heading and _is_heading(title):
        layers.append(Layer("title", _clean(_MD_HEADING.sub("", title))))
    return Passage(tuple(layers))


def _nearest_caption(lines: list[_Line], pos: int, reach: int = 800) -> str | None:
    best: tuple[int, str] | None = None
    for ln in lines:
        if _CAPTION.match(ln.text):
            dist = pos - ln.end if ln.end <= pos else ln.start - pos
            if 0 <= dist <= reach and (best is None or dist < best[0]):
                best = (dist, ln.text)
    return best[1] if best else None


@functools.lru_cache(maxsize=2)
def _document_facts(text: str) -> tuple[str | None, str | None]:
    """The survey's sample definition (first sentence that defines it) and the title (first line)."""
    first_line = next((ln for ln in text[:2_000].splitlines() if ln.strip()), None)
    sample: str | None = None
    seen = 0
    if len(text) > SAMPLE_HEAD + SAMPLE_TAIL:  # a long source: its front matter and its method section at the end
        text = text[:SAMPLE_HEAD] + "\n\n" + text[-SAMPLE_TAIL:]
    for m in re.finditer(lx.SAMPLE_JA.pattern + "|" + lx.SAMPLE_EN.pattern, text, re.IGNORECASE):
        seen += 1
        if seen > SAMPLE_MATCHES:
            break
        lo = max(0, m.start() - 400)
        hi = min(len(text), m.end() + 400)
        for x, y in _sentences(text[lo:hi]):
            if not (x <= m.start() - lo < y):
                continue
            sent = fold(text[lo + x : lo + y])
            pattern = lx.SAMPLE_JA if is_japanese(sent) else lx.SAMPLE_EN
            if pattern.search(sent) and any(p.value not in lx.SOFT for p in populations(sent)):
                sample = _clean(text[lo + x : lo + y])
            break
        if sample:
            break
    return sample, first_line
