"""The overclaim rules' results remembered across runs (checks/overclaim/store.py, issue 19).

A warm run answers the rules from the store; the answer must be the rules' own, for the same
statement, quote, source context and code, and never hide a finding the rules would raise.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from claimledger import GateConfig, gate
from claimledger.checks.overclaim import overclaim_hits
from claimledger.checks.overclaim.store import (
    StoreRowError,
    dump_hits,
    load_hits,
    result_key,
    rule_files,
    rules_fingerprint,
    store_path,
)
from claimledger.model.claim import Ledger, QuoteClaim
from claimledger.model.finding import Finding

EN_SOURCE = (
    "Annual report 2025\n\nIn the pilot, the new triage tool may reduce waiting times in the ward. "
    "Staff said that the scheduler usually answers within a day. About 40% of the respondents "
    "were nurses, and some users prefer the dark theme. Sales grew by roughly 12% last year.\n"
)
JA_SOURCE = (
    "年次報告書\n\n試験運用では、新しい仕組みによって生産性が向上する可能性がある。"
    "窓口は通常、一日以内に回答する。回答者の約4割が看護師であり、一部の利用者は暗いテーマを好む。\n"
)
# (id, source, quote, statement): overclaims, faithful uses, and quotes standing for themselves
CLAIMS = [
    ("e1", "en", "the new triage tool may reduce waiting times in the ward", "The new triage tool reduces waiting times in the ward."),
    ("e2", "en", "the new triage tool may reduce waiting times in the ward", "The new triage tool may reduce waiting times."),
    ("e3", "en", "the scheduler usually answers within a day", None),
    ("e4", "en", "40% of the respondents were nurses", "40% of the respondents were nurses."),
    ("e5", "en", "some users prefer the dark theme", "All users prefer the dark theme."),
    ("j1", "ja", "生産性が向上する", "生産性が向上する。"),
    ("j2", "ja", "新しい仕組みによって生産性が向上する可能性がある", "新しい仕組みによって生産性が向上する。"),
    ("j3", "ja", "一部の利用者は暗いテーマを好む", "全ての利用者は暗いテーマを好む。"),
    ("j4", "ja", "4割が看護師であり", None),
]


def _ledger(tmp_path: Path, claims: list[tuple[str, str, str, str | None]] = CLAIMS) -> Ledger:
    (tmp_path / "en.txt").write_text(EN_SOURCE, encoding="utf-8")
    (tmp_path / "ja.txt").write_text(JA_SOURCE, encoding="utf-8")
    return Ledger(
        version=1,
        sources={"en": str(tmp_path / "en.txt"), "ja": str(tmp_path / "ja.txt")},
        claims=[QuoteClaim(id=i, kind="quote", source=s, quote=q, statement=st) for i, s, q, st in claims],
    )


def _overclaims(findings: list[Finding]) -> list[tuple[object, ...]]:
    return [(f.claim_id, f.status, f.reason, f.tier, f.message, f.extra) for f in findings if f.check == "overclaim"]


def _run(tmp_path: Path, ledger: Ledger, cache: Path, **kw: object) -> list[Finding]:
    return gate(ledger, config=GateConfig(cache_dir=cache, **kw), base_dir=tmp_path).findings  # type: ignore[arg-type]


def test_a_warm_run_reports_what_a_cold_run_does(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    cold = _run(tmp_path, ledger, tmp_path / "cache")
    rules = {f.extra["rule"] for f in cold if f.check == "overclaim"}
    # the ledger exercises the rules in both languages (and the source-context rules)
    assert {"modality_strengthened", "quantifier_broadened", "quote_omits_modality"} <= rules
    assert {f.claim_id for f in cold if f.check == "overclaim"} >= {"e1", "e5", "j2", "j3"}
    with sqlite3.connect(store_path(tmp_path / "cache")) as db:
        assert db.execute("SELECT count(*) FROM hits").fetchone()[0] == len(CLAIMS)
    warm = _run(tmp_path, ledger, tmp_path / "cache")
    assert _overclaims(warm) == _overclaims(cold)
    assert warm == cold
    no_store = _run(tmp_path, ledger, tmp_path / "other", index_cache=False)
    assert not store_path(tmp_path / "other").exists()
    assert _overclaims(no_store) == _overclaims(cold)


def test_a_changed_statement_is_checked_again(tmp_path: Path) -> None:
    """Issue 14 item 1 was a stale cache entry turned into a false [V]: here the quote and its context
    stay, the statement changes from faithful to an overclaim between two runs."""
    cache = tmp_path / "cache"
    faithful = [("c", "en", "some users prefer the dark theme", "Some users prefer the dark theme.")]
    assert _overclaims(_run(tmp_path, _ledger(tmp_path, faithful), cache)) == []
    broadened = [("c", "en", "some users prefer the dark theme", "All users prefer the dark theme.")]
    assert [o[5]["rule"] for o in _overclaims(_run(tmp_path, _ledger(tmp_path, broadened), cache))] == [
        "quantifier_broadened"
    ]
    ja_faithful = [("c", "ja", "一部の利用者は暗いテーマを好む", "一部の利用者は暗いテーマを好む。")]
    assert _overclaims(_run(tmp_path, _ledger(tmp_path, ja_faithful), cache)) == []
    ja_broadened = [("c", "ja", "一部の利用者は暗いテーマを好む", "全ての利用者は暗いテーマを好む。")]
    assert [o[5]["rule"] for o in _overclaims(_run(tmp_path, _ledger(tmp_path, ja_broadened), cache))] == [
        "quantifier_broadened"
    ]


def test_a_changed_source_context_is_checked_again(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    claims = [("c", "en", "reduce waiting times in the ward", None)]
    first = _overclaims(_run(tmp_path, _ledger(tmp_path, claims), cache))
    assert [o[5]["rule"] for o in first] == ["quote_omits_modality"]  # "may" stands right before the quote
    (tmp_path / "en2.txt").write_text(EN_SOURCE.replace("may reduce", "will reduce"), encoding="utf-8")
    ledger = _ledger(tmp_path, claims)
    ledger = Ledger(version=1, sources={"en": str(tmp_path / "en2.txt")}, claims=ledger.claims)
    assert _overclaims(_run(tmp_path, ledger, cache)) == []


def test_every_input_and_the_code_are_in_the_key() -> None:
    base = result_key("s", "q", "c")
    assert len({base, result_key("s2", "q", "c"), result_key("s", "q2", "c"), result_key("s", "q", "c2"),
                result_key("s", "q", None), result_key("s", "q", "")}) == 6  # fmt: skip
    # no two argument lists run together (JSON, not concatenation)
    assert result_key("ab", "c", None) != result_key("a", "bc", None)
    assert result_key("\ud800", "q", None) != result_key("\ud801", "q", None)  # lone surrogates are fine
    files = rule_files()
    assert "checks/overclaim/modality.py" in files and "checks/overclaim/lexicon.py" in files
    assert "numbers.py" in files and "_cnormalize.c" in files
    assert len(rules_fingerprint()) == 64


_TRACE = r"""
import sys, json
from pathlib import Path
import claimledger
from claimledger.checks.overclaim import overclaim_hits
pkg = Path(claimledger.__file__).resolve().parent
seen = set()
def prof(frame, event, arg):
    if event == "call":
        f = Path(frame.f_code.co_filename)
        if f.is_relative_to(pkg):
            seen.add(f.relative_to(pkg).as_posix())
cases = json.loads(sys.stdin.read())
sys.setprofile(prof)
for s, q, c in cases:
    overclaim_hits(s, q, c)
sys.setprofile(None)
print(json.dumps(sorted(seen)))
"""


def test_the_fingerprint_covers_all_code_the_rules_run() -> None:
    cases = [[st or q, q, EN_SOURCE if s == "en" else JA_SOURCE] for _i, s, q, st in CLAIMS]
    cases += [["About 4 times as many, 二倍, twice, 3割, ４０％, 1.2万人", "about 4 times, 約2倍, 3割以上", "up to 5x or so"]]
    out = subprocess.run([sys.executable, "-c", _TRACE], input=json.dumps(cases), capture_output=True, text=True,
                         check=True)  # fmt: skip
    ran = set(json.loads(out.stdout))
    assert "checks/overclaim/figures.py" in ran and "numbers.py" in ran
    assert ran - set(rule_files()) == set()


def test_stored_hits_read_back_equal(tmp_path: Path) -> None:
    for _i, s, q, st in CLAIMS:
        hits = overclaim_hits(st or q, q, EN_SOURCE if s == "en" else JA_SOURCE)
        assert load_hits(dump_hits(hits)) == hits
    for bad in ('[{"reason": "overclaim_scope"}]', "not json", '{"a": 1}', json.dumps([{**json.loads(dump_hits(
            overclaim_hits("All users prefer it.", "some users prefer it")))[0], "reason": "no_such_reason"}])):  # fmt: skip
        with pytest.raises(StoreRowError):
            load_hits(bad)


def test_a_tampered_or_broken_store_is_not_believed(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    cache = tmp_path / "cache"
    cold = _run(tmp_path, ledger, cache)
    # every stored answer replaced by "no hits", but the rows' checks left as they were
    with sqlite3.connect(store_path(cache)) as db:
        db.execute("UPDATE hits SET payload = '[]'")
    assert _overclaims(_run(tmp_path, ledger, cache)) == _overclaims(cold)
    # a file that is not a database at all
    store_path(cache).write_bytes(b"not a database" * 100)
    assert _overclaims(_run(tmp_path, ledger, cache)) == _overclaims(cold)


def test_the_warm_run_reads_the_store(tmp_path: Path) -> None:
    """The store is really read: a row rewritten with a valid check is what the next run reports."""
    from claimledger.checks._rowstore import row_check as _check

    claims = [("c", "en", "some users prefer the dark theme", "Some users prefer the dark theme.")]
    ledger = _ledger(tmp_path, claims)
    cache = tmp_path / "cache"
    assert _overclaims(_run(tmp_path, ledger, cache)) == []
    hit = overclaim_hits("All users prefer the dark theme.", "some users prefer the dark theme")
    with sqlite3.connect(store_path(cache)) as db:
        (key,) = db.execute("SELECT key FROM hits").fetchone()
        payload = dump_hits(hit)
        db.execute("UPDATE hits SET payload = ?, check_ = ?", (payload, _check(key, payload)))
    assert [o[5]["rule"] for o in _overclaims(_run(tmp_path, ledger, cache))] == ["quantifier_broadened"]


def test_a_store_that_cannot_be_written_costs_speed_never_a_check(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    expected = _overclaims(_run(tmp_path, ledger, tmp_path / "fresh"))
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "overclaim").write_text("a file where the store's folder belongs", encoding="utf-8")
    assert _overclaims(_run(tmp_path, ledger, cache)) == expected
    assert _overclaims(_run(tmp_path, ledger, cache)) == expected


def test_a_cold_store_is_not_asked_claim_by_claim(tmp_path: Path) -> None:
    """A store that held nothing when the run opened it answers nothing, without one query per claim
    (100,000 claims made 100,000 lookups that found nothing); a store with rows is asked."""
    from claimledger.checks.overclaim.store import ResultStore

    path = tmp_path / "store.sqlite"
    cold = ResultStore(path)
    hits = overclaim_hits("All users prefer it.", "some users prefer it")
    assert cold.get("k1") is None and cold._empty
    queries: list[str] = []
    assert cold._db is not None
    cold._db.set_trace_callback(queries.append)
    assert cold.get("k2") is None and not queries
    cold.put("k1", hits)
    assert cold.get("k1") == hits  # this run's own results are answered
    cold.close()
    warm = ResultStore(path)
    assert warm.get("k1") == hits and not warm._empty
    assert warm.get("k2") is None
    warm.close()


_ANY_TEXT = hs.text(hs.characters(blacklist_categories=()) | hs.sampled_from(["\ud800", "\udfff", '"', "\\", "\x00", "\u2028"]))


@given(_ANY_TEXT, hs.none() | _ANY_TEXT, hs.none() | _ANY_TEXT)
def test_the_key_text_gives_back_its_fields(statement: str, quote: str | None, context: str | None) -> None:
    """The key's text (store version 2) is read back into exactly the fields it was written from, so
    two different argument lists never share a key; lone surrogates and escapes included."""
    from claimledger.checks.overclaim.store import STORE_VERSION, key_text, result_key, rules_fingerprint

    text = key_text(statement, quote, context)
    head, body = text.split("\n", 1)
    version, fingerprint, s, q, c = head.split(" ")
    assert (int(version), fingerprint) == (STORE_VERSION, rules_fingerprint())
    s_len, q_len, c_len = int(s), int(q), int(c)
    read_statement, rest = body[:s_len], body[s_len:]
    if q_len == -2:
        read_quote: str | None = read_statement
    elif q_len == -1:
        read_quote = None
    else:
        read_quote, rest = rest[:q_len], rest[q_len:]
    read_context = None if c_len == -1 else rest
    assert (read_statement, read_quote, read_context) == (statement, quote, context)
    assert c_len == -1 or c_len == len(rest)
    assert result_key(statement, quote, context) == hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def test_no_hits_are_stored_as_the_json_of_an_empty_list() -> None:
    from claimledger.checks.overclaim.store import dump_hits, load_hits

    assert dump_hits([]) == json.dumps([]) and load_hits(dump_hits([])) == []
