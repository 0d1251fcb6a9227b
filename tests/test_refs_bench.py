"""The reference benchmark (scripts/refs_bench.py): its generator and its guarantees on the default seed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import ModuleType

from tests.scripts_loader import load_script


def _bench() -> ModuleType:
    return load_script("refs_bench")


def test_the_benchmark_has_200_entries_in_five_fabrication_families() -> None:
    rb = _bench()
    works = rb.build_works(17)
    cases = rb.build_cases(works, 17)
    assert len(cases) == 200 and sum(c.real for c in cases) == 100
    assert Counter(c.family for c in cases if not c.real) == dict.fromkeys(rb.FAMILIES, 20)
    by_key = {c.ref.key: c.ref for c in cases}
    for i in range(100):  # every fabricated entry differs from the real one it was made from
        real, fab = by_key[f"real{i:03d}"], by_key[f"fab{i:03d}"]
        assert (real.title, real.authors, real.year, real.venue, real.doi) != (
            fab.title, fab.authors, fab.year, fab.venue, fab.doi)  # fmt: skip
    assert any(any("\u3040" <= ch <= "\u9fff" for ch in c.ref.title) for c in cases)  # Japanese entries too


def test_no_fabricated_entry_verified_and_no_real_one_called_fabricated(tmp_path: Path) -> None:
    rb = _bench()
    cases, reasons, _seconds, _requests = rb.run(17)
    figures = rb.scores(cases, reasons)
    assert figures["false_verify"] == [] and figures["false_fabricated"] == []
    assert figures["real_unverified"] == []
    out = tmp_path / "accuracy.md"
    out.write_text("# Accuracy\n\nother sections\n", "utf-8")
    rb.write_section(out, rb.render(cases, reasons, 1.0, 1, 17))
    rb.write_section(out, rb.render(cases, reasons, 1.0, 1, 17))  # replaced, not appended twice
    text = out.read_text("utf-8")
    assert text.count("## References") == 1 and "other sections" in text


def test_datasets_and_software_are_found_by_datacite_title_search_and_fakes_are_not() -> None:
    rb = _bench()
    works = rb.build_data_works(17)
    assert all(w.services == ("datacite",) for w in works) and len(works) == 20
    cases, reasons, _requests = rb.run_data(17)
    assert all(not c.ref.doi and not c.ref.arxiv for c in cases)  # title alone: only DataCite's search finds them
    assert any(any("\u3040" <= ch <= "\u9fff" for ch in c.ref.title) for c in cases if c.real)  # Japanese too
    figures = rb.scores(cases, reasons)
    assert figures == {"false_verify": [], "fabricated_med": [], "false_fabricated": [], "real_unverified": []}
    assert Counter(c.family for c in cases if not c.real) == dict.fromkeys(rb.DATA_FAMILIES, 5)
