"""The reason table: every reason code, once, with everything claimledger says about it.

A row reads ``NAME = (code, tier, explainable, description, what to do)``:

* ``code`` - the stable string in reports (``Finding.reason``, SARIF ``ruleId``);
* ``tier`` - the default tier (``None``: the code means verified);
* ``explainable`` - whether a concrete ``author_alternative`` can turn the
  finding into EXPLAINED (never for a fabricated or misattributed citation);
* ``description`` - one line: the SARIF rule text and the meaning in docs/checks.md;
* ``what to do`` - the action a person can take, in docs/checks.md.

Tiers are read from this table only (:func:`claimledger.reconcile.assign_tier`).
docs/checks.md's reason table and the SARIF rules are generated from it
(``python scripts/gen_reason_docs.py``; ``tests/test_docs.py`` fails when stale).

A plugin adds a code with :meth:`Reason.register`; a built-in code is a new row
below (see docs/architecture.md, "How to add a claim kind").
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, NamedTuple

from claimledger._exceptions import PluginError


class Tier(StrEnum):
    HIGH = "HIGH"
    MED = "MED"
    LOW = "LOW"
    EXPLAINED = "EXPLAINED"


HIGH, MED, LOW = Tier.HIGH, Tier.MED, Tier.LOW
_CODE = re.compile(r"^[a-z][a-z0-9_]*$")


class Row(NamedTuple):
    """What the table says about one reason code."""

    tier: Tier | None
    explainable: bool
    description: str
    action: str


_ROWS: dict[str, Row] = {}


def _member(cls: type[Reason], code: str, row: Row) -> Reason:
    member = str.__new__(cls, code)
    member._value_ = code
    _ROWS[code] = row
    return member


class Reason(StrEnum):
    """A reason code with its row of the table: ``reason.tier``, ``.explainable``, ``.description``, ``.action``."""

    _value_: str

    def __new__(cls, code: str, *row: Any) -> Reason:
        # called once per row while the class is built; afterwards Reason("code") looks a member up
        return _member(cls, code, Row(*row))

    @property
    def row(self) -> Row:
        return _ROWS[self.value]

    @property
    def tier(self) -> Tier | None:
        """The default tier; ``None`` for a code that means verified."""
        return self.row.tier

    @property
    def explainable(self) -> bool:
        """Whether a concrete ``author_alternative`` can turn the finding into EXPLAINED."""
        return self.row.explainable

    @property
    def description(self) -> str:
        return self.row.description

    @property
    def action(self) -> str:
        """What a person can do about it."""
        return self.row.action

    @property
    def verified(self) -> bool:
        """The code means the claim was verified (it has no tier)."""
        return self.tier is None

    @classmethod
    def register(
        cls, code: str, tier: Tier | None, description: str, action: str, *, explainable: bool = False
    ) -> Reason:
        """Add a reason code from a plugin; it behaves as a row of the table (``Reason(code)``, iteration).

        Registering the same row twice returns the existing member; a different
        row under an existing code is a :class:`~claimledger.PluginError`.
        """
        if not _CODE.match(code):
            raise PluginError(f"reason code {code!r}: use lower-case letters, digits and underscores")
        if tier is Tier.EXPLAINED:
            raise PluginError(f"reason code {code!r}: EXPLAINED is given by reconcile, never a default tier")
        row = Row(tier, explainable, description, action)
        existing = cls._value2member_map_.get(code)
        if isinstance(existing, Reason):
            if existing.row == row:
                return existing
            raise PluginError(f"reason code {code!r} is already registered with another row")
        member = _member(cls, code, row)
        member._name_ = code.upper()
        # the members Enum itself keeps (3.11-3.13): lookup by value and name, iteration, `in`
        type.__setattr__(cls, member._name_, member)
        cls._member_map_[member._name_] = member
        cls._member_names_.append(member._name_)
        cls._value2member_map_[code] = member
        return member

    # verified
    QUOTE_FOUND = (
        "quote_found", None, False,
        "The quote is in the cited source, verbatim after normalization.",
        "Nothing.",
    )
    NUMBER_MATCH = (
        "number_match", None, False,
        "The recomputed value matches within tolerance and displayed precision.",
        "Nothing.",
    )
    # quotes
    QUOTE_ABSENT = (
        "quote_absent", HIGH, False,
        "The quote does not appear in the cited source, nor anywhere near it.",
        "Copy the exact words from the source, or drop the quotation.",
    )
    QUOTE_NEAR_MISS = (
        "quote_near_miss", HIGH, False,
        "The quote is not in the source verbatim; a close passage differs (see the word diff).",
        "Fix the quote to match the source word for word (the diff shows where).",
    )
    QUOTE_MISATTRIBUTED = (
        "quote_misattributed", HIGH, False,
        "The quote is not in the cited source but appears verbatim in another source.",
        "Cite the source that contains it. Ids are never repaired for you.",
    )
    QUOTE_TOO_SHORT = (
        "quote_too_short", HIGH, False,
        "The quote is too short to be verified meaningfully.",
        "Quote more of the sentence.",
    )
    QUOTE_ELISION_DROPS_MEANING = (
        "quote_elision_drops_meaning", HIGH, False,
        "An elided quote: every segment is in the source, but the text an omission ([…]) or a bracketed "
        "insertion stands for holds a negation, a modal or a qualifier that the quote leaves out (or an "
        "insertion adds one the source does not have, or a figure the text it stands for does not hold).",
        "Quote the words in full, or cut elsewhere: an omission may not drop a 'not', 'may' or 'usually'.",
    )
    QUOTE_ONLY_IN_HIDDEN_TEXT = (
        "quote_only_in_hidden_text", HIGH, False,
        "The quote occurs only in text a reader cannot see (hidden HTML element, script, comment; invisible, white or tiny PDF text).",
        "Quote visible text; treat the source as suspicious.",
    )
    # sources
    SOURCE_UNDECLARED = (
        "source_undeclared", HIGH, False,
        "The claim cites a source id that the ledger does not declare.",
        "Declare it under `sources:` (a close id is suggested, never used).",
    )
    SOURCE_FILE_MISSING = (
        "source_file_missing", HIGH, False,
        "The source file does not exist.",
        "Fix the path (relative to the ledger) or add the file.",
    )
    SOURCE_UNREADABLE = (
        "source_unreadable", HIGH, False,
        "The source could not be read or parsed.",
        "Replace the file with a readable copy.",
    )
    SOURCE_NO_TEXT = (
        "source_no_text", HIGH, False,
        "The source has no extractable text (for example a scanned PDF).",
        "Provide a text layer (OCR) or a text/HTML version.",
    )
    SOURCE_TOO_LARGE = (
        "source_too_large", HIGH, False,
        "The source is larger than the configured limit and was not read.",
        "Raise the limit if you trust the file, or cite a smaller extract.",
    )
    SOURCE_NOT_FOUND = (
        "source_not_found", HIGH, False,
        "The source URL answered 404/410: the cited source does not exist there.",
        "Fix the URL or cite an archived copy.",
    )
    SOURCE_TIMEOUT = (
        "source_timeout", MED, False,
        "Fetching the source URL timed out (transient; retry).",
        "Run again; raise `--timeout`; cache a local copy.",
    )
    SOURCE_SERVER_ERROR = (
        "source_server_error", MED, False,
        "The source server answered with a 5xx error (transient; retry).",
        "Run again later.",
    )
    SOURCE_NETWORK_ERROR = (
        "source_network_error", MED, False,
        "A network error prevented fetching the source (transient; retry).",
        "Check the network; run again.",
    )
    SOURCE_FORBIDDEN = (
        "source_forbidden", LOW, False,
        "The source is inaccessible (401/402/403): the claim cannot be verified.",
        "Use a local copy of the source if you have access.",
    )
    SOURCE_URL_REFUSED = (
        "source_url_refused", HIGH, False,
        "The source URL was refused (scheme, private address or redirect not allowed).",
        "Use a public URL or a local file; `--allow-private-urls` if intended.",
    )
    SOURCE_BAD_CONTENT_TYPE = (
        "source_bad_content_type", HIGH, False,
        "The source URL returned a content type claimledger does not read.",
        "Point at the HTML/PDF/text itself.",
    )
    SOURCE_EXTRACTION_TIMEOUT = (
        "source_extraction_timeout", HIGH, False,
        "Extracting the source's text took longer than the limit and was stopped.",
        "Raise the timeout for a trusted large file, or provide a text version.",
    )
    # numbers
    NUMBER_MISMATCH = (
        "number_mismatch", HIGH, True,
        "The recomputed value differs from the claimed number beyond tolerance and precision.",
        "Fix the figure, or give a concrete `author_alternative` (e.g. \"uses the revised 2024 edition of the table\").",
    )
    NUMBER_NOT_IN_QUOTE = (
        "number_not_in_quote", HIGH, True,
        "The cited passage does not print the claimed number.",
        "Quote the passage that prints the figure, or fix the figure.",
    )
    UNIT_AMBIGUOUS = (
        "unit_ambiguous", HIGH, False,
        "A percent compared with a value that reads as a ratio too: declare the unit.",
        "Add `unit: ratio` or `unit: percent` to the claim (or to the metric: `metrics: {name: {sql: ..., unit: ratio}}`, `@metric(\"name\", unit=\"ratio\")`), or `scale: 100`.",
    )
    VALUE_UNPARSEABLE = (
        "value_unparseable", HIGH, False,
        "The claimed value could not be parsed as a number.",
        "Write it as a number or as displayed (\"11.7%\", \"1.2万\", \"３０％\").",
    )
    METRIC_UNKNOWN = (
        "metric_unknown", HIGH, False,
        "The claim names a metric that is not registered.",
        "Declare it, load its file, or use `sql:`.",
    )
    METRIC_ERROR = (
        "metric_error", HIGH, False,
        "The metric's query or function failed.",
        "Fix the SQL (the message says why); see `--sql-timeout`, `--sql-memory-limit`.",
    )
    RESULT_NULL = (
        "result_null", HIGH, False,
        "The metric returned NULL: nothing to compare with.",
        "Fix the query (filters, table).",
    )
    RESULT_NON_FINITE = (
        "result_non_finite", HIGH, False,
        "The metric returned a non-finite value (NaN or infinity).",
        "Fix the computation (division by zero?).",
    )
    RESULT_NOT_SCALAR = (
        "result_not_scalar", HIGH, False,
        "The metric did not return exactly one value.",
        "Aggregate to one row and one column.",
    )
    DATASET_UNDECLARED = (
        "dataset_undeclared", HIGH, False,
        "The query uses a dataset the ledger does not declare.",
        "Declare the dataset.",
    )
    DATASET_FILE_MISSING = (
        "dataset_file_missing", HIGH, False,
        "A dataset file does not exist.",
        "Fix the path or add the file.",
    )
    DATASET_UNREADABLE = (
        "dataset_unreadable", HIGH, False,
        "A dataset file could not be read.",
        "Fix or convert the file (CSV, Parquet, JSON).",
    )
    # infrastructure
    CHECK_CRASHED = (
        "check_crashed", HIGH, False,
        "An internal error occurred while checking this claim; it is not verified.",
        "Report it (with the message); the other claims were still checked.",
    )
    # batch jobs (claimledger batch): the whole job is not verified
    JOB_INPUT_ERROR = (
        "job_input_error", HIGH, False,
        "The batch job's ledger or draft cannot be used; nothing in the job is verified.",
        "Fix the file named in the message; run again with `--resume`.",
    )
    JOB_TIMEOUT = (
        "job_timeout", HIGH, False,
        "The batch job ran past its time limit and was stopped; nothing in it is verified.",
        "Raise `--job-timeout`, or find the slow source or query.",
    )
    JOB_WORKER_LOST = (
        "job_worker_lost", HIGH, False,
        "The worker running the batch job died twice; nothing in the job is verified.",
        "Run the job alone with `claimledger check` to see why.",
    )
    # semantic judge (claimledger.checks.judged): a judge only ever adds findings
    JUDGE_CONTRADICTED = (
        "judge_contradicted", HIGH, False,
        "The independent judge found that the source contradicts the claim.",
        "Reread the source; rewrite the sentence.",
    )
    JUDGE_OVERCLAIM = (
        "judge_overclaim", HIGH, False,
        "The independent judge found that the claim says more than the source.",
        "Add the source's hedges, scope and numbers back.",
    )
    JUDGE_NOT_FOUND = (
        "judge_not_found", HIGH, False,
        "The independent judge found no support for the claim in the source.",
        "Cite a source that says it, or drop the claim.",
    )
    JUDGE_FAILED = (
        "judge_failed", MED, False,
        "The judge failed or answered malformed output (transient; not a pass).",
        "Run again; check the judge endpoint and model.",
    )
    JUDGE_EVIDENCE_NOT_IN_SOURCE = (
        "judge_evidence_not_in_source", MED, False,
        "The judge's quoted evidence is not literally in the source.",
        "Treat the judge's verdict as void; run again or with another model.",
    )
    JUDGE_INJECTION_SUSPECTED = (
        "judge_injection_suspected", MED, False,
        "The source appears to contain instructions aimed at the judge.",
        "Inspect the source; check the claim by hand.",
    )
    JUDGE_DRAFT_LEAK = (
        "judge_draft_leak", HIGH, False,
        "The judge's answer shows it saw text from the draft.",
        "Report it: the judge is not independent for this claim.",
    )
    # overclaim rules (statement says more than its quote or source)
    OVERCLAIM_NUMBER_CHANGED = (
        "overclaim_number_changed", HIGH, True,
        "The sentence states a different number than its quote.",
        "Use the quoted number.",
    )
    OVERCLAIM_HEDGE_DROPPED = (
        "overclaim_hedge_dropped", HIGH, True,
        "The sentence drops a hedge (about, approximately, 約) that its quote has.",
        "Put the hedge back.",
    )
    OVERCLAIM_MODALITY = (
        "overclaim_modality", HIGH, True,
        "The sentence strengthens the quote's modality (may -> is).",
        "Keep the source's modality.",
    )
    OVERCLAIM_QUANTIFIER = (
        "overclaim_quantifier", HIGH, True,
        "The sentence broadens the quote's quantifier (some -> all), or drops its qualifier (usually, 通常, 多くの場合).",
        "Keep the source's quantifier or qualifier.",
    )
    OVERCLAIM_NEGATION = (
        "overclaim_negation", HIGH, True,
        "The sentence flips a negation of its quote.",
        "Say what the source says.",
    )
    OVERCLAIM_SCOPE = (
        "overclaim_scope", HIGH, True,
        "The sentence broadens the scope of its quote.",
        "Keep the source's scope.",
    )
    OVERCLAIM_QUOTE_OMITS_HEDGE = (
        "overclaim_quote_omits_hedge", HIGH, True,
        "The quote leaves out a hedge that the source has around it.",
        "Quote the hedge too.",
    )
    # scope: does the evidence answer the question for the population, place and period it asks about?
    SCOPE_MISMATCH = (
        "scope_mismatch", HIGH, True,
        "The evidence is about another population, place, period or measure than the sentence or the question (or states an association the sentence reads as a cause).",
        "Cite evidence about the population, place and period asked about, or narrow the sentence to what the source counts.",
    )
    SCOPE_NOT_STATED = (
        "scope_not_stated", MED, False,
        "The sentence asserts a population, place, period or cause that the evidence around the quote does not state.",
        "Quote the passage that says who, where and when was counted, or drop the scope from the sentence.",
    )
    # negative literature claims ("no prior work studies X")
    NEGATIVE_CLAIM_UNSUPPORTED = (
        "negative_claim_unsupported", HIGH, False,
        "A claim that something does not exist has no recorded search behind it.",
        "Record the search (`search: {queries, databases, date, hits}`) or drop the claim.",
    )
    NEGATIVE_CLAIM_SEARCHED = (
        "negative_claim_searched", LOW, False,
        "A negative claim backed by a recorded search: it cannot be verified, only searched.",
        "Nothing more can be proved; keep the search record current.",
    )
    # drafts: program-applied marks, the unlisted audit, receipts
    MARK_NOT_VERIFIED = (
        "mark_not_verified", HIGH, False,
        "The draft marks this claim verified ([V]) but it does not re-verify.",
        "Run `claimledger mark` and fix the quote or figure it marks [D].",
    )
    MARK_MISSING = (
        "mark_missing", HIGH, False,
        "A claim in the draft carries no verification mark.",
        "Run `claimledger mark`.",
    )
    MARK_ORPHAN = (
        "mark_orphan", HIGH, False,
        "A mark in the draft refers to no ledger claim.",
        "Remove it, or put it right after the quotation or figure.",
    )
    QUOTE_UNCITED = (
        "quote_uncited", HIGH, False,
        "A quotation in the draft cites no source.",
        "Add `[@key]` or `\\cite{key}`.",
    )
    NUMBER_UNBACKED = (
        "number_unbacked", HIGH, False,
        "A number in the draft is not backed by a ledger claim.",
        "Add a number claim for it.",
    )
    UNLISTED_NUMBER = (
        "unlisted_number", HIGH, False,
        "A number in the draft or its summary that no ledger claim backs.",
        "Add a claim, or `--allow` it if it is not a factual figure (a year, a section number).",
    )
    UNLISTED_QUOTE = (
        "unlisted_quote", HIGH, False,
        "A quotation in the draft or its summary that no ledger claim backs.",
        "Add a quote claim with its source.",
    )
    UNLISTED_CITATION = (
        "unlisted_citation", HIGH, False,
        "A citation in the draft or its summary that no ledger claim backs, or a numeric citation [n] "
        "whose number no bibliography entry has.",
        "Declare the source (for [n]: the bibliography's n-th entry, with its key under `sources:`).",
    )
    RECEIPT_MISMATCH = (
        "receipt_mismatch", HIGH, False,
        "The verification receipt does not match the draft, ledger or sources as they are now.",
        "Re-run the check and write a new receipt, or find what changed.",
    )
    # references (claimledger.refs): bibliography entries against Crossref, DataCite, arXiv, OpenAlex
    REFERENCE_VERIFIED = (
        "reference_verified", None, False,
        "A bibliography entry confirmed, field by field, by a bibliographic service.",
        "Nothing.",
    )
    REFERENCE_NOT_FOUND = (
        "reference_not_found", HIGH, False,
        "A bibliography entry that no service knows: its identifier does not resolve and no search hit matches.",
        "Find the real work, or remove the citation.",
    )
    REFERENCE_MISMATCH = (
        "reference_mismatch", HIGH, False,
        "A bibliography entry whose work exists but whose title, authors, year, venue or identifier differ.",
        "Correct the entry from the record shown beside it.",
    )
    DOI_RESOLVES_ELSEWHERE = (
        "doi_resolves_elsewhere", HIGH, False,
        "A bibliography entry whose DOI or arXiv id belongs to another work.",
        "Use the cited work's own identifier (named in the message when a search finds it).",
    )
    REFERENCE_RETRACTED = (
        "reference_retracted", HIGH, False,
        "A bibliography entry whose work has been retracted or withdrawn.",
        "Do not cite it as support.",
    )
    REFERENCE_CORRECTED = (
        "reference_corrected", LOW, False,
        "A bibliography entry whose work has an erratum or correction (the work stands).",
        "Check the corrected version says what you cite.",
    )
    REFERENCE_PARTLY_CONFIRMED = (
        "reference_partly_confirmed", MED, False,
        "A bibliography entry whose work exists but a given field (a venue, say) is in no record, not even a "
        "published version found by title search: neither confirmed nor refuted.",
        "Check that field by hand.",
    )
    REFERENCE_SERVICE_ERROR = (
        "reference_service_error", MED, False,
        "A bibliography entry that could not be checked: a service failed, timed out or refused.",
        "Run again later; set the polite-pool address.",
    )
    REFERENCE_NOT_CHECKED = (
        "reference_not_checked", MED, False,
        "A bibliography entry not checked: `--offline`, and the cache holds no answer for it.",
        "Run without `--offline`, or run once online first so that `--offline` finds its answers in the cache.",
    )
    # attributions ("Smith (2019) shows X"): claimledger.checks.attribution
    ATTRIBUTION_SUPPORTED = (
        "attribution_supported", None, False,
        "The judge found the attribution supported by evidence quoted literally from the source.",
        "Nothing.",
    )
    ATTRIBUTION_NUMBER_ABSENT = (
        "attribution_number_absent", HIGH, True,
        "A figure attributed to a source is not printed in that source.",
        "Use the source's figure, or give a concrete `author_alternative` saying how it was derived.",
    )
    ATTRIBUTION_NAME_ABSENT = (
        "attribution_name_absent", HIGH, False,
        "A name in an attribution appears neither in the source nor in its bibliographic record.",
        "Check the name against the source; cite the source that has it.",
    )
    ATTRIBUTION_MEANING_UNCHECKED = (
        "attribution_meaning_unchecked", MED, False,
        "No judge read this attribution: its meaning is not checked.",
        "Run with a judge (`--judge openai --judge-model MODEL`, see [judge.md](judge.md)).",
    )
    # page and section locators ("p. 4", "Section 3", "4頁"): claimledger.checks.locator
    LOCATOR_WRONG = (
        "locator_wrong", HIGH, False,
        "The page or section locator does not hold the evidence.",
        "Correct the locator to the one shown.",
    )
    LOCATOR_UNCHECKED = (
        "locator_unchecked", MED, False,
        "The page or section locator could not be checked.",
        "Write it as `p. N`/`pp. N–M`/`Section N`, or cite a PDF or a source with headings.",
    )
    # dataset claims (field exists, row count, never null): claimledger.checks.dataset
    DATASET_FACT_CONFIRMED = (
        "dataset_fact_confirmed", None, False,
        "The dataset claim holds.",
        "Nothing.",
    )
    DATASET_FIELD_ABSENT = (
        "dataset_field_absent", HIGH, False,
        "The dataset has no field of that exact name.",
        "Use the field's exact name.",
    )
    DATASET_ROWS_MISMATCH = (
        "dataset_rows_mismatch", HIGH, False,
        "The dataset has a different number of rows.",
        "State the row count the data has.",
    )
    DATASET_FIELD_HAS_NULLS = (
        "dataset_field_has_nulls", HIGH, False,
        "A field said to be never null has nulls.",
        "Drop \"never null\" or say how many are missing.",
    )
    # the registry: a claim kind no check is registered for
    CLAIM_KIND_UNCHECKED = (
        "claim_kind_unchecked", HIGH, False,
        "No check is registered for this claim's kind, so nothing checked it; it is not verified.",
        "Install or load the plugin that checks this kind (see docs/architecture.md).",
    )
