"""Red-team benchmark (issue 18): short drafts with the problems a red team finds, run through the real pipeline.

Each source in ``redteam_sources.yaml`` (small survey-like texts written for
claimledger, English and Japanese, as Markdown, HTML and plain text) gives one
clean draft and one draft per planted problem. A draft is a Markdown file with
a summary section and a body whose sentences cite the source (``[@key]``),
plus the writer's ledger (one quote claim per sentence, with its
``statement`` and ``location``). The generator plants on every source:

* ``fabricated_quote``: the ledger quotes the writer's paraphrase, not the source;
* ``changed_number``: the sentence states another number than its quote;
* ``unlisted_figure``: a sentence with a figure no ledger claim backs;
* ``fabricated_reference``: a citation to a work that is not among the sources
  (odd sources) or a reference-list entry that nothing cites (even sources);

and the YAML plants the rest (wrong_population, wrong_period, widened_scope,
dropped_hedge, correlation_as_cause, unsupported_summary, wrong_measure).

Each draft goes through :func:`claimledger.gate` exactly as ``claimledger check
--ledger L --draft D --summary-section S`` runs it (with the judge when one is
configured). A planted problem counts as caught when a HIGH or MED finding
points at it: same claim id or same draft line. A clean draft is a false
alarm when it gets any HIGH or MED finding.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SPEC = Path(__file__).resolve().parent / "redteam_sources.yaml"
GENERIC = ("fabricated_quote", "changed_number", "unlisted_figure", "fabricated_reference")
KINDS = (
    "fabricated_quote", "changed_number", "dropped_hedge", "dropped_hedge_outside_quote", "widened_scope", "wrong_population",
    "wrong_period", "wrong_measure", "correlation_as_cause", "unsupported_summary", "unlisted_figure",
    "fabricated_reference",
)  # fmt: skip
# years are not audited as figures (as docs/checks.md advises: `--allow` them), so a wrong year is
# caught by the scope check, not by the unlisted audit
YEARS_ALLOWED = (r"(?:19|20)\d\d年?度?", r"(?:FY|令和|平成)\s*\d{1,4}年?度?", r"FY\d{4}", r"\d{1,2}年度")
SEED_004_RECALL = 0.40  # seed 004: checking caught about 40 % of what a red team found

_SUMMARY = {"ja": "要約", "en": "Summary"}
_BODY = {"ja": "本文", "en": "Findings"}
_REFS = {"ja": "出典", "en": "Sources"}
_UNLISTED = {
    "ja": "関連する市場の規模は、前年比で23.7％拡大した [@{key}]。",
    "en": "The related market grew by 23.7% over the same year [@{key}].",
}
_FAKE_CITE = {
    "ja": "先行研究でも同じ傾向が報告されている [@tanaka2021]。",
    "en": "Earlier work reported the same pattern [@miller2021].",
}
_FAKE_ENTRY = {
    "ja": "- tanaka2021: 田中健一（2021）「生成AIと働き方の変化」『情報社会研究』12巻3号、45–67頁。",
    "en": "- miller2021: Miller, J. and Ortiz, L. (2021). Generative AI and the changing workplace. Journal of Work Studies, 18(2), 101-124.",
}
# findings that point at the planted line but do not see the problem: a reference entry's volume
# and page numbers read as unlisted figures, its title in 「」 as an unlisted quotation
NOT_A_CATCH = {"fabricated_reference": frozenset({"unlisted_number", "unlisted_quote"})}


@dataclass
class Case:
    id: str
    lang: str
    source_id: str
    kind: str | None  # None: clean draft
    draft: str
    ledger: dict[str, Any]
    files: dict[str, str]
    label_claims: set[str] = field(default_factory=set)
    label_lines: set[int] = field(default_factory=set)
    summary_section: str = ""


@dataclass
class Outcome:
    case: Case
    caught: bool
    flagged: list[dict[str, Any]]  # HIGH/MED findings: reason, tier, claim, line
    on_target: list[dict[str, Any]]


def load_spec(path: Path = SPEC) -> list[dict[str, Any]]:
    data = yaml.safe_load(path.read_text("utf-8"))
    assert isinstance(data, list)
    return data


def _bump(statement: str) -> str:
    """The statement with its first figure changed (45% -> 52%, 約2倍 -> 約3倍)."""
    m = re.search(r"\d+(?:\.\d+)?", statement)
    if m is None:
        return statement
    n = m.group(0)
    # far enough that no displayed precision covers it (4 would be a rounding of 3.5)
    new = str(int(float(n)) + 7) if "." not in n else f"{float(n) + 1.3:g}"
    if re.match(r"\s*倍|\s*times", statement[m.end() :]):
        new = str(int(float(n)) + 1)
    return statement[: m.start()] + new + statement[m.end() :]


def build_cases(spec: list[dict[str, Any]] | None = None) -> list[Case]:
    spec = spec if spec is not None else load_spec()
    cases: list[Case] = []
    for i, src in enumerate(spec):
        cases.append(_case(src, None, {}, i))
        for kind in GENERIC:
            cases.append(_case(src, kind, {}, i))
        for kind, plant in (src.get("problems") or {}).items():
            cases.append(_case(src, kind, plant, i))
    return cases


def _case(src: dict[str, Any], kind: str | None, plant: dict[str, Any], index: int) -> Case:
    lang, key = src["lang"], src["key"]
    facts = [dict(f) for f in src["facts"]]
    summary = src["summary"]
    label_fact: int | None = None
    extra_body: list[str] = []
    refs: list[str] = []
    if kind in ("wrong_population", "wrong_period", "widened_scope", "dropped_hedge", "correlation_as_cause",
                "wrong_measure", "dropped_hedge_outside_quote"):  # fmt: skip
        label_fact = int(plant["fact"])
        facts[label_fact]["statement"] = plant["statement"]
        if "quote" in plant:
            facts[label_fact]["quote"] = plant["quote"]
    elif kind == "unsupported_summary":
        summary = plant["summary"]
    elif kind == "fabricated_quote":
        label_fact = 0
        facts[0]["quote"] = facts[0]["statement"].rstrip("。！？.!?")
        if facts[0]["quote"] in src["source"]:  # the statement is verbatim: fabricate a wording
            facts[0]["quote"] = ("全国の" if lang == "ja" else "Across the country, ") + facts[0]["quote"]
    elif kind == "changed_number":
        label_fact = next(j for j, f in enumerate(facts) if re.search(r"\d", f["statement"]))
        facts[label_fact]["statement"] = _bump(facts[label_fact]["statement"])
    elif kind == "unlisted_figure":
        extra_body.append(_UNLISTED[lang].format(key=key))
    elif kind == "fabricated_reference":
        if index % 2:
            extra_body.append(_FAKE_CITE[lang])
        else:
            refs.append(_FAKE_ENTRY[lang])
    lines = [f"# {src['title']}", "", f"## {_SUMMARY[lang]}", "", f"{_cite(summary, key, lang)}", "",
             f"## {_BODY[lang]}", ""]  # fmt: skip
    summary_line = 5
    fact_lines: list[int] = []
    for f in facts:
        lines.append(_cite(f["statement"], key, lang))
        fact_lines.append(len(lines))
        lines.append("")
    extra_lines: list[int] = []
    for sentence in extra_body:
        lines.append(sentence)
        extra_lines.append(len(lines))
        lines.append("")
    lines += [f"## {_REFS[lang]}", "", f"- {key}: {src['title']} ({src['file']})"]
    for entry in refs:
        lines.append(entry)
        extra_lines.append(len(lines))
    draft = "\n".join(lines) + "\n"
    claims = []
    for j, f in enumerate(facts):
        claims.append({"id": f"F{j + 1}", "kind": "quote", "source": key, "quote": f["quote"],
                       "statement": f["statement"], "location": {"file": "draft.md", "line": fact_lines[j]}})  # fmt: skip
    ledger: dict[str, Any] = {"version": 1}
    if src.get("question"):
        ledger["question"] = src["question"]
    ledger["sources"] = {key: src["file"]}
    ledger["claims"] = claims
    case = Case(
        id=f"{src['id']}/{kind or 'clean'}", lang=lang, source_id=src["id"], kind=kind, draft=draft,
        ledger=ledger, files={src["file"]: src["source"]}, summary_section=_SUMMARY[lang],
    )  # fmt: skip
    if label_fact is not None:
        case.label_claims.add(f"F{label_fact + 1}")
        case.label_lines.add(fact_lines[label_fact])
    if kind == "unsupported_summary":
        case.label_lines.add(summary_line)
    case.label_lines.update(extra_lines)
    return case


def _cite(sentence: str, key: str, lang: str) -> str:
    s = sentence.strip()
    end = s[-1] if s and s[-1] in "。！？.!?" else ("。" if lang == "ja" else ".")
    body = s[:-1] if s and s[-1] in "。！？.!?" else s
    return f"{body} [@{key}]{end}"


def write_case(case: Case, folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in case.files.items():
        (folder / name).write_text(text, encoding="utf-8")
    draft = folder / "draft.md"
    draft.write_text(case.draft, encoding="utf-8")
    ledger = folder / "ledger.yaml"
    ledger.write_text(yaml.safe_dump(case.ledger, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return ledger, draft


def run_case(case: Case, folder: Path, judge: Any = None, cache: Path | None = None) -> Outcome:
    from claimledger import gate

    ledger, draft = write_case(case, folder)
    report = gate(ledger, draft=draft, summary_section=case.summary_section, judge=judge, judge_cache=cache,
                  allow=YEARS_ALLOWED)  # fmt: skip
    flagged = []
    for f in report.findings:
        if f.tier is None or f.tier.value not in ("HIGH", "MED"):
            continue
        if f.reason.value == "attribution_meaning_unchecked":
            continue  # every cited sentence says this without a judge: neither a catch nor a false alarm
        line = (f.location or {}).get("line")
        flagged.append({"reason": f.reason.value, "tier": f.tier.value, "claim": f.claim_id, "line": line,
                        "check": f.check})  # fmt: skip
    ignored = NOT_A_CATCH.get(case.kind or "", frozenset())
    on_target = [
        x for x in flagged
        if (x["claim"] in case.label_claims or (x["line"] is not None and x["line"] in case.label_lines))
        and x["reason"] not in ignored
    ]  # fmt: skip
    return Outcome(case, bool(on_target), flagged, on_target)


def run_all(
    judge: Any = None, progress: Callable[[str], None] | None = None, cases: list[Case] | None = None
) -> list[Outcome]:
    out: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="claimledger-redteam-") as tmp:
        for i, case in enumerate(build_cases() if cases is None else cases):
            out.append(run_case(case, Path(tmp) / f"case{i}", judge, Path(tmp) / "judge.sqlite3"))
        if progress:
            progress(f"red-team benchmark: {len(out)} drafts")
    return out


# ------------------------------------------------------------------ scoring and report


def _rows(outcomes: list[Outcome]) -> Iterator[tuple[str, str, int, int]]:
    for kind in KINDS:
        for lang in ("en", "ja"):
            sel = [o for o in outcomes if o.case.kind == kind and o.case.lang == lang]
            if sel:
                yield kind, lang, len(sel), sum(o.caught for o in sel)


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    problems = [o for o in outcomes if o.case.kind is not None]
    clean = [o for o in outcomes if o.case.kind is None]
    per_kind = {}
    for kind in KINDS:
        sel = [o for o in problems if o.case.kind == kind]
        if sel:
            per_kind[kind] = {"n": len(sel), "caught": sum(o.caught for o in sel),
                              "missed": [o.case.id for o in sel if not o.caught]}  # fmt: skip
    return {
        "drafts": len(outcomes),
        "problems": len(problems),
        "caught": sum(o.caught for o in problems),
        "recall": sum(o.caught for o in problems) / len(problems) if problems else 0.0,
        "clean": len(clean),
        "false_alarms": sum(bool(o.flagged) for o in clean),
        "false_alarm_drafts": [
            f"{o.case.id} ({', '.join(sorted({x['reason'] for x in o.flagged}))})" for o in clean if o.flagged
        ],
        "per_kind": per_kind,
    }


def markdown(outcomes: list[Outcome], judged: list[Outcome] | None, judge_note: str) -> list[str]:
    s = summary(outcomes)
    j = summary(judged) if judged else None
    head = "| problem kind | n | caught (no judge) | recall (no judge) | recall (with judge) |"
    out = [
        head, "|---|---:|---:|---:|---:|",
    ]  # fmt: skip
    for kind, data in s["per_kind"].items():
        jr = f"{j['per_kind'][kind]['caught'] / j['per_kind'][kind]['n']:.0%}" if j and kind in j["per_kind"] else "not run"
        out.append(f"| {kind} | {data['n']} | {data['caught']} | {data['caught'] / data['n']:.0%} | {jr} |")
    jo = f"{j['recall']:.0%}" if j else "not run"
    out.append(f"| **all problems** | {s['problems']} | {s['caught']} | **{s['recall']:.0%}** | {jo} |")
    out.append("| seed 004 (checking + CoVe review vs a red team, one digest) | - | - | about 40 % | - |")
    fa = f"{s['false_alarms']} of {s['clean']} ({s['false_alarms'] / s['clean']:.0%})" if s["clean"] else "-"
    jfa = f"{j['false_alarms']} of {j['clean']}" if j else "not run"
    out += ["", f"False alarms on clean drafts (any HIGH or MED finding): {fa} without a judge; with a judge: {jfa}."]
    if s["false_alarm_drafts"]:
        out.append("Clean drafts flagged: " + ", ".join(f"`{x}`" for x in s["false_alarm_drafts"]) + ".")
        if any(x.startswith("ja-health/") for x in s["false_alarm_drafts"]):
            out.append(
                "(`ja-health/clean`: the unlisted audit reads the era year 令和5年度 as the figure 5, which no"
                " `--allow` pattern for years can match because the audited item is the bare 5; not a scope finding.)"
            )
    missed = [x for d in s["per_kind"].values() for x in d["missed"]]
    if missed:
        out += ["", "Missed without a judge: " + ", ".join(f"`{x}`" for x in missed) + "."]
    if "fabricated_reference" in s["per_kind"]:
        out += ["", "A fabricated entry in the draft's source list that nothing cites is flagged on its line only as",
                "unlisted figures (its volume and pages) or an unlisted quotation (its title in 「」); those findings do",
                "not see the problem and are not counted as catches. A citation to an undeclared work is caught",
                "(`unlisted_citation`). The reference check of issue 17 reads `.bib` files and the ledger's",
                "`references:`, not a Markdown source list, so it does not see this entry."]  # fmt: skip
    out += ["", f"Judge: {judge_note}."]
    per_lang = ["", "| kind | lang | n | caught |", "|---|---|---:|---:|"]
    per_lang += [f"| {k} | {lang} | {n} | {c} |" for k, lang, n, c in _rows(outcomes)]
    return out + per_lang
