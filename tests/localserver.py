"""A real HTTP server on 127.0.0.1 for tests: routes map a path to a scripted response."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Server:
    base_url: str
    routes: dict[str, Route]
    hits: dict[str, int]
    request_headers: list[dict[str, str]]

    def url(self, path: str) -> str:
        return self.base_url + path


@contextmanager
def serve(routes: dict[str, Route]) -> Iterator[Server]:
    hits: dict[str, int] = {}
    seen_headers: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits[self.path] = hits.get(self.path, 0) + 1
            seen_headers.append({k.lower(): v for k, v in self.headers.items()})
            route = routes.get(self.path, Route(status=404, body=b"not found"))
            if route.delay:
                time.sleep(route.delay)
            try:
                self.send_response(route.status)
                self.send_header("Content-Type", route.content_type)
                self.send_header("Content-Length", str(len(route.body)))
                for k, v in route.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(route.body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", routes, hits, seen_headers)
    finally:
        httpd.shutdown()
        httpd.server_close()
