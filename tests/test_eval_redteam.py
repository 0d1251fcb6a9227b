"""The red-team benchmark (issue 18): its drafts, its labels, and a small run through the real pipeline."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from evaluation import redteam


def test_at_least_sixty_drafts_in_both_languages_with_every_kind_labelled() -> None:
    cases = redteam.build_cases()
    assert len(cases) >= 60
    kinds = Counter(c.kind for c in cases)
    assert kinds[None] >= 10  # clean drafts
    for kind in redteam.KINDS:
        assert kinds[kind] >= 4, kind
    assert {c.lang for c in cases} == {"en", "ja"}
    for c in cases:
        if c.kind is None:
            assert not c.label_claims and not c.label_lines
        else:
            assert c.label_claims or c.label_lines, c.id


def test_planted_problems_do_what_they_say() -> None:
    by_id = {c.id: c for c in redteam.build_cases()}
    clean = by_id["ja-dev/clean"]
    changed = by_id["ja-dev/changed_number"]
    assert "社員の32％" in clean.draft and "社員の39％" in changed.draft
    fabricated = by_id["en-work/fabricated_quote"]
    source = next(iter(fabricated.files.values()))
    assert fabricated.ledger["claims"][0]["quote"] not in source
    assert all(c["quote"] in clean.files["devsurvey2024.md"] for c in clean.ledger["claims"])
    assert "[@miller2021]" in by_id["en-work/fabricated_reference"].draft  # cited, undeclared
    assert "Miller, J." in by_id["en-students/fabricated_reference"].draft  # listed, never cited
    assert "23.7%" in by_id["en-retail/unlisted_figure"].draft


@pytest.mark.parametrize(
    ("case_id", "caught"),
    [
        ("ja-dev/clean", False),
        ("ja-dev/wrong_population", True),
        ("ja-dev/unsupported_summary", True),
        ("en-work/clean", False),
        ("en-work/wrong_period", True),
        ("en-work/correlation_as_cause", True),
        ("en-work/fabricated_reference", True),  # cited but not among the sources: unlisted_citation
        ("en-students/fabricated_reference", False),  # a source-list entry nothing cites: not seen yet
    ],
)
def test_small_run_through_the_pipeline(tmp_path: Path, case_id: str, caught: bool) -> None:
    case = next(c for c in redteam.build_cases() if c.id == case_id)
    outcome = redteam.run_case(case, tmp_path)
    if case.kind is None:
        assert outcome.flagged == []
    else:
        assert outcome.caught is caught, outcome.flagged


def test_summary_counts_recall_and_false_alarms() -> None:
    cases = redteam.build_cases()
    clean = next(c for c in cases if c.kind is None)
    problem = next(c for c in cases if c.kind == "wrong_period")
    outcomes = [
        redteam.Outcome(clean, False, [{"reason": "x"}], []),
        redteam.Outcome(problem, True, [{"reason": "scope_mismatch"}], [{"reason": "scope_mismatch"}]),
    ]
    s = redteam.summary(outcomes)
    assert (s["problems"], s["caught"], s["recall"], s["clean"], s["false_alarms"]) == (1, 1, 1.0, 1, 1)
    lines = redteam.markdown(outcomes, None, "not run")
    assert any("about 40 %" in line for line in lines)


def _tiny_bench(root: Path) -> Path:
    """A bench folder shaped like ../shared/bench, with texts written for this test."""
    import json

    en = (
        "The council published its annual report on Monday. In 2022, about 35% of households in Canada "
        "recycled electronic waste, the report said. Recycling rates were higher in cities than in rural "
        "areas across the country. Officials expect the rate to keep rising next year."
    )
    ja = (
        "この町では古い家電の回収が進んでいる。2021年には、町内の世帯の約4割が家電の回収に協力した。"
        "回収に協力した世帯は、前の年より少し増えたとされている。町は回収所を二か所に増やす予定である。"
    )
    for name, lang, text in (("summedits", "en", en), ("jhars", "ja", ja)):
        folder = root / name
        folder.mkdir(parents=True)
        row = {"id": f"{name}/x/1", "source": text, "claim": "-", "label": "supported", "lang": lang,
               "meta": {"doc_sha1": "abc"}}  # fmt: skip
        (folder / "bench.jsonl").write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    return root


def test_held_out_drafts_from_bench_texts_plant_only_what_the_text_allows(tmp_path: Path) -> None:
    from evaluation.redteam_bench import build_bench_cases

    cases = build_bench_cases(_tiny_bench(tmp_path / "bench"), per_set=1)
    kinds = {(c.lang, c.kind) for c in cases}
    for lang in ("en", "ja"):
        for kind in (None, "fabricated_quote", "changed_number", "unlisted_figure", "fabricated_reference",
                     "wrong_period", "dropped_hedge", "wrong_population"):  # fmt: skip
            assert (lang, kind) in kinds, (lang, kind)
    assert ("en", "widened_scope") in kinds  # "in Canada" -> "worldwide"
    by_id = {c.id: c for c in cases}
    period = by_id["bench-summedits-0/wrong_period"]
    assert "In 2019, about 35%" in period.draft
    for case_id in ("bench-summedits-0/clean", "bench-jhars-0/clean"):
        assert redteam.run_case(by_id[case_id], tmp_path / case_id.replace("/", "_")).flagged == []
    for case_id in ("bench-summedits-0/wrong_period", "bench-jhars-0/wrong_period", "bench-summedits-0/widened_scope"):
        assert redteam.run_case(by_id[case_id], tmp_path / case_id.replace("/", "_")).caught, case_id
