"""Sources: text, Markdown, HTML, PDF and URLs, each with its SHA-256."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from claimledger import GateConfig, SourceError
from claimledger.load.fetch import UrlCache, fetch_url
from claimledger.load.html import html_to_text
from claimledger.load.sources import load_source
from claimledger.load.text import markdown_to_text
from tests.localserver import Route, serve

FIX = Path(__file__).parent / "fixtures"
CFG = GateConfig(allow_private_urls=True, fetch_timeout=1.0)


def test_pdf_text_pages_and_hash() -> None:
    path = FIX / "hyphenated.pdf"
    src = load_source("smith", str(path), CFG)
    assert src.media_type == "application/pdf"
    assert src.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert len(src.page_starts) == 2
    assert src.page_of(src.text.index("verifi")) == 1
    assert src.page_of(src.text.index("Page two")) == 2
    assert "\ufffe" in src.text  # PDFium's mark for the hyphenated line break


def test_japanese_pdf() -> None:
    src = load_source("chosa", str(FIX / "japanese.pdf"), CFG)
    assert "言葉を扱う生成AIの業務利用は" in src.text
    assert src.page_of(src.text.index("市場規模")) == 2


def test_broken_pdf_is_a_source_error() -> None:
    with pytest.raises(SourceError) as info:
        load_source("bad", str(FIX / "broken.pdf"), CFG)
    assert info.value.reason == "source_unreadable"


def test_missing_file() -> None:
    with pytest.raises(SourceError) as info:
        load_source("x", "/nonexistent/file.txt", CFG)
    assert info.value.reason == "source_file_missing"


def test_too_large(tmp_path: Path) -> None:
    p = tmp_path / "big.txt"
    p.write_text("x" * 1000)
    with pytest.raises(SourceError) as info:
        load_source("x", str(p), GateConfig(max_source_bytes=100))
    assert info.value.reason == "source_too_large"


def test_what_is_opened_is_what_is_checked_and_read(tmp_path: Path) -> None:
    """A source file is opened once; the open file is checked (a regular file, its size) and read,
    never past --max-source-bytes, whatever the path named before or grows to meanwhile."""
    os.mkfifo(tmp_path / "pipe")  # opening it for reading would wait for a writer: it must not
    with pytest.raises(SourceError) as err:
        load_source("x", str(tmp_path / "pipe"), GateConfig())
    assert err.value.reason == "source_unreadable" and "not a regular file" in str(err.value)
    with pytest.raises(SourceError) as err:
        load_source("x", str(tmp_path), GateConfig())  # a directory
    assert err.value.reason == "source_unreadable" and "not a regular file" in str(err.value)
    # a regular file whose size says 0 and which holds more: /proc files are read, bounded
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0 and len(status.read_bytes()) > 200
    with pytest.raises(SourceError) as err:
        load_source("x", str(status), GateConfig(max_source_bytes=100))
    assert err.value.reason == "source_too_large" and "grew past the limit of 100 bytes" in str(err.value)
    assert "VmRSS" in load_source("x", str(status), GateConfig()).text
    (tmp_path / "exact.txt").write_bytes(b"x" * 100)  # at the limit, not over it
    assert load_source("x", str(tmp_path / "exact.txt"), GateConfig(max_source_bytes=100)).text == "x" * 100


def test_text_encodings(tmp_path: Path) -> None:
    utf8 = tmp_path / "a.txt"
    utf8.write_bytes("\ufeff日本語の本文".encode())
    assert load_source("a", str(utf8), CFG).text == "日本語の本文"
    sjis = tmp_path / "b.txt"
    sjis.write_bytes("日本語の本文".encode("cp932"))
    assert load_source("b", str(sjis), CFG).text == "日本語の本文"


def test_markdown_prose() -> None:
    md = "---\ntitle: x\n---\n# Heading\n\nThe **final** result was [clear](http://x) and `exact`.\n> quoted line\n"
    text = markdown_to_text(md)
    assert "The final result was clear and exact." in text
    assert "title" not in text and "http" not in text
    assert "quoted line" in text


def test_html_visible_and_hidden_text() -> None:
    html = """<html><head><title>T</title><style>p{}</style><script>var secret = 1;</script></head>
    <body><p>Visible &amp; plain.</p><div style="display: none">Hidden one.</div>
    <p hidden>Hidden two.</p><span aria-hidden="true">Hidden three.</span>
    <!-- a comment --><p>日本語も&nbsp;見える。</p></body></html>"""
    visible, hidden = html_to_text(html)
    assert "Visible & plain." in visible
    assert "日本語も\u00a0見える。" in visible
    for h in ("Hidden one.", "Hidden two.", "Hidden three.", "a comment", "secret"):
        assert h not in visible
    assert "Hidden one." in hidden and "a comment" in hidden


def test_url_source_is_fetched_cached_and_hashed(tmp_path: Path) -> None:
    body = b"<html><body><p>Fetched page text, verbatim.</p></body></html>"
    cfg = GateConfig(allow_private_urls=True, cache_dir=tmp_path / "cache", fetch_timeout=2.0)
    with serve({"/page.html": Route(body=body, content_type="text/html")}) as server:
        src = load_source("web", server.url("/page.html"), cfg)
        assert "Fetched page text, verbatim." in src.text
        assert src.sha256 == hashlib.sha256(body).hexdigest()
        assert server.hits["/page.html"] == 1
        assert "authorization" not in server.request_headers[0]
        assert "cookie" not in server.request_headers[0]
        url = server.url("/page.html")
    # the server is gone: the content-addressed cache answers
    again = load_source("web", url, cfg)
    assert again.sha256 == src.sha256


def test_corrupted_cache_entry_is_not_trusted(tmp_path: Path) -> None:
    cache = UrlCache(tmp_path)
    with serve({"/a.txt": Route(body=b"original bytes")}) as server:
        fetched = fetch_url(server.url("/a.txt"), cache=cache, allow_private=True)
        obj = tmp_path / "objects" / hashlib.sha256(fetched.data).hexdigest()
        obj.write_bytes(b"tampered bytes")
        assert cache.get(server.url("/a.txt")) is None
        refetched = fetch_url(server.url("/a.txt"), cache=cache, allow_private=True)
        assert refetched.data == b"original bytes" and server.hits["/a.txt"] == 2


@pytest.mark.parametrize(
    ("route", "reason"),
    [
        (Route(status=404), "source_not_found"),
        (Route(status=403), "source_forbidden"),
        (Route(status=401), "source_forbidden"),
        (Route(status=402), "source_forbidden"),
        (Route(status=503), "source_server_error"),
        (Route(status=429), "source_server_error"),
        (Route(delay=1.5, body=b"late"), "source_timeout"),
        (Route(body=b"\x89PNG", content_type="image/png"), "source_bad_content_type"),
        (Route(status=302, headers={"Location": "/loop"}), "source_server_error"),
    ],
)
def test_url_failures_have_reasons(route: Route, reason: str, tmp_path: Path) -> None:
    cfg = GateConfig(allow_private_urls=True, cache_dir=tmp_path, fetch_timeout=0.5)
    routes = {"/loop": Route(status=302, headers={"Location": "/loop"}), "/x": route}
    with serve(routes) as server, pytest.raises(SourceError) as info:
        load_source("web", server.url("/x"), cfg)
    assert info.value.reason == reason


def test_private_addresses_are_refused_before_connecting(tmp_path: Path) -> None:
    with serve({"/x": Route(body=b"should never be read")}) as server:
        with pytest.raises(SourceError) as info:
            load_source("web", server.url("/x"), GateConfig(cache_dir=tmp_path))
        assert server.hits == {}
    assert info.value.reason == "source_url_refused"
    assert "--allow-private-urls" in info.value.message
