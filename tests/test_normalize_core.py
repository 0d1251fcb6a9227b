"""The compiled normalizer core gives exactly the pure-Python normalizer's output (the oracle).

Differential: the normalized text and every offset array (norm_start, orig_start, orig_end,
linear), in both hyphen readings, on the repo's real-shaped documents (PDF, HTML, XHTML with ruby,
Markdown, plain text, Shift_JIS Aozora text, the fixture PDFs) and on deterministic generated
texts full of the code points the normalizer treats specially (tests/normalize_cases.py;
scripts/normalize_differential.py runs a million of them). The extension must be built wherever
the suite runs (`make test` builds it with the editable install).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest

from claimledger import _normalize_core
from claimledger import normalize as nmod
from claimledger._config import GateConfig
from claimledger._exceptions import SourceError
from claimledger.load.sources import load_source
from claimledger.normalize import _CORE_DEFINITIONS, Normalized, normalize, normalize_c, normalize_py
from tests import realdocs
from tests.normalize_cases import EXPANSIONS, cases

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def ext() -> ModuleType:
    try:
        return _normalize_core.load_extension()
    except ImportError as exc:  # pragma: no cover - the message is the point
        pytest.fail(
            f"the C core claimledger._cnormalize is not built ({exc}): reinstall with a C compiler and the "
            "Python headers (`rm .venv/.installed-dev && make test`, or `pip install -e .`)"
        )


def key(n: Normalized) -> tuple[str, list[int], list[int], list[int], bytes]:
    return n.text, n.norm_start.tolist(), n.orig_start.tolist(), n.orig_end.tolist(), bytes(n.linear)


def differences(ext: ModuleType, texts: list[str]) -> list[tuple[bool, str]]:
    out = []
    for text in texts:
        for keep in (False, True):
            want = normalize_py(text, keep_break_hyphens=keep)
            got = normalize_c(text, keep, ext=ext)
            if key(want) != key(got) or got.original is not text:
                out.append((keep, text))
    return out


def test_the_core_is_built_and_used_unless_pure_python_is_forced(ext: ModuleType) -> None:
    forced = os.environ.get("CLAIMLEDGER_PURE_PYTHON", "").strip() not in ("", "0")
    assert _normalize_core.active(_CORE_DEFINITIONS) is not forced
    assert _normalize_core.CORE.startswith("pure Python" if forced else "C ")
    text = "Ｔｈｅ ﬁnal veri-\nfication：調査 （２０２４年）"
    assert key(normalize(text)) == key(normalize_py(text))


def test_pure_python_is_forced_by_the_environment_and_named_by_version() -> None:
    env = {**os.environ, "CLAIMLEDGER_PURE_PYTHON": "1"}
    code = "from claimledger import _normalize_core as c, normalize as n; print(c.active(n._CORE_DEFINITIONS), c.CORE)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.startswith("False pure Python (CLAIMLEDGER_PURE_PYTHON is set)")
    env.pop("CLAIMLEDGER_PURE_PYTHON")
    cli = [sys.executable, "-m", "claimledger", "--version"]
    out = subprocess.run(cli, env=env, capture_output=True, text=True, check=True)
    assert "normalizer core: C (claimledger._cnormalize)" in out.stdout


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\n",
        "  leading and trailing  ",
        "verifi-\ncation and well\u2010\r\nknown, not co- \n operate",
        "verifi\ufffe\ncation, verifi\ufffecation, x\ufffe",
        "veri\u00adfi\u00ad\n  cation; soft\u00ad \n\n hyphen",
        "e\u200b\u0301 \u200d\u0308a \u200b\u0301 \u0301start",  # marks split from their base by invisibles
        "\u0301\u0302 leading marks, ｶﾞｷﾞ half-width voiced, ﾞ alone",
        "ｔｈｅ　ｃａｔ，　ｔｈｅ ｄｏｇ （ｂｙ ４．５％）， Ｍａｙ， 2019",
        "調査（\n２０２４年）の結果 ，調査 ３０ ％ 生成\nAI",
        "\U00020000 \U00020001\u3000x \U0001d400\u0301 \U0001f600 a",
        "10\u00b2 \u00bd \u2460 H\u2082O \u00a8 \u00b4 \u337f \ufdfa",
        "\u201cquoted\u201d \u2018single\u2019 \u2212 \u2014 \uff0d",
        "tab\there\x0bvt\x0cff\x1cfs\x85nel\u2028ls\u2029ps\u1680ogham\u205fmm",
        "\r\n\r\n\u3000\u3000\t \u200e\u202a\ufeff",
        "a\ud800b \udfff\u0301",  # lone surrogates (surrogateescape)
        "ß ẞ İ ŉ ſ µ ﬅ ǅ Ǳ",
        # a wide last character composed with a mark after an invisible (the output str is built in
        # place: its kind must still be the narrowest, or it would not equal the oracle's text)
        "plain text then \u0100\u200b\u0301",
        "plain text then \U0001f600\u200b\u0301 end",
        "caf\u00e9\u200b\u0301 \u00e9\u200b\u0301",
        "\u4e00\u200b\u3099 and \u30ab\u200b\u3099",
        EXPANSIONS,
    ],
)
def test_tricky_texts_are_identical(ext: ModuleType, text: str) -> None:
    assert differences(ext, [text]) == []


def test_generated_corpus_is_identical(ext: ModuleType) -> None:
    texts = cases(20261130, 3000)
    assert sum(map(len, texts)) > 100_000
    assert differences(ext, texts) == []


def test_generated_bmp_corpus_is_identical(ext: ModuleType) -> None:
    """No character outside the BMP: the builder stays one or two bytes wide, where the C core folds a
    run while it scans it (scan_run) and cuts it at special characters and dropped spaces."""
    texts = cases(20261202, 3000, bmp=True)
    assert sum(map(len, texts)) > 100_000 and not any(max(t, default=" ") >= "\U00010000" for t in texts)
    assert differences(ext, texts) == []


# runs the C core folds while scanning: cut at a special character (a ligature, an ellipsis, an
# expansion longer than the room left), at a space dropped between CJK characters or full-width
# brackets, widened from ASCII to Latin-1 to two bytes mid-run, ended by a hyphenated line break
# right after such a cut, started or ended by a space, and past the length where the GIL is released
_RUNS = [
    "the \ufb01rst result \u2026 and \ufb02ow",
    "\u65e5\u672c \u8a9e \u306e text \u65e5 \u672c",
    "ab \uff08\u6ce8 \uff09 cd \uff08 x \uff09",
    "plain caf\u00e9 then \u65e5\u672c then \u00e9",
    "\ufb01x \u65e5 ab-\ncd and \u2026 ef\u2010\ngh",
    "\u65e5 \u672c-\nab \u65e5 \ufb01-\nxy",
    "\ufdfa" * 40 + " tail of the run " * 3,
    "x\u200b y \u65e5 \u00a8 z \u00b4 ",
    " \u65e5\u672c \u8a9e ",
    "\u3000\u65e5 \u672c\u3000",
]


@pytest.mark.parametrize("text", _RUNS)
def test_runs_folded_while_scanned_are_identical(ext: ModuleType, text: str) -> None:
    assert differences(ext, [text, text * 3, "A" * 5000 + text + " \u65e5" * 2000 + text]) == []


# scan_run's lane (lane_<text width>_<builder width>): printable ASCII, a single space or a line break
# between two of them (not after a hyphen), characters from U+0080 that fold to one that fits the
# builder; where it stops (a space or break next to a non-lane character, a double space, a character
# that stops the run, is special, or is wider than the builder) the per-character loop goes on
_LANE_PIECES = [
    "word", "Z9", "-", ".", ",", " ", "\n", "\n\n", "  ", "-\n", " \n", "\n ", "\t", "\r\n", "\u00e9", "\u00c0",
    "\u65e5\u672c", "\uff08", "\uff09", "\ufb01", "\u2026", "\u200b", "\u00ad\n", "\ufffe", "\u3000", "\u2014", "\u201c",
    "\U0001f4ca", "\u0301", "a-\nb", "x\ny", "\u00e9\n\u00e9", "\u65e5 \u672c", "A \u00e9", "\u00e9 A",
]


def _lane_texts(seed: int, n: int) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        body = "".join(rnd.choice(_LANE_PIECES) if rnd.random() < 0.3 else rnd.choice(["ab", "cd ", "ef\n"])
                       for _ in range(rnd.randint(1, 120)))  # fmt: skip
        # what the builder starts as: ASCII, Latin-1, two bytes, four bytes
        out.append(rnd.choice(["", "\u00e9\n\n", "\u65e5\n\n", "\U0001f4ca\n\n", "\u00e9 ", "\U0001f4ca "]) + body)
    return out


def test_the_ascii_lane_and_where_it_stops_are_identical(ext: ModuleType) -> None:
    texts = _lane_texts(20261207, 4000)
    texts += [t * 60 for t in _lane_texts(7, 40)]  # past the length where the GIL is released
    texts += ["a b", "a\nb", "a-\nb", "a -\nb", "ab\n", "\nab", " ab", "ab ", "a\n\nb", "a  b", "a \u65e5", "\u65e5 a",
              "a\n\u00e9", "\u00e9\na", "a \uff08b\uff09 c", "\U0001f4ca a b\nc", "\u00e9\n\nlorem ipsum.\ndolor sit",
              # the lane takes characters from U+0080, then one too wide for the builder ends the fast way
              "\u65e5\n\nab\u65e5\u672c\U0001f4ca cd", "\u00e9\n\nab\u00e9\u00e8\u65e5 x \u65e5 \u672c",
              "\u00e9\n\nab\u00e9 \u00e8\ufb01 \u65e5 y"]
    assert sum(map(len, texts)) > 200_000
    assert differences(ext, texts) == []


def test_every_whitespace_and_invisible_pair_is_identical(ext: ModuleType) -> None:
    blanks = [chr(c) for c in range(0x110000) if chr(c).isspace()] + list(nmod.INVISIBLE)
    sides = ["a", "-", "調", "（", "）", "ｃ", "，", "1", "\u0301", "\U00020000", ""]
    rng = random.Random(5)
    texts = [
        left + blank + rng.choice(blanks) * rng.randrange(2) + right
        for blank in blanks
        for left in sides
        for right in sides
    ]
    assert differences(ext, texts) == []


def test_every_bmp_character_is_identical_alone_and_after_a_letter(ext: ModuleType) -> None:
    chars = [chr(c) for c in range(0x10000)]
    texts = ["".join(chars[i : i + 64]) for i in range(0, len(chars), 64)]
    texts += ["e" + "".join(chars[i : i + 8]) for i in range(0, len(chars), 8)]
    assert differences(ext, texts) == []


def test_the_trigger_class_is_what_the_core_scans_for() -> None:
    """The C core stops at whitespace other than one ASCII space and at the invisible characters:
    exactly normalize.py's trigger class, for every code point of this Python's Unicode."""
    trigger = getattr(nmod, "_TRIGGER", None)
    if trigger is None:  # the pure-Python scan was restructured: check the definition it documents
        trigger = nmod.re.compile("[" + "".join(c for c in map(chr, range(0x10000)) if c.isspace() and c != " ")
                                  + nmod.re.escape(nmod.INVISIBLE) + "]")  # fmt: skip
    core = {c for c in map(chr, range(0x110000)) if (c.isspace() and c != " ") or c in nmod.INVISIBLE}
    found = {c for c in map(chr, range(0x110000)) if trigger.fullmatch(c)}
    assert found == core
    assert unicodedata.unidata_version  # the tables come from this interpreter's unicodedata


@pytest.fixture(scope="module")
def real_documents(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Texts of the repo's example sources and fixture PDFs, and generated papers, as the loader reads them."""
    tmp = tmp_path_factory.mktemp("realdocs")
    paths = sorted((ROOT / "examples").glob("*/sources/*")) + sorted(
        (ROOT / "tests" / "fixtures").glob("*.pdf")
    )
    paths.append(
        realdocs.paper_pdf(
            tmp / "en.pdf",
            "Journal of Checking 12(3)",
            [
                "Adding an independent verification step reduced the error rate from 12.4% to 3.1% "
                "(\u201cwell-known\u201d effects aside); the \ufb01nal cohort \u2014 1,204 people \u2014 was co-operative.",
            ]
            * 30,
            caption="Figure 1: error rate by week",
            footnote="\u00b9 Data: survey of 2024.",
        )
    )
    paths.append(
        realdocs.paper_pdf(
            tmp / "ja.pdf",
            "調査報告 第３号",
            [
                "生成ＡＩの利用は約４倍に増え、回答者の３０％が「毎日使う」と答えた（２０２４年調査）。",
            ]
            * 20,
            lang="ja",
            caption="図１　利用率の推移",
        )
    )
    paths.append(
        realdocs.aozora_text(tmp / "aozora.txt", ["｜吾輩《わがはい》は猫である。名前はまだ無い。"] * 20)
    )
    config = GateConfig()
    texts = []
    for path in paths:
        try:
            src = load_source(path.stem, str(path), config)
            texts += [src.text, src.hidden_text]
        except SourceError:  # broken.pdf, form_bomb.pdf, invisible_only.pdf: refused by the loader
            pass
        texts.append(path.read_bytes().decode("utf-8", "surrogateescape"))  # the raw file, too
    return [t for t in texts if t]


def test_real_shaped_documents_are_identical(ext: ModuleType, real_documents: list[str]) -> None:
    assert len(real_documents) >= 20
    assert any("調査" in t for t in real_documents) and any("verification" in t for t in real_documents)
    assert differences(ext, real_documents) == []


def test_offsets_map_back_the_same_way(ext: ModuleType, real_documents: list[str]) -> None:
    for text in real_documents[:6]:
        want, got = normalize_py(text), normalize_c(text, ext=ext)
        spans = [(i, i + 7) for i in range(0, len(want.text), max(1, len(want.text) // 50))]
        assert [want.to_original(*s) for s in spans] == [got.to_original(*s) for s in spans]


# ---------------------------------------------------------------- the lazily filled tables
# The C core's fold table starts UNKNOWN and asks _normalize_core.entry once per code point, the
# first time a text holds it (the skeleton's table likewise asks skeleton.raw_of_char).


def _restart(ext: ModuleType) -> None:
    """Start the C core's tables over, as a fresh process has them (no other thread normalizes)."""
    _normalize_core.setup(ext, _CORE_DEFINITIONS)


def test_a_fresh_table_asks_only_for_the_code_points_a_text_holds(ext: ModuleType) -> None:
    asked: list[int] = []

    def fold(cp: int) -> str:
        asked.append(cp)
        return nmod._FOLD[cp]

    counting = _CORE_DEFINITIONS._replace(fold=fold)
    try:
        _normalize_core.setup(ext, counting)
        assert sorted(asked) == list(range(0x80))  # ASCII at setup: its runs are read without a check
        asked.clear()
        text = "The ﬁnal “report” said 調査 grew 30 ％ in Zürich; é\u0301."
        assert key(normalize_c(text, ext=ext)) == key(normalize_py(text))
        # each new BMP code point once (the fold's own characters, ASCII here, are known already)
        assert sorted(asked) == sorted({ord(c) for c in text if ord(c) >= 0x80})
        asked.clear()
        assert key(normalize_c(text * 500, ext=ext)) == key(normalize_py(text * 500))  # long: without the GIL
        assert asked == []
    finally:
        _restart(ext)


def test_fresh_tables_filled_by_threads_at_once_give_the_oracle_s_output(ext: ModuleType) -> None:
    """Long texts are normalized without the GIL: threads meeting the same unknown code points at
    once each take the GIL to fill them; every result is still the pure-Python one."""
    from concurrent.futures import ThreadPoolExecutor

    from claimledger import skeleton

    rng = random.Random(20261201)
    pool = [chr(c) for c in range(0x80, 0x10000) if not 0xD800 <= c <= 0xDFFF]
    texts = []
    for _ in range(8):
        rare = rng.sample(pool, 400)
        words = ["".join(rng.choice(rare) for _ in range(rng.randrange(1, 6))) for _ in range(1200)]
        texts.append(" ".join(rng.choice(("a", "the", w, w + "-\n")) for w in words))
    assert all(len(t) >= 4096 for t in texts)
    want = [key(normalize_py(t)) for t in texts]
    want_skel = [skeleton.of_raw_py(t) for t in texts]
    for _ in range(3):
        _restart(ext)
        skeleton.setup(ext)
        with ThreadPoolExecutor(4) as pool_:
            got = list(pool_.map(lambda t: key(normalize_c(t, ext=ext)), texts))
            got_skel = list(pool_.map(lambda t: skeleton.of_raw(t, ext=ext), texts))
        assert got == want
        assert got_skel == want_skel
    _restart(ext)


@pytest.mark.parametrize("length", [40, 10_000])  # with the GIL and without it
def test_a_failing_fold_is_an_error_never_a_wrong_text(ext: ModuleType, length: int) -> None:
    def fold(cp: int) -> str:
        if cp == 0x00E9:
            raise ValueError("no fold for é")
        return nmod._FOLD[cp]

    text = ("x" * length) + " café"
    try:
        _normalize_core.setup(ext, _CORE_DEFINITIONS._replace(fold=fold))
        with pytest.raises(ValueError, match="no fold for é"):
            normalize_c(text, ext=ext)
        with pytest.raises(ValueError, match="no fold for é"):  # the entry stays unknown: asked again
            normalize_c(text, ext=ext)
    finally:
        _restart(ext)
    assert key(normalize_c(text, ext=ext)) == key(normalize_py(text))


def test_a_definition_outside_the_bmp_is_refused_at_setup(ext: ModuleType) -> None:
    try:
        with pytest.raises(Exception, match="Basic Multilingual Plane"):
            _normalize_core.setup(ext, _CORE_DEFINITIONS._replace(invisible=nmod.INVISIBLE + "\U000e0001"))
    finally:
        _restart(ext)


def test_threads_normalizing_first_at_once_set_the_core_up_once(ext: ModuleType) -> None:
    """setup() starts the tables over, so it must never run while another thread's pass reads them:
    in a fresh process, threads that all normalize for the first time at once set the core up once."""
    code = """
import threading, time
from claimledger import _normalize_core as core
from claimledger.normalize import normalize, normalize_py
calls = []
real = core._EXT.setup
core._EXT.setup = lambda *a: (calls.append(1), time.sleep(0.05), real(*a))[2]  # a slow setup: the others wait
text = "".join(chr(c) for c in range(0xA0, 0x3000, 7)) * 3 + " the end"
barrier = threading.Barrier(8)
out = []
def work():
    barrier.wait()
    out.append(normalize(text))
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
want = normalize_py(text)
print(len(calls), all(n.text == want.text and n.norm_start == want.norm_start and n.orig_end == want.orig_end for n in out), len(out))
"""
    env = {k: v for k, v in os.environ.items() if k != "CLAIMLEDGER_PURE_PYTHON"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["1", "True", "8"]
