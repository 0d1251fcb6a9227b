"""Ledger entries (claims) and the ledger itself.

These pydantic models are the single definition of the ledger format: the
loader validates against them and ``schemas/ledger.schema.json`` is generated
from them (a test keeps the two in step).
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from claimledger._exceptions import PluginError

DEFAULT_TOLERANCE = 0.005

Unit = Literal["ratio", "percent", "count", "currency", "number"]
UNIT_HELP = (
    "What the recomputed value is: `ratio` (a fraction, 0.248 = 24.8%: a figure shown as a percent is "
    "compared x100), `percent` (already in percent points), `count`, `currency` or `number`."
)


class Location(BaseModel):
    """Where a claim sits in the draft (1-based line and column)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    file: str | None = None
    line: int = Field(ge=1)
    column: int = Field(default=1, ge=1)


class Question(BaseModel):
    """A research question the draft answers, with its optional declared scope.

    The scope fields say who or what the answer must be about; when one is
    left out it is read from ``text`` (``個人開発者は…`` -> population
    individual developers). See docs/ledger-format.md, "Questions and scope".
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)
    text: str = Field(min_length=1, description="The research question, as asked.")
    population: str | None = Field(
        default=None,
        description="Who or what is counted (individual developers, 企業, employees inside companies, students...).",
    )
    place: str | None = Field(default=None, description="Where (Japan, 国内, the United States...).")
    period: str | None = Field(default=None, description="When (2023, FY2023, 2023年度, 2019-2021...).")
    measure: Literal["share", "count", "growth", "average", "points", "multiple"] | None = Field(
        default=None, description="What kind of figure answers it."
    )
    design: Literal["causal", "correlational"] | None = Field(
        default=None, description="Whether the question asks for a cause or an association."
    )
    section: str | None = Field(
        default=None,
        description="In `questions:` only: the draft heading whose claims answer this question.",
    )


class ClaimBase(BaseModel):
    """What every claim kind has. A kind adds ``kind: Literal["name"]`` and its own fields,
    and is registered with :func:`claim_kind`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str = Field(min_length=1, description="Unique claim id, e.g. C1 or N3.")
    statement: str | None = Field(
        default=None, description="The draft's sentence that makes the claim (optional)."
    )
    author_alternative: str | None = Field(
        default=None,
        description="A concrete, named reason for a known numeric difference (optional).",
    )
    location: Location | None = Field(default=None, description="Where the claim sits in the draft.")
    answers: str | Question | None = Field(
        default=None,
        description="The question this claim answers: an id from `questions`, or a question written inline.",
    )

    _line: int | None = PrivateAttr(default=None)

    @property
    def ledger_line(self) -> int | None:
        """Line of this claim in the ledger file, when known.

        Read from pydantic's store of private attributes, where pydantic's own ``__getattr__`` reads
        it after the ordinary lookup fails (3.6 us a read, read for every finding); the same value,
        and pydantic's own path where the store does not hold it."""
        try:
            line: int | None = self.__pydantic_private__["_line"]  # type: ignore[index]
        except (KeyError, TypeError):
            return self._line
        return line

    def claimed(self) -> str | None:
        """What the claim asserts, as a finding shows it (``Finding.claimed``)."""
        return self.statement


C = TypeVar("C", bound=type[ClaimBase])
_KINDS: dict[str, type[ClaimBase]] = {}
_KIND_OF: dict[type[ClaimBase], str] = {}


def claim_kind(model: C) -> C:
    """Register a claim model: its ``kind`` literal joins the ledger's discriminated union.

    Built-in kinds and plugin kinds register the same way; a kind registered
    after :class:`Ledger` was built rebuilds its validator and JSON Schema.
    """
    cls: type[ClaimBase] = model
    field = cls.model_fields.get("kind")
    args = get_args(field.annotation) if field is not None else ()
    if field is None or get_origin(field.annotation) is not Literal or len(args) != 1 or not isinstance(args[0], str):
        raise PluginError(f"{model.__name__}: a claim kind needs a field `kind: Literal[\"<name>\"]`")
    kind = args[0]
    if _KINDS.get(kind, model) is not model:
        raise PluginError(f"claim kind {kind!r} is already registered ({_KINDS[kind].__name__})")
    _KINDS[kind] = model
    _KIND_OF[model] = kind
    if "Ledger" in globals():
        _rebuild_ledger()
    return model


def claim_kinds() -> dict[str, type[ClaimBase]]:
    """Every registered claim kind and its model, in registration order."""
    return dict(_KINDS)


def kind_of(claim: ClaimBase) -> str:
    """The ``kind`` of a claim."""
    return _KIND_OF[type(claim)]


@claim_kind
class QuoteClaim(ClaimBase):
    """A literal quotation that must appear in the cited source."""

    kind: Literal["quote"]
    source: str = Field(min_length=1, description="Id of the cited source in `sources`.")
    quote: str = Field(min_length=1, description="The quoted text, as the draft gives it.")
    locator: str | None = Field(
        default=None,
        description='Where in the source the quote is: "p. 4", "pp. 4-5", "S. 4", "4頁", "Section 3" (optional).',
    )

    def claimed(self) -> str | None:
        return self.quote


@claim_kind
class NumberClaim(ClaimBase):
    """A figure recomputed from data (``sql`` or ``metric``) or read from a source passage."""

    kind: Literal["number"]
    value: float | int | str = Field(
        description='The claimed value: a number, or the string as displayed ("11.7%", "1.2万").'
    )
    sql: str | None = Field(default=None, description="DuckDB SQL over the datasets, one value.")
    metric: str | None = Field(default=None, description="Name of a registered metric.")
    source: str | None = Field(default=None, description="Source id whose passage prints the figure.")
    quote: str | None = Field(default=None, description="The passage that prints the figure.")
    tolerance: float | None = Field(
        default=None, ge=0, description="Relative tolerance (default 0.005 = 0.5%)."
    )
    scale: float | None = Field(
        default=None,
        description="Multiply the recomputed value by this before comparing (e.g. 100 for a ratio shown as %).",
    )
    unit: Unit | None = Field(default=None, description=UNIT_HELP + " Overrides the metric's unit.")

    def claimed(self) -> str | None:
        return str(self.value)

    @model_validator(mode="after")
    def _one_backing(self) -> NumberClaim:
        backings = [self.sql is not None, self.metric is not None, self.source is not None]
        if sum(backings) != 1:
            raise ValueError("a number claim needs exactly one of `sql`, `metric`, or `source` + `quote`")
        if (self.source is None) != (self.quote is None):
            raise ValueError("`source` and `quote` go together on a number claim")
        return self


class SearchRecord(BaseModel):
    """The literature search behind a negative claim: what was searched, where, when, and what came back."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    queries: list[str] = Field(min_length=1, description="The search queries, as typed.")
    databases: list[str] = Field(
        min_length=1, description="Where they were run (Google Scholar, CiNii, arXiv, ...)."
    )
    date: datetime.date = Field(description="When the search was run (ISO date).")
    hits: dict[str, int] = Field(
        default_factory=dict,
        description="Hit counts per database (or per 'database: query'), as returned by the search.",
    )
    notes: str | None = Field(default=None, description="How the hits were screened (optional).")

    @model_validator(mode="after")
    def _sane(self) -> SearchRecord:
        if any(not q.strip() for q in self.queries) or any(not d.strip() for d in self.databases):
            raise ValueError("search queries and databases must not be blank")
        if any(n < 0 for n in self.hits.values()):
            raise ValueError("hit counts must not be negative")
        return self


@claim_kind
class NegativeClaim(ClaimBase):
    """A negative literature claim ("no prior work studies X", 「先行研究は存在しない」).

    Never verified: with a recorded ``search`` it is reported as "no
    counter-evidence found in <coverage>"; without one it is HIGH.
    """

    kind: Literal["negative"]
    statement: str = Field(min_length=1, description="The draft's negative claim, as written.")
    search: SearchRecord | None = Field(
        default=None, description="The recorded literature search behind the claim (optional)."
    )


class MetricDef(BaseModel):
    """A SQL metric with its unit (the long form of a `metrics:` entry)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    sql: str = Field(min_length=1, description="DuckDB SQL returning one value.")
    unit: Unit | None = Field(default=None, description=UNIT_HELP)


@claim_kind
class AttributionClaim(ClaimBase):
    """What the draft says a cited source says, without quoting it ("Smith (2019) shows X")."""

    kind: Literal["attribution"]
    source: str = Field(min_length=1, description="Id of the cited source in `sources`.")
    attributed: str = Field(
        min_length=1, description="What the draft says the source says (the sentence without its frame)."
    )
    locator: str | None = Field(
        default=None, description='Where in the source: "p. 4", "pp. 4-5", "Section 3", "4頁" (optional).'
    )
    record: str | None = Field(
        default=None,
        description="The source's bibliographic record (authors, title, venue); names may appear there (optional).",
    )
    also_cited: list[str] = Field(
        default_factory=list,
        description="Further sources the same citation names ([@a; @b], \\cite{a,b}, [1, 3]): a figure or name "
        "passes when any cited source prints it, and a judge's `supported` from one of them verifies the claim.",
    )

    def claimed(self) -> str | None:
        return self.attributed

    def cited(self) -> list[str]:
        """Every source the attribution cites: ``source`` first, then ``also_cited`` (no repeats)."""
        return list(dict.fromkeys([self.source, *self.also_cited]))


@claim_kind
class DatasetClaim(ClaimBase):
    """A claim about a declared dataset: a field exists, the row count, a field is never null."""

    kind: Literal["dataset"]
    dataset: str = Field(min_length=1, description="Name of the dataset in `datasets` (case-sensitive).")
    field: str | None = Field(default=None, description="A column the dataset has (case-sensitive).")
    rows: int | None = Field(default=None, ge=0, description="The number of rows the draft states.")
    never_null: bool | None = Field(
        default=None, description="True: the draft says `field` is never null (needs `field`)."
    )

    def claimed(self) -> str | None:
        return self.statement or f"dataset {self.dataset}"

    @model_validator(mode="after")
    def _something_to_check(self) -> DatasetClaim:
        if self.field is None and self.rows is None:
            raise ValueError("a dataset claim needs `field:` and/or `rows:`")
        if self.never_null is not None and self.field is None:
            raise ValueError("`never_null` needs `field:`")
        return self


# The built-in kinds, for type checkers; at run time Ledger.claims accepts every registered kind.
Claim = Annotated[
    QuoteClaim | NumberClaim | NegativeClaim | AttributionClaim | DatasetClaim, Field(discriminator="kind")
]


class ReferenceFields(BaseModel):
    """What a bibliography entry says about a work: shared by ``references:`` entries and ``kind: reference``
    claims, so the two spellings of an entry cannot drift apart."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    title: str | None = Field(default=None, description="The work's title.")
    authors: list[str] | str | None = Field(
        default=None, description='Authors: a list ("Vaswani, Ashish") or one string joined by " and ".'
    )
    year: int | str | None = Field(default=None, description="Year of publication.")
    venue: str | None = Field(default=None, description="Journal, proceedings or series (compared when given).")
    doi: str | None = Field(default=None, description="DOI (10.xxxx/... or a doi.org URL).")
    arxiv: str | None = Field(default=None, description="arXiv id (2101.00001 or arXiv:hep-th/9901001).")
    url: str | None = Field(default=None, description="A URL of the work (informational).")
    type: str | None = Field(
        default=None, description="Entry type (article, inproceedings, dataset, software, ...)."
    )


class LedgerReference(ReferenceFields):
    """A bibliography entry written in the ledger (``references:``); its ``key`` is the citation key."""

    key: str = Field(min_length=1, description="The citation key the draft uses ([@key], \\cite{key}).")


class Ledger(BaseModel):
    """The ledger file: declared sources, datasets, SQL metrics and claims."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    version: Literal[1] = Field(description="Ledger format version; always 1.")
    sources: dict[str, str] = Field(
        default_factory=dict, description="Source id -> local path (txt, md, html, pdf) or http(s) URL."
    )
    datasets: dict[str, str] = Field(
        default_factory=dict, description="Dataset name -> CSV, Parquet or JSON file."
    )
    metrics: dict[str, str | MetricDef] = Field(
        default_factory=dict,
        description="Metric name -> DuckDB SQL returning one value, or {sql: ..., unit: ratio|percent|...}.",
    )
    question: str | Question | None = Field(
        default=None, description="The research question of the whole draft (text, or text with its scope)."
    )
    questions: dict[str, Question] = Field(
        default_factory=dict,
        description="Further questions by id: per section (`section:`) or named by a claim's `answers:`.",
    )
    claims: list[Claim] = Field(default_factory=list)
    bibliography: list[str] | str | None = Field(
        default=None, description="BibTeX/BibLaTeX (.bib) or CSL-JSON (.json) file(s), relative to the ledger."
    )
    references: list[LedgerReference] = Field(
        default_factory=list, description="Bibliography entries written in the ledger (checked like --bib)."
    )
    draft: str | None = Field(
        default=None, description="The draft this ledger backs (path relative to the ledger); used by `claimledger batch`."
    )

    _path: str | None = PrivateAttr(default=None)
    _sha256: str | None = PrivateAttr(default=None)
    _reference_keys: frozenset[str] = PrivateAttr(default=frozenset())  # set by the gate once bibliographies are read
    # the citation keys of the bibliography in order (`references:`, then `bibliography:` files, then --bib):
    # numeric citations [n] map to the n-th; set by the gate
    _reference_order: tuple[str, ...] = PrivateAttr(default=())
    # claim id -> the draft headings around the claim's location, innermost first (set when a draft is given)
    _claim_sections: dict[str, list[str]] = PrivateAttr(default_factory=dict)

    def metric_sql(self, name: str) -> str | None:
        m = self.metrics.get(name)
        return m.sql if isinstance(m, MetricDef) else m

    def metric_unit(self, name: str) -> str | None:
        m = self.metrics.get(name)
        return m.unit if isinstance(m, MetricDef) else None

    @model_validator(mode="after")
    def _unique_ids(self) -> Ledger:
        seen: set[str] = set()
        for claim in self.claims:
            if claim.id in seen:
                raise ValueError(f"duplicate claim id {claim.id!r}")
            seen.add(claim.id)
            if isinstance(claim.answers, str) and claim.answers not in self.questions:
                known = ", ".join(sorted(self.questions)) or "none declared"
                raise ValueError(
                    f"claim {claim.id!r} answers {claim.answers!r}, which is not an id under `questions:` ({known})"
                )
        keys: set[str] = set()
        for ref in self.references:
            if ref.key in keys:
                raise ValueError(f"duplicate reference key {ref.key!r}")
            keys.add(ref.key)
        return self

    def question_for(
        self, claim_answers: str | Question | None, sections: list[str] | str | None = None
    ) -> Question | None:
        """The question a claim answers: its own ``answers``, its (innermost) section's, else the draft's."""
        if isinstance(claim_answers, Question):
            return claim_answers
        if isinstance(claim_answers, str):
            return self.questions.get(claim_answers)
        for section in [sections] if isinstance(sections, str) else sections or []:
            want = " ".join(section.split()).casefold()
            for q in self.questions.values():
                if q.section is not None and " ".join(q.section.split()).casefold() == want:
                    return q
        if isinstance(self.question, str):
            return Question(text=self.question)
        return self.question

    def bibliography_files(self) -> list[str]:
        if self.bibliography is None:
            return []
        return [self.bibliography] if isinstance(self.bibliography, str) else list(self.bibliography)

    def claim_question(self, claim: ClaimBase) -> Question | None:
        """:meth:`question_for` a claim of this ledger, with the draft sections recorded for it."""
        return self.question_for(claim.answers, self._claim_sections.get(claim.id))


def _rebuild_ledger() -> None:
    union: Any = Annotated[Union[tuple(_KINDS.values())], Field(discriminator="kind")]  # noqa: UP007
    Ledger.model_fields["claims"].annotation = list[union]
    Ledger.model_rebuild(force=True)
