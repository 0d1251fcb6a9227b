"""With a judge: "Does this evidence answer <question> for <population>?", against a real local chat server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from claimledger import gate
from claimledger.judge import make_judge
from claimledger.judge._http import RetryPolicy
from claimledger.model.finding import Reason, Tier
from tests.judge_fakes import Reply, chat_server, claim_id_of, verdict
from tests.scope_docs import write_ja_survey_pdf

QUOTE = "個人として生成AIを業務で使い始めている割合は32％だった"
EVIDENCE = "社員が会社の方針より先に、個人として生成AIを業務で使い始めている割合は32％だった"
STATEMENT = "32％が、会社より先に生成AIを使い始めている。"


def _ledger(tmp_path: Path, **top: Any) -> Path:
    write_ja_survey_pdf(tmp_path / "survey.pdf")
    data = {"version": 1, **top, "sources": {"survey": "survey.pdf"},
            "claims": [{"id": "D1", "kind": "quote", "source": "survey", "quote": QUOTE, "statement": STATEMENT}]}  # fmt: skip
    path = tmp_path / "ledger.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


QUESTION = {"text": "個人開発者は生成AIをどう使っているか", "population": "個人開発者"}


def _run(tmp_path: Path, scope_reply: Reply, **top: Any) -> tuple[list[Any], list[Any]]:
    script = {"D1": [verdict("supported", EVIDENCE)], "D1#scope": [scope_reply]}
    with chat_server(script) as server:
        judge = make_judge("openai", "test-model", server.base_url + "/v1", api_key="sk-test", timeout=2,
                           retry=RetryPolicy(retries=1, backoff=0.01))  # fmt: skip
        try:
            report = gate(_ledger(tmp_path, **top), judge=judge, judge_cache=tmp_path / "cache.sqlite3")
        finally:
            judge.close()
        seen = list(server.seen)
    return [f for f in report.findings if f.check == "scope_judge"], seen


def test_the_judge_says_the_evidence_is_about_another_population(tmp_path: Path) -> None:
    found, seen = _run(tmp_path, verdict("contradicted", EVIDENCE, "社員の数字であり個人開発者ではない"), question=QUESTION)
    assert [(f.claim_id, f.reason, f.tier) for f in found] == [("D1", Reason.SCOPE_MISMATCH, Tier.HIGH)]
    asked = [s for s in seen if claim_id_of(s) == "D1#scope"]
    assert len(asked) == 1
    message = asked[0].user_message
    assert "個人開発者" in message and "答えているか" in message
    assert STATEMENT not in message  # the judge never sees the draft's sentence in the scope question


def test_the_judge_may_abstain(tmp_path: Path) -> None:
    found, _ = _run(tmp_path, verdict("not_found", "", "根拠は対象を述べていない"), question=QUESTION)
    assert [(f.reason, f.tier) for f in found] == [(Reason.SCOPE_NOT_STATED, Tier.MED)]


def test_supported_adds_nothing_and_never_removes_the_rule_finding(tmp_path: Path) -> None:
    with chat_server({"D1": [verdict("supported", EVIDENCE)], "D1#scope": [verdict("supported", EVIDENCE)]}) as server:
        judge = make_judge("openai", "test-model", server.base_url + "/v1", api_key="sk-test", timeout=2,
                           retry=RetryPolicy(retries=1, backoff=0.01))  # fmt: skip
        try:
            report = gate(_ledger(tmp_path, question=QUESTION), judge=judge, judge_cache=tmp_path / "c.sqlite3")
        finally:
            judge.close()
    assert not [f for f in report.findings if f.check == "scope_judge"]
    rule = [f for f in report.findings if f.check == "scope"]
    assert [(f.reason, f.tier) for f in rule] == [(Reason.SCOPE_MISMATCH, Tier.HIGH)]  # the rules still fail it
    assert report.outcome.value == "FAIL"


@pytest.mark.parametrize("reply", [Reply("not json at all"), Reply(status=500, content="boom")])
def test_a_failed_scope_question_is_med_never_a_pass(tmp_path: Path, reply: Reply) -> None:
    found, _ = _run(tmp_path, reply, question=QUESTION)
    assert [(f.reason, f.tier) for f in found] == [(Reason.JUDGE_FAILED, Tier.MED)]


def test_no_question_no_scope_request(tmp_path: Path) -> None:
    found, seen = _run(tmp_path, verdict("contradicted", EVIDENCE))
    assert found == [] and all(claim_id_of(s) != "D1#scope" for s in seen)
    assert json.dumps([claim_id_of(s) for s in seen]) == '["D1"]'
