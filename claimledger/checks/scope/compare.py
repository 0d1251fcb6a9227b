"""Compare the scope slots of the question, the statement and the evidence.

A slot the evidence states that contradicts the slot the statement (or the
question) uses is a *mismatch* (HIGH): the figure is about employees inside
companies and the sentence, or the question it answers, is about individual
developers. A slot the statement asserts and the evidence does not state at
all is *not stated* (MED): "the source does not say this is about individual
developers". Each issue carries the three slots side by side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimledger.checks.scope import lexicon as lx
from claimledger.checks.scope.passage import Passage
from claimledger.checks.scope.slots import (
    Mention,
    Period,
    figures,
    fold,
    is_japanese,
    period,
    place_contains,
    places,
    populations,
    primary_population,
    read_slots,
)

MISMATCH = "mismatch"
NOT_STATED = "not_stated"
SLOT_KINDS = ("population", "place", "period", "measure", "causal_from_correlational")


@dataclass(frozen=True)
class QuestionScope:
    """The research question a claim answers, with its optional declared scope."""

    text: str | None = None
    population: str | None = None
    place: str | None = None
    period: str | None = None
    measure: str | None = None  # share | count | growth | average | points | multiple
    design: str | None = None  # causal | correlational

    def asked_populations(self) -> list[Mention]:
        declared = populations(self.population) if self.population else []
        if declared:
            return [primary_population(self.population or "", declared) or declared[0]]
        found = [m for m in populations(self.text or "") if m.value not in lx.SOFT]
        return _unique(found)

    def asked_places(self) -> list[Mention]:
        return places(self.place) if self.place else places(self.text or "")

    def asked_period(self) -> Period | None:
        return period(self.period) if self.period else period(self.text or "")


@dataclass(frozen=True)
class ScopeIssue:
    slot: str  # one of SLOT_KINDS
    severity: str  # mismatch | not_stated
    question: str | None
    statement: str | None
    evidence: str | None
    evidence_where: str | None
    message: str

    def sides(self) -> dict[str, str | None]:
        return {"question": self.question, "statement": self.statement, "evidence": self.evidence,
                "evidence_from": self.evidence_where}  # fmt: skip


_QUANTIFIER = re.compile(r"\b(?:most|majority|half|third|quarter|minority|one in \w+)\b|大半|半数|過半数|割", re.IGNORECASE)


def statistical(text: str | None) -> bool:
    """A figure (%, 割, ポイント, 倍) or a quantifier: the kind of sentence whose scope must be stated."""
    if not text:
        return False
    return any(f.measure != "unspecified" for f in figures(text)) or bool(_QUANTIFIER.search(fold(text)))


def _layer(where: str | None) -> str:
    return (where or "").split(" (")[0]


def _firm(where: str | None, near: tuple[str, ...], statement: str | None) -> str | None:
    """The severity of a contradiction found in layer ``where``: HIGH in the near layers; farther away
    (a heading, the survey's sample, the title) it is only MED, and only for a statistical sentence."""
    if _layer(where) in near:
        return MISMATCH
    return NOT_STATED if statistical(statement) else None


_NEAR_POPULATION = ("quote sentence", "neighbours", "caption")
_NEAR_PERIOD = ("quote sentence", "caption", "title")


def _unique(ms: list[Mention]) -> list[Mention]:
    seen: set[str] = set()
    out = []
    for m in ms:
        if m.value not in seen:
            seen.add(m.value)
            out.append(m)
    return out


def _ancestors(cls: str) -> set[str]:
    out: set[str] = set()
    todo = list(lx.PARENT.get(cls, ()))
    while todo:
        c = todo.pop()
        if c not in out:
            out.add(c)
            todo += lx.PARENT.get(c, ())
    return out


def relation(evidence: str, claim: str) -> str:
    """``same``, ``evidence_narrower`` (the claim widens it), ``evidence_wider`` or ``different``."""
    if evidence == claim:
        return "same"
    if claim in _ancestors(evidence):
        return "evidence_narrower"
    if evidence in _ancestors(claim):
        return "evidence_wider"
    return "different"


def _label(m: Mention, ja: bool) -> str:
    en, jp = lx.POPULATION_LABEL.get(m.value, (m.value, m.value))
    return f"{m.text} ({jp if ja else en})" if m.text.lower() not in (en, jp) else m.text


def evidence_population(passage: Passage) -> tuple[Mention | None, str | None]:
    """Who the evidence counts: the first layer that says so; "respondents" resolved by the sample."""
    soft: tuple[Mention, str] | None = None
    sample_pop: Mention | None = None
    for layer in passage.layers:
        if layer.where == "sample":
            sample_pop = primary_population(layer.text)
    if sample_pop is not None and sample_pop.value in lx.SOFT:
        sample_pop = None
    for layer in passage.layers:
        if layer.where == "title":
            continue
        found = populations(layer.text)
        if not found:
            continue
        pop = primary_population(layer.text, found)
        if pop is None:
            continue
        if pop.value in lx.SOFT:
            hard = [m for m in found if m.value not in lx.SOFT]
            if pop.value == "respondent" and sample_pop is not None and sample_pop.value not in lx.SOFT:
                return sample_pop, f"{layer.where} ({pop.text}) + sample"
            if hard and layer.where != "sample":
                return hard[-1] if is_japanese(layer.text) else hard[0], layer.where
            soft = soft or (pop, layer.where)
            continue
        if sample_pop is not None and pop.value in _ancestors(sample_pop.value):
            return sample_pop, f"{layer.where} ({pop.text}) + sample"  # 企業 in a survey of 中小企業
        return pop, layer.where
    if soft is not None:
        return soft
    return None, None


def _population_issues(q: QuestionScope | None, statement: str | None, passage: Passage) -> list[ScopeIssue]:
    ja = is_japanese(passage.text_of("quote sentence") or statement or "")
    ev, where = evidence_population(passage)
    s_pop = primary_population(statement) if statement else None
    if s_pop is not None and s_pop.value in lx.SOFT:
        s_pop = None
    asked = q.asked_populations() if q is not None else []
    q_text = ", ".join(m.text for m in asked) or (q.population if q and q.population else None)
    e_text = _label(ev, ja) if ev else None
    s_text = s_pop.text if s_pop else None
    own = primary_population(passage.text_of("quote sentence"))
    if s_pop is not None and own is not None and own.value == s_pop.value:
        s_pop = None  # the statement uses the quote sentence's own word for who is counted
    if s_pop is not None:
        if ev is None:
            if not statistical(statement):
                return []
            return [ScopeIssue("population", NOT_STATED, q_text, s_text, None, None,
                               f"the source does not say who is counted; the statement says {s_pop.text!r}")]  # fmt: skip
        rel = "soft" if ev.value in lx.SOFT else relation(ev.value, s_pop.value)
        severity = _firm(where, _NEAR_POPULATION, statement)
        if rel == "evidence_narrower" and severity:
            return [ScopeIssue("population", severity, q_text, s_text, e_text, where,
                               f"the evidence counts only {_label(ev, ja)}, but the statement widens it to {s_pop.text!r}")]  # fmt: skip
        if rel == "different" and severity:
            return [ScopeIssue("population", severity, q_text, s_text, e_text, where,
                               f"the evidence counts {_label(ev, ja)}, not {_label(s_pop, ja)}")]  # fmt: skip
        if rel in ("evidence_wider", "soft") and statistical(statement):
            return [ScopeIssue("population", NOT_STATED, q_text, s_text, e_text, where,
                               f"the evidence counts {_label(ev, ja)}; it does not say these are {_label(s_pop, ja)}")]  # fmt: skip
    if asked:
        if ev is None:
            return []  # the caller decides whether a silent source matters (figures only)
        if ev.value in lx.SOFT:
            return [ScopeIssue("population", NOT_STATED, q_text, s_text, e_text, where,
                               f"the evidence counts {_label(ev, ja)}; it does not say they are "
                               f"{' or '.join(_label(a, ja) for a in asked)}, whom the question asks about")]  # fmt: skip
        rels = [relation(ev.value, a.value) for a in asked]
        if "same" in rels or "evidence_narrower" in rels:
            return []
        if "evidence_wider" in rels:
            return [ScopeIssue("population", NOT_STATED, q_text, s_text, e_text, where,
                               f"the question asks about {' / '.join(_label(a, ja) for a in asked)}; the evidence "
                               f"counts {_label(ev, ja)} and does not single them out")]  # fmt: skip
        return [ScopeIssue("population", MISMATCH, q_text, s_text, e_text, where,
                           f"the question asks about {' / '.join(_label(a, ja) for a in asked)}, but the evidence "
                           f"counts {_label(ev, ja)}: it does not answer the question")]  # fmt: skip
    return []


def _evidence_places(passage: Passage) -> tuple[set[str], list[Mention], str | None]:
    all_ids: set[str] = set()
    nearest: list[Mention] = []
    where = None
    for layer in passage.layers:
        found = places(layer.text)
        all_ids.update(m.value for m in found)
        if found and not nearest:
            nearest, where = found, layer.where
    return all_ids, nearest, where


def _place_issues(q: QuestionScope | None, statement: str | None, passage: Passage) -> list[ScopeIssue]:
    ids, nearest, where = _evidence_places(passage)
    e_text = "、".join(m.text for m in nearest) if nearest else None
    s_places = places(statement) if statement else []
    asked = q.asked_places() if q is not None else []
    q_text = ", ".join(m.text for m in asked) or None
    out: list[ScopeIssue] = []
    for who, wanted in (("statement", s_places), ("question", asked)):
        for m in _unique(wanted):
            if m.value in ids:
                continue
            s_text = ", ".join(x.text for x in s_places) or None
            if not ids:
                if who == "statement" and statistical(statement):
                    out.append(ScopeIssue("place", NOT_STATED, q_text, s_text, None, None,
                                          f"the source does not say where; the statement says {m.text!r}"))  # fmt: skip
                continue
            widened = any(place_contains(m.value, e) for e in ids)
            what = (f"the evidence is about {e_text} only, but the {who} widens it to {m.text!r}" if widened
                    else f"the evidence is about {e_text}, not {m.text!r}")  # fmt: skip
            out.append(ScopeIssue("place", MISMATCH, q_text, s_text, e_text, where, what))
            return out
    return out


def _evidence_period(passage: Passage) -> tuple[set[int], Period | None, str | None, bool]:
    years: set[int] = set()
    nearest: Period | None = None
    where = None
    fiscal_any = False
    for layer in passage.layers:
        p = period(layer.text)
        if p is None:
            continue
        years |= p.years
        fiscal_any = fiscal_any or p.fiscal
        if nearest is None:
            nearest, where = p, layer.where
    return years, nearest, where, fiscal_any


def _period_issues(q: QuestionScope | None, statement: str | None, passage: Passage) -> list[ScopeIssue]:
    years, nearest, where, fiscal_any = _evidence_period(passage)
    s_per = period(statement) if statement else None
    q_per = q.asked_period() if q is not None else None
    e_text = nearest.text if nearest else None
    q_text = q_per.text if q_per else None
    s_text = s_per.text if s_per else None
    for who, per in (("statement", s_per), ("question", q_per)):
        if per is None:
            continue
        if not years:
            if who == "statement" and statistical(statement):
                return [ScopeIssue("period", NOT_STATED, q_text, s_text, None, None,
                                   f"the source does not say when; the statement says {per.text!r}")]  # fmt: skip
            continue
        prose = "|" not in passage.text_of("quote sentence") and "\t" not in passage.text_of("quote sentence")
        own = set(nearest.years) if where == "quote sentence" and nearest is not None and prose else years
        # a year the evidence does not have: a mismatch when the statement shares none of the evidence's
        # years, or names no more years than the quote's own sentence (one of them was changed); a
        # statement that names more years may take the others from elsewhere
        replaced = where == "quote sentence" and nearest is not None and prose and per.mentions <= nearest.mentions
        severity = _firm(where, _NEAR_PERIOD, statement) if who == "statement" else MISMATCH
        if own and (not per.years & own or (replaced and not per.years <= own)) and severity:
            return [ScopeIssue("period", severity, q_text, s_text, e_text, where,
                               f"the evidence is about {e_text} (its {_layer(where)}), but the {who} says {per.text!r}")]  # fmt: skip
        if per.fiscal and not fiscal_any and statistical(statement):
            return [ScopeIssue("period", NOT_STATED, q_text, s_text, e_text, where,
                               f"the {who} says fiscal year ({per.text!r}); the evidence gives calendar years ({e_text})")]  # fmt: skip
    return []


_MEASURE_WORDS = {
    "share": ("a share", "割合"), "growth": ("a growth rate", "伸び率"), "points": ("a change in percentage points", "ポイント差"),
    "multiple": ("a multiple", "倍率"), "average": ("an average", "平均"), "count": ("a count", "件数"),
}  # fmt: skip


def _measure_issues(q: QuestionScope | None, statement: str | None, passage: Passage) -> list[ScopeIssue]:
    near = passage.text_of("quote sentence", "neighbours")
    ev_figs = figures(near)
    ja = is_japanese(near)
    s_figs = figures(statement) if statement else []
    q_text = q.measure if q is not None and q.measure else None
    for f in s_figs:
        same_value = [e for e in ev_figs if abs(e.value - f.value) < 1e-9]
        if f.measure == "unspecified" or not same_value or any(e.measure in (f.measure, "unspecified") for e in same_value):
            continue
        e = same_value[0]
        mw = _MEASURE_WORDS.get(e.measure, (e.measure, e.measure))[1 if ja else 0]
        sw = _MEASURE_WORDS.get(f.measure, (f.measure, f.measure))[1 if ja else 0]
        return [ScopeIssue("measure", MISMATCH, q_text, f"{f.text} ({f.measure})", f"{e.text} ({e.measure})", "quote sentence",
                           f"the evidence's {e.text!r} is {mw}, but the statement uses it as {sw}")]  # fmt: skip
    if q is not None and q.measure:
        wanted = q.measure.strip().lower()
        quote_figs = [e for e in ev_figs if not s_figs or any(abs(e.value - f.value) < 1e-9 for f in s_figs)]
        quote_figs = [e for e in quote_figs if e.measure != "unspecified"]
        if quote_figs and all(e.measure != wanted for e in quote_figs):
            e = quote_figs[0]
            return [ScopeIssue("measure", MISMATCH, q.measure, None, f"{e.text} ({e.measure})", "quote sentence",
                               f"the question asks for {wanted}, but the evidence's {e.text!r} is {e.measure}")]  # fmt: skip
    return []


def _design_issues(q: QuestionScope | None, statement: str | None, passage: Passage) -> list[ScopeIssue]:
    near = passage.text_of("quote sentence", "neighbours")
    ev = read_slots(near)
    s = read_slots(statement) if statement else None
    wants_cause = (s is not None and s.design == "causal") or (
        q is not None and (q.design or "").lower() == "causal"
    )
    if not wants_cause:
        return []
    who = "statement" if s is not None and s.design == "causal" else "question"
    s_text = s.design_text if s is not None and s.design == "causal" else None
    q_text = q.design if q is not None and q.design else None
    if ev.design == "correlational":
        return [ScopeIssue("causal_from_correlational", MISMATCH, q_text, s_text, ev.design_text, "quote sentence",
                           f"the evidence reports an association ({ev.design_text!r}); the {who} states a cause")]  # fmt: skip
    return []


def scope_issues(question: QuestionScope | None, statement: str | None, passage: Passage) -> list[ScopeIssue]:
    """Every slot where the evidence does not match the statement or the question (one issue per slot)."""
    out: list[ScopeIssue] = []
    for rule in (_population_issues, _place_issues, _period_issues, _measure_issues, _design_issues):
        out += rule(question, statement, passage)
    return out
