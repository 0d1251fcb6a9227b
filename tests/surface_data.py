"""One small workspace for the surface tests (CLI, API, MCP, HTTP): a ledger, an English
and a Japanese source, a CSV, and a draft whose writer set two [V] marks (one is false)."""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SMITH = (
    "Results. In our trial, adding an independent verification step reduced errors by 37 percent across all\n"
    "sites, and reviewers reported less fatigue.\n"
)
SHOKUSHU = (
    "# 職種の移り変わり調査\n\n"
    "調査によれば、この1年で職種を変えた人は、回答者全体の12％だった。転職を考えている人はさらに多い。\n"
)
DAILY_CSV = "day,clicks\n2024-01-01,400\n2024-01-02,802\n"

LEDGER = textwrap.dedent("""\
    version: 1
    sources:
      smith: sources/smith.txt
      shokushu: sources/shokushu.md
    datasets:
      daily: data/daily.csv
    claims:
      - id: C1
        kind: quote
        source: smith
        quote: "adding an independent verification step reduced errors by 37 percent"
      - id: C2
        kind: quote
        source: smith
        quote: "adding an independent verification step reduced errors by 73 percent"
      - id: J1
        kind: quote
        source: shokushu
        quote: "この1年で職種を変えた人は、回答者全体の12％だった"
      - id: N1
        kind: number
        sql: "SELECT sum(clicks) FROM daily"
        value: "1,202"
    """)

# the writer marked both quotations [V]; the Japanese one says 15％ where the source says 12％
DRAFT = (
    "# Digest\n\n"
    "Smith found that “adding an independent verification step reduced errors by 37 percent”[V] [@smith].\n"
    "調査によれば「この1年で職種を変えた人は、回答者全体の15％だった」[V] [@shokushu]。\n"
)
MARKED = DRAFT.replace("15％だった」[V]", "15％だった」[D]")

JA_QUOTE = "この1年で職種を変えた人は、回答者全体の12％だった"
SECRET = "the outside secret sentence that must never be read by the server"


def make_workspace(root: Path) -> Path:
    """Write the workspace into ``root`` and return it."""
    (root / "sources").mkdir(parents=True, exist_ok=True)
    (root / "data").mkdir(exist_ok=True)
    (root / "sources" / "smith.txt").write_text(SMITH, encoding="utf-8")
    (root / "sources" / "shokushu.md").write_text(SHOKUSHU, encoding="utf-8")
    (root / "data" / "daily.csv").write_text(DAILY_CSV, encoding="utf-8")
    (root / "ledger.yaml").write_text(LEDGER, encoding="utf-8")
    (root / "draft.md").write_text(DRAFT, encoding="utf-8")
    return root


def hostile_layout(base: Path) -> tuple[Path, Path]:
    """The workspace under base/root, plus a secret outside it reached by `..`, an absolute path,
    a symlink and ledgers that declare it; a URL ledger, an invalid ledger and an out/ folder."""
    root = make_workspace(base / "root")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (outside / "ledger.yaml").write_text(
        f"version: 1\nsources: {{s: secret.txt}}\nclaims:\n  - {{id: S, kind: quote, source: s, quote: {SECRET!r}}}\n",
        encoding="utf-8",
    )
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "evil.yaml").write_text(
        f"version: 1\nsources: {{s: {outside / 'secret.txt'}}}\nclaims:\n"
        f"  - {{id: S, kind: quote, source: s, quote: {SECRET!r}}}\n",
        encoding="utf-8",
    )
    (root / "sub").mkdir()
    (root / "sub" / "evil.yaml").write_text(
        f"version: 1\nsources: {{s: ../../outside/secret.txt}}\nclaims:\n"
        f"  - {{id: S, kind: quote, source: s, quote: {SECRET!r}}}\n",
        encoding="utf-8",
    )
    (root / "url.yaml").write_text(
        "version: 1\nsources: {w: 'https://example.org/paper.html'}\nclaims:\n"
        "  - {id: W, kind: quote, source: w, quote: 'a sentence from the web page'}\n",
        encoding="utf-8",
    )
    (root / "bad.yaml").write_text("version: 1\nclaims:\n  - {id: X, kind: quote}\n", encoding="utf-8")
    (root / "out").mkdir()
    return root, outside


def finding_keys(envelope: dict[str, object]) -> list[tuple[object, ...]]:
    """What must be the same on every surface: each finding's id, status, tier, reason and evidence."""
    findings = envelope["findings"]
    assert isinstance(findings, list)
    return [
        (f["claim_id"], f["check"], f["status"], f["tier"], f["reason"], f["evidence"], f["nearest"], f["diff"],
         f["expected"], f["claimed"])
        for f in findings
    ]  # fmt: skip


def without_paths(value: object) -> object:
    """The reproducibility block without the keys that name paths (which differ by surface)."""
    if isinstance(value, dict):
        return {k: without_paths(v) for k, v in value.items() if k not in ("path", "origin")}
    if isinstance(value, list):
        return [without_paths(v) for v in value]
    return value


def free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def http_server(root: Path, work: Path, *args: str, tls_ca: str | None = None) -> Iterator[str]:
    """`claimledger serve --root ROOT` as a real process on 127.0.0.1; yields its base URL, then stops it.

    With ``tls_ca`` (the CA file that signed the server's ``--tls-cert``) the URL is https and the
    readiness probe verifies the certificate against it."""
    import httpx

    (work / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "CLAIMLEDGER_CACHE_DIR": str(work / "cache"), "TMPDIR": str(work / "tmp")}
    for attempt in range(3):
        port = free_port()
        log = (work / f"serve-{attempt}.log").open("w")
        proc = subprocess.Popen(
            [sys.executable, "-m", "claimledger", "serve", "--root", str(root), "--host", "127.0.0.1",
             "--port", str(port), *args],
            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=work,
        )  # fmt: skip
        base = f"{'https' if tls_ca else 'http'}://127.0.0.1:{port}"
        verify: ssl.SSLContext | bool = ssl.create_default_context(cafile=tls_ca) if tls_ca else True
        try:
            deadline, ready = time.monotonic() + 30, False
            while not ready and time.monotonic() < deadline and proc.poll() is None:
                try:
                    ready = httpx.get(base + "/healthz", timeout=1, verify=verify).status_code == 200
                except httpx.TransportError:
                    time.sleep(0.1)
            if proc.poll() is not None:
                continue  # the port was taken between the probe and the bind: try another
            if not ready:
                raise RuntimeError("claimledger serve did not answer /healthz within 30 s")
            yield base
            return
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
            log.close()
    raise RuntimeError(f"claimledger serve did not start: {(work / 'serve-2.log').read_text()}")
