"""Red-team drafts generated from the real texts of ../shared/bench (held out from the rules' own sources).

The hand-written sources of :mod:`evaluation.redteam` were written with
the scope rules; these drafts are not. Documents are drawn deterministically
from SummEdits and WiCE (English; CC BY 4.0 / Apache-2.0 and, for WiCE's web pages,
CC BY-SA and Common Crawl terms) and JHARS (Japanese; Apache-2.0); nothing is copied into the repository: the drafts are built at
``make eval`` time. From each document up to three verbatim sentences become
the writer's facts (quote = the sentence, statement = the sentence), the first
one also the summary. Problems are planted only where the text allows:

* every document: ``fabricated_quote``, ``unlisted_figure``, ``fabricated_reference``
  and, when a sentence has a number, ``changed_number``;
* a sentence with a year: ``wrong_period`` (the year moved back three years);
* a sentence with a hedge (about, approximately, 約, およそ...): ``dropped_hedge``;
* a sentence with a place: ``widened_scope`` (the place becomes the world);
* a sentence with a population word: ``wrong_population`` (another population).

The last two use the scope lexicons to find the word to change, so they
measure the slot reading on real sentences, not the lexicons' coverage.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from claimledger.checks.scope.slots import places, populations
from evaluation.redteam import Case, _case

_SENT = re.compile(r"[^\n。！？!?]+?(?:[。！？!?]|\.(?=\s|$))")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_HEDGE_EN = re.compile(r"\b(?:about|approximately|around|nearly|roughly|almost)\s+(?=\$?\d)", re.IGNORECASE)
_HEDGE_JA = re.compile(r"(?:約|およそ|ほぼ)(?=\d)|(?<=\d)(?:程度|前後)")
_SWAP_EN = {"employee": "students", "firm": "households", "student": "teachers", "individual": "companies",
            "patient": "doctors", "user": "companies", "developer": "students", "household": "companies",
            "teacher": "students", "child": "older adults", "older_adult": "children", "respondent": "companies"}  # fmt: skip
_SWAP_JA = {"employee": "学生", "firm": "世帯", "student": "教員", "individual": "企業", "patient": "医師",
            "user": "企業", "developer": "学生", "household": "企業", "teacher": "生徒", "child": "高齢者",
            "older_adult": "子ども", "respondent": "企業", "pupil": "教員", "university_student": "教員",
            "sme": "世帯", "large_firm": "世帯", "municipality": "企業"}  # fmt: skip


def _documents(bench: Path, name: str, n: int, seed: str) -> list[tuple[str, str]]:
    path = bench / name / "bench.jsonl"
    if not path.exists():
        return []
    docs: dict[str, str] = {}
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            key = (row.get("meta") or {}).get("doc_sha1") or row["source"][:64]
            docs.setdefault(str(key), row["source"])
    items = sorted(docs.items())
    random.Random(seed).shuffle(items)
    return items[:n]


def _facts(text: str, ja: bool) -> list[str]:
    out = []
    for m in _SENT.finditer(text):
        s = m.group(0).strip()
        if not ((15 if ja else 30) <= len(s) <= 220) or any(c in s for c in "「」\"“”[]()（）|"):
            continue
        if not ja and not s[:1].isupper():
            continue
        out.append(s)
    with_digit = [s for s in out if re.search(r"\d", s)]
    rest = [s for s in out if s not in with_digit]
    return (with_digit[:2] + rest)[:3]


def _problems(facts: list[str], ja: bool) -> dict[str, dict[str, Any]]:
    plants: dict[str, dict[str, Any]] = {}
    for i, s in enumerate(facts):
        year = _YEAR.search(s)
        if year and "wrong_period" not in plants:
            plants["wrong_period"] = {"fact": i, "statement": s[: year.start()] + str(int(year.group(1)) - 3) + s[year.end() :]}
        hedge = (_HEDGE_JA if ja else _HEDGE_EN).search(s)
        if hedge and "dropped_hedge" not in plants:
            plants["dropped_hedge"] = {"fact": i, "statement": s[: hedge.start()] + s[hedge.end() :]}
        place = next(iter(places(s)), None)
        if place and place.value != "global" and "widened_scope" not in plants:
            world = "世界" if ja else "worldwide"
            plants["widened_scope"] = {"fact": i, "statement": s[: place.start] + world + s[place.end :]}
        pop = next((m for m in populations(s) if m.value in (_SWAP_JA if ja else _SWAP_EN)), None)
        if pop and "wrong_population" not in plants:
            other = (_SWAP_JA if ja else _SWAP_EN)[pop.value]
            plants["wrong_population"] = {"fact": i, "statement": s[: pop.start] + other + s[pop.end :]}
    return plants


def bench_specs(bench: Path, per_set: int = 15) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = []
    for name, lang in (("summedits", "en"), ("wice", "en"), ("jhars", "ja")):
        for j, (_key, text) in enumerate(_documents(bench, name, per_set * 3, f"redteam/{name}")):
            facts = _facts(text, lang == "ja")
            if len(facts) < 2:
                continue
            specs.append({
                "id": f"bench-{name}-{j}", "lang": lang, "key": f"doc{j}", "file": "source.txt",
                "title": f"{name} document", "source": text,
                "facts": [{"quote": f.rstrip("。.!?！？"), "statement": f} for f in facts],
                "summary": facts[0], "problems": _problems(facts, lang == "ja"),
            })  # fmt: skip
            if sum(s["id"].startswith(f"bench-{name}-") for s in specs) >= per_set:
                break
    return specs


def build_bench_cases(bench: Path, per_set: int = 15) -> list[Case]:
    cases: list[Case] = []
    for i, src in enumerate(bench_specs(bench, per_set)):
        cases.append(_case(src, None, {}, i))
        for kind in ("fabricated_quote", "unlisted_figure", "fabricated_reference"):
            cases.append(_case(src, kind, {}, i))
        if any(re.search(r"\d", f["statement"]) for f in src["facts"]):
            cases.append(_case(src, "changed_number", {}, i))
        for kind, plant in src["problems"].items():
            cases.append(_case(src, kind, plant, i))
    return cases

