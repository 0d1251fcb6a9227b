"""Speed and memory of claimledger at scale: `make bench` (not part of the test suite).

Workloads are built deterministically (fixed seeds) from the real documents in
../shared/bench (WiCE and SummEdits source texts; JNLI/JaNLI/JHARS for
Japanese). Nothing is downloaded. Each measured run is its own subprocess, so
peak memory (ru_maxrss) belongs to that run alone.

    .venv/bin/python scripts/bench.py            # full run (about 20-25 minutes)
    .venv/bin/python scripts/bench.py --quick    # small sizes only (about a minute)
    .venv/bin/python scripts/bench.py --from-json docs/benchmarks.json   # the docs again from a saved run

Writes docs/benchmarks.md and docs/benchmarks.png.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(os.environ.get("CLAIMLEDGER_BENCH_DATA", ROOT.parent / "shared" / "bench"))
DOC_CHARS = 400_000
SEED = 20261129
PY = sys.executable


# ---------------------------------------------------------------- corpus


def text_pool() -> list[str]:
    """Unique source texts of the bench, in a stable order."""
    texts: set[str] = set()
    for ds in ("wice", "summedits", "jnli", "janli", "jhars"):
        path = BENCH / ds / "bench.jsonl"
        for line in path.read_text("utf-8").splitlines():
            texts.add(json.loads(line)["source"])
    return sorted(texts, key=lambda t: hashlib.sha256(t.encode()).hexdigest())


_LONG_WORD = re.compile(r"\b([a-z]{5,})([a-z]{4,})\b")


def add_artefacts(text: str, rng: random.Random) -> str:
    """PDF-like artefacts: U+FFFE hyphenation, ligatures, curly quotes (all must still verify)."""
    text = _LONG_WORD.sub(lambda m: m.group(1) + "\ufffe" + m.group(2) if rng.random() < 0.01 else m.group(0), text)
    text = re.sub(r"fi", lambda m: "\ufb01" if rng.random() < 0.05 else m.group(0), text)
    return re.sub(r'"([^"\n]{1,80})"', lambda m: f"\u201c{m.group(1)}\u201d" if rng.random() < 0.3 else m.group(0), text)


def build_corpus(folder: Path, total_chars: int, doc_chars: int = DOC_CHARS) -> list[Path]:
    rng = random.Random(f"{SEED}/corpus/{total_chars}/{doc_chars}")
    pool = text_pool()
    order = list(range(len(pool)))
    rng.shuffle(order)
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    k = 0
    n_docs = max(1, total_chars // doc_chars)
    for d in range(n_docs):
        parts: list[str] = [f"Document {d}."]
        size = 0
        while size < doc_chars:
            t = pool[order[k % len(order)]]
            k += 1
            parts.append(t)
            size += len(t) + 2
        text = add_artefacts("\n\n".join(parts)[:doc_chars], rng)
        path = folder / f"d{d:05d}.txt"
        path.write_text(text, "utf-8")
        paths.append(path)
    return paths


def clean(span: str) -> str:
    """What a writer types for a span of a PDF-like source."""
    return (
        span.replace("\ufffe", "").replace("\ufb01", "fi").replace("\u201c", '"').replace("\u201d", '"')
    )


def _doc_text(docs: list[Path], texts: dict[int, str], d: int) -> str:
    """Document ``d``'s text, read once and kept in ``texts`` (at most 65 documents at a time)."""
    if d not in texts:
        if len(texts) > 64:
            texts.clear()
        texts[d] = docs[d].read_text("utf-8")
    return texts[d]


def make_quotes(docs: list[Path], n: int) -> list[dict[str, Any]]:
    """A mix: 50% verbatim, 25% with PDF/typography artefacts on the quote side, 25% mutated."""
    rng = random.Random(f"{SEED}/quotes/{len(docs)}/{n}")
    texts: dict[int, str] = {}
    out: list[dict[str, Any]] = []
    words = ["river", "seven", "policy", "market", "never", "always", "council", "forty"]
    for i in range(n):
        d = rng.randrange(len(docs))
        text = _doc_text(docs, texts, d)
        for _ in range(20):
            start = rng.randrange(0, max(1, len(text) - 200))
            start = text.find(" ", start) + 1
            end = text.find(" ", start + rng.randint(60, 160))
            span = text[start:end] if end > start else ""
            if len(span) >= 40 and "\n\n" not in span and "Document" not in span:
                break
        q = clean(span)
        kind = "verbatim"
        r = rng.random()
        if r < 0.25:
            kind = "artefact"
            q = re.sub(r"(?<![-\u2010]) ", "\n", q, count=2).replace("fi", "\ufb01", 1)
            q = re.sub(r'"([^"]*)"', "\u201c\\1\u201d", q)
        elif r < 0.5:
            kind = "mutated"
            toks = q.split(" ")
            j = rng.randrange(len(toks))
            # the replacement differs after case folding, so the quote really changed
            toks[j] = next(w for w in [*rng.sample(words, len(words)), "zebra"] if w != toks[j].casefold())
            q = " ".join(toks)
        out.append({"id": f"Q{i}", "source": f"d{d:05d}", "quote": q, "kind": kind})
    return out


def make_half_absent_quotes(docs: list[Path], n: int) -> list[dict[str, Any]]:
    """Issue 19's second workload: half the quotes as :func:`make_quotes` builds them, half absent
    from every source (a span of a source with its words shuffled: the source's vocabulary, none
    of its sentences). Each absent quote cites a random source."""
    present = make_quotes(docs, n - n // 2)
    rng = random.Random(f"{SEED}/absent/{len(docs)}/{n}")
    texts: dict[int, str] = {}
    out = list(present)
    for i in range(n // 2):
        d = rng.randrange(len(docs))
        text = _doc_text(docs, texts, d)
        toks: list[str] = []
        for _ in range(20):
            start = rng.randrange(0, max(1, len(text) - 200))
            start = text.find(" ", start) + 1
            end = text.find(" ", start + rng.randint(60, 160))
            toks = clean(text[start:end]).split() if end > start else []
            if len(toks) >= 8:
                break
        rng.shuffle(toks)
        out.append({"id": f"A{i}", "source": f"d{d:05d}", "quote": " ".join(toks), "kind": "absent"})
    return out


def quote_ledger(docs: list[Path], quotes: list[dict[str, Any]]) -> Any:
    """A ledger of ``quotes`` (as :func:`make_quotes` builds them) citing ``docs`` by file stem."""
    from claimledger.model.claim import Ledger, QuoteClaim  # (imported from the tree measured)

    return Ledger(
        version=1,
        sources={p.stem: str(p) for p in docs},
        claims=[QuoteClaim(id=q["id"], kind="quote", source=q["source"], quote=q["quote"]) for q in quotes],
    )


# ---------------------------------------------------------------- measured runs (subprocesses)


def _status_kb(field: str) -> int:
    """A memory figure of this process from /proc (VmHWM: peak RSS, VmRSS: current RSS).

    ru_maxrss is not used: Linux carries it across execve, so a child would inherit the
    bench's own peak. VmHWM belongs to the process's address space and starts fresh.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _rss_kb() -> int:
    return _status_kb("VmHWM")


def _now_kb() -> int:
    return _status_kb("VmRSS")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_claimledger_quotes(args: argparse.Namespace) -> None:
    from claimledger import GateConfig, gate

    docs = sorted(Path(args.docs).glob("*.txt"))
    quotes = json.loads(Path(args.quotes).read_text("utf-8"))
    ledger = quote_ledger(docs, quotes)
    baseline = _now_kb()
    t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
    report = gate(ledger, config=GateConfig(cache_dir=Path(args.cache)), base_dir=Path(args.docs))
    # the CPU of the run's child processes too (the overclaim rules' helper, checks/rules_ahead.py)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0 + _children_cpu() - k0
    kinds = {q["id"]: q["kind"] for q in quotes}
    verified = {f.claim_id for f in report.findings if f.status.value == "verified"}
    # a mutated or absent quote must not verify; every other quote must
    wrong = sum(1 for qid, k in kinds.items() if (qid in verified) == (k in ("mutated", "absent")))
    print(json.dumps({
        "seconds": seconds, "cpu_s": cpu, "peak_kb": _rss_kb(), "baseline_kb": baseline,
        "children_peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
        "verified": len(verified), "wrong": wrong, "n": len(quotes),
    }))  # fmt: skip


def _seed000_normalize(s: str) -> str:
    s = unicodedata.normalize("NFKC", s)
    s = re.sub(r"\s+", "", s)
    s = re.sub(r"[「」『』（）()、。,.]", "", s)
    return s.lower()


def run_naive(args: argparse.Namespace) -> None:
    """Seed 000's gate: normalize the cited source again for every quote, then substring search."""
    docs = {p.stem: p for p in Path(args.docs).glob("*.txt")}
    quotes = json.loads(Path(args.quotes).read_text("utf-8"))[: args.limit]
    t0, c0 = time.perf_counter(), time.process_time()
    hits = 0
    for q in quotes:
        src = docs[q["source"]].read_text("utf-8")
        if _seed000_normalize(q["quote"]) in _seed000_normalize(src):
            hits += 1
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({"seconds": seconds, "cpu_s": cpu, "measured": len(quotes), "peak_kb": _rss_kb(), "hits": hits}))


def run_numbers(args: argparse.Namespace) -> None:
    import duckdb

    queries = json.loads(Path(args.queries).read_text("utf-8"))
    table = Path(args.table)
    if args.mode == "duckdb":
        baseline = _now_kb()
        t0 = time.perf_counter()
        con = duckdb.connect(":memory:")
        if table.suffix == ".csv":
            con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv_auto('{table}')")
        else:
            con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{table}')")
        values = [con.execute(q).fetchone()[0] for q in queries]  # type: ignore[index]
        seconds = time.perf_counter() - t0
        print(json.dumps({"seconds": seconds, "peak_kb": _rss_kb(), "baseline_kb": baseline,
                          "values": [float(v) if v is not None else None for v in values]}))  # fmt: skip
        return
    from claimledger import GateConfig, gate
    from claimledger.model.claim import Ledger, NumberClaim

    values = json.loads(Path(args.values).read_text("utf-8"))
    ledger = Ledger(
        version=1,
        datasets={"t": str(table)},
        claims=[NumberClaim(id=f"N{i}", kind="number", sql=q, value=v if v is not None else 0)
                for i, (q, v) in enumerate(zip(queries, values, strict=True))],
    )  # fmt: skip
    baseline = _now_kb()
    t0 = time.perf_counter()
    report = gate(ledger, config=GateConfig(cache_dir=Path(args.cache)), base_dir=table.parent)
    seconds = time.perf_counter() - t0
    verified = sum(1 for f in report.findings if f.status.value == "verified")
    # why the others were not (a run that verifies less must say so, not pass for a quick one)
    others = [f for f in report.findings if f.status.value != "verified"]
    unverified = {reason: f"{n} (e.g. {next(f.message for f in others if f.reason.value == reason)[:200]})"
                  for reason, n in Counter(f.reason.value for f in others).most_common(3)}  # fmt: skip
    print(json.dumps({"seconds": seconds, "peak_kb": _rss_kb(), "baseline_kb": baseline, "verified": verified,
                      "unverified": unverified}))  # fmt: skip


def sub(*argv: str, timeout: float = 3600) -> dict[str, Any]:
    out = subprocess.run([PY, __file__, *argv], capture_output=True, text=True, timeout=timeout, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


# ---------------------------------------------------------------- workloads


def normalized_corpus(docs: list[Path], folder: Path) -> list[Path]:
    from claimledger.normalize import normalize

    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for p in docs:
        q = folder / p.name
        q.write_text(normalize(p.read_text("utf-8")).text, "utf-8")
        out.append(q)
    return out


def grep_floor(norm_docs: list[Path], quotes: list[dict[str, Any]], work: Path) -> float:
    from claimledger.normalize import normalize_quote

    pats = work / "patterns.txt"
    pats.write_text("\n".join(normalize_quote(q["quote"]) for q in quotes) + "\n", "utf-8")
    env = dict(os.environ, LC_ALL="C")
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        ["grep", "-F", "-o", "-h", "-f", str(pats), *map(str, norm_docs)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    GREP_CPU.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return time.perf_counter() - t0


GREP_CPU: list[float] = []  # CPU seconds of each grep_floor run (the machine may be shared)


# Issue 19's "Done when" rows: each measured in ROUNDS interleaved rounds (claimledger, then grep),
# each claimledger run a fresh process with a cold cache; the table shows medians and the ratio is
# the median of the per-round ratios. The other rows are measured once.
ROUNDS = 3
DONE_WHEN = {(100_000_000, 10_000), (10_000_000, 100_000), (1_000_000_000, 1_000)}


def _median(xs: list[float]) -> float:
    return statistics.median(xs)


def _rounds(work: Path, docs_dir: Path, norm_docs: list[Path], quotes: list[dict[str, Any]], qfile: Path,
            cache: Path, rounds: int) -> dict[str, Any]:  # fmt: skip
    """``rounds`` interleaved runs of claimledger (cold, fresh process) and ``grep -F``; medians."""
    runs: list[dict[str, Any]] = []
    for _ in range(rounds):
        load = os.getloadavg()[0]
        ours = sub("_quotes", "--docs", str(docs_dir), "--quotes", str(qfile), "--cache", str(cache))
        shutil.rmtree(cache, ignore_errors=True)
        grep_s = grep_floor(norm_docs, quotes, work)
        runs.append({"ours_s": ours["seconds"], "ours_cpu_s": ours["cpu_s"], "grep_s": grep_s,
                     "grep_cpu_s": GREP_CPU[-1], "load": load, "peak_kb": ours["peak_kb"],
                     "baseline_kb": ours["baseline_kb"], "wrong": ours["wrong"], "verified": ours["verified"]})  # fmt: skip
    mid = sorted(runs, key=lambda r: r["ours_s"])[len(runs) // 2]
    return {
        "ours_s": _median([r["ours_s"] for r in runs]), "ours_cpu_s": _median([r["ours_cpu_s"] for r in runs]),
        "grep_s": _median([r["grep_s"] for r in runs]),
        "vs_grep": _median([r["ours_s"] / max(r["grep_s"], 1e-9) for r in runs]),
        "peak_mb": mid["peak_kb"] / 1024, "run_mb": (mid["peak_kb"] - mid["baseline_kb"]) / 1024,
        "wrong": max(r["wrong"] for r in runs), "verified": mid["verified"],
        "load": max(r["load"] for r in runs), "rounds": runs,
    }  # fmt: skip


# The naive gate's quotes measured in a row: ``naive_limit`` per 10 MB of corpus, at least NAIVE_MIN.
# Its cost per quote does not depend on the corpus (each quote reads and normalizes its own cited
# document), so the sample need not shrink with it: at 5 quotes the 1 GB row's estimate moved from
# 34.6 to 51.1 ms a quote between two runs of the same five (issue 19, twentieth session).
NAIVE_MIN = 50


def naive_sample(n: int, corpus_chars: int, naive_limit: int) -> int:
    """How many of a row's ``n`` quotes the naive gate is timed on (then extrapolated to ``n``)."""
    return min(n, max(NAIVE_MIN, naive_limit * 10_000_000 // max(corpus_chars, 1)))


def bench_quotes(work: Path, sizes: list[int], counts: list[int], naive_limit: int,
                 rounds: int = ROUNDS) -> list[dict[str, Any]]:  # fmt: skip
    rows: list[dict[str, Any]] = []
    for size in sizes:
        docs_dir = work / f"corpus-{size}"
        t0 = time.perf_counter()
        docs = build_corpus(docs_dir, size)
        print(f"  corpus {size / 1e6:.0f} MB: {len(docs)} documents built in {time.perf_counter() - t0:.1f}s",
              flush=True)  # fmt: skip
        norm_docs = normalized_corpus(docs, work / f"norm-{size}")
        for n in counts:
            quotes = make_quotes(docs, n)
            qfile = work / f"quotes-{size}-{n}.json"
            qfile.write_text(json.dumps(quotes, ensure_ascii=False), "utf-8")
            measured = _rounds(work, docs_dir, norm_docs, quotes, qfile, work / f"cache-{size}-{n}",
                               rounds if (size, n) in DONE_WHEN else 1)  # fmt: skip
            limit = naive_sample(n, size, naive_limit)
            naive = sub("_naive", "--docs", str(docs_dir), "--quotes", str(qfile), "--limit", str(limit))
            naive_total = naive["seconds"] / naive["measured"] * n
            row = {"corpus_mb": size / 1e6, "docs": len(docs), "quotes": n, **measured,
                   "naive_s": naive_total, "naive_measured": naive["measured"]}  # fmt: skip
            rows.append(row)
            _print_row(f"{size / 1e6:>5.0f} MB x {n:>6} quotes", row)
        shutil.rmtree(work / f"norm-{size}", ignore_errors=True)
        shutil.rmtree(docs_dir, ignore_errors=True)
    return rows


def _print_row(label: str, row: dict[str, Any]) -> None:
    each = " / ".join(f"{r['ours_s']:.2f}s vs {r['grep_s']:.2f}s (load {r['load']:.1f})" for r in row["rounds"])
    print(f"  {label}: ours {row['ours_s']:.2f}s ({row['ours_cpu_s']:.2f}s CPU, peak {row['peak_mb']:.0f} MB), "
          f"naive {row['naive_s']:.1f}s ({row['naive_measured']} measured), grep -F {row['grep_s']:.2f}s, "
          f"{row['vs_grep']:.1f}x grep, wrong verdicts {row['wrong']}; rounds: {each}", flush=True)  # fmt: skip


def bench_half_absent(work: Path, total: int, doc_chars: int, n: int, naive_limit: int,
                      rounds: int = ROUNDS) -> dict[str, Any]:  # fmt: skip
    """Issue 19's second workload: ``n`` quotes, half absent from every source, over few large files."""
    docs_dir = work / "half-absent"
    docs = build_corpus(docs_dir, total, doc_chars=doc_chars)
    norm_docs = normalized_corpus(docs, work / "norm-half-absent")
    quotes = make_half_absent_quotes(docs, n)
    qfile = work / "quotes-half-absent.json"
    qfile.write_text(json.dumps(quotes, ensure_ascii=False), "utf-8")
    measured = _rounds(work, docs_dir, norm_docs, quotes, qfile, work / "cache-half-absent", rounds)
    naive = sub("_naive", "--docs", str(docs_dir), "--quotes", str(qfile), "--limit", str(naive_limit))
    row = {"corpus_mb": total / 1e6, "docs": len(docs), "quotes": n, **measured,
           "naive_s": naive["seconds"] / naive["measured"] * n, "naive_measured": naive["measured"]}  # fmt: skip
    _print_row(f"half-absent {total / 1e6:.0f} MB ({len(docs)} files) x {n} quotes", row)
    shutil.rmtree(work / "norm-half-absent", ignore_errors=True)
    shutil.rmtree(docs_dir, ignore_errors=True)
    return row


def bench_largest_source(work: Path, size: int) -> dict[str, Any]:
    docs_dir = work / "single"
    docs = build_corpus(docs_dir, size, doc_chars=size)
    quotes = make_quotes(docs, 1000)
    qfile = work / "quotes-single.json"
    qfile.write_text(json.dumps(quotes, ensure_ascii=False), "utf-8")
    ours = sub("_quotes", "--docs", str(docs_dir), "--quotes", str(qfile), "--cache", str(work / "cache-single"))
    text_mb = docs[0].stat().st_size / 1024 / 1024
    text_mem_mb = sys.getsizeof(docs[0].read_text("utf-8")) / 1024 / 1024
    shutil.rmtree(docs_dir, ignore_errors=True)
    shutil.rmtree(work / "cache-single", ignore_errors=True)
    return {
        "source_mb": text_mb, "text_mem_mb": text_mem_mb, "seconds": ours["seconds"], "peak_mb": ours["peak_kb"] / 1024,
        "run_mb": (ours["peak_kb"] - ours["baseline_kb"]) / 1024, "wrong": ours["wrong"],
    }  # fmt: skip


def bench_numbers(work: Path, rows_n: int, n_queries: int) -> list[dict[str, Any]]:
    import duckdb

    csv = work / "big.csv"
    parquet = work / "big.parquet"
    t0 = time.perf_counter()
    gen = (f"SELECT range AS id, range % 365 AS day, 'r' || (range % 10) AS region, "
           f"'p' || (range % 100) AS product, (range * 7919) % 1000 AS clicks, "
           f"((range * 104729) % 100000) / 100.0 AS revenue FROM range({rows_n})")  # fmt: skip
    duckdb.sql(f"COPY ({gen}) TO '{csv}' (HEADER)")
    duckdb.sql(f"COPY ({gen}) TO '{parquet}' (FORMAT parquet)")
    print(f"  {rows_n:,}-row table written in {time.perf_counter() - t0:.1f}s", flush=True)
    rng = random.Random(f"{SEED}/numbers")
    aggs = ["sum(clicks)", "avg(revenue)", "count(*)", "max(revenue)", "min(clicks)", "sum(revenue)"]
    queries = []
    for _ in range(n_queries):
        agg = rng.choice(aggs)
        where = rng.choice([
            f"region = 'r{rng.randrange(10)}'",
            f"product = 'p{rng.randrange(100)}' AND day < {rng.randrange(30, 365)}",
            f"day BETWEEN {rng.randrange(0, 180)} AND {rng.randrange(180, 365)}",
        ])  # fmt: skip
        queries.append(f"SELECT {agg} FROM t WHERE {where}")
    qfile = work / "queries.json"
    qfile.write_text(json.dumps(queries))
    out = []
    for table in (csv, parquet):
        bare = sub("_numbers", "--mode", "duckdb", "--table", str(table), "--queries", str(qfile))
        vfile = work / "values.json"
        vfile.write_text(json.dumps(bare["values"]))
        ours = sub("_numbers", "--mode", "ours", "--table", str(table), "--queries", str(qfile),
                   "--values", str(vfile), "--cache", str(work / "cache-n"))  # fmt: skip
        row = {"format": table.suffix[1:], "rows": rows_n, "queries": n_queries,
               "duckdb_s": bare["seconds"], "ours_s": ours["seconds"], "verified": ours["verified"],
               "unverified": ours.get("unverified", {}),
               "ours_peak_mb": ours["peak_kb"] / 1024, "duckdb_peak_mb": bare["peak_kb"] / 1024}  # fmt: skip
        out.append(row)
        print(f"  {row['format']}: ours {row['ours_s']:.2f}s vs bare DuckDB {row['duckdb_s']:.2f}s "
              f"({row['verified']}/{n_queries} verified)", flush=True)  # fmt: skip
        if row["unverified"]:
            print(f"    not verified: {row['unverified']}", flush=True)
    return out


def bench_end_to_end(work: Path, n_pdfs: int, n_claims: int, rounds: int = ROUNDS) -> dict[str, Any]:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(TTFont("DejaVu", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"))
    rng = random.Random(f"{SEED}/e2e")
    pool = [t for t in text_pool() if t.isascii()]
    folder = work / "pdfs"
    folder.mkdir(parents=True, exist_ok=True)
    lines_of: dict[str, list[str]] = {}
    for d in range(n_pdfs):
        words = " ".join(pool[(d * 7 + k) % len(pool)] for k in range(6)).split()
        lines, cur = [], ""
        for w in words:
            if len(cur) + len(w) > 80:
                lines.append(cur)
                cur = w
            else:
                cur = f"{cur} {w}".strip()
        lines = lines[:600]
        c = canvas.Canvas(str(folder / f"p{d:03d}.pdf"), invariant=True)
        for page in range(0, len(lines), 50):
            c.setFont("DejaVu", 9)
            y = 800
            for line in lines[page : page + 50]:
                c.drawString(40, y, line)
                y -= 15
            c.showPage()
        c.save()
        lines_of[f"p{d:03d}"] = lines
    claims = []
    for i in range(n_claims):
        sid = f"p{rng.randrange(n_pdfs):03d}"
        line = rng.choice([ln for ln in lines_of[sid] if len(ln) > 50])
        quote = line[: rng.randint(40, len(line))].rsplit(" ", 1)[0]
        if i % 5 == 4:
            quote = quote.replace(" the ", " a ", 1) if " the " in quote else quote + " indeed"
        claims.append({"id": f"Q{i}", "kind": "quote", "source": sid, "quote": quote})
    ledger = {"version": 1, "sources": {s: f"pdfs/{s}.pdf" for s in lines_of}, "claims": claims}
    lpath = work / "e2e.json"
    lpath.write_text(json.dumps(ledger))
    exe = str(Path(PY).parent / "claimledger")
    # (the package's bytecode is written by main() before any step: compile_package)
    runs = []
    for r in range(rounds):  # each round: a fresh cache, then the same cache again
        cache = work / f"cache-e2e-{r}"
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            subprocess.run([exe, "check", "--ledger", str(lpath), "-f", "json", "-o", str(work / "r.json"),
                            "--cache-dir", str(cache), "--quiet"], check=False)  # fmt: skip
            times.append(time.perf_counter() - t0)
        shutil.rmtree(cache, ignore_errors=True)
        runs.append({"cold_s": times[0], "warm_s": times[1], "load": os.getloadavg()[0]})
    report = json.loads((work / "r.json").read_text())
    cold, warm = _median([r["cold_s"] for r in runs]), _median([r["warm_s"] for r in runs])
    ratio = _median([r["cold_s"] / r["warm_s"] for r in runs])
    each = ", ".join(f"{r['cold_s']:.2f}s/{r['warm_s']:.2f}s" for r in runs)
    print(f"  {n_claims} claims over {n_pdfs} PDFs: cold {cold:.2f}s, warm {warm:.2f}s, {ratio:.1f}x "
          f"(rounds cold/warm: {each})", flush=True)  # fmt: skip
    return {"pdfs": n_pdfs, "claims": n_claims, "cold_s": cold, "warm_s": warm, "ratio": ratio, "rounds": runs,
            "verified": report["counts"]["verified"]}  # fmt: skip


# ---------------------------------------------------------------- report


def write_docs(res: dict[str, Any]) -> None:
    q = res["quotes"]
    lines = [
        "# Benchmarks",
        "",
        f"Measured by `make bench` (`scripts/bench.py`) on {res['machine']} ({os.cpu_count()} cores), {res['date']}"
        f"{' at ' + res['commit'] if res.get('commit') else ''}; load average "
        f"{res.get('load_start', 0):.1f} at the start, {res.get('load_end', 0):.1f} at the end.",
        "Workloads are built deterministically from the real texts under `../shared/bench/`",
        "(WiCE and SummEdits sources, and the Japanese JNLI/JaNLI/JHARS premises); sources carry",
        "PDF-like artefacts (U+FFFE hyphenation, ligatures, curly quotes). Quotes are 50% verbatim,",
        "25% with artefacts on the quote side (line breaks, ligatures, curly quotes) and 25% mutated",
        "(one word changed). Every run is a fresh process with a cold cache unless stated.",
        "",
        "## Quotes",
        "",
        "`naive` is seed 000's gate (normalize the cited source again for every quote, then a",
        "substring search), measured on a sample of quotes and extrapolated linearly to all of them.",
        "`grep -F` is `grep -F -o -f patterns` over the already-normalized corpus: a floor with no",
        "normalization, no offsets and no near-miss search. `wrong` counts verdicts that disagree",
        "with the construction (a mutated quote verified, or a true quote not verified).",
        "",
        "`claimledger` is the wall time of `gate()` in a fresh process with a cold cache (its CPU time in",
        "brackets); process start-up and imports are not counted. The rows of issue 19's *Done when* (marked",
        f"with *) and the half-absent workload are measured in {res.get('rounds', ROUNDS)} interleaved rounds (claimledger, then",
        "`grep -F`): their times are medians and `vs grep` is the median of the rounds' ratios; `load` is",
        "the highest load average seen at the start of a round. The naive gate is measured once per row.",
        "",
        "| corpus | docs | quotes | claimledger | peak RSS | naive (extrapolated) | grep -F | vs naive | vs grep | load | wrong |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    half = res.get("half_absent")
    for r in [*q, *([half] if half else [])]:
        label = f"{r['corpus_mb']:.0f} MB"
        if r is half:
            label += " (half absent)"
        if len(r.get("rounds", [])) > 1:
            label += " *"
        lines.append(
            f"| {label} | {r['docs']} | {r['quotes']:,} | {r['ours_s']:.2f} s ({r['ours_cpu_s']:.2f} s CPU) | "
            f"{r['peak_mb']:.0f} MB | {r['naive_s']:.1f} s ({r['naive_measured']} measured) | "
            f"{r['grep_s']:.2f} s | {r['naive_s'] / r['ours_s']:.0f}x faster | "
            f"{r['vs_grep']:.1f}x slower | {r['load']:.1f} | {r['wrong']} |"
        )
    each = [
        f"- {r['corpus_mb']:.0f} MB x {r['quotes']:,}{' (half absent)' if r is half else ''}: "
        + ", ".join(f"{x['ours_s']:.2f} s / {x['grep_s']:.2f} s" for x in r["rounds"])
        for r in [*q, *([half] if half else [])]
        if len(r.get("rounds", [])) > 1
    ]
    if each:
        lines += ["", "Rounds of the starred rows (claimledger / grep -F, wall):", "", *each]
    big = res["largest"]
    lines += [
        "",
        f"Largest single source: {big['source_mb']:.0f} MB of text, 1,000 quotes: {big['seconds']:.1f} s, "
        f"peak RSS {big['peak_mb']:.0f} MB, of which {big['run_mb']:.0f} MB above the process baseline: "
        f"{big['run_mb'] / big['source_mb']:.1f}x the file's size, {big['run_mb'] / big['text_mem_mb']:.1f}x the "
        f"size of its text in memory ({big['text_mem_mb']:.0f} MB: CPython stores a string that holds an emoji "
        "at 4 bytes per character).",
        "",
        "## Numbers",
        "",
        "| format | rows | SQL claims | claimledger | bare DuckDB | ratio | verified |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["numbers"]:
        lines.append(
            f"| {r['format']} | {r['rows']:,} | {r['queries']:,} | {r['ours_s']:.2f} s | {r['duckdb_s']:.2f} s | "
            f"{r['ours_s'] / r['duckdb_s']:.2f}x | {r['verified']:,} |"
        )
    e = res["e2e"]
    lines += [
        "",
        "## End to end",
        "",
        f"`claimledger check` on {e['claims']} quote claims over {e['pdfs']} generated PDFs (real PDFium "
        f"extraction), {len(e.get('rounds', [1]))} rounds, each with a fresh cache then the same cache again: "
        f"cold {e['cold_s']:.2f} s, warm {e['warm_s']:.2f} s (medians; warm {_e2e_ratio(e):.1f}x faster, "
        f"the median of the rounds' ratios); {e['verified']} verified.",
        "",
        "## Growth with corpus size",
        "",
        "![time against corpus size](benchmarks.png)",
        "",
    ]
    for n in sorted({r["quotes"] for r in q}):
        pts = [r for r in q if r["quotes"] == n]
        if len(pts) >= 2:
            per_mb = ", ".join(f"{r['ours_s'] / r['corpus_mb'] * 1000:.0f} ms/MB at {r['corpus_mb']:.0f} MB"
                               for r in pts)  # fmt: skip
            lines.append(f"- {n:,} quotes: {per_mb}")
    lines += ["", "## Targets", "", *WHY, "", *res["targets"], ""]
    (ROOT / "docs").mkdir(exist_ok=True)
    path = ROOT / "docs" / "benchmarks.md"
    kept = ""
    if path.exists():  # sections written by hand (or by other scripts) below the marker are kept
        old = path.read_text("utf-8")
        if KEEP_MARKER in old:
            kept = old[old.index(KEEP_MARKER) :]
    path.write_text("\n".join(lines) + "\n" + (kept or KEEP_MARKER + "\n"), "utf-8")


KEEP_MARKER = "<!-- everything below this line is kept by scripts/bench.py when it rewrites the tables above -->"


WHY = [
    "Measured in one run on this machine. Where a target is missed, this is why:",
    "",
    "- **vs naive and vs `grep -F`**: claimledger normalizes every source once with an offset map back",
    "  to the original text, checks each quote on word and number boundaries, searches every declared",
    "  source for quotes that were not found where they were cited (misattribution), looks for the",
    "  nearest passage of every quote it did not find, and runs the overclaim rules and word diffs",
    "  per claim. `grep -F` runs over text normalized beforehand and does none of this; seed 000's",
    "  naive gate never looks beyond the cited document. So our cost grows with the corpus and with",
    "  the per-claim work, the naive one with quotes times document size. The index cache removes",
    "  the normalization on a second run (see *End to end*).",
    "- **memory**: the original text and its normalized text (built in place by the C core, no final",
    "  copy) coexist with the offset map for the source being read (the hyphen-keeping reading is built",
    "  only in small windows); a text with an emoji is stored by CPython at 4 bytes per character.",
    "  Sources are taken one at a time (two reading threads prepare the next ones, holding at most",
    "  16 MB of files between them), so the peak does not grow with the number of sources.",
    "- **warm**: a warm run still imports the package, parses the ledger, reads every source to check",
    "  its SHA-256 and builds every finding; the index, the scan's answers for quotes not found",
    "  verbatim and the overclaim rules' answers come from the cache.",
]


def plot(res: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for n in sorted({r["quotes"] for r in res["quotes"]}):
        pts = sorted((r for r in res["quotes"] if r["quotes"] == n), key=lambda r: r["corpus_mb"])
        xs = [r["corpus_mb"] for r in pts]
        ax.plot(xs, [r["ours_s"] for r in pts], "o-", label=f"claimledger, {n:,} quotes")
        ax.plot(xs, [r["grep_s"] for r in pts], "x--", label=f"grep -F floor, {n:,} quotes")
        ax.plot(xs, [r["naive_s"] for r in pts], ":", label=f"naive (extrapolated), {n:,} quotes")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("corpus size (MB)")
    ax.set_ylabel("seconds")
    ax.set_title("Quote check time against corpus size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ROOT / "docs" / "benchmarks.png", dpi=110)


def _vs_grep(r: dict[str, Any]) -> float:
    return float(r["vs_grep"]) if "vs_grep" in r else float(r["ours_s"] / max(r["grep_s"], 1e-9))


def _e2e_ratio(e: dict[str, Any]) -> float:
    return float(e["ratio"]) if "ratio" in e else float(e["cold_s"] / e["warm_s"])


def targets(res: dict[str, Any]) -> list[str]:
    """Issue 19's "Done when", as far as one run of this script measures it."""
    out = []

    def row(mb: int, n: int) -> dict[str, Any] | None:
        at = [r for r in res["quotes"] if r["quotes"] == n and round(r["corpus_mb"]) == mb]
        return at[0] if at else None

    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    for name, r in (("100 MB x 10k quotes", row(100, 10_000)), ("half-absent workload", res.get("half_absent"))):
        if r:
            gr, sp = _vs_grep(r), r["naive_s"] / r["ours_s"]
            out.append(f"- {name}, vs grep -F: {gr:.1f}x (target <= 8x; goal 3x): {verdict(gr <= 8)}")
            out.append(f"- {name}, vs naive: {sp:.0f}x faster (target >= 100x): {verdict(sp >= 100)}")
    r = row(10, 100_000)
    if r:
        gr = _vs_grep(r)
        out.append(f"- 10 MB x 100k quotes, vs grep -F: {gr:.1f}x (target <= 5x): {verdict(gr <= 5)}")
    r = row(1000, 1_000)
    if r:
        sp = r["naive_s"] / r["ours_s"]
        out.append(f"- 1 GB x 1k quotes, vs naive: {sp:.1f}x faster (target >= 10x): {verdict(sp >= 10)}")
    for r in res["numbers"]:
        ratio = r["ours_s"] / r["duckdb_s"]
        whole = r["verified"] == r["queries"]  # a run that verified less did less work: no comparison
        why = "" if whole else f" ({r['verified']}/{r['queries']} verified: {r.get('unverified') or 'no reasons kept'})"
        out.append(f"- numbers ({r['format']}): {ratio:.2f}x bare DuckDB (target <= 1.5x): "
                   f"{verdict(ratio <= 1.5 and whole)}{why}")  # fmt: skip
    e = res["e2e"]
    w = _e2e_ratio(e)
    out.append(f"- warm run (PDFs end to end): {w:.1f}x faster than cold (target >= 10x): {verdict(w >= 10)}")
    big = res["largest"]
    m = big["run_mb"] / big["text_mem_mb"]
    f = big["run_mb"] / big["source_mb"]
    out.append(f"- peak memory above baseline: {m:.1f}x the largest source's text in memory, {f:.1f}x its file size "
               f"(target <= 3x): {verdict(m <= 3)}")
    return out


def compile_package(root: Path = ROOT) -> None:
    """The package under ``root`` compiled to bytecode, as a pip install leaves it. Where
    PYTHONDONTWRITEBYTECODE is set (or an editable install was never imported), a module without
    up-to-date bytecode is compiled again by every measured run: inside ``gate()`` for the modules it
    imports on first use, and ~360 modules for a ``claimledger`` command."""
    compileall.compile_dir(str(root / "claimledger"), quiet=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    subs = ap.add_subparsers(dest="cmd")
    p = subs.add_parser("_quotes")
    p.add_argument("--docs")
    p.add_argument("--quotes")
    p.add_argument("--cache")
    p = subs.add_parser("_naive")
    p.add_argument("--docs")
    p.add_argument("--quotes")
    p.add_argument("--limit", type=int)
    p = subs.add_parser("_numbers")
    p.add_argument("--mode")
    p.add_argument("--table")
    p.add_argument("--queries")
    p.add_argument("--values")
    p.add_argument("--cache")
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    ap.add_argument("--rounds", type=int, default=ROUNDS,
                    help=f"interleaved rounds of the Done-when rows, the half-absent row and end to end (default {ROUNDS})")
    ap.add_argument("--from-json", metavar="FILE",
                    help="write docs/benchmarks.md and .png again from a saved run (docs/benchmarks.json)")
    args = ap.parse_args()
    if args.cmd == "_quotes":
        return run_claimledger_quotes(args)
    if args.cmd == "_naive":
        return run_naive(args)
    if args.cmd == "_numbers":
        return run_numbers(args)
    if args.from_json:
        again: dict[str, Any] = json.loads(Path(args.from_json).read_text("utf-8"))
        again["targets"] = targets(again)
        write_docs(again)
        plot(again)
        print("\n".join(again["targets"]))
        return None
    if not BENCH.exists():
        sys.exit(f"bench data not found at {BENCH} (set CLAIMLEDGER_BENCH_DATA)")
    compile_package()
    if args.quick:
        sizes, counts, rows_n, nq, pdfs, claims, largest = [10_000_000], [1_000, 10_000], 1_000_000, 200, 10, 100, 20_000_000
        absent = (10_000_000, 2_500_000, 1_000)
    else:
        sizes, counts = [10_000_000, 100_000_000, 1_000_000_000], [1_000, 10_000, 100_000]
        rows_n, nq, pdfs, claims, largest = 10_000_000, 1_000, 50, 500, 100_000_000
        absent = (100_000_000, 5_000_000, 10_000)  # issue 19: 20 files of 5 MB, 10k quotes, half absent
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()  # fmt: skip
    res: dict[str, Any] = {
        "machine": f"{os.uname().machine}, Python {sys.version.split()[0]}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": commit,
        "rounds": args.rounds,
        "load_start": os.getloadavg()[0],
    }
    saved = ROOT / "docs" / "benchmarks.json"
    with tempfile.TemporaryDirectory(prefix="claimledger-bench-") as tmp:
        work = Path(tmp)
        print("quotes:", flush=True)
        res["quotes"] = bench_quotes(work, sizes, counts, naive_limit=200, rounds=args.rounds)
        print("half-absent:", flush=True)
        res["half_absent"] = bench_half_absent(work, *absent, naive_limit=10, rounds=args.rounds)
        print("largest source:", flush=True)
        res["largest"] = bench_largest_source(work, largest)
        print(f"  {res['largest']}", flush=True)
        print("numbers:", flush=True)
        res["numbers"] = bench_numbers(work, rows_n, nq)
        print("end to end:", flush=True)
        res["e2e"] = bench_end_to_end(work, pdfs, claims, rounds=args.rounds)
    res["load_end"] = os.getloadavg()[0]
    # the raw figures first: the docs can be written again from them (--from-json)
    saved.write_text(json.dumps(res, indent=2), "utf-8")
    res["targets"] = targets(res)
    print("\n".join(res["targets"]))
    write_docs(res)
    plot(res)
    saved.write_text(json.dumps(res, indent=2), "utf-8")
    print("wrote docs/benchmarks.md, docs/benchmarks.png, docs/benchmarks.json")


if __name__ == "__main__":
    main()
