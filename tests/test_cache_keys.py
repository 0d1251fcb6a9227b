"""Every cached reading is keyed by everything that shapes it, and checked on read (issue 14, item 1).

The attack: the same bytes read first as plain text (where hidden HTML text is just text) must
never let a later HTML reading of those bytes treat the hidden text as visible.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from claimledger import GateConfig
from claimledger._exceptions import SourceError
from claimledger.load.fetch import UrlCache, fetch_url
from claimledger.load.index import _cache_path, index_key, index_source
from tests.localserver import Route, serve
from tests.surface_data import http_server

ROOT = Path(__file__).parent.parent
KIJI = ROOT / "examples" / "ja" / "sources" / "kiji.html"
HIDDEN_QUOTE = "すべての企業で生産性が2倍になった"  # examples/ja/ledger.yaml Q4: only in hidden text


def _ledger(folder: Path, source: str) -> Path:
    path = folder / f"ledger-{Path(source).suffix[1:]}.yaml"
    path.write_text(
        f"version: 1\nsources:\n  kiji: {source}\nclaims:\n"
        f"  - {{id: Q4, kind: quote, source: kiji, quote: \"{HIDDEN_QUOTE}\"}}\n",
        encoding="utf-8",
    )
    return path


def _check(ledger: Path, cache: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "claimledger", "check", "--ledger", str(ledger), "--format", "json",
         "--cache-dir", str(cache), "-q"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _reason(report: dict[str, Any], claim: str) -> str:
    return next(str(f["reason"]) for f in report["findings"] if f["claim_id"] == claim)


def test_the_same_bytes_read_as_text_first_do_not_poison_the_html_reading_cli(tmp_path: Path) -> None:
    shutil.copy(KIJI, tmp_path / "kiji.html")
    shutil.copy(KIJI, tmp_path / "kiji.txt")  # the same bytes, declared as plain text
    cache = tmp_path / "cache"
    as_text = _check(_ledger(tmp_path, "kiji.txt"), cache)
    assert _reason(as_text, "Q4") == "quote_found"  # as plain text the words are there to read
    as_html = _check(_ledger(tmp_path, "kiji.html"), cache)  # a new process: the cache survived
    assert _reason(as_html, "Q4") == "quote_only_in_hidden_text"
    assert as_html["outcome"] == "FAIL"
    # and the reverse order: the HTML reading does not leak into the text reading
    cache2 = tmp_path / "cache2"
    assert _reason(_check(_ledger(tmp_path, "kiji.html"), cache2), "Q4") == "quote_only_in_hidden_text"
    assert _reason(_check(_ledger(tmp_path, "kiji.txt"), cache2), "Q4") == "quote_found"


def test_the_same_bytes_in_one_inline_http_request_do_not_poison(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    html = KIJI.read_text("utf-8")
    ledger = (
        "version: 1\nclaims:\n"
        f"  - {{id: A, kind: quote, source: plain, quote: \"{HIDDEN_QUOTE}\"}}\n"
        f"  - {{id: Q4, kind: quote, source: kiji, quote: \"{HIDDEN_QUOTE}\"}}\n"
    )
    body = {
        "ledger": {"text": ledger, "format": "yaml"},
        "sources": {"plain": {"text": html, "format": "text"}, "kiji": {"text": html, "format": "html"}},
    }
    with http_server(root, tmp_path) as url:
        for _ in range(2):  # the second request meets a warm cache
            r = httpx.post(url + "/v1/check", json=body, timeout=120)
            assert r.status_code == 200, r.text
            report = r.json()
            assert _reason(report, "A") == "quote_found"
            assert _reason(report, "Q4") == "quote_only_in_hidden_text"


def test_the_key_names_every_input_that_shapes_the_reading() -> None:
    sha = "0" * 64
    base = index_key(sha, "text/html", GateConfig())
    assert index_key(sha, "text/plain", GateConfig()) != base
    assert index_key("1" * 64, "text/html", GateConfig()) != base
    assert index_key(sha, "text/html", GateConfig(max_source_chars=1000)) != base
    assert index_key(sha, "text/html", GateConfig(fetch_timeout=3.0)) == base  # does not shape the text
    fields = json.loads(base.fields_json)
    assert {"bytes_sha256", "media_type", "index_version", "code", "options"} <= set(fields)


def test_an_entry_whose_stored_key_differs_is_ignored_and_rebuilt(tmp_path: Path) -> None:
    """A cache file copied under another key (or a hash collision of the file name) is not trusted."""
    cfg = GateConfig(cache_dir=tmp_path / "cache")
    html = tmp_path / "kiji.html"
    text = tmp_path / "kiji.txt"
    shutil.copy(KIJI, html)
    shutil.copy(KIJI, text)
    index_source("kiji", str(text), cfg)  # a plain UTF-8 text is cached the second time it is read
    as_text = index_source("kiji", str(text), cfg)
    assert HIDDEN_QUOTE in as_text.primary.text
    # plant the text reading's entry where the HTML reading is looked up
    t_entry = _cache_path(cfg, index_key(as_text.source.sha256, "text/plain", cfg))
    h_entry = _cache_path(cfg, index_key(as_text.source.sha256, "text/html", cfg))
    h_entry.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(t_entry, h_entry)
    as_html = index_source("kiji", str(html), cfg)
    assert not as_html.from_cache
    assert HIDDEN_QUOTE not in as_html.primary.text
    assert as_html.hidden is not None and HIDDEN_QUOTE in as_html.hidden
    assert index_source("kiji", str(html), cfg).from_cache  # rebuilt under its own key


def test_url_cache_entries_fetched_under_a_looser_policy_are_not_served(tmp_path: Path) -> None:
    """Bytes fetched with --allow-private-urls never reach a run without it (the entry records its policy)."""
    cache = UrlCache(tmp_path / "cache")
    with serve({"/internal.txt": Route(body="社内限定: 売上は37%増えた".encode())}) as server:
        url = server.url("/internal.txt")
        assert not fetch_url(url, cache=cache, allow_private=True).from_cache
        assert fetch_url(url, cache=cache, allow_private=True).from_cache
        with pytest.raises(SourceError) as refused:
            fetch_url(url, cache=cache, allow_private=False)
        assert refused.value.reason == "source_url_refused"
        # an entry is for its own URL only, and only within the run's size limit
        meta = next((tmp_path / "cache" / "urls").iterdir())
        other = server.url("/other.txt")
        shutil.copy(meta, cache._meta_path(other))
        with pytest.raises(SourceError) as missing:
            fetch_url(other, cache=cache, allow_private=True)
        assert missing.value.reason == "source_not_found"
        with pytest.raises(SourceError) as large:
            fetch_url(url, cache=cache, allow_private=True, max_bytes=10)
        assert large.value.reason == "source_too_large"
