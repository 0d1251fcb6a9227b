"""Outcomes of benchmark cases and the rates computed from them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    """One case: what it must do, what the gate did."""

    check: str
    lang: str
    family: str
    case_id: str
    must_verify: bool
    verified: bool
    reason: str
    expect_reason: str | None = None
    detail: str = ""  # quote or value, shown when the case failed (never for ShareAlike text)

    @property
    def false_verify(self) -> bool:
        return self.verified and not self.must_verify

    @property
    def miss(self) -> bool:
        return self.must_verify and not self.verified

    @property
    def wrong_reason(self) -> bool:
        """Not verified, as it must, but for another reason than the expected one."""
        return not self.verified and self.expect_reason is not None and self.reason != self.expect_reason


@dataclass
class Tally:
    """A 2x2 confusion table: expected (verify / not) x outcome (verified / not)."""

    tp: int = 0  # must verify, verified
    fn: int = 0  # must verify, not verified (a miss)
    fp: int = 0  # must not, verified (a false [V])
    tn: int = 0  # must not, not verified

    def add(self, must_verify: bool, verified: bool) -> None:
        if must_verify:
            self.tp += verified
            self.fn += not verified
        else:
            self.fp += verified
            self.tn += not verified

    @property
    def n(self) -> int:
        return self.tp + self.fn + self.fp + self.tn

    @property
    def false_verify_rate(self) -> float | None:
        return self.fp / (self.fp + self.tn) if self.fp + self.tn else None

    @property
    def miss_rate(self) -> float | None:
        return self.fn / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def balanced_accuracy(self) -> float | None:
        fv, miss = self.false_verify_rate, self.miss_rate
        return None if fv is None or miss is None else ((1 - fv) + (1 - miss)) / 2

    def point(self, benchmark: str) -> dict[str, object]:
        return {
            "benchmark": benchmark,
            "n": self.n,
            "n_must_verify": self.tp + self.fn,
            "n_must_not": self.fp + self.tn,
            "false_verify_rate": self.false_verify_rate,
            "miss_rate": self.miss_rate,
        }


def tally(outcomes: Iterable[Outcome], key: str = "lang") -> dict[str, Tally]:
    """Confusion tables keyed by ``lang`` or ``family``."""
    out: dict[str, Tally] = defaultdict(Tally)
    for o in outcomes:
        out[getattr(o, key)].add(o.must_verify, o.verified)
    return dict(out)


def by_family(outcomes: Iterable[Outcome]) -> dict[tuple[str, str], Tally]:
    out: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for o in outcomes:
        out[(o.lang, o.family)].add(o.must_verify, o.verified)
    return dict(out)
