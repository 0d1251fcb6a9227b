"""The literal quote check, through the gate: verified only on an exact match."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from claimledger import GateConfig, Outcome, Reason, Status, Tier, gate

FIX = Path(__file__).parent / "fixtures"


@pytest.fixture
def run(tmp_path: Path, write_ledger: Callable[..., Path]) -> Callable[[list[str]], dict[str, object]]:
    for name in ("hyphenated.pdf", "japanese.pdf", "broken.pdf"):
        shutil.copy(FIX / name, tmp_path / name)
    (tmp_path / "blog.html").write_text(
        "<p>“Verification is a discipline, not a mood,” one editor said.</p>"
        "<p hidden>Independent checks eliminate all errors.</p>", "utf-8"
    )  # fmt: skip
    (tmp_path / "notes.md").write_text("# Notes\n\nWe **never** publish unchecked numbers.\n", "utf-8")

    def _run(claims: list[str]) -> dict[str, object]:
        body = "\n".join(claims)
        path = write_ledger(
            "version: 1\nsources:\n  smith: hyphenated.pdf\n  chosa: japanese.pdf\n  blog: blog.html\n"
            "  notes: notes.md\n  broken: broken.pdf\n  missing: gone.pdf\nclaims:\n" + body
        )
        report = gate(path)
        return {f.claim_id: f for f in report.findings} | {"_report": report}

    return _run


def q(cid: str, source: str, quote: str) -> str:
    quote = quote.replace('"', '\\"')
    return f'  - id: {cid}\n    kind: quote\n    source: {source}\n    quote: "{quote}"\n'


def test_verified_across_a_pdf_hyphenated_line_break(run: Callable[..., dict[str, object]]) -> None:
    out = run([q("C1", "smith", "adding an independent verification step reduced errors by 37 percent")])
    f = out["C1"]
    assert f.status is Status.VERIFIED and f.reason is Reason.QUOTE_FOUND and f.tier is None
    assert f.evidence.page == 1
    assert f.evidence.text == "adding an independent verifi-cation step reduced errors by 37 percent"
    assert out["_report"].outcome is Outcome.PASS


def test_the_other_reading_of_a_line_break_hyphen(run: Callable[..., dict[str, object]]) -> None:
    out = run([q("C1", "smith", "were well-known to all reviewers"), q("C2", "smith", "The final “results” were")])
    assert out["C1"].status is Status.VERIFIED
    assert out["C2"].status is Status.VERIFIED


def test_japanese_quote_on_page_two(run: Callable[..., dict[str, object]]) -> None:
    out = run([q("J1", "chosa", "一部の企業では、利用の可能性があると考えられる")])
    assert out["J1"].status is Status.VERIFIED and out["J1"].evidence.page == 2


def test_near_miss_shows_nearest_passage_and_word_diff(run: Callable[..., dict[str, object]]) -> None:
    out = run([q("C2", "smith", "adding an independent verification step reduced errors by 73 percent")])
    f = out["C2"]
    assert f.status is Status.DISCREPANCY and f.reason is Reason.QUOTE_NEAR_MISS and f.tier is Tier.HIGH
    assert "[-73-]{+37+}" in f.diff
    assert "37 percent" in f.nearest.text and f.nearest.page == 1


def test_japanese_dropped_hedge_is_a_near_miss(run: Callable[..., dict[str, object]]) -> None:
    out = run([q("J2", "chosa", "言葉を扱う生成AIの業務利用は、前年の4倍に増えた")])
    f = out["J2"]
    assert f.reason is Reason.QUOTE_NEAR_MISS
    assert "{+約+}" in f.diff


def test_misattribution_names_where_it_was_found(run: Callable[..., dict[str, object]]) -> None:
    out = run([q("C3", "smith", "Verification is a discipline, not a mood")])
    f = out["C3"]
    assert f.reason is Reason.QUOTE_MISATTRIBUTED and f.tier is Tier.HIGH
    assert f.evidence.source == "blog" and "blog" in f.message


def test_hidden_text_does_not_verify(run: Callable[..., dict[str, object]]) -> None:
    out = run([q("C4", "blog", "Independent checks eliminate all errors.")])
    assert out["C4"].reason is Reason.QUOTE_ONLY_IN_HIDDEN_TEXT and out["C4"].tier is Tier.HIGH


def test_markdown_source_prose(run: Callable[..., dict[str, object]]) -> None:
    out = run([q("M1", "notes", "We never publish unchecked numbers.")])
    assert out["M1"].status is Status.VERIFIED


@pytest.mark.parametrize(
    ("source", "quote", "reason"),
    [
        ("smith", "37 perc", Reason.QUOTE_TOO_SHORT),
        ("chosa", "約4倍", Reason.QUOTE_TOO_SHORT),
        ("nosuch", "adding an independent verification step", Reason.SOURCE_UNDECLARED),
        ("Smith", "adding an independent verification step", Reason.SOURCE_UNDECLARED),
        ("missing", "adding an independent verification step", Reason.SOURCE_FILE_MISSING),
        ("broken", "adding an independent verification step", Reason.SOURCE_UNREADABLE),
        ("smith", "a sentence that appears in no source whatsoever, anywhere at all", Reason.QUOTE_ABSENT),
    ],
)
def test_failures_are_high_with_reasons(
    run: Callable[..., dict[str, object]], source: str, quote: str, reason: Reason
) -> None:
    out = run([q("X", source, quote)])
    f = out["X"]
    assert f.reason is reason and f.tier is Tier.HIGH and f.status is not Status.VERIFIED
    assert out["_report"].outcome is Outcome.FAIL


def test_ids_are_never_repaired(run: Callable[..., dict[str, object]]) -> None:
    out = run([q("X", "Smith", "adding an independent verification step")])
    assert "did you mean 'smith'" in out["X"].message


def test_one_bad_source_does_not_hide_other_claims(run: Callable[..., dict[str, object]]) -> None:
    out = run([
        q("A", "broken", "adding an independent verification step"),
        q("B", "smith", "adding an independent verification step"),
    ])  # fmt: skip
    assert out["A"].tier is Tier.HIGH and out["B"].status is Status.VERIFIED


def test_minimum_length_is_configurable(tmp_path: Path, write_ledger: Callable[..., Path]) -> None:
    (tmp_path / "s.txt").write_text("The rate was 37 percent.")
    path = write_ledger("version: 1\nsources: {s: s.txt}\nclaims:\n" + q("A", "s", "37 percent"))
    assert gate(path).findings[0].status is Status.VERIFIED
    strict = gate(path, config=GateConfig(min_quote_chars=20)).findings[0]
    assert strict.reason is Reason.QUOTE_TOO_SHORT


def test_a_quote_too_short_is_not_looked_for(
    tmp_path: Path, write_ledger: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its check reports it too short without a lookup: the batched scan leaves it out (a search of
    every source for a few characters), and lowering the minimum brings it back."""
    import claimledger.checks.context as context

    (tmp_path / "s.txt").write_text("The rate was 37 percent. 約4倍に増えた。", encoding="utf-8")
    path = write_ledger("version: 1\nsources: {s: s.txt}\nclaims:\n" + q("A", "s", "37 percent") + "\n" + q("B", "s", "約4倍"))
    scanned: list[set[tuple[str, str]]] = []
    real = context.scan_quotes

    def scan(keys: set[tuple[str, str]], *args: object, **kwargs: object) -> object:
        scanned.append(set(keys))
        return real(keys, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(context, "scan_quotes", scan)
    strict = {f.claim_id: f for f in gate(path, config=GateConfig(min_quote_chars=11)).findings}
    assert strict["A"].reason is Reason.QUOTE_TOO_SHORT and strict["B"].reason is Reason.QUOTE_TOO_SHORT
    assert scanned == []  # nothing to look for
    loose = {f.claim_id: f for f in gate(path, config=GateConfig(min_quote_chars=3)).findings}
    assert loose["A"].status is Status.VERIFIED and loose["B"].status is Status.VERIFIED
    assert scanned == [{("s", "37 percent"), ("s", "約4倍")}]


@pytest.mark.parametrize(
    ("source", "quote", "verified"),
    [
        ("Errors fell by 137 percent last year.", "fell by 137 percent", True),
        ("Errors fell by 137 percent last year.", "37 percent last year", False),
        ("The fee was 1.5 million dollars in all.", "The fee was 1", False),
        ("The fee was 1.5 million dollars in all.", "fee was 1.5 million", True),
        ("the filming of Chapter Seventy-Six began", "the filming of Chapter Seven", False),
        ("it went nowhere at all in the end", "it went now", False),
        ("売上は前年比137%増となった。", "37%増となった", False),
        ("売上は前年比137%増となった。", "前年比137%増", True),
        ("調査では約4倍に増えたとされる。", "4倍に増えたとされる", True),
        ("A word, then a word again: the word.", "the word.", True),
    ],
)
def test_a_match_never_cuts_a_word_or_a_number(
    tmp_path: Path, write_ledger: Callable[..., Path], source: str, quote: str, verified: bool
) -> None:
    (tmp_path / "s.txt").write_text(source, "utf-8")
    path = write_ledger("version: 1\nsources: {s: s.txt}\nclaims:\n" + q("A", "s", quote))
    f = gate(path, config=GateConfig(min_quote_chars=6)).findings[0]
    assert (f.status is Status.VERIFIED) is verified, f.message


def test_a_run_normalizes_each_quote_once(
    run: Callable[..., dict[str, object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan's batch, the literal check and the overclaim rules look each quote up (issue 19:
    three normalizations a claim before); the run remembers the normalized form, English and
    Japanese alike, and a quote cited twice is normalized once."""
    import claimledger.checks.quote as quote_module

    seen: list[str] = []
    real = quote_module.normalize_quote

    def counted(text: str) -> str:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(quote_module, "normalize_quote", counted)
    found = run([
        q("en", "blog", "Verification is a discipline, not a mood"),
        q("en2", "notes", "Verification is a discipline, not a mood"),
        q("ja", "chosa", "一部の企業では、利用の可能性があると考えられる"),
    ])  # fmt: skip
    assert found["en"].status is found["ja"].status is Status.VERIFIED  # type: ignore[attr-defined]
    assert sorted(seen) == sorted(["Verification is a discipline, not a mood", "一部の企業では、利用の可能性があると考えられる"])
