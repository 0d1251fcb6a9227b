"""UTF-8 decoding and encoding of long texts without holding the GIL (issue 19).

``bytes.decode`` and ``str.encode`` hold the GIL for the whole text. A cold run reads and decodes
sources on reading threads and writes index entries on another while the main thread scans and
checks claims in Python: decoding a 5 MB source stopped every other thread for about 17 ms, and
on the half-absent bench workload decoding alone held the GIL a tenth of the run. The compiled
versions (claimledger/_cutf8skel.c: ``decode_utf8``, ``encode_utf8``) give the same ``str`` or
``bytes`` (validated by the strict decoder's rules; the str built with its exact largest
character, so it is the one ``bytes.decode`` builds) and release the GIL while they work. Where
the codec would raise (bytes that are not UTF-8, a lone surrogate) they answer None and the codec
runs, so errors and their messages are the codec's own. Without the compiled module
(``CLAIMLEDGER_PURE_PYTHON=1``, or not built) the codec does all of it. Tested against the codec in
tests/test_utf8_nogil.py.
"""

from __future__ import annotations

from claimledger._compiled import compiled

# below this many bytes (characters) the codec runs: handing the GIL back and forth costs more
NOGIL_MIN = 64 * 1024
# the compiled half (needs no setup); None when not built or CLAIMLEDGER_PURE_PYTHON is set
COMPILED = compiled("_cutf8skel")


def decode(data: bytes, *, sig: bool = True) -> str:
    """``data.decode("utf-8-sig")`` (``sig``: one leading byte-order mark dropped) or
    ``data.decode("utf-8")``; raises :class:`UnicodeDecodeError` as those do."""
    ext = COMPILED if len(data) >= NOGIL_MIN else None
    if ext is not None:
        got: str | None = ext.decode_utf8(data, sig)
        if got is not None:
            return got
    return data.decode("utf-8-sig" if sig else "utf-8")


def encode(text: str) -> bytes:
    """``text.encode("utf-8")``; raises :class:`UnicodeEncodeError` as it does."""
    ext = COMPILED if len(text) >= NOGIL_MIN else None
    if ext is not None:
        got: bytes | None = ext.encode_utf8(text)
        if got is not None:
            return got
    return text.encode("utf-8")
