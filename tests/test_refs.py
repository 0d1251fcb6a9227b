"""Reference checks against a local fake of Crossref, DataCite, arXiv and OpenAlex (no network)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimledger.refs import RefSettings, verify_references
from claimledger.refs.match import MatchOptions
from claimledger.refs.model import Reference
from claimledger.refs.verdicts import (
    CORRECTED,
    ELSEWHERE,
    MISMATCH,
    NOT_CHECKED,
    NOT_FOUND,
    PARTLY,
    RETRACTED,
    SERVICE_ERROR,
    VERIFIED,
    Verdict,
)  # fmt: skip
from tests.refs_fake import Fake, Fault, fake_services
from tests.refs_world import (
    ARXIV_DATACITE_ONLY,
    ATTENTION,
    JAPANESE,
    NOT_ALL,
    OPENALEX_ONLY,
    PREPRINT_LATER_PUBLISHED,
    WORLD,
)  # fmt: skip
from tests.refs_world import (
    CORRECTED as CORRECTED_WORK,
)
from tests.refs_world import (
    RETRACTED as RETRACTED_WORK,
)


@pytest.fixture
def fake() -> Iterator[Fake]:
    with fake_services(list(WORLD), {}) as f:
        yield f


def settings(fake: Fake, **kw: object) -> RefSettings:
    base = {s: fake.url(s) for s in ("crossref", "datacite", "arxiv", "openalex")}
    args: dict[str, object] = {"allow_private_urls": True, "base_urls": base, "timeout": 2.0, "concurrency": 2}
    return RefSettings(**{**args, **kw})  # type: ignore[arg-type]


def one(fake: Fake, ref: Reference, **kw: object) -> Verdict:
    return verify_references([ref], settings(fake, **kw))[0]


ATT = Reference("vaswani2017", "Attention is all you need", ("Vaswani, Ashish", "Shazeer, Noam"), 2017,
                "NeurIPS")  # fmt: skip


def test_doi_confirmed_by_crossref_names_the_service(fake: Fake) -> None:
    v = one(fake, Reference("v", ATT.title, ATT.authors, 2017, "Advances in Neural Information Processing Systems",
                            doi="https://doi.org/10.5555/NIPS.2017.7181"))  # fmt: skip
    assert v.reason == VERIFIED and v.record is not None and v.record.service == "crossref"
    assert "crossref" in v.message and "10.5555/nips.2017.7181" in v.message


def test_venue_abbreviation_and_title_case_are_the_same_work(fake: Fake) -> None:
    v = one(fake, ATT)  # no identifier: title search
    assert v.reason == VERIFIED, v.message
    assert v.record is not None and v.record.doi == ATTENTION.doi


def test_arxiv_id_is_looked_up_on_arxiv(fake: Fake) -> None:
    v = one(fake, Reference("a", ATT.title, ("Ashish Vaswani",), 2017, arxiv="arXiv:1706.03762v5"))
    assert v.reason == VERIFIED and v.record is not None and v.record.service == "arxiv"
    assert any("/arxiv/query?id_list=1706.03762" in h for h in fake.hits)


def test_an_arxiv_doi_only_datacite_knows_is_verified(fake: Fake) -> None:
    w = ARXIV_DATACITE_ONLY
    v = one(fake, Reference("sparse", w.title, ("Fischer, Lena", "Patel, Raj"), 2021, "arXiv preprint", doi=w.doi))
    assert v.reason == VERIFIED, v.message
    assert v.record is not None and v.record.service == "datacite"
    assert not any(h.startswith("/crossref/works/10.48550") for h in fake.hits)  # DataCite asked first


def test_one_service_lacks_it_another_confirms(fake: Fake) -> None:
    w = OPENALEX_ONLY
    v = one(fake, Reference("moreau", w.title, ("Moreau, Iris",), 2012, w.venue, doi=w.doi))
    assert v.reason == VERIFIED and v.record is not None and v.record.service == "openalex"


def test_near_identical_titles_pick_the_right_paper(fake: Fake) -> None:
    v = one(fake, Reference("dong", "Attention is not all you need", ("Dong, Yihe", "Loukas, Andreas"), 2021))
    assert v.reason == VERIFIED and v.record is not None and v.record.doi == NOT_ALL.doi
    # the famous title with the other paper's authors is not verified
    v = one(fake, Reference("mix", "Attention is all you need", ("Dong, Yihe", "Loukas, Andreas"), 2017))
    assert v.reason == MISMATCH and "authors" in v.message, v.message


def test_doi_of_another_paper(fake: Fake) -> None:
    v = one(fake, Reference("att", ATT.title, ATT.authors, 2017, doi=RETRACTED_WORK.doi))
    assert v.reason == ELSEWHERE
    assert "Vitamin Intake" in v.message and ATTENTION.doi in v.message  # names both works


def test_doi_of_another_paper_is_not_saved_by_a_right_arxiv_id(fake: Fake) -> None:
    v = one(fake, Reference("att", ATT.title, ATT.authors, 2017, doi=NOT_ALL.doi, arxiv="1706.03762"))
    assert v.reason in (ELSEWHERE, MISMATCH) and v.reason != VERIFIED


def test_retraction_is_high_and_erratum_is_low(fake: Fake) -> None:
    w = RETRACTED_WORK
    v = one(fake, Reference("k", w.title, ("Keller, Ann",), 2015, w.venue, doi=w.doi))
    assert v.reason == RETRACTED and "10.5555/jar.2017.r1" in v.message
    w = CORRECTED_WORK
    v = one(fake, Reference("n", w.title, ("Nunez, Maria", "Okafor, Tom"), 2019, w.venue, doi=w.doi))
    assert v.reason == CORRECTED and "erratum" in v.message


def test_openalex_is_retracted_counts_without_crossref(fake: Fake) -> None:
    fake.faults["/crossref/"] = Fault(status=503)
    w = RETRACTED_WORK
    v = one(fake, Reference("k", w.title, ("Keller, Ann",), 2015, w.venue, doi=w.doi))
    assert v.reason == RETRACTED and "openalex" in v.message


def test_japanese_reference(fake: Fake) -> None:
    w = JAPANESE
    v = one(fake, Reference("yamada", "大規模言語モデルによる引用の検証", ("山田 太郎", "佐藤 花子"), 2022, "自然言語処理"))
    assert v.reason == VERIFIED and v.record is not None and v.record.doi == w.doi
    v = one(fake, Reference("yamada", "大規模言語モデルによる引用の検証", ("鈴木 一郎",), 2022))
    assert v.reason == MISMATCH and "鈴木" in v.message


def test_preprint_cited_by_its_published_year(fake: Fake) -> None:
    w = PREPRINT_LATER_PUBLISHED
    v = one(fake, Reference("wu", w.title, ("Wu, Chen",), 2021, arxiv=w.arxiv))
    assert v.reason == VERIFIED and v.record is not None and v.record.service == "arxiv", v.message
    # the arXiv record names no journal: the published version found by title search confirms it ...
    v = one(fake, Reference("wu", w.title, ("Wu, Chen",), 2021, "Annals of Statistics", arxiv=w.arxiv))
    assert v.reason == VERIFIED and v.record is not None and v.record.doi == "10.5555/aos.2021.49", v.message
    # ... or contradicts it
    v = one(fake, Reference("wu", w.title, ("Wu, Chen",), 2021, "Journal of Imaginary Results", arxiv=w.arxiv))
    assert v.reason == MISMATCH and "venue" in v.message
    v = one(fake, Reference("wu", w.title, ("Wu, Chen",), 2016, arxiv=w.arxiv))  # before the preprint
    assert v.reason == MISMATCH and "year" in v.message


def test_a_venue_no_record_gives_is_med_not_verified(fake: Fake) -> None:
    w = ARXIV_DATACITE_ONLY
    v = one(fake, Reference("s", w.title, ("Fischer, Lena",), 2021, "Journal of Imaginary Results", doi=w.doi))
    assert v.reason == PARTLY and "venue" in v.message
    v = one(fake, Reference("s", w.title, ("Fischer, Lena",), 2021, "arXiv preprint", doi=w.doi))
    assert v.reason == VERIFIED


def test_one_changed_word_in_a_long_title_is_not_the_same_title(fake: Fake) -> None:
    from claimledger.refs.match import title_score

    w = RETRACTED_WORK
    reworded = "Vitamin Intake and Mood in Older Adults: A Cohort Study"
    assert title_score(reworded, w.title) >= 0.90  # token-sort alone would call it the same title
    v = one(fake, Reference("k", reworded, ("Keller, Ann",), 2015, doi=w.doi))
    assert v.reason == MISMATCH and "mood" in v.message and "memory" in v.message
    v = one(fake, Reference("w", "Soil Carbon Under Rotational Grazing", ("Nunez, Maria",), 2019,
                            doi=CORRECTED_WORK.doi))  # fmt: skip
    assert v.reason == CORRECTED
    v = one(fake, Reference("j", "大規模言語モデルによる引用の生成", ("山田 太郎",), 2022, doi=JAPANESE.doi))
    assert v.reason in (MISMATCH, ELSEWHERE) and v.reason != VERIFIED


def test_fabricated_references_are_high(fake: Fake) -> None:
    v = one(fake, Reference("x", "Quantum Gravity Explains Consumer Sentiment", ("Smith, John",), 2020))
    assert v.reason == NOT_FOUND and "crossref" in v.message and "openalex" in v.message
    v = one(fake, Reference("y", "A Paper That Does Not Exist", ("Doe, Jane",), 2020, doi="10.5555/nope.1"))
    assert v.reason == NOT_FOUND and "10.5555/nope.1" in v.message
    v = one(fake, Reference("z", ATT.title, ATT.authors, 2014, doi=ATTENTION.doi))
    assert v.reason == MISMATCH and "year: the reference says 2014" in v.message
    v = one(fake, Reference("w", ATT.title, ATT.authors, 2017, "Journal of Imaginary Results", doi=ATTENTION.doi))
    assert v.reason == MISMATCH and "venue" in v.message


def test_a_wrong_doi_on_a_real_paper_names_the_real_record(fake: Fake) -> None:
    v = one(fake, Reference("att", ATT.title, ATT.authors, 2017, doi="10.5555/typo.7181"))
    assert v.reason == MISMATCH and ATTENTION.doi in v.message


def test_429_with_retry_after_is_retried(fake: Fake) -> None:
    fake.faults["/crossref/works/10.5555/nips"] = Fault(status=429, headers={"Retry-After": "1"}, times=1)
    v = one(fake, Reference("v", ATT.title, ATT.authors, 2017, doi=ATTENTION.doi))
    assert v.reason == VERIFIED
    assert sum(h.startswith("/crossref/works/10.5555/nips") for h in fake.hits) == 2


def test_429_asking_too_long_is_med_not_fabricated(fake: Fake) -> None:
    fake.faults["/crossref/"] = Fault(status=429, headers={"Retry-After": "3600"})
    fake.faults["/openalex/"] = Fault(status=429, headers={"Retry-After": "3600"})
    v = one(fake, Reference("v", ATT.title, ATT.authors, 2017, doi=ATTENTION.doi))
    assert v.reason == SERVICE_ERROR and "3600" in v.message and "429" in v.message


def test_server_error_on_one_service_only(fake: Fake) -> None:
    fake.faults["/crossref/"] = Fault(status=502)
    v = one(fake, Reference("v", ATT.title, ATT.authors, 2017, doi=ATTENTION.doi))
    assert v.reason == VERIFIED and v.record is not None and v.record.service == "openalex"
    fake.faults["/openalex/"] = Fault(status=500)
    v = one(fake, Reference("x", "Quantum Gravity Explains Consumer Sentiment", ("Smith, John",), 2020))
    assert v.reason == SERVICE_ERROR and "HTTP 502" in v.message  # never "not found" while a service is down


def test_a_hanging_service_times_out_into_med(fake: Fake) -> None:
    fake.faults["/crossref/"] = Fault(status=200, delay=3.0)
    fake.faults["/openalex/"] = Fault(status=200, delay=3.0)
    v = one(fake, Reference("v", ATT.title, ATT.authors, 2017, doi=ATTENTION.doi), timeout=0.3)
    assert v.reason == SERVICE_ERROR and "did not answer within 0.3 s" in v.message


def test_bad_json_is_a_service_error(fake: Fake) -> None:
    fake.faults["/crossref/"] = Fault(status=200, body=b"<html>maintenance</html>")
    fake.faults["/openalex/"] = Fault(status=200, body=b"{\"nope\": 1}")
    v = one(fake, Reference("v", ATT.title, ATT.authors, 2017, doi=ATTENTION.doi))
    assert v.reason == SERVICE_ERROR and "not JSON" in v.message


def test_loopback_base_url_needs_allow_private_urls(fake: Fake) -> None:
    s = RefSettings(base_urls={n: fake.url(n) for n in ("crossref", "openalex")}, services=("crossref", "openalex"))
    v = verify_references([ATT], s)[0]
    assert v.reason == SERVICE_ERROR and "--allow-private-urls" in v.message
    assert fake.hits == []  # refused before any connection


def test_base_urls_from_the_environment(fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in fake.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("CLAIMLEDGER_CROSSREF_MAILTO", "team@example.org")
    verdict = verify_references([Reference("v", ATT.title, ATT.authors, 2017, doi=ATTENTION.doi)],
                                RefSettings(allow_private_urls=True))[0]  # fmt: skip
    assert verdict.reason == VERIFIED
    assert any("mailto=team%40example.org" in h for h in fake.hits if h.startswith("/crossref/"))


def test_offline_without_a_cache_is_not_checked(fake: Fake) -> None:
    v = one(fake, ATT, offline=True)
    assert v.reason == NOT_CHECKED and fake.hits == []
    assert "run without --offline" in v.message
    from claimledger.model.finding import Reason

    assert Reason.REFERENCE_NOT_CHECKED.tier == "MED"  # never LOW: an unchecked reference cannot PASS


@pytest.mark.parametrize("work", [ATTENTION, JAPANESE], ids=["en", "ja"])
def test_offline_decides_from_cached_answers_only(fake: Fake, tmp_path: Path, work: object) -> None:
    from tests.refs_fake import Work

    assert isinstance(work, Work)
    ref = Reference("k", work.title, tuple(f"{f}, {g}" for g, f in work.authors[:2]), work.year, doi=work.doi)
    assert one(fake, ref, offline=True, cache_dir=tmp_path).reason == NOT_CHECKED  # cold cache
    assert fake.hits == []
    assert one(fake, ref, cache_dir=tmp_path).reason == VERIFIED  # online: fills the cache
    asked = len(fake.hits)
    v = one(fake, ref, offline=True, cache_dir=tmp_path)
    assert v.reason == VERIFIED and len(fake.hits) == asked
    # the same work cited with a wrong year: the cached record disagrees, but the services the online run never
    # asked (it stopped at the first confirmation) might hold another version: not checked, never verified
    wrong = Reference("k", ref.title, ref.authors, work.year - 5, doi=work.doi)
    v = one(fake, wrong, offline=True, cache_dir=tmp_path)
    assert v.reason == NOT_CHECKED and "cache holds no answer from" in v.message
    # --refresh with --offline: the cache is not read, so nothing is decided
    assert one(fake, ref, offline=True, cache_dir=tmp_path, refresh=True).reason == NOT_CHECKED
    assert len(fake.hits) == asked


def test_cache_answers_the_second_run_and_keeps_no_secret(
    fake: Fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMLEDGER_OPENALEX_KEY", "sk-secret-123")
    ref = Reference("v", ATT.title, ATT.authors, 2017, doi=ATTENTION.doi)
    assert one(fake, ref, cache_dir=tmp_path).reason == VERIFIED
    first = len(fake.hits)
    assert one(fake, ref, cache_dir=tmp_path).reason == VERIFIED
    assert len(fake.hits) == first  # every answer came from the cache
    assert b"sk-secret-123" not in (tmp_path / "refs.sqlite").read_bytes()
    # stricter matching options with a warm cache: the verdict changes (answers are cached, verdicts are not)
    a_year_off = Reference("v", ATT.title, ATT.authors, 2018, doi=ATTENTION.doi)
    assert one(fake, a_year_off, cache_dir=tmp_path).reason == VERIFIED
    strict = one(fake, a_year_off, cache_dir=tmp_path, options=MatchOptions(year_slack=0))
    assert strict.reason == MISMATCH  # Crossref's answer came from the cache, the verdict did not
    assert sum(h.startswith("/crossref/") for h in fake.hits) == sum(h.startswith("/crossref/") for h in fake.hits[:first])
    # another base URL is another key
    with fake_services(list(WORLD), {}) as other:
        assert one(other, ref, cache_dir=tmp_path).reason == VERIFIED
        assert other.hits
    # expired entries are not used
    db = sqlite3.connect(tmp_path / "refs.sqlite")
    db.execute("UPDATE answers SET expires = 0")
    db.commit()
    db.close()
    before = len(fake.hits)
    assert one(fake, ref, cache_dir=tmp_path).reason == VERIFIED
    assert len(fake.hits) > before


def test_answers_fetched_with_private_urls_allowed_are_not_served_without(fake: Fake, tmp_path: Path) -> None:
    ref = Reference("v", ATT.title, ATT.authors, 2017, doi=ATTENTION.doi)
    assert one(fake, ref, cache_dir=tmp_path).reason == VERIFIED
    hits = len(fake.hits)
    v = one(fake, ref, cache_dir=tmp_path, allow_private_urls=False)
    assert v.reason == SERVICE_ERROR and "--allow-private-urls" in v.message and len(fake.hits) == hits


def test_errors_are_never_cached(fake: Fake, tmp_path: Path) -> None:
    fake.faults["/crossref/"] = Fault(status=503, times=1)
    ref = Reference("v", ATT.title, ATT.authors, 2017, doi=ATTENTION.doi)
    one(fake, ref, cache_dir=tmp_path, services=("crossref",))
    assert one(fake, ref, cache_dir=tmp_path, services=("crossref",)).reason == VERIFIED


def test_a_corrupt_cache_file_costs_the_cache_not_the_run(fake: Fake, tmp_path: Path) -> None:
    (tmp_path / "refs.sqlite").write_bytes(b"not a database" * 100)
    assert one(fake, ATT, cache_dir=tmp_path).reason == VERIFIED


def test_no_title_no_identifier(fake: Fake) -> None:
    v = one(fake, Reference("empty", authors=("Doe, J",), year=2020))
    assert v.reason == NOT_FOUND and "neither a title" in v.message and fake.hits == []
