"""The overclaim rules run ahead in a helper process (checks/rules_ahead.py, issue 19).

The helper is a fork of the run's process that runs the same rules on the same three strings: what
it answers is the rules' own answer, a run with it reports what a run without it does (English and
Japanese, findings and the stored results alike), and a helper that dies, or whose rules raise,
changes nothing but the time. It is never forked beside another thread, and never outlives its run.

tests/test_rules_ahead.py runs these cases in an interpreter of their own: a helper is only ever
forked from a process without other threads, and an earlier test of the suite may have left some
(Ray's, tests/test_batch.py).
"""

from __future__ import annotations

import os
import select
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import claimledger._api as api
import claimledger.checks.overclaim.rules
import claimledger.checks.rules_ahead as ahead_mod
from claimledger import GateConfig, gate
from claimledger.checks.context import RunContext
from claimledger.checks.overclaim import overclaim_hits
from claimledger.checks.overclaim.store import result_key, store_path
from claimledger.checks.rules_ahead import RulesAhead, can_fork, start_rules_ahead
from claimledger.model.claim import Ledger
from claimledger.model.finding import Finding
from tests.test_overclaim_store import CLAIMS, EN_SOURCE, JA_SOURCE, _ledger

# every claim of the store's test ledger, four times under other ids: enough claims to pass the
# threshold set below, with the same inputs shared by several claims
MANY = [(f"{cid}-{k}", s, q, st) for k in range(4) for cid, s, q, st in CLAIMS]


@pytest.fixture(autouse=True)
def _few_claims_suffice(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(ahead_mod, "MIN_CLAIMS", 4)
    monkeypatch.delenv("CLAIMLEDGER_RULES_AHEAD", raising=False)
    # a thread an earlier test joined can stay in the system's list a moment longer
    assert ahead_mod._alone(patience=5.0), "this test needs a process without other threads"
    assert can_fork() is None
    yield


class Spy:
    """The helpers the runs started (None: not started); ``settle`` makes each wait for its answers
    after every feed, so the run finds them all there."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, *, settle: bool = False, kill: bool = False,
        then: Callable[[RulesAhead], None] | None = None,
    ) -> None:  # fmt: skip
        self.started: list[RulesAhead | None] = []
        real = ahead_mod.start_rules_ahead

        def start(*args: Any, **kwargs: Any) -> RulesAhead | None:
            got = real(*args, **kwargs)
            self.started.append(got)
            if got is not None and kill:
                os.kill(got._pid, signal.SIGKILL)
            if got is not None and then is not None:
                then(got)
            return got

        monkeypatch.setattr(api, "start_rules_ahead", start)
        if settle:
            feed = RulesAhead.feed

            def settled(self: RulesAhead, *args: Any) -> None:
                feed(self, *args)
                assert self.wait(60)

            monkeypatch.setattr(RulesAhead, "feed", settled)


def _findings(tmp_path: Path, ledger: Ledger, cache: str) -> list[dict[str, Any]]:
    report = gate(ledger, config=GateConfig(cache_dir=tmp_path / cache), base_dir=tmp_path)
    return [_plain(f) for f in report.findings]


def _plain(f: Finding) -> dict[str, Any]:
    return f.to_dict()


def _stored(cache: Path) -> dict[str, str]:
    with sqlite3.connect(store_path(cache)) as db:
        return dict(db.execute("SELECT key, payload FROM hits").fetchall())


def test_the_helper_answers_what_the_rules_compute(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, MANY)
    ctx = RunContext.create(ledger, tmp_path, GateConfig(cache_dir=tmp_path / "cache"))
    try:
        helper = start_rules_ahead(ctx, ledger.claims, lambda source, quote: (source, quote))
        assert helper is not None
        # every claim's inputs, with the whole source as the context and with a cut one
        texts = {"en": EN_SOURCE, "ja": JA_SOURCE}
        for sid, text in texts.items():
            helper.feed(sid, [(q, text) for _, s, q, _ in CLAIMS if s == sid])
            helper.feed(sid, [(q, text[20:90]) for _, s, q, _ in CLAIMS if s == sid])
        assert helper.wait(60)
        answered = 0
        for _, sid, quote, statement in MANY:
            for context in (texts[sid], texts[sid][20:90]):
                got = helper.answer(statement or quote, quote, context)
                assert got == (result_key(statement or quote, quote, context), overclaim_hits(statement or quote, quote, context))
                answered += 1
        # an input it was never given has no answer (the run computes it)
        assert helper.answer("Some other statement.", CLAIMS[0][2], EN_SOURCE) is None
        assert answered == 2 * len(MANY) and helper.used == answered
        # the rules fire on these inputs (the comparison is not one of empty lists only)
        assert sum(bool(helper.answer(st or q, q, texts[s])[1]) for _, s, q, st in CLAIMS) >= 5  # type: ignore[index]
    finally:
        ctx.close()
    assert not helper.alive


def test_a_run_with_the_helper_reports_what_one_without_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = _ledger(tmp_path, MANY)
    spy = Spy(monkeypatch, settle=True)
    with_helper = _findings(tmp_path, ledger, "on")
    [helper] = spy.started
    assert helper is not None and not helper.alive  # closed with the run
    found = sum(1 for f in with_helper if f["check"] == "literal_quote" and f["status"] == "verified")
    assert found == len(MANY) and helper.used == found  # every found claim took the helper's answer
    with pytest.raises(ChildProcessError):  # reaped
        os.waitpid(helper._pid, os.WNOHANG)
    monkeypatch.setenv("CLAIMLEDGER_RULES_AHEAD", "0")
    without = _findings(tmp_path, ledger, "off")
    assert spy.started[1:] == [None]
    assert with_helper == without
    rules = {f["extra"]["rule"] for f in with_helper if f["check"] == "overclaim"}
    assert {"modality_strengthened", "quantifier_broadened", "quote_omits_modality"} <= rules
    # what the run stores for the next one is the same too
    assert _stored(tmp_path / "on") == _stored(tmp_path / "off") and _stored(tmp_path / "on")


def test_a_helper_that_dies_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = _ledger(tmp_path, MANY)
    spy = Spy(monkeypatch, kill=True)
    killed = _findings(tmp_path, ledger, "killed")
    [helper] = spy.started
    assert helper is not None and helper.used == 0 and not helper.alive
    monkeypatch.setenv("CLAIMLEDGER_RULES_AHEAD", "0")
    assert killed == _findings(tmp_path, ledger, "off")


def test_rules_that_raise_in_the_helper_fail_as_they_do_without_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = claimledger.checks.overclaim.rules.overclaim_hits
    bad = CLAIMS[0][3]

    def rules(statement: str, quote: str | None, context: str | None = None) -> Any:
        if statement == bad:
            raise RuntimeError("planted")
        return real(statement, quote, context)

    monkeypatch.setattr(claimledger.checks.overclaim.rules, "overclaim_hits", rules)  # the fork inherits it
    ledger = _ledger(tmp_path, MANY)
    spy = Spy(monkeypatch, settle=True)
    raised = _findings(tmp_path, ledger, "on")
    [helper] = spy.started
    assert helper is not None and len(helper._failed) == 1
    crashed = [f for f in raised if f["reason"] == "check_crashed" and "planted" in f["message"]]
    assert len(crashed) == 4 and all(f["status"] == "error" for f in crashed)  # the claim's own check ran it
    monkeypatch.setenv("CLAIMLEDGER_RULES_AHEAD", "0")
    assert raised == _findings(tmp_path, ledger, "off")


def test_no_helper_beside_another_thread_or_below_the_threshold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = _ledger(tmp_path, MANY)
    ctx = RunContext.create(ledger, tmp_path, GateConfig(cache_dir=tmp_path / "cache"))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert can_fork() == "other threads are running"
        assert start_rules_ahead(ctx, ledger.claims, lambda s, q: (s, q)) is None
    finally:
        stop.set()
        other.join()
    monkeypatch.setattr(ahead_mod, "MIN_CLAIMS", len(MANY) + 1)
    assert start_rules_ahead(ctx, ledger.claims, lambda s, q: (s, q)) is None
    monkeypatch.setattr(ahead_mod, "MIN_CLAIMS", 4)
    monkeypatch.setenv("CLAIMLEDGER_RULES_AHEAD", "0")
    assert can_fork() == "CLAIMLEDGER_RULES_AHEAD=0"
    assert start_rules_ahead(ctx, ledger.claims, lambda s, q: (s, q)) is None
    ctx.close()


def test_a_warm_run_starts_no_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = _ledger(tmp_path, MANY)
    spy = Spy(monkeypatch)
    cold = _findings(tmp_path, ledger, "cache")
    warm = _findings(tmp_path, ledger, "cache")
    assert spy.started[0] is not None and spy.started[1] is None  # the store answers the second run
    assert cold == warm


def test_claims_of_other_kinds_and_unreadable_quotes_are_not_sent(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, MANY)
    ctx = RunContext.create(ledger, tmp_path, GateConfig(cache_dir=tmp_path / "cache"))

    def key_of(source: str, quote: str) -> tuple[str, str]:
        if quote == CLAIMS[1][2]:
            raise ValueError("no key")
        return source, quote

    helper = start_rules_ahead(ctx, [*ledger.claims, object()], key_of)
    try:
        assert helper is not None
        helper.feed("en", [(CLAIMS[1][2], EN_SOURCE), (CLAIMS[2][2], EN_SOURCE), ("not a quote of the ledger", EN_SOURCE)])
        assert helper.wait(60)
        assert helper.answer(CLAIMS[1][3], CLAIMS[1][2], EN_SOURCE) is None  # no key: not sent
        assert helper.answer(CLAIMS[2][2], CLAIMS[2][2], EN_SOURCE) is not None  # a quote without a statement
        assert len(helper._ids) == 1  # the four claims of that quote share one input, sent once
    finally:
        ctx.close()


@pytest.mark.parametrize("where", ["start", "feed", "answer", "garbage"])
def test_a_fault_in_the_helper_s_plumbing_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    ledger = _ledger(tmp_path, MANY)
    monkeypatch.setenv("CLAIMLEDGER_RULES_AHEAD", "0")
    without = _findings(tmp_path, ledger, "off")
    monkeypatch.delenv("CLAIMLEDGER_RULES_AHEAD")

    def planted(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("planted")

    if where == "start":
        monkeypatch.setattr(ahead_mod, "can_fork", planted)
    elif where == "feed":
        monkeypatch.setattr(RulesAhead, "_feed", planted)
    elif where == "answer":
        monkeypatch.setattr(RulesAhead, "_answer", planted)

    def garbage(helper: RulesAhead) -> None:
        # what arrives is not the helper's: answers of the right shape, with something else than
        # hits, for every claim (the helper itself is stopped: it answers nothing)
        os.kill(helper._pid, signal.SIGSTOP)
        helper._inbox += ahead_mod._frame([(i, "key", ["not a hit"]) for i in range(len(MANY))])

    spy = Spy(monkeypatch, settle=where == "answer", then=garbage if where == "garbage" else None)
    assert _findings(tmp_path, ledger, "on") == without
    [helper] = spy.started
    assert (helper is None) == (where == "start")
    if helper is not None:
        assert not helper.alive and helper.used == 0


def test_the_helper_keeps_none_of_the_run_s_descriptors(tmp_path: Path) -> None:
    """A pipe the run's process holds (a batch worker's to its parent, say) ends when the process
    closes its end: the helper does not keep a copy open."""
    ledger = _ledger(tmp_path, MANY)
    ctx = RunContext.create(ledger, tmp_path, GateConfig(cache_dir=tmp_path / "cache"))
    r, w = os.pipe()
    try:
        helper = start_rules_ahead(ctx, ledger.claims, lambda s, q: (s, q))
        assert helper is not None
        os.close(w)
        ready, _, _ = select.select([r], [], [], 10)
        assert ready and os.read(r, 1) == b""  # the end of the pipe, while the helper still runs
        assert helper.alive
    finally:
        os.close(r)
        ctx.close()


def _exited(pid: int) -> bool:
    """The process has ended (a zombie until it is reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def test_the_helper_stops_when_the_run_s_end_closes_with_work_left(tmp_path: Path) -> None:
    """A run whose process is gone (a batch job killed for its time) leaves no helper working
    through what was queued: nobody would read it."""
    ledger = _ledger(tmp_path, MANY)
    ctx = RunContext.create(ledger, tmp_path, GateConfig(cache_dir=tmp_path / "cache"))
    try:
        helper = start_rules_ahead(ctx, ledger.claims, lambda s, q: (s, q))
        assert helper is not None
        quote = CLAIMS[0][2]
        # seconds of work: 150,000 distinct contexts around the same quote
        for k in range(0, 150_000, 5_000):
            helper.feed("en", [(quote, f"{EN_SOURCE} {i}") for i in range(k, k + 5_000)])
        helper._flush()
        assert helper.wait(0.2) is False  # still working
        assert helper._jobs is not None
        helper._jobs.close()  # the run's end of the jobs, as when its process is killed
        deadline = time.monotonic() + 3.0  # (what was queued takes longer: the test fails without the fix)
        while not _exited(helper._pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _exited(helper._pid)
    finally:
        ctx.close()
