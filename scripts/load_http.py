"""Load the HTTP service on loopback: throughput, latency percentiles, memory, and every verdict checked.

Starts `claimledger serve` on 127.0.0.1 (a private copy of examples/ as its
root; or uses --url, which must be a loopback address), then sends a fixed mix
of requests (the shipped English and Japanese examples by path, inline quote
checks, inline figures over CSV, mark and lint of an inline draft) at each
concurrency level. Every answer is compared with a reference computed in this
process by the same code without the service (claim id, status, reason, tier
of every finding; the marked text): a difference is a wrong verdict.

The server's memory is sampled from /proc: the resident set (and PSS) of the
server process and every descendant (workers, extraction and SQL children).

    .venv/bin/python scripts/load_http.py                       # 1/4/16/64 clients, 200 requests each
    .venv/bin/python scripts/load_http.py --levels 1,4 --requests 100 --workers 2
    .venv/bin/python scripts/load_http.py --long                # 10,000 requests at 16 clients, RSS curve
    .venv/bin/python scripts/load_http.py --url http://127.0.0.1:8765 --pid 1234   # a server already running

Bounded: at most --requests per level, --max-seconds per level, loopback
only. Exit 1 when any verdict is wrong or any request failed.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SMITH = "Adding an independent verification step reduced errors by 37 percent in the audited sample."
DRAFT = "# Notes\n\nSmith found that “an independent verification step reduced errors by 37 percent”[V] [@s].\n" \
        "He also wrote “verification always removes every single error”[V] [@s].\n"  # fmt: skip


def requests_mix() -> list[tuple[str, str, dict[str, Any]]]:
    """(name, endpoint, body) of each kind of request the load sends, in turn."""
    quote_ledger = (
        "version: 1\nclaims:\n"
        "  - {id: Q1, kind: quote, source: s, quote: 'reduced errors by 37 percent'}\n"
        "  - {id: Q2, kind: quote, source: s, quote: 'reduced errors by 73 percent'}\n"
        "  - {id: Q3, kind: quote, source: s, quote: 'verification always removes every error',"
        " statement: 'Verification always removes every error.'}\n"
    )
    number_ledger = (
        "version: 1\nclaims:\n"
        "  - {id: N1, kind: number, value: '1,202', sql: 'SELECT sum(clicks) FROM d'}\n"
        "  - {id: N2, kind: number, value: '12%', sql: 'SELECT 100.0 * avg(rate) FROM d'}\n"
    )
    rows = "clicks,rate\n" + "".join(f"{c},{r}\n" for c, r in [(400, 0.1), (802, 0.14)])
    src = {"s": {"text": SMITH, "format": "text"}}
    return [
        ("en example", "/v1/check", {"ledger": "en/ledger.yaml"}),
        ("ja example", "/v1/check", {"ledger": "ja/ledger.yaml"}),
        ("inline quotes", "/v1/check", {"ledger": {"text": quote_ledger, "format": "yaml"}, "sources": src}),
        ("inline numbers", "/v1/check", {"ledger": {"text": number_ledger, "format": "yaml"},
                                         "datasets": {"d": {"text": rows, "format": "csv"}}}),
        ("mark", "/v1/mark", {"draft": {"text": DRAFT, "format": "markdown"}, "sources": src}),
        ("lint", "/v1/lint", {"draft": {"text": DRAFT, "format": "markdown"}, "sources": src}),
        ("ja digest lint", "/v1/lint", {"draft": "ja_digest/digest.md", "ledger": "ja_digest/ledger.yaml"}),
    ]  # fmt: skip


def verdict(answer: dict[str, Any]) -> Any:
    """What must not change under load: every finding's id, status, reason and tier; the marked text."""
    findings = sorted(
        (f["claim_id"], f["check"], f["status"], f["reason"], f["tier"]) for f in answer["findings"]
    )
    return [answer["outcome"], findings, answer.get("marked_text"), (answer.get("lint") or {}).get("lines")]


def references(root: Path, metrics: Path) -> list[Any]:
    """Each request's verdict from the same code run in this process, without the service."""
    from claimledger import GateConfig
    from claimledger.server import http
    from claimledger.server._core import Workspace

    ws = Workspace.open(root, config=GateConfig(metrics_files=(metrics,)))
    out = []
    for _, endpoint, body in requests_mix():
        kind = endpoint.rsplit("/", 1)[1]
        model = http.ENDPOINTS[kind][0]
        out.append(verdict(http.run_request(ws, kind, model.model_validate(body))))
    return out


# -- memory of the server's process tree -------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system, reaped children included) of ``pid`` and every descendant."""
    kids = _children()
    todo, ticks = [pid], 0
    while todo:
        p = todo.pop()
        todo.extend(kids.get(p, []))
        try:
            with open(f"/proc/{p}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            ticks += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
        except (OSError, ValueError, IndexError):
            continue
    return ticks / os.sysconf("SC_CLK_TCK")


def tree_memory(pid: int) -> tuple[int, int, int]:
    """(RSS bytes, PSS bytes, processes) of ``pid`` and every descendant."""
    kids = _children()
    todo, rss, pss, n = [pid], 0, 0, 0
    while todo:
        p = todo.pop()
        todo.extend(kids.get(p, []))
        try:
            with open(f"/proc/{p}/smaps_rollup", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
            n += 1
        except (OSError, ValueError):
            continue
    return rss, pss, n


class Sampler:
    """Samples the tree's memory every ``every`` seconds in a thread."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        self.pid, self.every = pid, every
        self.samples: list[tuple[float, int, int, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            rss, pss, n = tree_memory(self.pid)
            self.samples.append((time.monotonic(), rss, pss, n))
            self._stop.wait(self.every)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def peak(self, since: float = 0.0) -> tuple[int, int]:
        chosen = [s for s in self.samples if s[0] >= since] or self.samples[-1:]
        return max(s[1] for s in chosen), max(s[2] for s in chosen)


# -- the server ------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def server(
    root: Path, work: Path, metrics: Path, workers: int | None, queue: int
) -> Iterator[tuple[str, int]]:
    import httpx

    port = _free_port()
    args = [sys.executable, "-m", "claimledger", "serve", "--root", str(root), "--host", "127.0.0.1",
            "--port", str(port), "--metrics", str(metrics), "--cache-dir", str(work / "cache"),
            "--queue", str(queue)]  # fmt: skip
    if workers:
        args += ["--workers", str(workers)]
    env = {k: v for k, v in os.environ.items() if k != "CLAIMLEDGER_TOKEN"}
    log = (work / "serve.log").open("w")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=work)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"the server stopped: {(work / 'serve.log').read_text()}")
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


# -- the load --------------------------------------------------------------------------------------------


async def level(url: str, clients: int, total: int, max_seconds: float, refs: list[Any]) -> dict[str, Any]:
    """``total`` requests from ``clients`` concurrent clients; latencies, errors and wrong verdicts."""
    import httpx

    mix = requests_mix()
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    wrong: list[str] = []
    counter = iter(range(total))
    deadline = time.monotonic() + max_seconds

    async def client(c: httpx.AsyncClient) -> None:
        for i in counter:
            if time.monotonic() > deadline:
                return
            name, endpoint, body = mix[i % len(mix)]
            t0 = time.perf_counter()
            r = await c.post(endpoint, json=body)
            latencies.append(time.perf_counter() - t0)
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            if r.status_code == 200 and verdict(r.json()) != refs[i % len(mix)]:
                wrong.append(name)

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as c:
        t0 = time.perf_counter()
        await asyncio.gather(*(client(c) for _ in range(clients)))
        elapsed = time.perf_counter() - t0
    q = statistics.quantiles(latencies, n=100, method="inclusive") if len(latencies) > 1 else latencies * 99
    return {"clients": clients, "requests": len(latencies), "seconds": round(elapsed, 2),
            "rps": round(len(latencies) / elapsed, 2), "p50_ms": round(q[49] * 1000), "p95_ms": round(q[94] * 1000),
            "p99_ms": round(q[98] * 1000), "statuses": statuses, "wrong": len(wrong)}  # fmt: skip


def _mb(n: int) -> int:
    return round(n / 1024 / 1024)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default="1,4,16,64", help="concurrent clients per level")
    ap.add_argument("--requests", type=int, default=200, help="requests per level")
    ap.add_argument("--max-seconds", type=float, default=600, help="stop a level after this long")
    ap.add_argument("--workers", type=int, default=None, help="the server's --workers [default: its own]")
    ap.add_argument(
        "--queue", type=int, default=1000, help="the server's --queue (large: measure, not refuse)"
    )
    ap.add_argument("--long", action="store_true", help="10,000 requests at 16 clients, RSS every 1,000")
    ap.add_argument(
        "--url",
        help="a server already running on loopback (its root: a copy of examples/, "
        "started with --metrics en/metrics.py)",
    )
    ap.add_argument("--pid", type=int, help="with --url: the server's pid, for memory")
    ap.add_argument("--json", action="store_true", help="print one JSON object at the end")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="claimledger-load-"))
    try:
        root = work / "root"
        shutil.copytree(ROOT / "examples", root)
        metrics = root / "en" / "metrics.py"
        print("computing the reference verdicts in-process ...", file=sys.stderr, flush=True)
        refs = references(root, metrics)
        if args.url:
            host = urlsplit(args.url).hostname or ""
            if not (host == "localhost" or ipaddress.ip_address(host).is_loopback):
                raise SystemExit("--url must be a loopback address: this script loads only this machine")
            ctx: Any = _given(args.url, args.pid)
        else:
            ctx = server(root, work, metrics, args.workers, args.queue)
        with ctx as (url, pid):
            results = run_levels(url, pid, args, refs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(results))
    bad = sum(r.get("wrong", 0) for r in results["levels"]) + sum(
        n for r in results["levels"] for s, n in r["statuses"].items() if int(s) != 200
    )
    return 1 if bad else 0


@contextmanager
def _given(url: str, pid: int | None) -> Iterator[tuple[str, int]]:
    yield url, pid or 0


def run_levels(url: str, pid: int, args: argparse.Namespace, refs: list[Any]) -> dict[str, Any]:
    import httpx

    pool = httpx.get(url + "/healthz").json().get("pool")
    print(f"server {url}  pool {pool}  cores {os.cpu_count()}", file=sys.stderr, flush=True)
    out: dict[str, Any] = {"pool": pool, "levels": [], "rss_curve": []}
    sampler = Sampler(pid) if pid else None
    if sampler:
        sampler.__enter__()
    try:
        levels = [(16, 1000)] * 10 if args.long else [(int(c), args.requests) for c in args.levels.split(",")]
        warm = len(requests_mix()) * max(2, (pool or {}).get("workers", 2))
        asyncio.run(
            level(url, max(2, (pool or {}).get("workers", 2)), warm, args.max_seconds, refs)
        )  # not counted
        out["rss_after_warmup_mb"] = _mb(tree_memory(pid)[0]) if pid else None
        done = 0
        for clients, total in levels:
            t0 = time.monotonic()
            cpu0 = tree_cpu(pid) if pid else 0.0
            mine0 = time.process_time()
            r = asyncio.run(level(url, clients, total, args.max_seconds, refs))
            r["client_cores_busy"] = round((time.process_time() - mine0) / r["seconds"], 2)
            if pid:  # cores the server's processes kept busy: parallel work shows even on a loaded machine
                r["server_cores_busy"] = round((tree_cpu(pid) - cpu0) / r["seconds"], 2)
                r["server_cpu_ms_per_request"] = round(1000 * (tree_cpu(pid) - cpu0) / max(1, r["requests"]))
            done += r["requests"]
            if sampler:
                rss, pss = sampler.peak(t0)
                now = tree_memory(pid)
                r |= {
                    "rss_peak_mb": _mb(rss),
                    "pss_peak_mb": _mb(pss),
                    "rss_end_mb": _mb(now[0]),
                    "processes": now[2],
                }
                if args.long:
                    out["rss_curve"].append({"requests": done, "rss_mb": _mb(now[0]), "pss_mb": _mb(now[1])})
            out["levels"].append(r)
            print(f"clients {clients:3d}  requests {r['requests']:5d}  {r['rps']:7.2f} req/s  p50 {r['p50_ms']:6d} ms  "
                  f"p95 {r['p95_ms']:6d} ms  p99 {r['p99_ms']:6d} ms  statuses {r['statuses']}  wrong {r['wrong']}"
                + (f"  server cores busy {r['server_cores_busy']}" if pid else "")
                + f"  client cores busy {r['client_cores_busy']}"
                  + (f"  RSS peak {r['rss_peak_mb']} MB end {r['rss_end_mb']} MB ({r['processes']} processes)"
                     if sampler else ""), flush=True)  # fmt: skip
    finally:
        if sampler:
            sampler.__exit__()
    first = out["levels"][0]["rps"]
    for r in out["levels"]:
        r["speedup_vs_first"] = round(r["rps"] / first, 2) if first else None
    return out


if __name__ == "__main__":
    sys.exit(main())
