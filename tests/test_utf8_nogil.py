"""UTF-8 decoding and encoding without the GIL (claimledger/load/utf8.py, claimledger/_cutf8skel.c).

The compiled ``decode_utf8`` / ``encode_utf8`` must give exactly what the codec gives: the same
characters, the same canonical ``str`` (the narrowest storage that holds them: a str built wider
would compare equal yet cost memory and hash the same only by luck of CPython internals), and None
wherever the codec raises, so the codec then raises its own error. Generated texts of every width
(ASCII, Latin-1, BMP, astral), lengths on both sides of every 8-byte block and of the size from
which the GIL is released, byte-order marks, the malformed sequences the strict decoder rejects,
lone surrogates, and threads decoding at once.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable
from functools import partial
from types import ModuleType

import pytest

from claimledger.load import utf8
from tests.normalize_cases import cases
from tests.test_skeleton_utf8 import MALFORMED

BOM = b"\xef\xbb\xbf"


@pytest.fixture(scope="module")
def ext() -> ModuleType:
    got = utf8.COMPILED
    if got is None:  # pragma: no cover - the message is the point
        pytest.fail("claimledger._cutf8skel is not built or CLAIMLEDGER_PURE_PYTHON is set: `pip install -e .`")
    return got


def _codec(data: bytes, sig: bool) -> str | None:
    try:
        return data.decode("utf-8-sig" if sig else "utf-8")
    except UnicodeDecodeError:
        return None


def _raises_as_the_codec(ours: Callable[[], object], codec: Callable[[], object], error: type[Exception]) -> None:
    """``ours()`` raises what the codec's ``codec()`` raises, with the same message."""
    with pytest.raises(error) as got:
        ours()
    with pytest.raises(error) as want:
        codec()
    assert str(got.value) == str(want.value)


def _same_str(got: str | None, want: str | None) -> None:
    assert got == want
    if got is not None and want is not None:  # the canonical storage: same width, same size
        assert sys.getsizeof(got) == sys.getsizeof(want)
        assert got.isascii() == want.isascii()


WIDTHS = {
    "ascii": "The council approved the budget in March.\n",
    "latin1": "Café crème, naïve façade — no: that dash is not Latin-1. Café.",
    "latin1_only": "Caf\u00e9 cr\u00e8me na\u00efve fa\u00e7ade \u00bd \u00a0",
    "bmp": "この制度は地方の中小企業の負担を軽減する。",
    "astral": "emoji \U0001f600 and \U00020b9f (a CJK extension B ideograph)",
}


@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 15, 16, 17, 4095, 4096, 4097, 70_000])
def test_decode_is_the_codec_for_each_width_and_length(ext: ModuleType, width: str, size: int) -> None:
    unit = WIDTHS[width]
    text = (unit * (size // len(unit) + 1))[:size]
    data = text.encode("utf-8")
    for sig in (True, False):
        for prefix in (b"", BOM, BOM + BOM):
            _same_str(ext.decode_utf8(prefix + data, sig), _codec(prefix + data, sig))
            _same_str(utf8.decode(prefix + data, sig=sig), _codec(prefix + data, sig))
        assert ext.encode_utf8(text) == data
        assert utf8.encode(text) == data


def test_decode_and_encode_are_the_codec_on_generated_texts(ext: ModuleType) -> None:
    texts = cases(1901, 3000)
    rng = random.Random(1901)
    for i, text in enumerate(texts):
        long = text * rng.choice((1, 2, 300))  # past the length from which the GIL is released
        data = long.encode("utf-8", "surrogatepass")
        _same_str(ext.decode_utf8(data, i % 2 == 0), _codec(data, i % 2 == 0))
        try:
            want = long.encode("utf-8")
        except UnicodeEncodeError:
            assert ext.encode_utf8(long) is None
            continue
        assert ext.encode_utf8(long) == want


@pytest.mark.parametrize("bad", MALFORMED)
def test_malformed_bytes_are_left_to_the_codec_and_its_error(ext: ModuleType, bad: bytes) -> None:
    for data in (bad, b"x" * 5000 + bad, bad + b"y" * 70_000, BOM + bad):
        want = _codec(data, True)
        _same_str(ext.decode_utf8(data, True), want)
        if want is None:
            _raises_as_the_codec(partial(utf8.decode, data), partial(data.decode, "utf-8-sig"), UnicodeDecodeError)


def test_a_lone_surrogate_is_left_to_the_codec_and_its_error(ext: ModuleType) -> None:
    text = "\u3042" * 70_000 + "\ud800" + "tail"
    assert ext.encode_utf8(text) is None
    _raises_as_the_codec(lambda: utf8.encode(text), lambda: text.encode("utf-8"), UnicodeEncodeError)


def test_threads_decoding_and_encoding_at_once_get_the_codec_answers(ext: ModuleType) -> None:
    texts = [(WIDTHS[w] * 20_000) for w in sorted(WIDTHS)]
    blobs = [t.encode("utf-8") for t in texts]
    wrong: list[int] = []

    def work(k: int) -> None:
        for _ in range(5):
            i = (k + _) % len(texts)
            if ext.decode_utf8(blobs[i], True) != texts[i] or ext.encode_utf8(texts[i]) != blobs[i]:
                wrong.append(i)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def test_sources_read_through_the_compiled_decoder_keep_their_text(tmp_path: object) -> None:
    """A plain-text source, read and indexed, holds the codec's text; so does its cache entry read back."""
    from pathlib import Path

    from claimledger import GateConfig
    from claimledger.load.index import read_source

    folder = Path(str(tmp_path))
    text = ("調査では、導入企業のうち半数以上が効率が上がったと答えた。 Café \U0001f600\n" * 4000)
    path = folder / "s.txt"
    path.write_bytes(BOM + text.encode("utf-8"))
    config = GateConfig(cache_dir=folder / "cache")
    cold = read_source("s", str(path), config)
    read_source("s", str(path), config)  # a plain UTF-8 text is cached the second time it is read
    warm = read_source("s", str(path), config)
    assert not isinstance(cold, tuple) and cold.source.text == text  # type: ignore[union-attr]
    assert warm.from_cache and warm.source.text == text and warm.primary.text == cold.primary.text  # type: ignore[union-attr]
