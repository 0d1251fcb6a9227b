"""The literal-quote mutation benchmark: cases built from documents, then run through ``gate``.

Each document gets a few verbatim passages; each passage gets the mutation
families that apply to it. Source-side variants (a line-break hyphen or a
ligature inside the quoted span, the whole document rendered to PDF) are
extra sources ``<doc>~hyph``, ``<doc>~lig`` and ``<doc>~pdf``. Documents are
checked in ledgers of ``GROUP_SIZE`` documents, so a quote moved to another
document of its ledger must come out misattributed.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from evaluation import mutations as mut
from evaluation.corpus import Document
from evaluation.passages import Passage, loose, sample_passages

GROUP_SIZE = 6
GENERAL_PASSAGES = 2


@dataclass(frozen=True)
class QuoteCase:
    case_id: str
    lang: str
    family: str
    must_verify: bool
    doc_id: str
    cite: str  # the source id the claim cites
    quote: str
    share_alike: bool
    expect_reason: str | None = None


@dataclass
class QuoteBench:
    documents: list[Document]
    groups: list[list[str]]
    derived: dict[str, str] = field(default_factory=dict)  # "<doc>~hyph" / "<doc>~lig" -> text
    cases: list[QuoteCase] = field(default_factory=list)
    dropped: Counter[str] = field(
        default_factory=Counter
    )  # family -> variants that occur in the document anyway


def _vocab(doc: Document) -> list[str]:
    if doc.lang == "en":
        return sorted(set(re.findall(r"\b[a-z]{3,12}\b", doc.text)))
    return sorted(set(mut._JA_TOKEN.findall(doc.text)))


def _source_variants(doc: Document, general: list[Passage], rng: random.Random) -> dict[str, str]:
    """``~hyph`` and ``~lig`` texts: each general passage's span edited, the rest untouched."""
    hyph, lig = doc.text, doc.text
    for k, p in sorted(enumerate(general), key=lambda kp: -kp[1].start):
        compound = re.search(r"[A-Za-z]{2,}-(?=[A-Za-z]{2,})", p.text)
        if compound and rng.random() < 0.3:
            at = p.start + compound.end()
            hyph = hyph[:at] + "\n" + hyph[at:]  # "well-\nknown": kept in the alternate reading
        else:
            pos = mut.hyphen_break_at(p.text, rng)
            if pos is not None:
                mark = "-\n" if k % 2 == 0 else "\ufffe"  # PDFium writes U+FFFE with no line break
                hyph = hyph[: p.start + pos] + mark + hyph[p.start + pos :]
        swapped = mut.ligatures(p.text)
        if swapped is not None:
            lig = lig[: p.start] + swapped + lig[p.end :]
    out: dict[str, str] = {}
    if hyph != doc.text:
        out[f"{doc.doc_id}~hyph"] = hyph
    if lig != doc.text:
        out[f"{doc.doc_id}~lig"] = lig
    return out


def build_quote_bench(documents: list[Document], seed: int) -> QuoteBench:
    """All cases, deterministically from ``documents`` (in their given order) and ``seed``."""
    groups = [[d.doc_id for d in documents[i : i + GROUP_SIZE]] for i in range(0, len(documents), GROUP_SIZE)]
    bench = QuoteBench(documents, groups)
    by_id = {d.doc_id: d for d in documents}
    neighbour = {g[i]: g[(i + 1) % len(g)] for g in groups for i in range(len(g)) if len(g) > 1}
    for doc in documents:
        rng = random.Random(f"{seed}/quote/{doc.doc_id}")
        passages = sample_passages(doc.text, doc.lang, rng, GENERAL_PASSAGES)
        general = [p for p in passages if p.kind == "general"]
        derived = _source_variants(doc, general, rng) if doc.lang == "en" else {}
        bench.derived.update(derived)
        vocab = _vocab(doc)
        other = by_id.get(neighbour.get(doc.doc_id, ""))
        for k, p in enumerate(passages):
            add = _adder(bench, doc, f"{doc.doc_id}/p{k}")
            add("verbatim", p.text, doc.doc_id)
            add("pdf", p.text, f"{doc.doc_id}~pdf")
            if p.kind == "number":
                for fam in ("number_changed", "digits_swapped", "cut_inside"):
                    add(fam, mut.SIMPLE[fam](p.text, doc.lang, rng), doc.doc_id)
                continue
            if p.kind == "hedge":
                add("hedge_dropped", mut.hedge_dropped(p.text, doc.lang, rng), doc.doc_id)
                continue
            for fam in ("whitespace", "curly_quotes", "full_width", "ligature_quote", "hyphen_quote"):
                add(fam, mut.SIMPLE[fam](p.text, doc.lang, rng), doc.doc_id)
            for fam, sid in (("hyphen_source", "~hyph"), ("ligature_source", "~lig")):
                if doc.doc_id + sid in derived and derived[doc.doc_id + sid][p.start : p.end] != p.text:
                    add(fam, p.text, doc.doc_id + sid)
            add("word_changed", mut.word_changed(p.text, doc.lang, rng, vocab), doc.doc_id)
            for fam in ("negation_inserted", "word_dropped", "too_short", "cut_inside"):
                add(fam, mut.SIMPLE[fam](p.text, doc.lang, rng), doc.doc_id)
            partner = general[(k + 1) % len(general)] if len(general) > 1 else None
            if partner is not None and partner is not p:
                add("spliced", mut.spliced(p.text, partner.text, doc.lang), doc.doc_id)
            if other is not None:
                add("misattributed", p.text, other.doc_id, other)
    return bench


def _adder(bench: QuoteBench, doc: Document, prefix: str) -> Callable[..., None]:
    def add(family: str, quote: str | None, cite: str, cited: Document | None = None) -> None:
        if quote is None or not quote.strip():
            return
        must_verify = family in mut.MUST_VERIFY
        if not must_verify and family not in ("too_short", "cut_inside"):  # those two are substrings
            target = cited.text if cited is not None else doc.text
            if loose(quote) in loose(target):  # the change happens to be in the document: not a must-not case
                bench.dropped[family] += 1
                return
        bench.cases.append(
            QuoteCase(
                f"{prefix}/{family}", doc.lang, family, must_verify, doc.doc_id, cite, quote,
                doc.share_alike, mut.EXPECTED_REASON.get(family),
            )
        )  # fmt: skip

    return add


def write_sources(bench: QuoteBench, group: list[str], folder: Path) -> dict[str, str]:
    """Write a group's documents, derived texts and PDFs; return the ledger's ``sources:``."""
    from evaluation.pdf_render import render_pdf

    folder.mkdir(parents=True, exist_ok=True)
    docs = {d.doc_id: d for d in bench.documents}
    sources: dict[str, str] = {}
    for doc_id in group:
        doc = docs[doc_id]
        (folder / f"{doc_id}.txt").write_text(doc.text, encoding="utf-8")
        sources[doc_id] = f"{doc_id}.txt"
        for suffix in ("~hyph", "~lig"):
            text = bench.derived.get(doc_id + suffix)
            if text is not None:
                name = f"{doc_id}{suffix.replace('~', '.')}.txt"
                (folder / name).write_text(text, encoding="utf-8")
                sources[doc_id + suffix] = name
        render_pdf(folder / f"{doc_id}.pdf", doc.text, doc.lang, f"pdf/{doc_id}")
        sources[f"{doc_id}~pdf"] = f"{doc_id}.pdf"
    return sources
