"""Unicode attacks: zero-width characters, bidi controls, homoglyphs and combining marks.

The policy (claimledger/normalize.py, docs/security.md): invisible characters
are removed on both sides, because a reader does not see them; homoglyphs are
never folded and combining marks are composed, never dropped, because a
reader does see them (``é`` is not ``e``, Cyrillic ``а`` is not Latin ``a``).
The property that matters: no insertion or substitution turns a quote that
is not in the visible source into a verified one.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from claimledger import GateConfig, Reason, Status, gate
from claimledger.checks.quote import find_exact, strip_outer_quotes
from claimledger.load.index import IndexedSource
from claimledger.model.source import Source
from claimledger.normalize import INVISIBLE, normalize, normalize_quote

HOMOGLYPHS = {  # Latin -> look-alikes (Cyrillic, Greek, Armenian, full-width is folded on purpose: not here)
    "a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e\u03bf\u0585", "p": "\u0440", "x": "\u0445",
    "y": "\u0443", "i": "\u0456", "s": "\u0455", "j": "\u0458", "h": "\u04bb", "d": "\u0501",
}  # fmt: skip
INVISIBLES = list(INVISIBLE.replace("\ufffe", "").replace("\u00ad", ""))  # those two mean "line-break hyphen"
COMBINING = ["\u0301", "\u0300", "\u0308", "\u0327", "\u0331", "\u20dd", "\u034f"]

words = st.lists(st.sampled_from(["the", "data", "shows", "a", "clear", "increase", "in", "costs", "for", "every", "group", "of", "pupils"]),
                 min_size=6, max_size=30).map(" ".join)  # fmt: skip


def verifies(source_text: str, quote: str, min_chars: int = 8) -> bool:
    """The quote check's matching step on one in-memory source (the code path gate() uses)."""
    ix = IndexedSource(Source("s", "mem", "text/plain", source_text, "0" * 64), normalize(source_text), None)
    nq = normalize_quote(strip_outer_quotes(quote))
    return len(nq) >= min_chars and find_exact(nq, ix) is not None


def _slice(data: st.DataObject, text: str, min_len: int = 10) -> str:
    """A run of whole words of ``text`` (a match never cuts a word)."""
    spans = [m.span() for m in re.finditer(r"\S+", text)]
    assume(len(text) > min_len and spans)
    a = data.draw(st.integers(0, len(spans) - 1))
    b = data.draw(st.integers(a, len(spans) - 1))
    quote = text[spans[a][0] : spans[b][1]]
    assume(len(quote) >= min_len)
    return quote


def _insert(data: st.DataObject, text: str, alphabet: list[str], at_most: int = 5) -> str:
    out = list(text)
    for _ in range(data.draw(st.integers(1, at_most))):
        pos = data.draw(st.integers(0, len(out)))
        out.insert(pos, data.draw(st.sampled_from(alphabet)))
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(words, st.data())
def test_a_homoglyph_never_verifies(source: str, data: st.DataObject) -> None:
    quote = _slice(data, source)
    positions = [i for i, ch in enumerate(quote) if ch in HOMOGLYPHS]
    assume(positions)
    i = data.draw(st.sampled_from(positions))
    fake = quote[:i] + data.draw(st.sampled_from(list(HOMOGLYPHS[quote[i]]))) + quote[i + 1 :]
    assert verifies(source, quote)
    assert not verifies(source, fake)


@settings(max_examples=300, deadline=None)
@given(words, st.data())
def test_a_combining_mark_in_the_quote_never_verifies(source: str, data: st.DataObject) -> None:
    quote = _slice(data, source)
    pos = data.draw(st.integers(1, len(quote)))
    assume(quote[pos - 1].isalpha())  # a mark on a letter changes what the reader sees
    fake = quote[:pos] + data.draw(st.sampled_from(COMBINING)) + quote[pos:]
    assert not verifies(source, fake)


@settings(max_examples=300, deadline=None)
@given(words, st.data())
def test_invisible_characters_neither_break_nor_make_a_match(source: str, data: st.DataObject) -> None:
    quote = _slice(data, source)
    # invisible characters in the quote or in the source do not break a true match (policy: removed) ...
    assert verifies(source, _insert(data, quote, INVISIBLES))
    assert verifies(_insert(data, source, INVISIBLES, 20), quote)
    # ... and cannot make a false one: an absent word stays absent however it is padded
    absent = quote + " unicorns"
    assert not verifies(_insert(data, source, INVISIBLES, 20), _insert(data, absent, INVISIBLES))


ATTACK = [*INVISIBLES, *COMBINING, *"".join(HOMOGLYPHS.values()), " ", "\u00a0", "\u2003"]


def visible_skeleton(text: str) -> str:
    """An independent, simpler reading of what a reader sees: used only to judge the property below."""
    text = "".join(ch for ch in text if ch not in INVISIBLE)
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(text.split())


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeopsxy ") + ATTACK), min_size=0, max_size=80),
       st.text(alphabet=st.sampled_from(list("abcdeopsxy ") + ATTACK), min_size=8, max_size=30))  # fmt: skip
def test_no_random_attack_verifies_a_quote_absent_from_the_visible_text(source: str, quote: str) -> None:
    if visible_skeleton(quote) not in visible_skeleton(source):
        assert not verifies(source, quote, min_chars=1)


def test_attacks_through_the_gate(tmp_path: Path) -> None:
    """The same attacks end to end: a text source, an HTML source, and the findings' reasons."""
    (tmp_path / "paper.txt").write_text(
        "The vaccine was saf\u200be for all groups. Costs fell by 12 percent.\n"
        "\u202eelbaliava ton si atad ehT\u202c\n",
        encoding="utf-8",
    )
    (tmp_path / "page.html").write_text(
        "<p>The treatment is <span style='display:none'>not </span>effective in adults.</p>", encoding="utf-8"
    )
    claims = {
        "ZW": ("paper", "the vaccine was safe for all groups"),  # zero-width in the source: verified
        "ZWQ": ("paper", "costs fell\u200d by 12 per\u2060cent"),  # zero-width in the quote: verified
        "CYR": ("paper", "the v\u0430ccine was safe for all groups"),  # Cyrillic а: not verified
        "MARK": ("paper", "costs fe\u0301ll by 12 percent"),  # combining acute: not verified
        "BIDI": ("paper", "The data is not available"),  # what an RLO override displays: not verified
        "HID": ("page", "The treatment is not effective in adults"),  # needs the hidden word: not verified
        "VIS": ("page", "The treatment is effective in adults"),  # what a reader sees: verified
    }
    lines = ["version: 1", "sources:", "  paper: paper.txt", "  page: page.html", "claims:"]
    for cid, (src, quote) in claims.items():
        lines += [f"  - id: {cid}", "    kind: quote", f"    source: {src}", f'    quote: "{quote}"']
    (tmp_path / "ledger.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    by = {f.claim_id: f for f in gate(tmp_path / "ledger.yaml", config=GateConfig(cache_dir=tmp_path / "c")).findings}
    assert {cid for cid, f in by.items() if f.status is Status.VERIFIED} == {"ZW", "ZWQ", "VIS"}
    assert by["HID"].reason is Reason.QUOTE_NEAR_MISS or by["HID"].reason is Reason.QUOTE_ABSENT
    for cid in ("CYR", "MARK", "BIDI"):
        assert by[cid].reason in {Reason.QUOTE_NEAR_MISS, Reason.QUOTE_ABSENT}, by[cid]
