"""Comparing a reference with a record: title, author surnames, year, venue.

Thresholds (``MatchOptions``): title token-sort similarity >= 0.90, each
listed author surname found among the record's names with similarity >= 0.80,
year within +-1 (a preprint may precede its published version by up to
``preprint_years``), venue compared only when both sides give one.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from claimledger.refs.model import Record, Reference

_LATEX_CMD = re.compile(r"\\[a-zA-Z]+\*?\s*|\\.")
_NON_WORD = re.compile(r"[^\w]+")
_STOP = frozenset({"of", "the", "and", "on", "in", "for", "a", "an", "to", "at", "de", "la", "&"})


@dataclass(frozen=True)
class MatchOptions:
    title: float = 0.90
    authors: float = 0.80
    year_slack: int = 1
    preprint_years: int = 3
    venue: float = 0.70

    @classmethod
    def from_env(cls) -> MatchOptions:
        """``CLAIMLEDGER_REFS_TITLE`` / ``CLAIMLEDGER_REFS_AUTHORS`` / ``CLAIMLEDGER_REFS_VENUE`` (0-1) and
        ``CLAIMLEDGER_REFS_YEAR_SLACK`` (years) override the defaults; unreadable values are ignored."""
        base = cls()

        def num(var: str, default: float) -> float:
            try:
                value = float(os.environ.get(var) or default)
            except ValueError:
                return default
            return min(max(value, 0.0), 1.0)

        slack = os.environ.get("CLAIMLEDGER_REFS_YEAR_SLACK", "")
        return cls(
            title=num("CLAIMLEDGER_REFS_TITLE", base.title),
            authors=num("CLAIMLEDGER_REFS_AUTHORS", base.authors),
            venue=num("CLAIMLEDGER_REFS_VENUE", base.venue),
            year_slack=int(slack) if slack.isdigit() else base.year_slack,
        )


def norm_text(text: str) -> str:
    """NFKC, case-folded, LaTeX commands and braces dropped, punctuation to spaces, accents removed."""
    text = _LATEX_CMD.sub(" ", text.replace("{", "").replace("}", ""))
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_NON_WORD.sub(" ", text).split())


def _cjk(text: str) -> bool:
    return any("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in text)


WORD_RATIO = 0.85  # one word against its partner: spelling variants (modelling/modeling) pass, other words do not
CJK_RATIO = 0.95  # a CJK title (no word boundaries) against the record, character by character


def title_score(ref_title: str, record_title: str) -> float:
    """Token-sort similarity (0-1) of the normalized titles."""
    a, b = norm_text(ref_title), norm_text(record_title)
    if not a or not b:
        return 0.0
    return float(fuzz.token_sort_ratio(a, b)) / 100.0


def title_word_differences(ref_title: str, record_title: str) -> list[str]:
    """Content words of one title with no partner in the other (similarity >= 0.85), both ways.

    Token-sort similarity alone lets one changed word through in a long title
    ("Gradient Boosting" vs "Gradient Bagging" is 0.93); every word must have a
    partner. CJK titles have no word boundaries: they must agree character by
    character to ``CJK_RATIO``.
    """
    a, b = norm_text(ref_title), norm_text(record_title)
    if _cjk(a) or _cjk(b):
        ca, cb = a.replace(" ", ""), b.replace(" ", "")
        return [] if float(fuzz.ratio(ca, cb)) / 100.0 >= CJK_RATIO else [ref_title]
    wa = [w for w in a.split() if w not in _STOP]
    wb = [w for w in b.split() if w not in _STOP]

    def unmatched(xs: list[str], ys: list[str]) -> list[str]:
        return [x for x in xs if not any(x == y or float(fuzz.ratio(x, y)) / 100.0 >= WORD_RATIO for y in ys)]

    return unmatched(wa, wb) + unmatched(wb, wa)


def surname(name: str) -> str:
    """The family name of ``Vaswani, Ashish`` / ``Ashish Vaswani`` / ``山田 太郎`` (first token for CJK)."""
    name = name.strip()
    if "," in name:
        return norm_text(name.split(",", 1)[0])
    tokens = norm_text(name).split()
    if not tokens:
        return ""
    if any("\u3040" <= ch <= "\u9fff" for ch in name):  # Japanese/Chinese order: family name first
        return tokens[0]
    return tokens[-1]


def _name_tokens(record: Record) -> list[set[str]]:
    """Per record author: every token of the full name (so either name order matches) plus the surname."""
    out: list[set[str]] = []
    for i, full in enumerate(record.authors):
        tokens = set(norm_text(full).split())
        if i < len(record.surnames) and record.surnames[i]:
            tokens.add(norm_text(record.surnames[i]))
            tokens.update(norm_text(record.surnames[i]).split())
        out.append({t for t in tokens if t})
    return out


def _cjk_compact(name: str) -> str:
    return norm_text(name).replace(" ", "")


def author_check(ref: Reference, record: Record, threshold: float) -> tuple[float, list[str]]:
    """Fraction of the reference's surnames found in the record, and the ones not found."""
    if not ref.authors:
        return 1.0, []
    people = _name_tokens(record)
    compact = [_cjk_compact(a) for a in record.authors]
    missing: list[str] = []
    for author in ref.authors:
        fam = surname(author)
        if not fam:
            continue
        best = 0.0
        width = len(fam.split())
        for tokens, full in zip(people, record.authors, strict=False):
            for tok in tokens:
                best = max(best, float(fuzz.ratio(fam, tok)) / 100.0)
            words = norm_text(full).split()
            for i in range(max(0, len(words) - width + 1)):  # "van der Berg", "García Márquez"
                best = max(best, float(fuzz.ratio(fam, " ".join(words[i : i + width]))) / 100.0)
        whole = _cjk_compact(author)
        if any(whole and whole == c for c in compact):
            best = 1.0
        if best < threshold:
            missing.append(author)
    found = len(ref.authors) - len(missing)
    return found / len(ref.authors), missing


def _initials(text: str) -> str:
    return "".join(w[0] for w in norm_text(text).split() if w not in _STOP)


_PREPRINT_VENUE = re.compile(r"\b(arxiv|preprint|biorxiv|medrxiv|ssrn|corr|e ?print)\b")


def venue_score(ref_venue: str, record: Record) -> float:
    """Best similarity of the reference's venue with any of the record's container titles (1.0 when none)."""
    given = norm_text(ref_venue)
    if not given:
        return 1.0
    if _PREPRINT_VENUE.search(given) and record.preprint:
        return 1.0
    if not record.venues:
        return 0.0  # nothing to compare: the caller reports the venue as unconfirmed
    best = 0.0
    compact_given = given.replace(" ", "")
    for venue in record.venues:
        v = norm_text(venue)
        if not v:
            continue
        best = max(best, float(fuzz.token_set_ratio(given, v)) / 100.0)
        # an acronym ("NeurIPS", "JAMA") against the full name's initials, or the other way round
        if len(compact_given) <= 10 and _initials(venue) and compact_given.startswith(_initials(venue)[:3]):
            best = max(best, float(fuzz.ratio(compact_given, _initials(venue))) / 100.0)
    return best


def year_ok(ref: Reference, record: Record, opts: MatchOptions) -> bool:
    if ref.year is None or record.year is None:
        return True
    diff = ref.year - record.year
    if abs(diff) <= opts.year_slack:
        return True
    # a preprint cited by its later published year; when the record names that year, only that year
    if record.preprint and 0 < diff <= opts.preprint_years:
        return record.published_year is None or abs(ref.year - record.published_year) <= opts.year_slack
    return False


@dataclass(frozen=True)
class Comparison:
    record: Record
    title: float
    authors: float
    venue: float
    year_ok: bool
    missing_authors: tuple[str, ...] = ()
    differences: tuple[str, ...] = field(default=())
    unconfirmed: tuple[str, ...] = ()

    @property
    def title_ok(self) -> bool:
        return not self.differences or not any(d.startswith("title") for d in self.differences)

    @property
    def all_ok(self) -> bool:
        return not self.differences

    @property
    def score(self) -> float:
        """For ranking candidates: agreement on every field counts, the title most."""
        return 2 * self.title + self.authors + self.venue + (1.0 if self.year_ok else 0.0)


def compare(ref: Reference, record: Record, opts: MatchOptions) -> Comparison:
    """Compare every field the reference gives with the record; list each difference in words."""
    diffs: list[str] = []
    unconfirmed: list[str] = []
    t = 1.0
    if ref.title:
        scored = sorted(((title_score(ref.title, title), title) for title in (record.title, *record.alt_titles)),
                        reverse=True)  # fmt: skip
        t, best_title = scored[0]
        if t < opts.title:
            diffs.append(f"title: the reference says {ref.title!r}, the record says {record.title!r} "
                         f"(similarity {t:.2f} < {opts.title:.2f})")  # fmt: skip
        else:
            words = min((title_word_differences(ref.title, title) for s, title in scored if s >= opts.title),
                        key=len)  # fmt: skip
            if words:
                diffs.append(f"title: the reference says {ref.title!r}, the record says {best_title!r} "
                             f"(words without a partner: {', '.join(words)})")  # fmt: skip
    a, missing = 1.0, list[str]()
    if ref.authors:
        if record.authors:
            a, missing = author_check(ref, record, opts.authors)
            if missing:
                diffs.append(
                    "authors: " + ", ".join(repr(m) for m in missing) + " not among the record's authors ("
                    + "; ".join(record.authors[:8]) + ("; ..." if len(record.authors) > 8 else "") + ")"
                )
        else:
            unconfirmed.append("authors")
    y = year_ok(ref, record, opts)
    if ref.year is not None:
        if record.year is None:
            unconfirmed.append("year")
        elif not y:
            kind = " (the record is a preprint)" if record.preprint else ""
            diffs.append(f"year: the reference says {ref.year}, the record says {record.year}{kind}")
    v = venue_score(ref.venue, record)
    if ref.venue:
        preprint_venue = bool(_PREPRINT_VENUE.search(norm_text(ref.venue))) and record.preprint
        if not record.venues and not preprint_venue:
            unconfirmed.append("venue")
            v = 1.0
        elif v < opts.venue:
            diffs.append(f"venue: the reference says {ref.venue!r}, the record says "
                         f"{' | '.join(record.venues) or 'a preprint'!r}")  # fmt: skip
    return Comparison(record, t, a, v, y, tuple(missing), tuple(diffs), tuple(unconfirmed))

