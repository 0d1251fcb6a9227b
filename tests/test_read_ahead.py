"""Sources in parallel (issue 19 item 4): the quote scan reads the next source on a second thread
while it scans the current one, and the C core normalizes long texts without the GIL.

The results must be those of the sequential scan (same verdicts, same evidence, the same facts in
the same order, errors reported the same way), the compiled core must give the same output from
several threads at once, and a source above the read-ahead limit is never read ahead (never two
of the largest sources in memory at once).
"""

from __future__ import annotations

import random
import shutil
import threading
from pathlib import Path
from types import ModuleType

import pytest

from claimledger import GateConfig, skeleton
from claimledger import _normalize_core as core
from claimledger.checks import context as context_mod
from claimledger.checks.context import RunContext
from claimledger.checks.quote_scan import QuoteResult, scan_quotes
from claimledger.model.claim import Ledger
from claimledger.normalize import Normalized, normalize_c, normalize_py, normalize_quote
from tests.normalize_cases import cases

FIX = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def ext() -> ModuleType:
    try:
        return core.load_extension()
    except ImportError as exc:  # pragma: no cover - the message is the point
        pytest.fail(f"the C core claimledger._cnormalize is not built ({exc}): `pip install -e .`")


def _key(n: Normalized) -> tuple[str, list[int], list[int], list[int], bytes]:
    return n.text, n.norm_start.tolist(), n.orig_start.tolist(), n.orig_end.tolist(), bytes(n.linear)


def _long_texts() -> list[str]:
    """Texts far above the length from which the C core releases the GIL, made of the generated
    special cases (astral characters and combining marks included: the core takes the GIL back)."""
    parts = cases(20261202, 3000)
    return ["".join(parts[i : i + 250]) for i in range(0, 3000, 250)]


def test_the_core_without_the_gil_equals_pure_python(ext: ModuleType) -> None:
    texts = _long_texts()
    assert all(len(t) > 8192 for t in texts)
    assert any(ord(c) > 0xFFFF for c in "".join(texts))  # the Python calls inside are exercised
    for text in texts:
        for keep in (False, True):
            assert _key(normalize_c(text, keep, ext=ext)) == _key(normalize_py(text, keep_break_hyphens=keep))
        assert skeleton.of_raw(text, ext=ext) == skeleton.of_raw_py(text)


def test_threads_normalizing_at_once_get_the_sequential_results(ext: ModuleType) -> None:
    texts = _long_texts()
    want = [(_key(normalize_c(t, False, ext=ext)), skeleton.of_raw(t, ext=ext)) for t in texts]
    got: dict[int, list[object]] = {}

    def work(i: int) -> None:
        got[i] = [(_key(normalize_c(t, False, ext=ext)), skeleton.of_raw(t, ext=ext)) for t in texts]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[i] == want for i in range(4))


TEXTS = {
    "a": "Alpha says the sky is green today. 調査では約4倍に増えた。",
    "b": "Beta: adding an independent verification step reduced errors by 37 percent.",
    "c": "Gamma is about something else entirely, with no quote in it.",
    "d": "Delta holds the Japanese one: 言葉を扱う生成AIは約4倍に増えた。",
    "e": "   \n",  # no readable text: source_no_text, read ahead or not
    "f": "Foxtrot repeats: the sky is green today, and errors fell.",
}


def _scan(tmp: Path, monkeypatch: pytest.MonkeyPatch, read_ahead: bool) -> tuple[dict[object, QuoteResult], object]:
    monkeypatch.setattr(context_mod, "READ_AHEAD", read_ahead)
    monkeypatch.setattr(context_mod, "READ_AHEAD_MIN_BYTES", 0)  # small files here: read them ahead too
    submitted: list[str] = []
    original = context_mod.RunContext.read_ahead

    def counting(self: RunContext, source_id: str, keep: object = None, then: object = None) -> None:
        before = set(self._ahead)
        original(self, source_id, keep, then)  # type: ignore[arg-type]
        submitted.extend(set(self._ahead) - before)

    monkeypatch.setattr(context_mod.RunContext, "read_ahead", counting)
    folder = tmp / ("ahead" if read_ahead else "sequential")
    folder.mkdir()
    for sid, text in TEXTS.items():
        (folder / f"{sid}.txt").write_text(text, "utf-8")
    shutil.copy(FIX / "hyphenated.pdf", folder / "p.pdf")
    sources = {sid: f"{sid}.txt" for sid in TEXTS} | {"p": "p.pdf"}
    ctx = RunContext.create(Ledger(version=1, sources=sources, claims=[]), folder, GateConfig(cache_dir=folder / "c"))
    keys = [
        ("a", normalize_quote("the sky is green")),
        ("a", normalize_quote("independent verification step reduced errors")),
        ("a", normalize_quote("言葉を扱う生成AIは約4倍")),
        ("c", normalize_quote("reduced errors by 73 percent")),
        ("e", normalize_quote("anything at all here")),
        ("b", normalize_quote("the sky is green today")),
    ]
    try:
        found = scan_quotes(keys, ctx.source, list(sources), uncited=ctx.uncited_source, ahead=ctx.read_ahead)
        facts = [(sid, f.sha256, f.media_type, f.error.reason if f.error else None)
                 for sid, f in ctx.source_facts().items()]  # fmt: skip
    finally:
        ctx.close()
    assert ctx._pool is None and not ctx._ahead  # the read-ahead thread is gone after close()
    assert bool(submitted) == read_ahead  # with read-ahead on, sources were really read ahead
    return found, facts  # type: ignore[return-value]


def _plain(results: dict[object, QuoteResult]) -> dict[object, tuple[object, ...]]:
    def span(ev: object) -> object:
        return None if ev is None else (ev.source, ev.start, ev.end, ev.text)  # type: ignore[attr-defined]

    return {k: (span(r.found), span(r.elsewhere), r.in_hidden, r.error.reason if r.error else None)
            for k, r in results.items()}  # fmt: skip


def test_read_ahead_gives_the_sequential_results_and_facts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sequential, seq_facts = _scan(tmp_path, monkeypatch, read_ahead=False)
    ahead, ahead_facts = _scan(tmp_path, monkeypatch, read_ahead=True)
    assert _plain(ahead) == _plain(sequential)
    assert ahead_facts == seq_facts
    found = _plain(ahead)
    assert found[("a", normalize_quote("independent verification step reduced errors"))][1][0] == "b"
    assert found[("a", normalize_quote("言葉を扱う生成AIは約4倍"))][1][0] == "d"
    assert found[("e", normalize_quote("anything at all here"))][3] == "source_no_text"


def test_a_source_above_the_limit_is_never_read_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_mod, "READ_AHEAD", True)
    monkeypatch.setattr(context_mod, "READ_AHEAD_MAX_BYTES", 100)
    monkeypatch.setattr(context_mod, "READ_AHEAD_MIN_BYTES", 10)
    (tmp_path / "small.txt").write_text("A small source.", "utf-8")
    (tmp_path / "tiny.txt").write_text("Tiny.", "utf-8")
    (tmp_path / "large.txt").write_text("A large source. " * 20, "utf-8")
    ledger = Ledger(version=1, sources={"small": "small.txt", "large": "large.txt", "tiny": "tiny.txt",
                                        "web": "https://example.org/x"},
                    claims=[])  # fmt: skip
    ctx = RunContext.create(ledger, tmp_path, GateConfig(cache_dir=tmp_path / "c"))
    try:
        ctx.read_ahead("large")
        ctx.read_ahead("web")
        ctx.read_ahead("tiny")
        assert not ctx._ahead
        ctx.read_ahead("small")
        assert set(ctx._ahead) == {"small"}
        got = ctx.source("small")
        assert not isinstance(got, Exception) and got.source.text == "A small source."
        assert not ctx._ahead
    finally:
        ctx.close()


def test_the_sizes_are_read_once_before_any_reading_thread_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read-ahead budget's file sizes are stat'ed all at once, at the first read-ahead, while
    no reading thread runs: a stat on the main thread during the scan waited for the GIL. A file
    missing then is read in turn, where its error is reported."""
    monkeypatch.setattr(context_mod, "READ_AHEAD", True)
    monkeypatch.setattr(context_mod, "READ_AHEAD_MIN_BYTES", 10)
    for sid in ("a", "b", "c"):
        (tmp_path / f"{sid}.txt").write_text(f"Source {sid}, a few bytes of plain text.", "utf-8")
    ledger = Ledger(version=1, sources={"a": "a.txt", "b": "b.txt", "c": "c.txt", "gone": "gone.txt",
                                        "web": "https://example.org/x"},
                    claims=[])  # fmt: skip
    ctx = RunContext.create(ledger, tmp_path, GateConfig(cache_dir=tmp_path / "cache"))
    stats: list[tuple[str, bool]] = []
    real_stat = context_mod.os.stat

    def counting(path: str, *args: object, **kwargs: object) -> object:
        stats.append((Path(path).name, ctx._pool is not None))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(context_mod.os, "stat", counting)
    try:
        for sid in ("a", "gone", "b", "c", "web"):
            ctx.read_ahead(sid)
        assert sorted(name for name, _ in stats) == ["a.txt", "b.txt", "c.txt", "gone.txt"]
        assert not any(pool_running for _, pool_running in stats)
        assert set(ctx._ahead) == {"a", "b", "c"}
        gone = ctx.source("gone")
        assert isinstance(gone, Exception) and gone.reason == "source_file_missing"
        for sid in ("a", "b", "c"):
            got = ctx.source(sid)
            assert not isinstance(got, Exception) and got.source.text.startswith(f"Source {sid},")
    finally:
        ctx.close()


def test_files_read_ahead_and_not_taken_stay_within_the_byte_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two reading threads, but the files read ahead and not yet taken never hold more than
    READ_AHEAD_MAX_BYTES together: a second file is read ahead only once there is room for it."""
    monkeypatch.setattr(context_mod, "READ_AHEAD", True)
    monkeypatch.setattr(context_mod, "READ_AHEAD_MAX_BYTES", 100)
    monkeypatch.setattr(context_mod, "READ_AHEAD_MIN_BYTES", 10)
    assert context_mod.READ_AHEAD_WORKERS == 2  # the machines have two cores or more
    texts = {"a": "Source a, sixty bytes long, more or less of plain text. " * 1,
             "b": "Source b, also about sixty bytes of plain text to read. " * 1,
             "c": "Source c: twenty b."}  # fmt: skip
    for sid, text in texts.items():
        (tmp_path / f"{sid}.txt").write_text(text, "utf-8")
    ledger = Ledger(version=1, sources={sid: f"{sid}.txt" for sid in texts}, claims=[])
    ctx = RunContext.create(ledger, tmp_path, GateConfig(cache_dir=tmp_path / "cache"))
    try:
        ctx.read_ahead("a")
        ctx.read_ahead("b")  # 56 + 56 bytes > 100: no room while a waits
        ctx.read_ahead("c")  # 56 + 19 bytes: room
        assert set(ctx._ahead) == {"a", "c"}
        assert sum(size for _, _, size in ctx._ahead.values()) <= 100
        got = ctx.source("a")
        assert not isinstance(got, Exception) and got.source.text == texts["a"]
        ctx.read_ahead("b")  # a was taken: room now
        assert set(ctx._ahead) == {"b", "c"}
        for sid in ("c", "b"):
            got = ctx.source(sid)
            assert not isinstance(got, Exception) and got.source.text == texts[sid]
        assert not ctx._ahead
    finally:
        ctx.close()


def test_the_scan_offers_the_next_sources_to_both_reading_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cited sources and uncited ones alike: while the scan waits for source i (read ahead), it has
    offered sources i + 1 and i + 2 (AHEAD_DEPTH), so both reading threads have one to read; the
    results are the sequential ones."""
    from claimledger.checks import quote_scan

    monkeypatch.setattr(context_mod, "READ_AHEAD", True)
    monkeypatch.setattr(context_mod, "READ_AHEAD_MIN_BYTES", 0)
    assert quote_scan.AHEAD_DEPTH == 2
    most = [0]
    original = context_mod.RunContext.read_ahead

    def watching(self: RunContext, source_id: str, keep: object = None, then: object = None) -> None:
        original(self, source_id, keep, then)  # type: ignore[arg-type]
        most[0] = max(most[0], len(self._ahead))

    monkeypatch.setattr(context_mod.RunContext, "read_ahead", watching)
    sources = {f"s{i}": f"s{i}.txt" for i in range(8)}
    for i in range(8):
        (tmp_path / f"s{i}.txt").write_text(f"Source {i} says the river rose by {i} metres in spring.", "utf-8")
    ledger = Ledger(version=1, sources=sources, claims=[])
    keys = [("s0", normalize_quote("the river rose by 5 metres")), ("s1", normalize_quote("rose by 1 metres")),
            ("s2", normalize_quote("nowhere at all in these sources"))]  # fmt: skip
    ctx = RunContext.create(ledger, tmp_path, GateConfig(cache_dir=tmp_path / "cache"))
    try:
        found = scan_quotes(keys, ctx.source, list(sources), uncited=ctx.uncited_source, ahead=ctx.read_ahead)
    finally:
        ctx.close()
    assert most[0] == 1 + quote_scan.AHEAD_DEPTH
    assert found[keys[0]].found is None and found[keys[0]].elsewhere is not None  # in s5, misattributed
    assert found[keys[1]].found is not None
    assert found[keys[2]].found is None and found[keys[2]].elsewhere is None


def _long_corpus(rng: random.Random, folder: Path) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Four sources of ~70k characters (above the near-miss search's full-text limit), English and
    Japanese, and 120 quotes citing them: verbatim, mutated (a word changed), from another source."""
    phrase = "the model reduced errors by 37 percent in the 2019 trial while data show it grows about four times"
    words = [*phrase.split(" "), "under", "some", "conditions", "言葉を扱う生成AIは約4倍に増えた", "一部の地域に限られる"]
    # a passage in every source: its quotes are found (elsewhere) in s0 before the source they cite,
    # so they are muted when that source is scanned ahead, and looked for there all the same
    shared = "".join(f"shared passage {k}: the model reduced errors by {k} percent in the trial.\n" for k in range(40))
    shared += "and a well-\nknown result of the trial was reported by the team.\n"  # a line-break hyphen
    texts = {}
    for i in range(4):
        parts = []
        while sum(map(len, parts)) < 70_000:
            parts.append(" ".join(rng.choice(words) for _ in range(rng.randint(8, 20))) + f" {rng.randint(0, 10**6)}.\n")
        texts[f"s{i}"] = "".join(parts) + shared
        (folder / f"s{i}.txt").write_text(texts[f"s{i}"], "utf-8")
    keys = []
    for n in range(120):
        sid = f"s{n % 4}"
        src = texts[f"s{rng.randrange(4)}"] if n % 5 == 0 else texts[sid]  # a fifth from another source
        at = src.index(" ", rng.randrange(len(src) - 200)) + 1  # whole words
        quote = src[at : src.rindex(" ", at, at + rng.randint(30, 120))]
        if n % 3 == 1:  # mutated: a near miss
            quote = quote.replace("the", "a", 1).replace("の", "が", 1)
        keys.append((sid, normalize_quote(quote)))
    keys += [(f"s{1 + k % 3}", normalize_quote(f"shared passage {k}: the model reduced errors by {k} percent"))
             for k in range(10, 40)]  # fmt: skip
    keys += [(f"s{k}", normalize_quote("a well-known result of the trial was reported")) for k in range(4)]
    for n in range(24):  # elided quotes, a third with a changed last segment (not found)
        sid = f"s{n % 4}"
        src = texts[sid]
        at = src.index(" ", rng.randrange(len(src) - 400)) + 1
        head = src[at : src.rindex(" ", at, at + 40)]
        b = src.index(" ", at + 120) + 1
        tail = src[b : src.rindex(" ", b, b + 40)]
        keys.append((sid, normalize_quote(f"{head} [...] {tail if n % 3 else tail + ' zebra'}")))
    return {sid: f"{sid}.txt" for sid in texts}, keys


def test_the_passes_run_ahead_give_the_sequential_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The verbatim scan's compiled passes and the near-miss seed search run on the reading thread
    that indexed a cited source (quote_scan._prescan): same found, elsewhere and nearest passages."""
    from claimledger.checks import quote_scan

    monkeypatch.setattr(context_mod, "READ_AHEAD_MIN_BYTES", 0)
    on_threads = []
    original = quote_scan.piece_starts

    def watching(seeds: list[str], text: str) -> dict[str, list[int]]:
        on_threads.append(threading.current_thread() is not threading.main_thread())
        return original(seeds, text)

    monkeypatch.setattr(quote_scan, "piece_starts", watching)
    got = []
    for read_ahead in (False, True):
        monkeypatch.setattr(context_mod, "READ_AHEAD", read_ahead)
        folder = tmp_path / str(read_ahead)
        folder.mkdir()
        sources, keys = _long_corpus(random.Random(41), folder)
        ctx = RunContext.create(Ledger(version=1, sources=sources, claims=[]), folder, GateConfig(cache_dir=folder / "c"))
        try:
            found = scan_quotes(keys, ctx.source, list(sources), uncited=ctx.uncited_source, ahead=ctx.read_ahead)
        finally:
            ctx.close()
        near = {k: None if r.near is None else (r.near[0].start, r.near[0].end, r.near[1]) for k, r in found.items()}
        got.append((_plain(found), near))
    assert got[0] == got[1]
    plain, near = got[1]
    assert sum(v[0] is not None for v in plain.values()) > 40 and sum(v is not None for v in near.values()) > 20
    assert on_threads and all(on_threads)  # pieces searched ahead, on the reading threads only
    elided = [k for k in found if "[...]" in k[1]]
    assert sum(found[k].elided is not None and found[k].elided.found is not None for k in elided) >= 12
    assert all(found[(f"s{k}", normalize_quote("a well-known result of the trial was reported"))].found for k in range(4))


def test_pieces_searched_ahead_give_the_occurrences_of_the_search_in_turn() -> None:
    """An elided quote's first segment: its places from the starts found ahead (capped) are those
    the search in turn finds (on word boundaries, at most MAX_OCCURRENCES), however short the cap."""
    from claimledger.checks import elisions, quote_scan
    from claimledger.checks.seed_hits import first_hits

    assert max(quote_scan.SEED_MAX_HITS, quote_scan._MAX_ANCHOR_TRIES, elisions.MAX_OCCURRENCES) <= quote_scan.PIECE_CAP
    rng = random.Random(43)
    for _ in range(200):
        text = "".join(rng.choice(["reduced errors ", "reduced errorsX ", "xreduced errors ", "誤りを減らした", "\n"])
                       for _ in range(rng.randint(0, 400)))  # fmt: skip
        seg = rng.choice(["reduced errors", "誤りを減らした", "errors reduced"])
        want = elisions._occurrences(text, seg, 0, len(text))
        for cap in (1, 2, 5, 50, 500):
            assert elisions._first_occurrences(text, seg, first_hits(text, [seg], cap)[0], cap) == want


NEAR_TEXTS = {
    "n1": "The committee reported that independent verification reduced errors by a third in the first year.",
    "n2": "Weather: the morning was cold and the afternoon was warm, with light wind from the west coast.",
    "n3": "調査の結果、生成AIの利用者は三年間で約四倍に増えたと報告書は述べている。",
    "n4": "A long appendix lists every instrument, its calibration date and the person who checked it twice.",
}
NEAR_KEYS = [
    ("n1", normalize_quote("independent verification reduced errors by a half in the first year")),
    ("n2", normalize_quote("the morning was cold and the evening was warm")),
    ("n3", normalize_quote("生成AIの利用者は三年間で約五倍に増えた")),
    ("n4", normalize_quote("its calibration date and the person who checked it once")),
    ("n4", normalize_quote("the morning was cold and the afternoon was warm")),  # found elsewhere (n2)
]


def _near_scan(
    folder: Path, monkeypatch: pytest.MonkeyPatch, read_ahead: bool, memo: bool = False
) -> tuple[dict[object, object], list[str]]:
    """scan_quotes over NEAR_TEXTS: each key's nearest passage (span, text, score) and the threads
    that searched nearest passages."""
    from claimledger.checks import quote_scan
    from claimledger.checks.scan_memo import ScanMemo, memo_path

    monkeypatch.setattr(context_mod, "READ_AHEAD", read_ahead)
    monkeypatch.setattr(context_mod, "READ_AHEAD_MIN_BYTES", 0)
    # the compiled passes, as with many quotes (for a few, a str.find each is used, and the reading
    # thread cannot tell which quotes are missing)
    monkeypatch.setattr(quote_scan.seed_hits, "FIND_FEW", 0)
    searched_on: list[str] = []
    original = getattr(quote_scan.nearest_spans, "__wrapped__", quote_scan.nearest_spans)  # (a second call)

    def recording(quotes: list[str], ix: object, known: object = None) -> object:
        if quotes:
            searched_on.append(threading.current_thread().name)
        return original(quotes, ix, known)  # type: ignore[arg-type]

    recording.__wrapped__ = original  # type: ignore[attr-defined]
    monkeypatch.setattr(quote_scan, "nearest_spans", recording)
    folder.mkdir(exist_ok=True)
    for sid, text in NEAR_TEXTS.items():
        (folder / f"{sid}.txt").write_text(text, "utf-8")
    config = GateConfig(cache_dir=folder / "c")
    sources = {sid: f"{sid}.txt" for sid in NEAR_TEXTS}
    ctx = RunContext.create(Ledger(version=1, sources=sources, claims=[]), folder, config)
    store = ScanMemo(memo_path(folder / "c"), config) if memo else None
    try:
        found = scan_quotes(NEAR_KEYS, ctx.source, list(sources), uncited=ctx.uncited_source,
                            ahead=ctx.read_ahead, memo=store)  # fmt: skip
    finally:
        ctx.close()
        if store is not None:
            store.close()
    plain: dict[object, object] = {}
    for key, r in found.items():
        ev = None if r.near is None else r.near[0]
        plain[key] = (None if r.found is None else r.found.start, None if r.elsewhere is None else r.elsewhere.source,
                      None if ev is None else (ev.start, ev.end, ev.text, r.near[1], r.near[2]))  # type: ignore[index]  # fmt: skip
    return plain, searched_on


def test_nearest_passages_searched_by_the_reading_threads_are_the_sequential_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sequential, seq_threads = _near_scan(tmp_path / "seq", monkeypatch, read_ahead=False)
    ahead, ahead_threads = _near_scan(tmp_path / "ahead", monkeypatch, read_ahead=True)
    assert ahead == sequential
    assert all(r[2] is not None for k, r in sequential.items() if k != NEAR_KEYS[-1])  # four near misses
    assert sequential[NEAR_KEYS[-1]][1] == "n2" and sequential[NEAR_KEYS[-1]][2] is None  # misattributed
    assert set(seq_threads) == {threading.current_thread().name}
    # the sources after the first are read ahead, and their nearest passages searched there
    assert any(name.startswith("claimledger-read-ahead") for name in ahead_threads)


def test_a_warm_memo_answers_the_nearest_passages_and_no_thread_searches_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold, cold_threads = _near_scan(tmp_path / "m", monkeypatch, read_ahead=True, memo=True)
    assert any(name.startswith("claimledger-read-ahead") for name in cold_threads)
    warm, warm_threads = _near_scan(tmp_path / "m", monkeypatch, read_ahead=True, memo=True)
    assert warm == cold
    assert warm_threads == []  # every answer came from the memo written by the cold run
