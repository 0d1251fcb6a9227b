"""The reference benchmark: 100 real-looking records served by the local fake services and 200 bibliography
entries (the 100 works cited as writers cite them, and 100 fabricated variants in five families).

    .venv/bin/python scripts/refs_bench.py [--seed N] [--out docs/accuracy.md]

Prints the false-verify rate (a fabricated entry verified or given only LOW: a run with it could
PASS), the fabricated entries flagged only MED (the run is PARTIAL, never PASS) and the
false-fabricated rate (a real entry given HIGH) and writes them into docs/accuracy.md between
``<!-- refs-bench -->`` markers (``make eval`` runs it after the other benchmarks). Runs offline:
the four services are the fake of tests/refs_fake.py on 127.0.0.1, whose records are generated
here from word lists (no recorded data from the live services).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from claimledger.refs import RefSettings, verify_references  # noqa: E402
from claimledger.refs.model import Reference  # noqa: E402
from claimledger.refs.verdicts import CORRECTED, PARTLY, VERIFIED  # noqa: E402
from tests.refs_fake import Work, fake_services  # noqa: E402

START, END = "<!-- refs-bench:start -->", "<!-- refs-bench:end -->"
HIGH = {"reference_not_found", "reference_mismatch", "doi_resolves_elsewhere", "reference_retracted"}
MED = {"reference_partly_confirmed", "reference_service_error"}


def scores(cases: list[Case], reasons: list[str]) -> dict[str, list[str]]:
    """The keys behind each figure."""
    pairs = list(zip(cases, reasons, strict=True))
    return {
        "false_verify": [c.ref.key for c, r in pairs if not c.real and r not in HIGH | MED],
        "fabricated_med": [c.ref.key for c, r in pairs if not c.real and r in MED],
        "false_fabricated": [c.ref.key for c, r in pairs if c.real and r in HIGH],
        "real_unverified": [c.ref.key for c, r in pairs if c.real and r not in (VERIFIED, CORRECTED)],
    }

METHODS = ["Contrastive Pretraining", "Bayesian Optimization", "Sparse Attention", "Graph Neural Networks",
           "Gradient Boosting", "Variational Inference", "Reinforcement Learning", "Causal Forests",
           "Kernel Density Estimation", "Federated Averaging", "Diffusion Models", "Mixed-Effects Models",
           "Survival Analysis", "Topic Modelling", "Agent-Based Simulation", "Isotope Tracing"]  # fmt: skip
TASKS = ["Protein Folding", "Flood Forecasting", "Credit Scoring", "Speech Recognition", "Crop Yield Prediction",
         "Traffic Flow Estimation", "Drug Repurposing", "Machine Translation", "Seismic Inversion",
         "Wildfire Detection", "Hospital Readmission", "Coral Reef Monitoring", "Labour Market Matching",
         "Dialect Identification", "Glacier Mass Balance", "Antibiotic Resistance"]  # fmt: skip
SETTINGS = ["Low-Resource Settings", "Noisy Labels", "Small Samples", "Developing Economies", "Urban Areas",
            "Longitudinal Cohorts", "Edge Devices", "Multilingual Corpora", "Tropical Regions", "Clinical Trials"]  # fmt: skip
SURNAMES = ["Okafor", "Lindqvist", "Müller", "Núñez", "Dubois", "Kowalczyk", "Haddad", "Nakamura", "Ferreira",
            "O'Brien", "van der Berg", "García Márquez", "Ødegaard", "Petrov", "Achebe", "Rossi", "Kaur",
            "Nguyen", "Schmidt", "Yilmaz", "Moreau", "Abara", "Thorsen", "Castillo", "Ibrahim", "Laine"]  # fmt: skip
GIVEN = ["Ann", "Bo", "Chen", "Dara", "Emeka", "Fatima", "Gustav", "Hana", "Ines", "Jonas", "Kofi", "Lena",
         "Mateo", "Nora", "Omar", "Pia", "Quentin", "Rosa", "Sven", "Tariq"]  # fmt: skip
JA_FAMILY = ["山田", "佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "中村", "小林", "加藤"]
JA_GIVEN = ["太郎", "花子", "一郎", "美咲", "健", "陽子", "大輔", "真理"]
JA_TOPICS = ["日本語文書における引用検証", "地方自治体の財政指標の推計", "高齢者の服薬管理の実態調査",
             "河川氾濫予測のための機械学習", "大学入試における英語民間試験の影響", "方言音声の自動認識",
             "中小企業の事業承継に関する実証分析", "医療機関の待ち時間の短縮", "森林火災の早期検知",
             "漢字表記揺れの正規化手法"]  # fmt: skip
VENUES = [("Journal of Applied Statistics", "J. Appl. Stat."), ("Nature Climate Change", "Nat. Clim. Change"),
          ("Computational Linguistics", "Comput. Linguist."), ("Journal of Hydrology", "J. Hydrol."),
          ("Bioinformatics", "Bioinformatics"), ("The Lancet Digital Health", "Lancet Digit. Health"),
          ("Journal of Development Economics", "J. Dev. Econ."), ("Remote Sensing of Environment", "Remote Sens. Environ."),
          ("IEEE Transactions on Pattern Analysis and Machine Intelligence", "IEEE TPAMI"),
          ("Proceedings of the Annual Meeting of the Association for Computational Linguistics", "ACL")]  # fmt: skip
JA_VENUES = ["自然言語処理", "情報処理学会論文誌", "日本統計学会誌", "土木学会論文集", "医療情報学"]
INVENTED_VENUES = ["Journal of Speculative Biometrics", "Transactions on Quantum Ethnography",
                   "International Review of Applied Serendipity", "Annals of Retroactive Computing",
                   "Proceedings of the Symposium on Imaginary Datasets", "架空情報学会誌"]  # fmt: skip
REWORD = {"Pretraining": "Finetuning", "Optimization": "Search", "Attention": "Convolution", "Networks": "Machines",
          "Boosting": "Bagging", "Inference": "Sampling", "Learning": "Planning", "Forests": "Trees",
          "Estimation": "Smoothing", "Averaging": "Pruning", "Models": "Processes", "Analysis": "Regression",
          "Modelling": "Clustering", "Simulation": "Emulation", "Tracing": "Dating", "Prediction": "Mapping",
          "Forecasting": "Nowcasting", "Scoring": "Auditing", "Recognition": "Synthesis", "Detection": "Tracking",
          "Monitoring": "Restoration", "Matching": "Segmentation", "Identification": "Generation",
          "Balance": "Loss", "Resistance": "Stewardship", "Repurposing": "Discovery", "Folding": "Design",
          "Translation": "Summarization", "Inversion": "Imaging", "Readmission": "Triage", "Flow": "Safety",
          "検証": "生成", "推計": "可視化", "実態調査": "介入研究", "予測": "監視", "影響": "歴史", "認識": "合成",
          "実証分析": "理論", "短縮": "評価", "早期検知": "消火戦略", "正規化": "分類"}  # fmt: skip


@dataclass(frozen=True)
class Case:
    ref: Reference
    family: str  # "real" or the fabrication family
    real: bool


def _authors(rng: random.Random, ja: bool) -> list[tuple[str, str]]:
    n = rng.randint(1, 5)
    if ja:
        fams = rng.sample(JA_FAMILY, n)
        return [(rng.choice(JA_GIVEN), f) for f in fams]
    fams = rng.sample(SURNAMES, n)
    return [(rng.choice(GIVEN), f) for f in fams]


def build_works(seed: int) -> list[Work]:
    rng = random.Random(seed)
    works: list[Work] = []
    titles: set[str] = set()
    i = 0
    while len(works) < 100:
        i += 1
        kind_roll = len(works)
        ja = kind_roll >= 90
        if ja:
            title = JA_TOPICS[kind_roll - 90]
            venue, short = rng.choice(JA_VENUES), ""
        else:
            m, t, s = rng.choice(METHODS), rng.choice(TASKS), rng.choice(SETTINGS)
            title = rng.choice([f"{m} for {t} in {s}", f"{m} for {t}", f"{t} with {m}: Evidence from {s}",
                                f"Revisiting {m} for {t}"])  # fmt: skip
            venue, short = rng.choice(VENUES)
        if title in titles:
            continue
        titles.add(title)
        year = rng.randint(1998, 2024)
        authors = _authors(rng, ja)
        n = len(works)
        if n < 50 or ja:  # journal articles in Crossref and OpenAlex
            w = Work(title, authors, year, venue=venue, short_venue=short, doi=f"10.5555/bench.{n:03d}")
        elif n < 65:  # conference papers with an arXiv version
            w = Work(title, authors, year, venue=venue, short_venue=short, doi=f"10.5555/bench.{n:03d}",
                     arxiv=f"{year % 100:02d}{rng.randint(1, 12):02d}.{rng.randint(10000, 99999)}",
                     kind="proceedings-article", services=("crossref", "openalex", "arxiv", "datacite"))  # fmt: skip
        elif n < 80:  # arXiv preprints: arXiv and DataCite only
            arx = f"{year % 100:02d}{rng.randint(1, 12):02d}.{rng.randint(10000, 99999)}"
            w = Work(title, authors, year, doi=f"10.48550/arxiv.{arx}", arxiv=arx, kind="posted-content",
                     services=("arxiv", "datacite"))  # fmt: skip
        else:  # works only OpenAlex holds
            w = Work(title, authors, year, venue=venue, doi=f"10.5555/oa.{n:03d}", services=("openalex",))
        if n in (7, 33):
            w = replace(w, erratum_notice=f"10.5555/erratum.{n:03d}")
        works.append(w)
    # two near-identical titles by different people (the second is real too)
    base = works[3]
    works.append(Work(base.title + " Revisited", _authors(rng, False), base.year + 3, venue=base.venue,
                      doi="10.5555/bench.twin"))  # fmt: skip
    return works


def _strip_accents(text: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def cite(w: Work, rng: random.Random, key: str) -> Reference:
    """The work as a writer cites it: varied author forms, truncated lists, identifiers or not."""
    ja = any("\u3040" <= ch <= "\u9fff" for ch in w.title)
    listed = w.authors[: rng.randint(1, len(w.authors))]
    names = []
    for g, f in listed:
        if ja:
            names.append(f"{f} {g}")
        else:
            f2 = _strip_accents(f) if rng.random() < 0.3 else f
            names.append(rng.choice([f"{f2}, {g}", f"{g} {f2}", f"{f2}, {g[0]}."]))
    title = rng.choice([w.title, w.title.lower(), w.title + ".", "{" + w.title + "}"]) if not ja else w.title
    year = w.year
    if w.kind == "posted-content" and rng.random() < 0.4:
        year = w.year + rng.randint(1, 2)  # cited by its later published year
    elif rng.random() < 0.15:
        year = w.year + rng.choice([-1, 1])  # online vs print year
    venue = ""
    if w.venue and rng.random() < 0.7:
        venue = rng.choice([w.venue, w.short_venue or w.venue])
    elif w.kind == "posted-content" and rng.random() < 0.5:
        venue = "arXiv preprint"
    form = rng.random()
    doi = w.doi if form < 0.5 else ""
    arxiv = w.arxiv if (form >= 0.5 and form < 0.7 and w.arxiv) else ""
    return Reference(key, title, tuple(names), year, venue, doi=doi, arxiv=arxiv,
                     more_authors=len(listed) < len(w.authors))  # fmt: skip


def fabricate(ref: Reference, w: Work, works: list[Work], family: str, rng: random.Random) -> Reference:
    if family == "title_reworded":
        words = ref.title.replace(".", "").strip("{}").split()
        out, changed = [], 0
        for word in words:
            new = REWORD.get(word) or REWORD.get(word.capitalize())
            if new and changed < 2:
                out.append(new if word[0].isupper() else new.lower())
                changed += 1
            else:
                out.append(word)
        title = " ".join(out)
        if changed < 2:  # Japanese titles: substitute inside the string
            title = ref.title
            for a, b in REWORD.items():
                if a in title and changed < 2:
                    title, changed = title.replace(a, b), changed + 1
        if changed < 2:
            title = "Towards " + title + " at Scale"
        return replace(ref, title=title)
    if family == "authors_swapped":
        pool = JA_FAMILY if any("\u3040" <= ch <= "\u9fff" for ch in ref.title) else SURNAMES
        taken = {f for _, f in w.authors}
        fresh = [s for s in pool if s not in taken]
        first = rng.choice(fresh)
        names = (f"{first}, {rng.choice(GIVEN)}" if pool is SURNAMES else f"{first} {rng.choice(JA_GIVEN)}",)
        return replace(ref, authors=names + ref.authors[1:])
    if family == "year_moved":
        shift = rng.choice([-5, -4, -3, -2]) if w.kind == "posted-content" else rng.choice([-6, -3, -2, 2, 3, 5])
        return replace(ref, year=w.year + shift)
    if family == "doi_of_another_paper":
        other = rng.choice([x for x in works if x is not w and x.doi and not x.doi.startswith("10.5555/bench.twin")])
        return replace(ref, doi=other.doi, arxiv="")
    if family == "invented_venue":
        return replace(ref, venue=rng.choice(INVENTED_VENUES))
    raise ValueError(family)


FAMILIES = ("title_reworded", "authors_swapped", "year_moved", "doi_of_another_paper", "invented_venue")


def build_cases(works: list[Work], seed: int) -> list[Case]:
    rng = random.Random(seed + 1)
    real = [Case(cite(w, rng, f"real{i:03d}"), "real", True) for i, w in enumerate(works[:100])]
    fake: list[Case] = []
    for i, (case, w) in enumerate(zip(real, works[:100], strict=True)):
        family = FAMILIES[i % len(FAMILIES)]
        ref = replace(case.ref, key=f"fab{i:03d}")
        fake.append(Case(fabricate(ref, w, works, family, rng), family, False))
    return real + fake


DATA_FORMS = ["{t} Dataset: {s}", "A Benchmark Dataset for {t}", "{t} Corpus ({s})", "Replication Data for: {m} for {t}"]
TOOL_NAMES = ["tidyflood", "quotecheck", "reefmon", "glacierpy", "dialectid", "cropcast"]
JA_DATA_FORMS = ["{t}のためのデータセット", "{t}コーパス"]
DATA_FAMILIES = ("title_reworded", "authors_swapped", "year_moved", "invented_dataset")


def build_data_works(seed: int) -> list[Work]:
    """20 datasets and software packages that only DataCite holds (Zenodo/figshare DOIs), EN and JA."""
    rng = random.Random(seed + 7)
    works: list[Work] = []
    titles: set[str] = set()
    while len(works) < 20:
        n = len(works)
        m, t, st = rng.choice(METHODS), rng.choice(TASKS), rng.choice(SETTINGS)
        if n >= 15:
            title, ja, rtype = rng.choice(JA_DATA_FORMS).format(t=JA_TOPICS[n - 15]), True, "Dataset"
        elif n >= 11:
            title, ja, rtype = f"{TOOL_NAMES[n - 11]}: a toolkit for {t}", False, "Software"
        else:
            title, ja, rtype = rng.choice(DATA_FORMS).format(t=t, s=st, m=m), False, "Dataset"
        if title in titles:
            continue
        titles.add(title)
        repo = rng.choice(["Zenodo", "figshare"])
        doi = f"10.5281/zenodo.{7000000 + n}" if repo == "Zenodo" else f"10.6084/m9.figshare.{2100000 + n}"
        works.append(Work(title, _authors(rng, ja), rng.randint(2012, 2024), venue=repo, doi=doi,
                          services=("datacite",), resource_type=rtype))  # fmt: skip
    return works


def build_data_cases(works: list[Work], seed: int) -> list[Case]:
    """Each work cited by title alone (the DataCite title search), and one fabricated variant of each."""
    rng = random.Random(seed + 8)
    real = []
    for i, w in enumerate(works):
        ref = replace(cite(w, rng, f"data{i:03d}"), doi="", arxiv="")
        kind = "software" if "toolkit" in w.title else "dataset"
        real.append(Case(replace(ref, entry_type=rng.choice([kind, "misc", ""])), "real", True))
    fake: list[Case] = []
    for i, (case, w) in enumerate(zip(real, works, strict=True)):
        family = DATA_FAMILIES[i % len(DATA_FAMILIES)]
        ref = replace(case.ref, key=f"fabdata{i:03d}")
        if family == "invented_dataset":
            ja = any("\u3040" <= ch <= "\u9fff" for ch in w.title)
            title = (f"{rng.choice(JA_TOPICS)}の全国縦断データセット" if ja else
                     f"{rng.choice(TASKS)} Dataset: {rng.choice(SETTINGS)} ({rng.choice(METHODS)} Annotations)")  # fmt: skip
            fab = replace(ref, title=title)
        else:
            fab = fabricate(ref, w, works, family, rng)
        fake.append(Case(fab, family, False))
    return real + fake


def run_data(seed: int) -> tuple[list[Case], list[str], int]:
    works = build_data_works(seed)
    cases = build_data_cases(works, seed)
    with tempfile.TemporaryDirectory(prefix="claimledger-refs-bench-") as tmp, fake_services(works, {}) as fake:
        settings = RefSettings(allow_private_urls=True, cache_dir=Path(tmp), concurrency=4,
                               base_urls={s: fake.url(s) for s in ("crossref", "datacite", "arxiv", "openalex")})  # fmt: skip
        verdicts = verify_references([c.ref for c in cases], settings)
        requests = len(fake.hits)
    return cases, [v.reason for v in verdicts], requests


def render_data(cases: list[Case], reasons: list[str], requests: int) -> list[str]:
    s = scores(cases, reasons)
    real = [c for c in cases if c.real]
    fab = [c for c in cases if not c.real]
    by_family: dict[str, Counter[str]] = {}
    for c, r in zip(cases, reasons, strict=True):
        by_family.setdefault(c.family, Counter())[r] += 1
    lines = [
        "",
        "### Datasets and software (DataCite title search)",
        "",
        "20 more works that only DataCite holds (datasets and software packages under Zenodo and figshare",
        "DOIs; English and Japanese titles), each cited by title alone (no DOI: found only by DataCite's",
        "`/dois?query=` title search, asked for entries that look like data or software), and one fabricated",
        f"variant of each (title reworded, authors swapped, year moved, an invented dataset); {requests} requests.",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| false-verify (fabricated verified or only LOW) | {len(s['false_verify'])}/{len(fab)} |",
        f"| fabricated flagged MED only | {len(s['fabricated_med'])}/{len(fab)} |",
        f"| false-fabricated (real entry HIGH) | {len(s['false_fabricated'])}/{len(real)} |",
        f"| real entries not verified (any tier) | {len(s['real_unverified'])}/{len(real)} |",
        "",
        "| family | entries | verdicts |",
        "|---|---:|---|",
    ]
    for family in ("real", *DATA_FAMILIES):
        counts = by_family.get(family, Counter())
        lines.append(f"| {family} | {sum(counts.values())} | " + ", ".join(f"`{k}` {v}" for k, v in sorted(counts.items())) + " |")
    misses = s["false_verify"] + s["false_fabricated"] + s["real_unverified"]
    if misses:
        lines += ["", "Misses: " + ", ".join(dict.fromkeys(misses))]
    return lines


def run(seed: int) -> tuple[list[Case], list[str], float, int]:
    works = build_works(seed)
    cases = build_cases(works, seed)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="claimledger-refs-bench-") as tmp, fake_services(works, {}) as fake:
        settings = RefSettings(allow_private_urls=True, cache_dir=Path(tmp), concurrency=4,
                               base_urls={s: fake.url(s) for s in ("crossref", "datacite", "arxiv", "openalex")})  # fmt: skip
        verdicts = verify_references([c.ref for c in cases], settings)
        requests = len(fake.hits)
    return cases, [v.reason for v in verdicts], time.monotonic() - started, requests


def render(cases: list[Case], reasons: list[str], seconds: float, requests: int, seed: int,
           data: list[str] | None = None) -> str:
    real = [(c, r) for c, r in zip(cases, reasons, strict=True) if c.real]
    fab = [(c, r) for c, r in zip(cases, reasons, strict=True) if not c.real]
    s = scores(cases, reasons)
    false_fabricated, real_unverified, false_verify = s["false_fabricated"], s["real_unverified"], s["false_verify"]
    lines = [
        START,
        "## References",
        "",
        "`scripts/refs_bench.py` (run by `make eval`; offline): 100 real-looking works generated from word",
        "lists (English and Japanese titles, accented, compound and Japanese names, journals, conference",
        "papers with arXiv versions, arXiv-only preprints under DataCite DOIs, works only OpenAlex holds, two",
        "errata, two near-identical titles) served by the local fake of Crossref, DataCite, arXiv and OpenAlex",
        "(`tests/refs_fake.py`), and 200 bibliography entries: each work cited as writers cite it (DOI, arXiv",
        "id or title only; `Family, Given`, `Given Family`, initials, accents dropped, truncated author lists,",
        "title case, braces, short venue names, a preprint cited by its published year, +-1 year), and one",
        "fabricated variant of each (20 per family).",
        "",
        f"Seed {seed}; {len(cases)} entries; {requests} requests to the fake services; {seconds:.1f} s.",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| false-verify rate (fabricated entry verified or only LOW: the run could PASS) | {len(false_verify)}/{len(fab)} = "
        f"{len(false_verify) / len(fab):.1%} |",
        f"| fabricated entries flagged MED only (run PARTIAL, not refuted) | {len(s['fabricated_med'])}/{len(fab)} |",
        f"| fabricated entries flagged HIGH | {len(fab) - len(false_verify) - len(s['fabricated_med'])}/{len(fab)} |",
        f"| false-fabricated rate (real entry HIGH) | {len(false_fabricated)}/{len(real)} = "
        f"{len(false_fabricated) / len(real):.1%} |",
        f"| real entries not verified (any tier) | {len(real_unverified)}/{len(real)} |",
        "",
        "| family | entries | verdicts |",
        "|---|---:|---|",
    ]
    by_family: dict[str, Counter[str]] = {}
    for c, r in zip(cases, reasons, strict=True):
        by_family.setdefault(c.family, Counter())[r] += 1
    for family in ("real", *FAMILIES):
        counts = by_family.get(family, Counter())
        shown = ", ".join(f"`{k}` {v}" for k, v in sorted(counts.items()))
        lines.append(f"| {family} | {sum(counts.values())} | {shown} |")
    if false_verify or false_fabricated or real_unverified:
        lines += ["", "Misses: " + ", ".join(dict.fromkeys(false_verify + false_fabricated + real_unverified))]
    if s["fabricated_med"]:
        lines += ["", "MED only: " + ", ".join(s["fabricated_med"]) + " - an invented venue on a real arXiv preprint "
                  "that no published version names: the preprint confirms title, authors and year, nothing "
                  "confirms or refutes the venue (`reference_partly_confirmed`)."]
    lines += data or []
    lines += [
        "",
        "What this does not measure: the live services' own record quality (missing authors, wrong years,",
        f"`{PARTLY}` and MED verdicts in real use) and title searches whose work is outside the top five",
        "candidates; those are covered by tests, not by this figure.",
        END,
    ]
    return "\n".join(lines) + "\n"


def write_section(out: Path, section: str) -> None:
    text = out.read_text("utf-8") if out.exists() else "# Accuracy\n"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + section + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    out.write_text(text, "utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "accuracy.md")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    cases, reasons, seconds, requests = run(args.seed)
    data_cases, data_reasons, data_requests = run_data(args.seed)
    section = render(cases, reasons, seconds, requests, args.seed, render_data(data_cases, data_reasons, data_requests))
    print(section)
    if not args.no_write:
        write_section(args.out, section)
    s, d = scores(cases, reasons), scores(data_cases, data_reasons)
    return 1 if s["false_verify"] or s["false_fabricated"] or d["false_verify"] or d["false_fabricated"] else 0


if __name__ == "__main__":
    sys.exit(main())
