"""The hand-written works the reference tests use (English and Japanese), served by tests/refs_fake.py."""

from __future__ import annotations

from tests.refs_fake import Work

ATTENTION = Work(
    "Attention Is All You Need", [("Ashish", "Vaswani"), ("Noam", "Shazeer"), ("Niki", "Parmar")], 2017,
    venue="Advances in Neural Information Processing Systems", short_venue="NeurIPS",
    doi="10.5555/nips.2017.7181", arxiv="1706.03762", kind="proceedings-article",
    services=("crossref", "openalex", "arxiv", "datacite"),
)  # fmt: skip
NOT_ALL = Work(  # a near-identical title, another paper
    "Attention Is Not All You Need", [("Yihe", "Dong"), ("Jean-Baptiste", "Cordonnier"), ("Andreas", "Loukas")],
    2021, venue="Proceedings of the 38th International Conference on Machine Learning", short_venue="ICML",
    doi="10.5555/icml.2021.2793", kind="proceedings-article",
)  # fmt: skip
RETRACTED = Work(
    "Vitamin Intake and Memory in Older Adults: A Cohort Study", [("Ann", "Keller"), ("Bo", "Lindqvist")], 2015,
    venue="Journal of Ageing Research", doi="10.5555/jar.2015.044", retraction_notice="10.5555/jar.2017.r1",
)  # fmt: skip
CORRECTED = Work(
    "Soil Carbon Under Rotational Grazing", [("María", "Núñez"), ("Tom", "Okafor")], 2019,
    venue="Agricultural Systems", doi="10.5555/agsy.2019.102", erratum_notice="10.5555/agsy.2020.e1",
)  # fmt: skip
ARXIV_DATACITE_ONLY = Work(  # an arXiv DOI that only DataCite knows (Crossref and OpenAlex lack it)
    "Sparse Mixtures of Tiny Experts", [("Lena", "Fischer"), ("Raj", "Patel")], 2021,
    doi="10.48550/arxiv.2101.00042", arxiv="2101.00042", kind="posted-content", services=("datacite",),
)  # fmt: skip
OPENALEX_ONLY = Work(  # a DOI Crossref lacks but OpenAlex holds
    "Field Notes on Urban Bird Song", [("Iris", "Moreau")], 2012, venue="Urban Ecology Letters",
    doi="10.5555/uel.2012.7", services=("openalex",),
)  # fmt: skip
JAPANESE = Work(
    "大規模言語モデルによる引用の検証", [("太郎", "山田"), ("花子", "佐藤")], 2022, venue="自然言語処理",
    doi="10.5555/jnlp.29.1", services=("crossref", "openalex"),
)  # fmt: skip
PREPRINT_LATER_PUBLISHED = Work(  # on arXiv in 2019, cited by its 2021 journal year
    "Robust Estimation of Heavy Tails", [("Chen", "Wu"), ("Pia", "Laine")], 2019,
    arxiv="1905.01234", kind="posted-content", services=("arxiv", "datacite"),
)  # fmt: skip

PUBLISHED_VERSION = Work(  # the journal version of the preprint above (its arXiv record names no journal)
    "Robust Estimation of Heavy Tails", [("Chen", "Wu"), ("Pia", "Laine")], 2021,
    venue="Annals of Statistics", doi="10.5555/aos.2021.49",
)  # fmt: skip

WORLD = [ATTENTION, NOT_ALL, RETRACTED, CORRECTED, ARXIV_DATACITE_ONLY, OPENALEX_ONLY, JAPANESE,
         PREPRINT_LATER_PUBLISHED, PUBLISHED_VERSION]  # fmt: skip
