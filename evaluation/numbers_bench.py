"""The numeric benchmark: TabFact tables as CSV, true aggregates, and perturbed claimed values.

For every numeric column (every cell a plain number) of a sampled table, the
sum, mean, maximum and minimum, plus the row count per table, are computed here
exactly (``fractions.Fraction``) and independently of DuckDB. Each becomes
claims that the gate recomputes through SQL:

* ``exact``: the true value as a float, default tolerance (must verify);
* ``display_inside``: the value as displayed at the precision whose rounding
  error is largest (``12.3``, ``1.2k``), tolerance 0 (must verify: just inside
  what the display covers);
* ``display_outside``: the next display on the same side (``12.4``),
  tolerance 0 (must not: just outside);
* ``relative_inside`` / ``relative_outside``: the value times 1.004 / 1.006,
  default tolerance 0.5% (must / must not);
* ``digits_swapped``: two adjacent different digits of the display swapped,
  default tolerance (must not).
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from evaluation.corpus import read_rows
from evaluation.mutations import digits_swapped

GROUP_SIZE = 40
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")


@dataclass(frozen=True)
class Table:
    table_id: str
    header: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class NumberCase:
    case_id: str
    family: str
    must_verify: bool
    table: str  # dataset name
    sql: str
    value: str | float
    tolerance: float | None  # None: the default (0.5%)
    truth: float


@dataclass
class NumberBench:
    tables: list[Table]
    cases: list[NumberCase] = field(default_factory=list)


def parse_table(source: str, table_id: str) -> Table | None:
    lines = [ln for ln in source.splitlines() if ln.strip()]
    if len(lines) < 4 or not lines[0].startswith("table caption:"):
        return None
    header = [c.strip() for c in lines[1].split(" | ")]
    rows = [[c.strip() for c in ln.split(" | ")] for ln in lines[2:]]
    if any(len(r) != len(header) for r in rows):
        return None
    return Table(table_id, header, rows)


def load_tables(bench: Path, count: int, seed: int) -> list[Table]:
    seen: dict[str, str] = {}
    for row in read_rows(bench, "tabfact"):
        meta = row["meta"]
        assert isinstance(meta, dict)
        seen.setdefault(str(meta["table_id"]), str(row["source"]))
    tables = [t for tid in sorted(seen) if (t := parse_table(seen[tid], tid)) and numeric_columns(t)]
    return random.Random(f"{seed}/tables").sample(tables, min(count, len(tables)))


def numeric_columns(table: Table) -> list[int]:
    return [j for j in range(len(table.header)) if all(_NUMBER.match(r[j]) for r in table.rows)]


def column_names(table: Table) -> list[str]:
    return [f"c{j}" for j in range(len(table.header))]


def write_csv(table: Table, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(column_names(table))
        w.writerows(table.rows)


_AGGS: dict[str, Callable[[list[Fraction]], Fraction]] = {
    "sum": sum,  # type: ignore[dict-item]
    "avg": lambda xs: sum(xs, Fraction(0)) / len(xs),
    "max": max,
    "min": min,
}


def _display(v: float) -> tuple[str, float, str, float]:
    """(inside display, its value, outside display, half unit): the precision with the largest rounding error."""
    options: list[tuple[float, str, float, Callable[[float], str], float]] = []
    for d in (0, 1, 2, 3):
        half = 0.5 * 10**-d

        def fmt(x: float, d: int = d) -> str:
            return f"{x:.{d}f}"

        options.append((half, fmt(v), float(fmt(v)), fmt, 1.0))
    for scale, suffix in ((1e3, "k"), (1e6, "M")):
        if abs(v) >= scale:

            def fmt_s(x: float, scale: float = scale, suffix: str = suffix) -> str:
                return f"{x / scale:.1f}{suffix}"

            options.append((0.05 * scale, fmt_s(v), float(f"{v / scale:.1f}") * scale, fmt_s, scale))
    best = max(
        (o for o in options if abs(v - o[2]) <= 0.95 * o[0]),
        key=lambda o: abs(v - o[2]) / o[0],
    )
    half, text, shown, fmt_any, _ = best
    step = 2 * half
    outside = shown + (step if v >= shown else -step)
    return text, shown, fmt_any(outside), half


def build_number_bench(tables: list[Table], seed: int) -> NumberBench:
    bench = NumberBench(tables)
    for ti, table in enumerate(tables):
        rng = random.Random(f"{seed}/numbers/{table.table_id}")
        name = f"t{ti}"
        aggregates: list[tuple[str, str, Fraction]] = [
            ("count", f'SELECT count(*) FROM "{name}"', Fraction(len(table.rows)))
        ]
        for j in numeric_columns(table)[:2]:
            xs = [Fraction(r[j]) for r in table.rows]
            for agg, fn in _AGGS.items():
                sql = f'SELECT {agg}(CAST("c{j}" AS DOUBLE)) FROM "{name}"'
                aggregates.append((f"{agg}(c{j})", sql, fn(xs)))
        for label, sql, exact in aggregates:
            v = float(exact)
            prefix = f"{table.table_id}/{label}"

            def add(family: str, must: bool, value: str | float, tol: float | None) -> None:
                case = NumberCase(f"{prefix}/{family}", family, must, name, sql, value, tol, v)  # noqa: B023
                bench.cases.append(case)

            add("exact", True, v, None)
            inside, _shown, outside, half = _display(v)
            add("display_inside", True, inside, 0.0)
            add("display_outside", False, outside, 0.0)
            if v != 0:
                add("relative_inside", True, v * 1.004, None)
                add("relative_outside", False, v * 1.006, None)
            swapped = digits_swapped(inside, "en", rng)
            if swapped is not None:
                sv = float(re.sub(r"[kM]$", "", swapped)) * (
                    1e3 if swapped.endswith("k") else 1e6 if swapped.endswith("M") else 1
                )
                if abs(sv - v) > max(0.005 * abs(v), half) * 1.05:
                    add("digits_swapped", False, swapped, None)
    return bench
