"""The skeleton of UTF-8 bytes (claimledger/_cutf8skel.c): an uncited plain-text source ruled out
before its bytes are decoded (issue 19 item 5).

``skeleton_utf8(data, stop)`` must equal its definition ``of_utf8_py`` (decode as "utf-8-sig",
then ``of_raw_py``) on every input: the same skeleton on well-formed UTF-8, None on bytes CPython's
decoder rejects (then the reader decodes as before: Shift_JIS, UTF-16, an error) and on texts with
a stop character. A wrong "None" would only cost time; a skeleton of bytes Python rejects would be
a wrong answer, so malformed bytes are generated on purpose. Then the scan: sources ruled out from
their bytes are never decoded, and every other source (Shift_JIS, UTF-16, Aozora notation, a BOM,
Markdown) still gives the findings of the scan that indexes every source.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from claimledger import GateConfig, skeleton
from claimledger.checks.context import RunContext
from claimledger.checks.quote_scan import scan_quotes
from claimledger.load import text as text_loader
from claimledger.load.text import AOZORA_MARKS
from claimledger.model.claim import Ledger
from claimledger.normalize import normalize, normalize_quote
from tests.normalize_cases import cases

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from fuzz_normalize import case as pdf_like_case


@pytest.fixture(scope="module")
def core() -> ModuleType:
    got = skeleton.utf8_core()
    if got is None:  # pragma: no cover - the message is the point
        pytest.fail("claimledger._cutf8skel is not built or the C core is off: `pip install -e .`")
    return got


MALFORMED = [
    b"\x80",  # a lone continuation byte
    b"ab\xc3",  # truncated two-byte sequence
    b"\xe3\x81",  # truncated three-byte sequence
    b"\xf0\x9f\x98",  # truncated four-byte sequence
    b"\xc0\x80",  # overlong NUL
    b"\xc1\xbf",  # overlong
    b"\xe0\x80\xaf",  # overlong three-byte
    b"\xf0\x8f\xbf\xbf",  # overlong four-byte
    b"\xed\xa0\x80",  # a surrogate (U+D800)
    b"\xed\xbf\xbf",  # a surrogate (U+DFFF)
    b"\xf4\x90\x80\x80",  # above U+10FFFF
    b"\xf5\x80\x80\x80",
    b"\xff\xfeh\x00i\x00",  # UTF-16 LE with its byte-order mark
    b"\xfe\xff\x00h\x00i",  # UTF-16 BE
    "調査では約4倍に増えた".encode("cp932"),  # Shift_JIS
    "caf\u00e9".encode("latin-1"),
    b"\xe3\x81\x82\xe3\x81",  # valid, then truncated at the end
]

WELL_FORMED = [
    "",
    "plain ASCII text, 123 digits.",
    "\ufeffa leading byte-order mark is dropped",
    "a\ufeffb: a later one is a character",
    "\ufeff\ufeffa second mark at the start stays",
    "the \ufb01nal o\ufb03ce, Ａ\uff22Ｃ and ½ cup",
    "調査では約4倍に増えた。ｶﾞｸｾｲ 조사 결과",
    "\U0001d400\U0001d401 mathematical letters and 😀 emoji",
    "a verifi\ufffe\ncation step\u00ad and U+10FFFF \U0010ffff",
    "\ud7ff\ue000\uffff\u0800\u07ff\x7f\x00 boundaries of the encoding",
    "\ufdfa expands to eighteen letters",
    "ǅ ǈ ß İ ﬀ ﬆ case and ligatures",
]


def _pool(rng: random.Random) -> str:
    return "".join(rng.choice(WELL_FORMED) for _ in range(rng.randrange(1, 4)))


def _generated() -> list[bytes]:
    rng = random.Random(20261201)
    texts = cases(20261202, 1500) + [pdf_like_case(random.Random(f"utf8/{i}")) for i in range(1500)]
    out: list[bytes] = []
    for t in texts + [_pool(rng) for _ in range(500)]:
        data = t.encode("utf-8", "surrogatepass")  # generated texts may hold lone surrogates
        out.append(data)
        if rng.random() < 0.3:
            out.append(b"\xef\xbb\xbf" + data)
        if data and rng.random() < 0.5:  # corrupted: a few bytes replaced, inserted or cut
            b = bytearray(data)
            for _ in range(rng.randrange(1, 4)):
                op = rng.randrange(3)
                at = rng.randrange(len(b) + 1)
                if op == 0 and at < len(b):
                    b[at] = rng.randrange(256)
                elif op == 1:
                    b[at:at] = bytes([rng.randrange(0x80, 0x100)])
                else:
                    del b[at : at + 1]
            out.append(bytes(b))
    return out


def test_the_bytes_skeleton_is_the_skeleton_of_the_decoded_text(core: ModuleType) -> None:
    bad = []
    for data in [*MALFORMED, *(t.encode("utf-8") for t in WELL_FORMED), *_generated()]:
        for stop in ("", AOZORA_MARKS):
            if core.skeleton_utf8(data, stop) != skeleton.of_utf8_py(data, stop):
                bad.append((data, stop))
    assert bad == []


def test_ascii_read_eight_bytes_at_a_time_still_sees_every_byte(core: ModuleType) -> None:
    """ASCII is read eight bytes at a time (_cutf8skel.c ASCII_RUN): a non-ASCII character, a
    malformed byte or a stop character at every offset of those eight, and ASCII tails of every
    length, give the definition's answer."""
    base = "Ab-c1 .ﬁ\t\nZ9"
    for length in range(0, 25):
        ascii_text = (base * 3)[:length].encode("ascii", "ignore")
        for at in range(len(ascii_text) + 1):
            for insert in ("é".encode(), "調".encode(), "《".encode(), b"\xff", b"\xe3\x81", "😀".encode()):
                data = ascii_text[:at] + insert + ascii_text[at:]
                for stop in ("", AOZORA_MARKS):
                    assert core.skeleton_utf8(data, stop) == skeleton.of_utf8_py(data, stop), (data, stop)
        assert core.skeleton_utf8(ascii_text) == skeleton.of_utf8_py(ascii_text)


def test_malformed_bytes_have_no_skeleton_and_well_formed_ones_do(core: ModuleType) -> None:
    for data in MALFORMED:
        assert core.skeleton_utf8(data) is None, data
    for t in WELL_FORMED:
        assert core.skeleton_utf8(t.encode("utf-8")) == skeleton.of_raw_py(t.removeprefix("\ufeff")), t
    assert core.skeleton_utf8("The 調査 《ルビ》".encode(), AOZORA_MARKS) is None
    assert core.skeleton_utf8("［＃傍点］".encode(), AOZORA_MARKS) is None
    assert core.skeleton_utf8("The 調査 「ルビ」".encode(), AOZORA_MARKS) == skeleton.of_raw_py("The 調査 「ルビ」")
    with pytest.raises(ValueError):
        core.skeleton_utf8(b"abc", "a")  # an ASCII stop character is refused


def test_a_long_text_is_read_without_the_gil_and_still_equal(core: ModuleType) -> None:
    rng = random.Random(5)
    text = "".join(_pool(rng) for _ in range(2000))  # well above the no-GIL size, astral characters too
    assert core.skeleton_utf8(text.encode()) == skeleton.of_raw_py(text)
    assert core.skeleton_utf8(text.encode() + b"\xff") is None


def test_rules_out_only_what_the_text_prefilter_rules_out(core: ModuleType) -> None:
    """Never a "cannot" where the quote occurs: a piece cut from a text's normalization passes."""
    rng = random.Random(8)
    texts = cases(20261203, 600) + [pdf_like_case(random.Random(f"rule/{i}")) for i in range(600)]
    for t in texts:
        norm = normalize(t).text
        data = t.encode("utf-8", "surrogatepass")
        if norm:
            a = rng.randrange(len(norm))
            piece = norm[a : a + rng.randrange(1, 40)]
            pf = skeleton.Prefilter([piece])
            assert not pf.rules_out_utf8(data), (t, piece)
        pf = skeleton.Prefilter(["a quote that is surely absent from every generated text 0123456789", "約5倍に減った"])
        ruled = pf.rules_out_utf8(data)
        if ruled:
            assert not pf.may_contain(data.decode("utf-8-sig"))
        elif skeleton.of_utf8_py(data):  # UTF-8 with letters: the two tests agree
            assert pf.may_contain(data.decode("utf-8-sig"))
    assert not skeleton.Prefilter(["!!"]).rules_out_utf8(b"no letter of the quote")  # a quote without letters
    assert not skeleton.Prefilter(["absent words here"]).rules_out_utf8(b"  ... ---  ")  # a text without


def _scan_both(tmp: Path, files: dict[str, bytes], cited: str, quotes: list[str]) -> tuple[dict, dict, RunContext]:  # type: ignore[type-arg]
    sources = {}
    for name, data in files.items():
        (tmp / name).write_bytes(data)
        sources[name.split(".")[0]] = name
    ledger = Ledger(version=1, sources=sources, claims=[])
    keys = [(cited, normalize_quote(q)) for q in quotes]
    ctx = RunContext.create(ledger, tmp, GateConfig(cache_dir=tmp / "cache"))
    got = scan_quotes(keys, ctx.source, list(sources), uncited=ctx.uncited_source, ahead=ctx.read_ahead)
    ctx.close()
    every = RunContext.create(ledger, tmp, GateConfig(index_cache=False))
    want = scan_quotes(keys, every.source, list(sources))  # every source indexed, no prefilter
    every.close()
    return got, want, ctx


def test_the_scan_finds_quotes_in_every_kind_of_plain_text_file(tmp_path: Path) -> None:
    quote_en = "independent verification step reduced errors"
    quote_ja = "言葉を扱う生成AIは約4倍に増えた"
    files = {
        "a.txt": "Alpha, the cited one, holds neither quote. 調査では約4倍。".encode(),
        "sjis.txt": f"Shift_JIS: {quote_ja}。".encode("cp932"),
        "utf16.txt": f"UTF-16: an {quote_en} by 37 percent.".encode("utf-16"),
        "bom.txt": f"\ufeffBOM: an {quote_en} by 37 percent.".encode(),
        "aozora.txt": "青空：言葉《ことば》を扱う生成ＡＩは約４倍に増えた。".encode(),
        "aozora2.txt": "｜言葉《ことば》を扱う生成AIは約4倍に［＃「約4倍」に傍点］増えた。".encode(),
        "plain.txt": f"Plain: {quote_ja}, and an {quote_en}.".encode(),
        "md.md": f"Markdown: an [independent verification](http://x.test/step) step reduced errors{'.' * 3}".encode(),
        "none.txt": b"Nothing of either quote is in this file at all.",
    }
    got, want, ctx = _scan_both(tmp_path, files, "a", [quote_en, quote_ja, "reduced errors by 73 percent"])
    assert got == want
    en, ja, absent = (got[("a", normalize_quote(q))] for q in (quote_en, quote_ja, "reduced errors by 73 percent"))
    assert en.elsewhere is not None and ja.elsewhere is not None
    assert absent.found is None and absent.elsewhere is None
    # the facts of every source are recorded, ruled out from its bytes or not
    assert all(f.sha256 and f.error is None for f in ctx.source_facts().values())


def test_sources_ruled_out_from_their_bytes_are_never_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded: list[bytes] = []
    real, real_utf8 = text_loader.decode_text, text_loader.decode_text_utf8

    def spy(data: bytes) -> str:
        decoded.append(data)
        return real(data)

    def spy_utf8(data: bytes) -> tuple[str, bool]:  # a plain-text source's reading
        decoded.append(data)
        return real_utf8(data)

    monkeypatch.setattr("claimledger.load.sources.decode_text", spy)
    monkeypatch.setattr("claimledger.load.sources.decode_text_utf8", spy_utf8)
    files = {
        "a.txt": b"The cited source holds the sky is green.",
        "b.txt": "B: nothing pending here. 調査では約4倍に増えた。".encode(),
        "c.txt": b"C: an independent verification step reduced errors by 37 percent.",
        "d.txt": "\ufeffD: nothing pending either.".encode(),
        "e.txt": "E: 《ルビ》 nothing, but its marks make it decoded.".encode(),
    }
    quotes = ["the sky is green", "independent verification step reduced errors", "reduced errors by 73 percent"]
    got, want, ctx = _scan_both(tmp_path, files, "a", quotes)
    assert got == want
    assert got[("a", normalize_quote(quotes[1]))].elsewhere is not None
    # the scan with the prefilter decoded a (cited), c (may hold a quote) and e (Aozora marks) only,
    # in source order; the scan that indexes every source decoded all five
    assert decoded[:3] == [files["a.txt"], files["c.txt"], files["e.txt"]]
    assert len(decoded) == 3 + len(files)
    assert ctx.source_facts()["b"].sha256 and ctx.source_facts()["d"].media_type == "text/plain"


def test_four_threads_filling_the_table_at_once_agree_with_the_definition(core: ModuleType) -> None:
    """Long texts (read without the GIL) with many code points not seen before, on four threads at
    once: each entry is filled once under the GIL and read without it; every result is exact."""
    from concurrent.futures import ThreadPoolExecutor

    core.setup(skeleton.raw_of_char)  # a fresh, empty table (as at the first use in a process)
    rng = random.Random(12)
    blocks = [range(0x4E00, 0x4F00), range(0xAC00, 0xAD00), range(0x0100, 0x0250), range(0xFB00, 0xFB50)]
    texts = []
    for i in range(8):
        chars = [chr(c) for c in blocks[i % 4]] + list("abc 123 ") + ["\U0001d400"]
        texts.append("".join(rng.choice(chars) for _ in range(30_000)))
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: core.skeleton_utf8(t.encode()), texts * 2))
    assert got == [skeleton.of_raw_py(t) for t in texts * 2]


def test_one_threads_scratch_buffer_serves_calls_of_every_size_and_width(core: ModuleType) -> None:
    """A reading thread keeps its skeleton buffer from one source to the next (_cutf8skel.c
    o_start/o_end): whatever an earlier call left in it, and whether a text widens it in place (to
    two bytes a character), into a new buffer (to four), outgrows it (U+FDFA gives eighteen letters
    for three bytes) or is larger than the buffer ever kept (8 MB), each answer is the definition's,
    on this thread and on four threads at once."""
    from concurrent.futures import ThreadPoolExecutor

    rng = random.Random("utf8/scratch")
    shapes = [
        "short ascii",
        "ascii " * 5000,
        "ascii, then a Latin-1 é, then more " * 300 + "é",
        "ascii, then 調査 widens it to two bytes " * 2000,
        "and 😀 to four, after " + "調" * 3000 + " wide text",
        "\ufdfa" * 20_000,  # 60 kB of bytes, 360,000 letters: it outgrows the buffer it started in
        "a" * 10 + "\ufdfa" * 5 + "調" + "😀",
        "x",
        "",
    ]
    texts = shapes + [rng.choice(shapes) + _pool(rng) for _ in range(200)]
    rng.shuffle(texts)
    big = "".join(_pool(rng) for _ in range(1000)) + "調" * 1_500_000  # 4.5 MB of bytes: past the kept size
    texts.insert(len(texts) // 2, big)
    want = [skeleton.of_raw_py(t) for t in texts]
    assert [core.skeleton_utf8(t.encode()) for t in texts] == want
    assert [core.skeleton_utf8(t.encode()) for t in reversed(texts)] == want[::-1]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda t: core.skeleton_utf8(t.encode()), texts * 2)) == want * 2
