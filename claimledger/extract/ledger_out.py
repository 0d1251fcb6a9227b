"""Write the ledger a draft implies, as YAML a writer can complete.

Quotations with a citation become quote claims (source = the first key of
their citation). Sentences with a citation and no quotation become attribution
claims (what the sentence says the source says; opinions, future work and the
draft's own definitions are left out). Figures become number claims with the placeholder
``metric: TODO``: the ledger loads, and ``check`` fails closed on it
(``metric_unknown``) until the writer names a metric, writes ``sql:``, or
replaces it with ``source:`` + ``quote:``. Dates are listed as comments (a
date is backed by a ledger quote that prints it, or allowed with ``--allow``).
Undeclared source keys get the path placeholder ``TODO``, which fails closed
(``source_file_missing``).
"""

from __future__ import annotations

import json

from claimledger._version import __version__
from claimledger.extract.attributions import find_attributions, locator_of
from claimledger.extract.marks import Analysis

PLACEHOLDER = "TODO"


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON string syntax is valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _loc(analysis: Analysis, prose_start: int) -> str:
    line, col = analysis.draft.where(prose_start)
    file = analysis.draft.path
    head = f"file: {_q(file)}, " if file else ""
    return f"{{{head}line: {line}, column: {col}}}"


def render_ledger(analysis: Analysis, sources: dict[str, str], datasets: dict[str, str]) -> str:
    lines = [
        f"# Ledger extracted by claimledger {__version__} from {analysis.draft.path or 'a draft'}.",
        "# Fill in every TODO: a number needs `metric:` (a registered name), `sql:` (DuckDB over",
        "# `datasets:`), or `source:` + `quote:` (the passage printing it). Until then `check`",
        "# fails closed on it (metric_unknown / source_file_missing).",
        "version: 1",
    ]
    keys: list[str] = []
    for c in analysis.citations:
        for k in c.keys:
            if k not in keys:
                keys.append(k)
    lines.append("sources:" if keys or sources else "sources: {}")
    for k in sorted(set(keys) | set(sources)):
        lines.append(f"  {_q(k)}: {_q(sources.get(k, PLACEHOLDER))}")
    if datasets:
        lines.append("datasets:")
        lines.extend(f"  {_q(k)}: {_q(v)}" for k, v in sorted(datasets.items()))
    claims: list[str] = []
    n_quote = n_number = 0
    for t in analysis.targets:
        if t.kind != "quote" or not t.keys:
            continue
        n_quote += 1
        claims += [
            f"  - id: Q{n_quote}",
            "    kind: quote",
            f"    source: {_q(t.keys[0])}",
            f"    quote: {_q(' '.join(t.text.split()))}",
            f"    statement: {_q(analysis.statement_text(t.sentence))}",
            f"    location: {_loc(analysis, t.start)}",
        ]
        locator = locator_of(analysis.draft.prose[t.citation.start : t.citation.end]) if t.citation else None
        if locator:
            claims.append(f"    locator: {_q(locator)}")
        if len(t.keys) > 1:
            claims.append(f"    # also cited with: {', '.join(t.keys[1:])}")

    attributed_lines: set[int] = set()
    for n_attr, a in enumerate(find_attributions(analysis), 1):
        attributed_lines.add(analysis.draft.where(a.start)[0])
        claims += [
            f"  - id: A{n_attr}",
            "    kind: attribution",
            f"    source: {_q(a.keys[0])}",
            f"    attributed: {_q(a.attributed)}",
            f"    statement: {_q(a.statement)}",
        ]
        if a.locator:
            claims.append(f"    locator: {_q(a.locator)}")
        claims.append(f"    location: {_loc(analysis, a.start)}")
        if len(a.keys) > 1:
            claims.append(f"    also_cited: [{', '.join(_q(k) for k in a.keys[1:])}]")
    for m in analysis.mentions:
        if analysis.quotation_containing(m.start) is not None:
            continue
        sentence = analysis.statement_text(analysis.sentence_of(m.start))
        if m.kind == "date":
            line, _col = analysis.draft.where(m.start)
            claims.append(f"  # date {m.text!r} on line {line}: back it with a quote claim that prints it, or --allow")
            continue
        n_number += 1
        claims += [
            f"  - id: N{n_number}",
            "    kind: number",
            f"    value: {_q(m.text)}",
            f"    metric: {PLACEHOLDER}    # or sql: \"SELECT ...\", or source: KEY + quote: \"...\"",
            f"    statement: {_q(sentence)}",
            f"    location: {_loc(analysis, m.start)}",
        ]
    lines.append("claims:" if claims else "claims: []")
    lines.extend(claims)
    return "\n".join(lines) + "\n"
