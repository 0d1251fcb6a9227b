"""The source index: cached across runs by SHA-256; one pass for all quotes."""

from __future__ import annotations

import contextlib
import random
import shutil
from pathlib import Path

import pytest

from claimledger import GateConfig
from claimledger.checks.quote_scan import nearest_passages, scan_quotes
from claimledger.load.index import _cache_path, index_key, index_source
from claimledger.normalize import normalize_quote

FIX = Path(__file__).parent / "fixtures"


def test_second_load_comes_from_the_cache(tmp_path: Path) -> None:
    cfg = GateConfig(cache_dir=tmp_path / "cache")
    pdf = tmp_path / "s.pdf"
    shutil.copy(FIX / "hyphenated.pdf", pdf)
    cold = index_source("s", str(pdf), cfg)
    warm = index_source("s", str(pdf), cfg)
    assert not cold.from_cache and warm.from_cache
    assert warm.source.text == cold.source.text
    assert warm.primary.text == cold.primary.text
    assert warm.source.page_starts == cold.source.page_starts
    assert warm.primary.to_original(10, 30) == cold.primary.to_original(10, 30)


def test_a_changed_source_is_never_served_stale(tmp_path: Path) -> None:
    cfg = GateConfig(cache_dir=tmp_path / "cache")
    src = tmp_path / "s.txt"
    src.write_text("The first version of the text.")
    index_source("s", str(src), cfg)
    src.write_text("The second version of the text.")
    again = index_source("s", str(src), cfg)
    assert not again.from_cache and "second" in again.source.text


def test_a_tampered_cache_file_is_ignored(tmp_path: Path) -> None:
    cfg = GateConfig(cache_dir=tmp_path / "cache")
    src = tmp_path / "s.txt"
    src.write_text("Errors fell by 37 percent in the trial.")
    index_source("s", str(src), cfg)  # a plain UTF-8 text is cached the second time it is read
    first = index_source("s", str(src), cfg)
    path = _cache_path(cfg, index_key(first.source.sha256, "text/plain", cfg))
    blob = path.read_bytes()
    path.write_bytes(blob.replace(b"37 percent", b"73 percent"))
    again = index_source("s", str(src), cfg)
    assert not again.from_cache and "37 percent" in again.primary.text


def _loader(texts: dict[str, str], cfg: GateConfig, tmp: Path):  # type: ignore[no-untyped-def]
    for sid, text in texts.items():
        (tmp / f"{sid}.txt").write_text(text, "utf-8")
    loads: list[str] = []

    def load(sid: str):  # type: ignore[no-untyped-def]
        loads.append(sid)
        return index_source(sid, str(tmp / f"{sid}.txt"), cfg)

    return load, loads


def test_one_pass_finds_verifies_and_misattributes(tmp_path: Path) -> None:
    cfg = GateConfig(cache_dir=tmp_path / "c")
    load, loads = _loader(
        {"a": "Alpha text says the sky is green today.", "b": "Beta text: 言葉を扱う生成AIは約4倍に増えた。"},
        cfg, tmp_path,
    )  # fmt: skip
    keys = [
        ("a", normalize_quote("the sky is green")),
        ("a", normalize_quote("言葉を扱う生成AIは約4倍")),
        ("b", normalize_quote("生成AIは約4倍に増えた")),
    ]
    results = scan_quotes(keys, load, ["a", "b"])
    assert results[keys[0]].found is not None
    assert results[keys[1]].found is None and results[keys[1]].elsewhere is not None
    assert results[keys[1]].elsewhere.source == "b"
    assert results[keys[2]].found is not None
    assert loads.count("a") <= 2 and loads.count("b") <= 2


def test_seed_and_extend_finds_the_near_miss_in_a_long_source(tmp_path: Path) -> None:
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "sigma", "omega", "kappa", "theta", "zeta", "rho"]
    filler = " ".join(rng.choice(words) for _ in range(120_000))  # ~700k characters
    needle = "adding an independent verification step reduced errors by 37 percent"
    text = filler[:300_000] + " " + needle + " " + filler[300_000:]
    cfg = GateConfig(cache_dir=tmp_path / "c")
    (tmp_path / "big.txt").write_text(text)
    ix = index_source("big", str(tmp_path / "big.txt"), cfg)
    mutated = normalize_quote("adding an independent verification step reduced errors by 73 percent")
    near = nearest_passages([mutated], ix)
    ev, score, passage = near[0]
    assert "37 percent" in passage and score > 90
    assert ev.text.endswith("37 percent")


def test_an_entry_is_one_file_written_once_and_a_torn_one_is_rebuilt(tmp_path: Path) -> None:
    """The index entry is one file (payload, header, trailer) put in place by one rename; a file cut
    short (a power loss after the rename, a full disk) fails its checks and is rebuilt."""
    from claimledger.load.index import _cache_path

    cfg = GateConfig(cache_dir=tmp_path / "cache")
    src = tmp_path / "s.txt"
    src.write_text("Errors fell by 37 percent in the trial. 試験では誤りが37％減った。", "utf-8")
    index_source("s", str(src), cfg)  # a plain UTF-8 text is cached the second time it is read
    first = index_source("s", str(src), cfg)
    entry = _cache_path(cfg, index_key(first.source.sha256, "text/plain", cfg))
    # no second file, no temporary left
    assert [p.name for p in entry.parent.iterdir()] == [entry.name]
    assert index_source("s", str(src), cfg).from_cache
    blob = entry.read_bytes()
    for cut in (len(blob) - 3, len(blob) // 2, 10):
        entry.write_bytes(blob[:cut])
        again = index_source("s", str(src), cfg)
        assert not again.from_cache and again.primary.text == first.primary.text
    assert index_source("s", str(src), cfg).from_cache  # rebuilt whole


def test_a_run_writes_its_entries_in_the_background_and_waits_when_it_closes(tmp_path: Path) -> None:
    from claimledger.checks.context import RunContext
    from claimledger.load.index import _cache_path
    from claimledger.model.claim import Ledger

    for sid in ("a", "b"):
        (tmp_path / f"{sid}.txt").write_text(f"Source {sid}: the sky is green today.", "utf-8")
    cfg = GateConfig(cache_dir=tmp_path / "cache")
    for sid in ("a", "b"):  # a plain UTF-8 text is cached the second time it is read
        index_source(sid, str(tmp_path / f"{sid}.txt"), cfg)
    ctx = RunContext.create(Ledger(version=1, sources={"a": "a.txt", "b": "b.txt"}, claims=[]), tmp_path, cfg)
    loaded = [ctx.source("a"), ctx.source("b")]
    assert ctx._writer is not None
    ctx.close()
    assert ctx._writer is None
    for ix in loaded:
        assert not isinstance(ix, Exception)
        assert _cache_path(cfg, index_key(ix.source.sha256, "text/plain", cfg)).exists()
        assert index_source(ix.source.id, ix.source.origin, cfg).from_cache


def test_a_cache_that_cannot_be_written_changes_nothing_in_a_run(tmp_path: Path) -> None:
    from claimledger.checks.context import RunContext
    from claimledger.model.claim import Ledger

    (tmp_path / "a.txt").write_text("Source a: the sky is green today.", "utf-8")
    blocked = tmp_path / "cache"
    blocked.mkdir()
    (blocked / "index").write_text("a file where the index folder belongs", "utf-8")
    ctx = RunContext.create(Ledger(version=1, sources={"a": "a.txt"}, claims=[]), tmp_path,
                            GateConfig(cache_dir=blocked))  # fmt: skip
    key = ("a", normalize_quote("the sky is green"))
    got = scan_quotes([key], ctx.source, ["a"], uncited=ctx.uncited_source, ahead=ctx.read_ahead)
    ctx.close()  # the failed write is not an error
    assert got[key].found is not None


def test_a_plain_utf8_source_is_cached_without_its_text(tmp_path: Path) -> None:
    """A plain-text source whose text is its UTF-8 decoding (with or without BOM) is stored without
    that text (the warm run decodes the bytes it reads for the key); other readings keep their copy.
    Warm and cold readings are the same either way."""
    import json
    import struct

    cfg = GateConfig(cache_dir=tmp_path / "cache")
    cases = {
        "plain.txt": ("Errors fell by 37 percent. 試験では誤りが37％減った。😀".encode(), True),
        "bom.txt": "\ufeffWith a byte-order mark: ﬁne.".encode(),
        "sjis.txt": ("Shift_JIS: 誤りが減った。".encode("cp932"), False),
        "utf16.txt": ("UTF-16: 誤りが減った。".encode("utf-16"), False),
        "aozora.txt": ("｜漢字《かんじ》と｜仮名《かな》の本文。".encode(), False),
        "notes.md": (b"# Title\n\nSome *markdown* text.", False),
    }
    for name, case in cases.items():
        data, plain = case if isinstance(case, tuple) else (case, True)
        src = tmp_path / name
        src.write_bytes(data)
        cold = index_source(name, str(src), cfg)
        if plain:  # a cheap reading: cached the second time it is read, loaded from the third on
            assert not index_source(name, str(src), cfg).from_cache
        warm = index_source(name, str(src), cfg)
        assert not cold.from_cache and warm.from_cache
        assert cold.utf8 == warm.utf8 == plain, name
        assert warm.source.text == cold.source.text and warm.primary.text == cold.primary.text
        assert (
            warm.source.annotations == cold.source.annotations and warm.source.anchors == cold.source.anchors
        )
        assert warm.primary.to_original(2, 9) == cold.primary.to_original(2, 9)
        blob = _cache_path(cfg, index_key(cold.source.sha256, cold.source.media_type, cfg)).read_bytes()
        (hlen,) = struct.unpack("<Q", blob[-16:-8])
        header = json.loads(blob[-16 - hlen : -16])
        assert header["text_is_utf8"] is plain and (header["lengths"][0] == 0) is plain, name


def test_the_cache_writer_bounds_the_characters_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries wait for the writer while they hold at most max_chars characters together; one more
    waits for the oldest write; a single entry larger than the bound still goes (alone)."""
    import threading

    from claimledger.load import index as index_module
    from claimledger.load.index import CacheWriter

    release = threading.Event()
    written: list[str] = []

    def slow_store(ix, config, key):  # type: ignore[no-untyped-def]
        release.wait(10)
        written.append(ix.source.id)

    monkeypatch.setattr(index_module, "_store_quietly", slow_store)
    cfg = GateConfig(cache_dir=tmp_path / "cache")
    entries = []
    for sid in ("a", "b", "c"):
        (tmp_path / f"{sid}.txt").write_text(f"Source {sid}: " + "word " * 20, "utf-8")
        entries.append(
            index_source(sid, str(tmp_path / f"{sid}.txt"), GateConfig(cache_dir=None, index_cache=False))
        )
    size = len(entries[0].source.text) + len(entries[0].primary.text)
    writer = CacheWriter(max_chars=2 * size + size // 2)
    key = index_key("0" * 64, "text/plain", cfg)
    writer.put(entries[0], cfg, key)
    writer.put(entries[1], cfg, key)  # two fit: neither waits
    third = threading.Thread(target=writer.put, args=(entries[2], cfg, key))
    third.start()
    third.join(0.3)
    assert third.is_alive() and written == []  # the third waits for the oldest write
    release.set()
    third.join(10)
    writer.close()
    assert written == ["a", "b", "c"]
    big = CacheWriter(max_chars=1)  # every entry is over the bound: each goes alone
    big.put(entries[0], cfg, key)
    big.put(entries[1], cfg, key)
    big.close()
    assert written[3:] == ["a", "b"]


def test_a_cheap_reading_is_cached_the_second_time_it_is_read(tmp_path: Path) -> None:
    """A plain UTF-8 text normalized by the compiled core costs about what its cache entry would to
    load: the first read leaves a row in the index's seen store (no file per source), the second
    writes the entry, the third loads it. The text is the same every time."""
    import sqlite3

    cfg = GateConfig(cache_dir=tmp_path / "cache")
    src = tmp_path / "s.txt"
    src.write_text("Errors fell by 37 percent in the trial. 試験では誤りが37％減った。", "utf-8")
    first = index_source("s", str(src), cfg)
    key = index_key(first.source.sha256, "text/plain", cfg)
    entry = _cache_path(cfg, key)
    assert not first.from_cache and not entry.parent.exists()
    store = entry.parent.parent / "seen.sqlite"
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT key, payload FROM seen").fetchall() == [(key.digest, "")]
    second = index_source("s", str(src), cfg)
    assert not second.from_cache and entry.exists()
    third = index_source("s", str(src), cfg)
    assert third.from_cache
    assert first.primary.text == second.primary.text == third.primary.text


def test_a_run_records_its_sightings_when_it_closes(tmp_path: Path) -> None:
    """In a run the sightings are kept in memory and written in one transaction when the run's
    cache writer closes (after the verdicts); a forged row (its check does not match) is not a
    sighting, and a seen store that cannot be opened means the entry is never written."""
    import hashlib
    import sqlite3

    from claimledger.load.index import CacheWriter
    from claimledger.load.rows import row_check

    cfg = GateConfig(cache_dir=tmp_path / "cache")
    src = tmp_path / "s.txt"
    src.write_text("Errors fell by 37 percent in the trial.", "utf-8")
    key = index_key(hashlib.sha256(src.read_bytes()).hexdigest(), "text/plain", cfg)
    store = _cache_path(cfg, key).parent.parent / "seen.sqlite"
    writer = CacheWriter()
    assert not writer.seen_before(cfg, key)
    assert writer.seen_before(cfg, key)  # read again in the same run
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT * FROM seen").fetchall() == []  # not yet written
    writer.close()
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT key, payload, check_ FROM seen").fetchall() == [
            (key.digest, "", row_check(key.digest, ""))
        ]
        with db:
            db.execute("UPDATE seen SET check_ = ?", ("0" * 64,))  # forged
    assert not CacheWriter().seen_before(cfg, key)
    # a folder where the store's file belongs: never seen, never cached, the reading still right
    other = GateConfig(cache_dir=tmp_path / "other")
    (_cache_path(other, key).parent.parent / "seen.sqlite").mkdir(parents=True)
    for _ in range(3):
        got = index_source("s", str(src), other)
        assert not got.from_cache and got.source.text.startswith("Errors fell")
    assert not _cache_path(other, key).exists()


def test_costly_readings_are_cached_the_first_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HTML, Shift_JIS text (decoded, not the bytes' UTF-8) and, without the compiled normalizer, any
    plain text: their entry is written the first time, as before."""
    from claimledger.load import index as index_module

    cfg = GateConfig(cache_dir=tmp_path / "cache")
    files = {
        "page.html": b"<html><body><p>Errors fell by 37 percent.</p></body></html>",
        "sjis.txt": "誤りが37％減った。".encode("cp932"),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        assert not index_source(name, str(tmp_path / name), cfg).from_cache
        assert index_source(name, str(tmp_path / name), cfg).from_cache, name
    monkeypatch.setattr(index_module, "compiled_core", lambda: False)  # the pure-Python normalizer
    (tmp_path / "plain.txt").write_text("Errors fell by 37 percent.", "utf-8")
    assert not index_source("plain", str(tmp_path / "plain.txt"), cfg).from_cache
    assert index_source("plain", str(tmp_path / "plain.txt"), cfg).from_cache
