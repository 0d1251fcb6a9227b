"""Scope checks: does the evidence answer the question for the population, place and period it asks about?

Seed 004's largest miss: a figure about employees inside companies who started
using AI on their own was read as a figure about individual developers. The
quote was real and not overclaimed; the evidence did not answer the question.
These rules read scope *slots* (population, place, period, measure, causal or
correlational design) from three texts -- the research question, the draft's
sentence and the evidence passage around the verified quote -- and report
where they disagree. See :mod:`claimledger.checks.scope.compare`.
"""

from __future__ import annotations

from claimledger.checks.scope.compare import MISMATCH, NOT_STATED, QuestionScope, ScopeIssue, scope_issues
from claimledger.checks.scope.passage import Passage, build_passage
from claimledger.checks.scope.slots import Slots, read_slots

__all__ = [
    "MISMATCH",
    "NOT_STATED",
    "Passage",
    "QuestionScope",
    "ScopeIssue",
    "Slots",
    "build_passage",
    "read_slots",
    "scope_issues",
]
