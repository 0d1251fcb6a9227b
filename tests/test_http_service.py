"""The HTTP service as operators run it: bearer token, Host check, worker processes, queue, time limit.

Every test talks to a real `claimledger serve` process on 127.0.0.1. The slow
request is a real DuckDB query that would run until its 30 s SQL limit; the
server's --request-timeout stops it first.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from claimledger.server.http import allowed_host_names, is_loopback
from tests.surface_data import free_port, http_server, make_workspace

TOKEN = "k3y-for-the-test-9f2c1d0e"
SLOW_SQL = "SELECT count(*) FROM range(100000000000) t(i) WHERE hash(i) % 7 = 3"
QUOTE = {"id": "Q", "kind": "quote", "source": "smith", "quote": "reduced errors by 37 percent"}


def slow_body() -> dict[str, Any]:
    ledger = f"version: 1\nclaims:\n  - {{id: N, kind: number, value: 3, sql: {SLOW_SQL!r}}}\n"
    return {"ledger": {"text": ledger, "format": "yaml"}, "datasets": {"d": {"text": "x\n1\n", "format": "csv"}}}


def fast_body() -> dict[str, Any]:
    return {"ledger": "ledger.yaml"}


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("secured")
    root = make_workspace(base / "root")
    (base / "token").write_text(f"  {TOKEN}\n\n", encoding="utf-8")  # surrounding whitespace is stripped
    with http_server(root, base, "--token-file", str(base / "token"), "--workers", "1") as url:
        yield {"url": url, "root": root}


def test_healthz_needs_no_token(secured: dict[str, Any]) -> None:
    r = httpx.get(secured["url"] + "/healthz")
    assert r.status_code == 200 and r.json()["status"] == "ok"


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": TOKEN},
     {"Authorization": f"Basic {TOKEN}"}, {"Authorization": f"Bearer {TOKEN[:-1]}"}, {"Authorization": "Bearer"}],
)  # fmt: skip
def test_every_other_endpoint_answers_401_without_the_right_token(
    secured: dict[str, Any], headers: dict[str, str]
) -> None:
    url = secured["url"]
    answers = [
        httpx.post(url + "/v1/check", json=fast_body(), headers=headers),
        httpx.post(url + "/v1/mark", json={"draft": "draft.md"}, headers=headers),
        httpx.post(url + "/v1/lint", json={"draft": "draft.md"}, headers=headers),
        httpx.post(url + "/v1/audit", json={"draft": "draft.md", "ledger": "ledger.yaml"}, headers=headers),
        httpx.get(url + "/openapi.json", headers=headers),
        httpx.get(url + "/no-such-page", headers=headers),
    ]
    for r in answers:
        assert r.status_code == 401, (r.request.url, r.text)
        assert r.json()["error"]["code"] == "unauthorized"
        assert r.headers["www-authenticate"].startswith("Bearer")
        assert TOKEN not in r.text


def test_the_right_token_is_served(secured: dict[str, Any]) -> None:
    for scheme in ("Bearer", "bearer"):
        r = httpx.post(secured["url"] + "/v1/check", json=fast_body(), headers={"Authorization": f"{scheme} {TOKEN}"})
        assert r.status_code == 200, r.text
        assert r.json()["outcome"] in {"PASS", "PARTIAL", "FAIL"}


def test_the_host_check_stays_on_with_a_token(secured: dict[str, Any]) -> None:
    r = httpx.post(secured["url"] + "/v1/check", json=fast_body(),
                   headers={"Authorization": f"Bearer {TOKEN}", "Host": "attacker.example"})  # fmt: skip
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"


def test_the_token_can_come_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_workspace(tmp_path / "root")
    monkeypatch.setenv("CLAIMLEDGER_TOKEN", f" {TOKEN} ")
    with http_server(root, tmp_path, "--workers", "1") as url:
        assert httpx.post(url + "/v1/check", json=fast_body()).status_code == 401
        ok = httpx.post(url + "/v1/check", json=fast_body(), headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200


def _serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    clean = {k: v for k, v in os.environ.items() if k != "CLAIMLEDGER_TOKEN"} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "claimledger", "serve", "--root", str(root), "--port", str(free_port()), *args],
        capture_output=True, text=True, timeout=60, env=clean,
    )  # fmt: skip


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.org"])
def test_beyond_loopback_it_refuses_to_start_without_a_token(tmp_path: Path, host: str) -> None:
    done = _serve(tmp_path, "--host", host)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--token-file" in lines[0] and "CLAIMLEDGER_TOKEN" in lines[0]
    assert "Traceback" not in done.stderr


def test_an_empty_token_file_or_a_wildcard_host_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").write_text("  \n")
    done = _serve(tmp_path, "--host", "0.0.0.0", "--token-file", str(tmp_path / "empty"))
    assert done.returncode == 2 and "empty" in done.stderr
    (tmp_path / "token").write_text(TOKEN)
    done = _serve(tmp_path, "--token-file", str(tmp_path / "token"), "--allowed-host", "*")
    assert done.returncode == 2 and "Host check" in done.stderr


def test_allowed_hosts_for_every_bind_address() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.0.0.9")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("10.0.0.1")
    everywhere = allowed_host_names("0.0.0.0")
    assert "*" not in everywhere and "attacker.example" not in everywhere and "localhost" in everywhere
    assert "ci.example" in allowed_host_names("0.0.0.0", ("CI.example.",))
    assert "10.0.0.5" in allowed_host_names("10.0.0.5")


# -- workers, queue, time limit ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def pooled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("pooled")
    root = make_workspace(base / "root")
    with http_server(root, base, "--workers", "2", "--queue", "1", "--request-timeout", "15") as url:
        yield url


def _pool(url: str) -> dict[str, int]:
    stats: dict[str, int] = httpx.get(url + "/healthz").json()["pool"]
    return stats


def _wait_for(url: str, running: int, waiting: int = 0) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        stats = _pool(url)
        if stats["running"] >= running and stats["waiting"] >= waiting:
            return
        time.sleep(0.05)
    raise AssertionError(f"the pool never reached {running} running, {waiting} waiting: {_pool(url)}")


def _wait_idle(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (_pool(url)["running"] or _pool(url)["waiting"]):
        time.sleep(0.1)


def test_a_slow_request_does_not_block_a_fast_one_and_is_stopped_at_its_time_limit(pooled: str) -> None:
    _wait_idle(pooled)
    with ThreadPoolExecutor(2) as ex, httpx.Client(base_url=pooled, timeout=120) as c:
        slow: Future[httpx.Response] = ex.submit(c.post, "/v1/check", json=slow_body())
        _wait_for(pooled, running=1)
        fast = c.post("/v1/check", json=fast_body())
        assert fast.status_code == 200, fast.text
        assert not slow.done()  # answered while the slow one still runs
        stopped = slow.result()
    assert stopped.status_code == 504, stopped.text
    assert stopped.json()["error"]["code"] == "timeout" and "nothing was verified" in stopped.json()["error"]["message"]
    _wait_idle(pooled)
    assert httpx.post(pooled + "/v1/check", json=fast_body(), timeout=60).status_code == 200  # worker replaced


def test_a_full_queue_answers_503_with_retry_after(pooled: str) -> None:
    _wait_idle(pooled)
    with ThreadPoolExecutor(3) as ex, httpx.Client(base_url=pooled, timeout=120) as c:
        busy = [ex.submit(c.post, "/v1/check", json=slow_body()) for _ in range(2)]
        _wait_for(pooled, running=2)
        queued = ex.submit(c.post, "/v1/check", json=slow_body())
        _wait_for(pooled, running=2, waiting=1)
        refused = c.post("/v1/check", json=fast_body())
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["code"] == "busy" and int(refused.headers["retry-after"]) >= 1
        answers = [f.result() for f in [*busy, queued]]
    assert [a.status_code for a in answers] == [504, 504, 504]
    _wait_idle(pooled)
    assert httpx.post(pooled + "/v1/check", json=fast_body(), timeout=60).status_code == 200


def _descendants(pid: int) -> set[int]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text(errors="replace")
            except OSError:
                continue
            kids.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_server_leaves_no_worker_running_even_mid_check(tmp_path: Path) -> None:
    """SIGKILL to the server while a worker runs a 30 s query: the worker dies with it, at once."""
    root = make_workspace(tmp_path / "root")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "claimledger", "serve", "--root", str(root), "--port", str(port), "--workers", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        workers = _descendants(proc.pid)
        assert len(workers) >= 2
        with ThreadPoolExecutor(1) as ex:
            slow = ex.submit(httpx.post, f"http://127.0.0.1:{port}/v1/check", json=slow_body(), timeout=120)
            _wait_for(f"http://127.0.0.1:{port}", running=1)
            proc.kill()
            proc.wait(10)
            with pytest.raises(httpx.TransportError):
                slow.result()
    finally:
        proc.kill()
        proc.wait(10)
    deadline = time.monotonic() + 10  # the query alone would run 30 s
    while time.monotonic() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.1)
    assert not [p for p in workers if _alive(p)]


def test_a_cancelled_request_keeps_its_worker_until_the_call_ends(tmp_path: Path) -> None:
    """A request cancelled while it runs (server shutdown) must not hand its busy worker to the next one."""
    import asyncio

    from claimledger import GateConfig
    from claimledger.server._pool import PoolSettings, WorkerPool
    from claimledger.server.http import CheckRequest

    root = make_workspace(tmp_path / "root")
    settings = PoolSettings(root.resolve(), GateConfig(cache_dir=tmp_path / "cache"), False, size=1, queue=4,
                            timeout=5)  # fmt: skip

    async def scenario() -> tuple[Any, ...]:
        pool = WorkerPool(settings)
        await pool.start()
        try:
            slow = asyncio.create_task(pool.run("check", CheckRequest.model_validate(slow_body())))
            while pool.running == 0:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # the worker is inside the query
            slow.cancel()
            with pytest.raises(asyncio.CancelledError):
                await slow
            return await pool.run("check", CheckRequest.model_validate(fast_body()))
        finally:
            await pool.stop()

    answer = asyncio.run(scenario())
    assert answer[0] == "ok", answer
    assert "C1" in {f["claim_id"] for f in answer[1]["findings"]}  # the fast request's own answer
    assert "N" not in {f["claim_id"] for f in answer[1]["findings"]}


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    import trustme

    base = tmp_path_factory.mktemp("tls")
    root = make_workspace(base / "root")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    cert.private_key_and_cert_chain_pem.write_to_path(str(base / "server.pem"))
    cert.private_key_pem.write_to_path(str(base / "server.key"))
    ca.cert_pem.write_to_path(str(base / "ca.pem"))
    (base / "token").write_text(TOKEN, encoding="utf-8")
    args = ("--token-file", str(base / "token"), "--workers", "1",
            "--tls-cert", str(base / "server.pem"), "--tls-key", str(base / "server.key"))  # fmt: skip
    with http_server(root, base, *args, tls_ca=str(base / "ca.pem")) as url:
        yield {"url": url, "ca": str(base / "ca.pem"), "base": base}


def test_with_a_certificate_the_service_speaks_https_and_only_https(tls: dict[str, Any]) -> None:
    import ssl

    url, ca = tls["url"], ssl.create_default_context(cafile=tls["ca"])
    assert url.startswith("https://")
    r = httpx.post(url + "/v1/check", json=fast_body(), headers={"Authorization": f"Bearer {TOKEN}"}, verify=ca)
    assert r.status_code == 200, r.text
    assert {f["claim_id"]: f["status"] for f in r.json()["findings"]}["C1"] == "verified"
    with pytest.raises(httpx.ConnectError):  # a client that does not trust the certificate is refused
        httpx.get(url + "/healthz", verify=True)
    plain = url.replace("https://", "http://")
    with pytest.raises(httpx.TransportError):  # plain HTTP (the token in clear text) gets no answer
        httpx.post(plain + "/v1/check", json=fast_body(), headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5)


@pytest.mark.parametrize("case", ["cert only", "missing file", "key of another certificate", "not PEM"])
def test_a_bad_certificate_stops_the_start_with_exit_2(tls: dict[str, Any], tmp_path: Path, case: str) -> None:
    import trustme

    base = tls["base"]
    other = trustme.CA().issue_cert("127.0.0.1")
    other.private_key_pem.write_to_path(str(tmp_path / "other.key"))
    (tmp_path / "junk.pem").write_text("not a certificate\n", encoding="utf-8")
    args = {
        "cert only": ["--tls-cert", str(base / "server.pem")],
        "missing file": ["--tls-cert", str(tmp_path / "nope.pem"), "--tls-key", str(base / "server.key")],
        "key of another certificate": ["--tls-cert", str(base / "server.pem"), "--tls-key", str(tmp_path / "other.key")],
        "not PEM": ["--tls-cert", str(tmp_path / "junk.pem"), "--tls-key", str(tmp_path / "junk.pem")],
    }[case]  # fmt: skip
    proc = subprocess.run([sys.executable, "-m", "claimledger", "serve", "--root", str(base / "root"), *args],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "--tls-cert and --tls-key go together" in proc.stderr or "TLS:" in proc.stderr


def test_max_read_bytes_bounds_what_one_request_copies_from_the_root(tmp_path: Path) -> None:
    """`serve --max-read-bytes` reaches the workers: a dataset under the root larger than the budget
    is refused with 400 naming the flag; the same check with the data inline is served."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "big.csv").write_text("x\n" + "1\n" * 4000)  # 8 KB
    ledger = "version: 1\nclaims:\n  - {id: N, kind: number, value: 4000, sql: 'SELECT count(*) FROM d'}\n"
    with http_server(root, tmp_path, "--workers", "1", "--max-read-bytes", "5000") as url:
        refused = httpx.post(url + "/v1/check", json={"ledger": {"text": ledger, "format": "yaml"},
                                                      "datasets": {"d": "big.csv"}}, timeout=60)  # fmt: skip
        assert refused.status_code == 400, refused.text
        message = refused.json()["error"]["message"]
        assert "dataset 'd'" in message and "--max-read-bytes" in message and "5,000 bytes" in message
        inline = {"text": "x\n" + "1\n" * 4000, "format": "csv"}
        served = httpx.post(url + "/v1/check", json={"ledger": {"text": ledger, "format": "yaml"},
                                                     "datasets": {"d": inline}}, timeout=60)  # fmt: skip
        assert served.status_code == 200, served.text
        assert served.json()["findings"][0]["status"] == "verified"
