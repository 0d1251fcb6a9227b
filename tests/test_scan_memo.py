"""The scan's answers for quotes missing from their cited source, remembered across runs
(checks/scan_memo.py, issue 19): a warm run neither builds a PDF's second readings nor aligns a
nearest passage again, and reports exactly what the cold run did; a stored answer that is corrupt,
foreign to its key or out of the source's bounds, or a store that is not a database, is never
believed (the search runs again)."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from claimledger import GateConfig, gate
from claimledger.checks import quote_scan, readings
from claimledger.checks.scan_memo import (
    MEMO_FILES,
    answer_key,
    answer_keys,
    memo_fingerprint,
    memo_path,
    near_payload,
)
from claimledger.load.index import IndexedSource, read_source
from claimledger.model.claim import Ledger, QuoteClaim
from claimledger.model.finding import Finding
from tests.realdocs import Page, report_pdf

EN_PAGES = [
    Page(["In the pilot, the new triage tool may reduce waiting times in the ward, and the",
          "staff said that the scheduler usually answers within a day. About 40% of the",
          "respondents were nurses, and some users prefer the dark theme of the"]),
    Page(["interface. Sales grew by roughly 12% last year, while the number of complaints fell to its",
          "lowest level since the survey began; the board expects the trend to continue."],
         caption=["Figure 1. Complaints by ward and month."],
         footnotes=["1 Complaints are counted when filed, not when resolved."]),
]  # fmt: skip
JA_PAGES = [
    Page(["試験運用では、新しい仕組みによって生産性が向上する可能性がある。",
          "窓口は通常、一日以内に回答する。回答者の約4割が看護師であった。"]),
    Page(["一部の利用者は暗いテーマを好むが、多くは明るいテーマを選んだ。"]),
]  # fmt: skip
QUOTES = [
    ("en", "the new triage tool may reduce waiting times in the ward"),  # found
    ("en", "the new triage tool will reduce waiting times in the ward"),  # a near miss
    ("en", "some users prefer the dark theme of the website"),  # a near miss
    ("en", "respondents were nurses, and some users prefer the dark theme"),  # found
    ("en", "prefer the dark theme of the interface. Sales grew"),  # across the page break, header between
    ("en", "an entirely different sentence that is nowhere in this report"),  # absent
    ("ja", "新しい仕組みによって生産性が向上する可能性がある"),  # found
    ("ja", "新しい仕組みによって生産性が必ず向上する"),  # a near miss
    ("ja", "窓口は通常、一週間以内に回答する"),  # a near miss
]


def _ledger(tmp_path: Path) -> Ledger:
    report_pdf(tmp_path / "en.pdf", EN_PAGES, header="Annual report 2025 - Hospital trust", footer="Hospital trust")
    report_pdf(tmp_path / "ja.pdf", JA_PAGES, header="年次報告書 2025", lang="ja")
    return Ledger(
        version=1,
        sources={"en": str(tmp_path / "en.pdf"), "ja": str(tmp_path / "ja.pdf")},
        claims=[QuoteClaim(id=f"Q{i}", kind="quote", source=s, quote=q) for i, (s, q) in enumerate(QUOTES)],
    )


def _key(findings: list[Finding]) -> list[tuple[object, ...]]:
    return [(f.claim_id, f.check, f.status, f.reason, f.tier, f.message, f.evidence, f.nearest, f.diff, f.extra)
            for f in findings]  # fmt: skip


class _Calls:
    """Counts the two searches the memo stands for (the real functions still run)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.readings = 0
        self.near: list[str] = []
        real_readings, real_spans = readings.readings, quote_scan.nearest_spans

        def counted_readings(ix: IndexedSource) -> Any:
            self.readings += 1
            return real_readings(ix)

        def counted_spans(quotes: list[str], ix: IndexedSource, known: Any = None) -> Any:
            self.near += quotes
            return real_spans(quotes, ix, known)

        monkeypatch.setattr(readings, "readings", counted_readings)
        monkeypatch.setattr(quote_scan, "nearest_spans", counted_spans)


def _run(tmp_path: Path, ledger: Ledger, cache: Path, **kw: Any) -> list[Finding]:
    return gate(ledger, config=GateConfig(cache_dir=cache, **kw), base_dir=tmp_path).findings


def test_a_warm_run_answers_from_the_memo_and_reports_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = _ledger(tmp_path)
    cache = tmp_path / "cache"
    calls = _Calls(monkeypatch)
    cold = _run(tmp_path, ledger, cache)
    assert calls.readings > 0 and len(calls.near) >= 5
    near = {f.claim_id for f in cold if f.nearest is not None}
    assert {"Q1", "Q2", "Q7", "Q8"} <= near
    across = next(f for f in cold if f.claim_id == "Q4" and f.check == "literal_quote")
    assert across.evidence is not None and across.evidence.reading == "pdf_body"  # found in a second reading
    calls.readings, calls.near = 0, []
    warm = _run(tmp_path, ledger, cache)
    assert _key(warm) == _key(cold)
    assert calls.near == []  # every nearest passage came from the memo
    # the quote found only in the PDF body reading is not stored: its evidence is computed again
    assert calls.readings > 0
    without = _run(tmp_path, ledger, tmp_path / "no-cache", index_cache=False)
    assert _key(without) == _key(cold)
    assert not memo_path(tmp_path / "no-cache").exists()


def test_an_absent_quote_needs_no_second_reading_when_warm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = _ledger(tmp_path)
    ledger = ledger.model_copy(update={"claims": [c for c in ledger.claims if c.id in ("Q0", "Q1", "Q5")]})
    cache = tmp_path / "cache"
    calls = _Calls(monkeypatch)
    cold = _run(tmp_path, ledger, cache)
    assert calls.readings > 0
    calls.readings = 0
    assert _key(_run(tmp_path, ledger, cache)) == _key(cold)
    assert calls.readings == 0  # the PDF's body reading was never built


@pytest.mark.parametrize("tamper", ["payload", "foreign", "bounds", "not_a_database", "garbage_json"])
def test_a_corrupt_or_foreign_answer_is_not_believed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tamper: str) -> None:
    from claimledger.checks._rowstore import row_check as _check

    ledger = _ledger(tmp_path)
    cache = tmp_path / "cache"
    cold = _run(tmp_path, ledger, cache)
    path = memo_path(cache)
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT key, payload, check_ FROM answers ORDER BY key").fetchall()
        assert len(rows) >= 6
        if tamper == "payload":  # every answer says "no passage", the checks left as they were
            db.execute("UPDATE answers SET payload = 'null'")
        elif tamper == "foreign":  # each row's payload and check moved to another row's key
            for (key, _, _), (_, payload, check) in zip(rows, rows[1:] + rows[:1], strict=True):
                db.execute("UPDATE answers SET payload = ?, check_ = ? WHERE key = ?", (payload, check, key))
        elif tamper == "bounds":  # a valid check over a span past the source's end
            for key, payload, _ in rows:
                if payload.startswith("["):
                    bad = json.dumps([99.0, 10, 10**9])
                    db.execute("UPDATE answers SET payload = ?, check_ = ? WHERE key = ?", (bad, _check(key, bad), key))
        elif tamper == "garbage_json":
            for key, _, _ in rows:
                db.execute("UPDATE answers SET payload = ?, check_ = ? WHERE key = ?", ("[1,", _check(key, "[1,"), key))
    if tamper == "not_a_database":
        path.write_bytes(b"not a database" * 100)
    calls = _Calls(monkeypatch)
    assert _key(_run(tmp_path, ledger, cache)) == _key(cold)
    assert len(calls.near) >= 4  # the searches ran again


def test_every_input_and_the_code_are_in_the_key() -> None:
    keys = {answer_key("d", "near", "q"), answer_key("d2", "near", "q"), answer_key("d", "readings", "q"),
            answer_key("d", "near", "q2")}  # fmt: skip
    assert len(keys) == 4
    assert answer_key("d", "near", "\ud800") != answer_key("d", "near", "\ud801")  # lone surrogates are fine
    assert len(memo_fingerprint()) == 64


def test_the_fingerprint_reads_the_rapidfuzz_version_the_module_reports() -> None:
    import rapidfuzz

    from claimledger.checks.scan_memo import _rapidfuzz_version

    assert _rapidfuzz_version() == rapidfuzz.__version__


def test_the_keys_of_many_quotes_are_the_key_of_each() -> None:
    quotes = ["q", "", '"quoted" \\ back', "日本語の引用", "\ud800 lone", "tab\there", "😀 astral", "q"]
    for digest, what in (("d", "near"), ("0" * 64, "readings"), ('odd "digest"', "near")):
        assert answer_keys(digest, what, quotes) == {answer_key(digest, what, nq): nq for nq in quotes}


@given(hs.none() | hs.tuples(hs.floats(allow_nan=True, allow_infinity=True) | hs.integers(0, 100), hs.integers(), hs.integers()))
def test_a_nearest_passage_is_stored_as_its_json(near: tuple[float, int, int] | None) -> None:
    """near_payload writes what json.dumps writes (the stored text the next run reads back)."""
    assert near_payload(near) == json.dumps(None if near is None else list(near))


def _ix(path: Path) -> IndexedSource:
    got = read_source("s", str(path), GateConfig(index_cache=False))
    assert isinstance(got, IndexedSource)
    return got


def test_each_quote_s_nearest_passage_does_not_depend_on_the_others(tmp_path: Path) -> None:
    """The memo stores answers one quote at a time: asking for a batch or for each alone must agree,
    on a short source (full alignment) and a long one (seed-and-extend)."""
    rng = random.Random(7)
    words = [w for p in EN_PAGES for line in p.body for w in line.split()]
    for n_words in (400, 12_000):
        text = " ".join(rng.choice(words) for _ in range(n_words))
        (tmp_path / "s.txt").write_text(text, encoding="utf-8")
        ix = _ix(tmp_path / "s.txt")
        quotes = []
        for _ in range(12):
            at = rng.randrange(0, n_words - 12)
            piece = text.split()[at : at + rng.randint(5, 12)]
            piece[rng.randrange(len(piece))] = "zebra"
            quotes.append(" ".join(piece).lower())
        quotes.append("nothing of this kind occurs anywhere quux")
        batch = quote_scan.nearest_spans(quotes, ix)
        assert len(batch) >= 10
        for i, q in enumerate(quotes):
            alone = quote_scan.nearest_spans([q], ix)
            assert alone.get(0) == batch.get(i)


_TRACE = r"""
import sys, json
from pathlib import Path
import claimledger
from claimledger import GateConfig
from claimledger.checks.quote_scan import nearest_spans
from claimledger.checks.readings import find_in_readings
from claimledger.load.index import read_source
pkg = Path(claimledger.__file__).resolve().parent
seen = set()
def prof(frame, event, arg):
    if event == "call":
        f = Path(frame.f_code.co_filename)
        if f.is_relative_to(pkg):
            seen.add(f.relative_to(pkg).as_posix())
cases = json.loads(sys.stdin.read())
ixs = {p: read_source("s", p, GateConfig(index_cache=False)) for p, _ in cases}
sys.setprofile(prof)
for p, q in cases:
    find_in_readings(ixs[p], q)
    nearest_spans([q], ixs[p])
sys.setprofile(None)
print(json.dumps(sorted(seen)))
"""


def test_the_fingerprint_covers_all_code_the_searches_run(tmp_path: Path) -> None:
    _ledger(tmp_path)
    long = tmp_path / "long.txt"
    long.write_text(" ".join(line for p in EN_PAGES for line in p.body) * 300, encoding="utf-8")
    cases = [[str(tmp_path / f"{s}.pdf"), q] for s, q in QUOTES] + [[str(long), "the board expects the trend to end"]]
    out = subprocess.run([sys.executable, "-c", _TRACE], input=json.dumps(cases), capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parent)  # fmt: skip
    ran = set(json.loads(out.stdout))
    assert "checks/readings.py" in ran and "checks/quote_scan.py" in ran
    assert ran - set(MEMO_FILES) == set()
