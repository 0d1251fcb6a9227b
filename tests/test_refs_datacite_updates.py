"""DataCite title search for datasets and software, and Crossref notices: retractions vs errata.

The fake (tests/refs_fake.py) answers in the documented shapes: DataCite JSON:API lists for
``/dois?query=``; Crossref Updates with ``updated``, ``DOI``, ``type``, ``label``, ``source``
(``publisher`` or ``retraction-watch``, the latter with ``record-id``) in ``updated-by`` and ``update-to``,
and ``relation`` entries with ``id-type``, ``id``, ``asserted-by``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from claimledger.refs import RefSettings, verify_references
from claimledger.refs.model import Reference
from claimledger.refs.verdicts import (
    CORRECTED,
    MISMATCH,
    NOT_FOUND,
    RETRACTED,
    SERVICE_ERROR,
    VERIFIED,
    Verdict,
)
from tests.refs_fake import Fake, Fault, Work, crossref_item, fake_services
from tests.refs_world import ATTENTION

TREES = Work(
    "Global Urban Tree Canopy Dataset 2015-2020", [("Mara", "Lindgren"), ("Ken", "Ito")], 2021, venue="Zenodo",
    doi="10.5281/zenodo.4412345", services=("datacite",), resource_type="Dataset",
)  # fmt: skip
TREES_OLD = Work(  # a near-identical title, another dataset
    "Global Urban Tree Canopy Dataset 2010-2014", [("Omar", "Haddad")], 2016, venue="Zenodo",
    doi="10.5281/zenodo.1100042", services=("datacite",), resource_type="Dataset",
)  # fmt: skip
TOOL = Work(
    "citecheck: checking quotations against their sources", [("Ana", "Ruiz")], 2022, venue="Zenodo",
    doi="10.5281/zenodo.7000001", services=("datacite",), resource_type="Software",
)  # fmt: skip
CORPUS_JA = Work(
    "日本語話し言葉コーパス注釈データセット", [("真理", "小林"), ("誠", "渡辺")], 2020, venue="Zenodo",
    doi="10.5281/zenodo.3900001", services=("datacite",), resource_type="Dataset",
)  # fmt: skip
RW_RETRACTED = Work(  # retracted per Retraction Watch only: no notice deposited by the publisher
    "Sleep Duration and Exam Scores in Adolescents", [("Lea", "Brandt")], 2016,
    venue="Journal of School Health Studies", doi="10.5555/jshs.2016.12", services=("crossref",),
    notices=(("retraction", "10.5555/jshs.2019.r2", "retraction-watch"),),
)  # fmt: skip
CONCERN = Work(
    "Coffee and Longevity: A Meta-Analysis", [("Tariq", "Aziz")], 2018, venue="Nutrition Review Letters",
    doi="10.5555/nrl.2018.5", services=("crossref",),
    notices=(("expression_of_concern", "10.5555/nrl.2020.c1", "publisher"),),
)  # fmt: skip
ERRATUM_TWICE = Work(  # one erratum, asserted by the publisher and by Retraction Watch
    "Wind Loads on Tall Timber Buildings", [("Ola", "Nordmann")], 2019, venue="Structures",
    doi="10.5555/struct.2019.8", services=("crossref",),
    notices=(("erratum", "10.5555/struct.2020.e4", "publisher"), ("erratum", "10.5555/struct.2020.e4",
                                                                    "retraction-watch"),
             ("new_version", "10.5555/struct.2021.v2", "publisher")),
)  # fmt: skip
CORRIGENDUM_JA = Work(
    "森林土壌の炭素貯留量の推定", [("健", "中村")], 2017, venue="日本森林学会誌", doi="10.5555/jjfs.99.3",
    services=("crossref",), notices=(("corrigendum", "10.5555/jjfs.100.e1", "publisher"),),
)  # fmt: skip
RETRACTED_JA = Work(
    "睡眠と記憶の関係に関する縦断研究", [("由美", "石井")], 2015, venue="心理学研究", doi="10.5555/jjpsy.86.2",
    services=("crossref",), notices=(("Retraction", "10.5555/jjpsy.88.r1", "retraction-watch"),),
)  # fmt: skip
WITH_PREPRINT = Work(  # relation has-preprint: a link to another version, never a retraction
    "Tidal Heating of Small Moons", [("Kim", "Ode")], 2020, venue="Icarus", doi="10.5555/icarus.2020.1",
    services=("crossref",), preprint_doi="10.48550/arxiv.1912.00001",
)  # fmt: skip
LOCAL = [ATTENTION, TREES, TREES_OLD, TOOL, CORPUS_JA, RW_RETRACTED, CONCERN, ERRATUM_TWICE, CORRIGENDUM_JA,
         RETRACTED_JA, WITH_PREPRINT]  # fmt: skip


@pytest.fixture
def fake() -> Iterator[Fake]:
    with fake_services(list(LOCAL), {}) as f:
        yield f


def check(fake: Fake, ref: Reference) -> Verdict:
    base = {s: fake.url(s) for s in ("crossref", "datacite", "arxiv", "openalex")}
    return verify_references([ref], RefSettings(allow_private_urls=True, base_urls=base, timeout=2.0))[0]


def _searched_datacite(fake: Fake) -> list[str]:
    return [h for h in fake.hits if h.startswith("/datacite/dois?")]


@pytest.mark.parametrize(("ref", "work"), [
    (Reference("trees", "Global Urban Tree Canopy Dataset 2015-2020", ("Lindgren, Mara",), 2021, "Zenodo"), TREES),
    (Reference("tool", "citecheck: checking quotations against their sources", ("Ruiz, Ana",), 2022,
               entry_type="software"), TOOL),
    (Reference("corpus", "日本語話し言葉コーパス注釈データセット", ("小林 真理",), 2020), CORPUS_JA),
], ids=["dataset-en", "software-en", "dataset-ja"])  # fmt: skip
def test_a_dataset_or_software_without_identifier_is_found_by_datacite_title_search(
    fake: Fake, ref: Reference, work: Work
) -> None:
    v = check(fake, ref)
    assert v.reason == VERIFIED, v.message
    assert v.record is not None and v.record.service == "datacite" and v.record.doi == work.doi
    assert _searched_datacite(fake) and "query=titles.title" in _searched_datacite(fake)[0]


def test_an_article_title_never_asks_datacite_search(fake: Fake) -> None:
    v = check(fake, Reference("v", "Attention Is All You Need", ("Vaswani, Ashish",), 2017))
    assert v.reason == VERIFIED and not _searched_datacite(fake)
    nothing = check(fake, Reference("x", "Quantum Gravity Explains Consumer Sentiment", ("Smith, John",), 2020))
    assert nothing.reason == NOT_FOUND and "datacite" not in nothing.message and not _searched_datacite(fake)


def test_invented_and_misattributed_datasets_are_never_verified(fake: Fake) -> None:
    invented = check(fake, Reference("a", "Arctic Lichen Cover Dataset 1990-2000", ("Berg, Nils",), 2001))
    assert invented.reason == NOT_FOUND and "datacite" in invented.message
    # the near-identical title of another dataset, with this one's author: not that dataset
    swapped = check(fake, Reference("b", "Global Urban Tree Canopy Dataset 2010-2014", ("Lindgren, Mara",), 2016))
    assert swapped.reason in (MISMATCH, NOT_FOUND) and swapped.reason != VERIFIED
    assert not (swapped.record is not None and swapped.record.doi == TREES.doi and swapped.reason == VERIFIED)


def test_datacite_search_down_is_not_checked_never_not_found() -> None:
    with fake_services(list(LOCAL), {"/datacite/dois?": Fault(status=503)}) as fake:
        v = check(fake, Reference("c", "日本語話し言葉コーパス注釈データセット", ("小林 真理",), 2020))
    assert v.reason == SERVICE_ERROR and "datacite" in v.message


def test_a_retraction_watch_retraction_on_the_record_alone_is_high(fake: Fake) -> None:
    for work, author in ((RW_RETRACTED, "Brandt, Lea"), (RETRACTED_JA, "石井 由美")):
        v = check(fake, Reference("r", work.title, (author,), work.year, doi=work.doi))
        assert v.reason == RETRACTED, v.message
        assert work.notices[0][1] in v.message  # the notice named


@pytest.mark.parametrize(("work", "author", "says"), [
    (CONCERN, "Aziz, Tariq", "an expression of concern was published"),
    (ERRATUM_TWICE, "Nordmann, Ola", "an erratum was published (10.5555/struct.2020.e4)"),
    (CORRIGENDUM_JA, "中村 健", "a corrigendum was published"),
], ids=["expression-of-concern", "erratum-publisher-and-rw", "corrigendum-ja"])  # fmt: skip
def test_errata_corrections_and_concerns_are_never_retractions(fake: Fake, work: Work, author: str, says: str) -> None:
    v = check(fake, Reference("e", work.title, (author,), work.year, doi=work.doi))
    assert v.reason == CORRECTED, v.message
    assert says in v.message and v.record is not None and not v.record.retracted


def test_a_relation_to_a_preprint_is_not_a_notice(fake: Fake) -> None:
    v = check(fake, Reference("p", WITH_PREPRINT.title, ("Ode, Kim",), 2020, doi=WITH_PREPRINT.doi))
    assert v.reason == VERIFIED and v.record is not None and v.record.updates == ()


def test_the_fake_answers_in_crossrefs_documented_update_shape() -> None:
    """Guards the fake itself (Crossref api_format.md "Update", plus source/record-id): if it drifted, the
    tests above would prove nothing about the real service."""
    item = crossref_item(ERRATUM_TWICE)
    for entry in item["updated-by"]:
        assert {"updated", "DOI", "type", "label", "source"} <= set(entry)
        assert entry["updated"]["date-parts"][0][0] == ERRATUM_TWICE.year + 2
        assert entry["source"] in ("publisher", "retraction-watch")
        assert ("record-id" in entry) == (entry["source"] == "retraction-watch")
    relation = crossref_item(WITH_PREPRINT)["relation"]["has-preprint"][0]
    assert set(relation) == {"id-type", "id", "asserted-by"}
