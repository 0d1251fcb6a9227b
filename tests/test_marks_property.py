"""Property tests: ``mark`` changes nothing but marks, and marking twice changes nothing more."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimledger._config import GateConfig
from claimledger._drafts import DraftRun, apply_marks
from claimledger.extract.draft import parse_draft

SOURCE = "Adding an independent verification step reduced errors by 37 percent. 回答企業は1.2万社で、そのうち３０％が導入済み。"
PIECES = [
    "“reduced errors by 37 percent”", "「回答企業は1.2万社で」", "『存在しない引用の文です』", '"made up quote here"',
    "[V]", "[D]", " [V]", "[@smith2019]", "[@smith2019, p. 4]", "[@a; @b]", "\\cite{smith2019}",
    "1,202", "1.2万", "３０％", "four times", "2024-03-15", "。", ". ", "! ", "\n", "\n\n", "# ", "- ", "1. ",
    "`code [V]`", "$x=1$", "<!-- c [V] -->", "```\nfence [V]\n```\n", "e.g. ", "et al. ", "word", "言葉",
    "「", "」", "“", "”", '"', "[", "]", "\\", "*", "_", "\r\n", "\ufeff", "\u3000",
]  # fmt: skip
drafts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=40).map("".join)
_MARK = re.compile(r"\[[VD]\]")


def _mark(text: str, fmt: str, source: Path) -> str:
    draft = parse_draft(text, fmt, "p")
    run = DraftRun.open(draft, None, {"smith2019": str(source)}, GateConfig())
    try:
        return apply_marks(draft, run.verdicts())
    finally:
        run.close()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=drafts, fmt=st.sampled_from(["markdown", "latex", "text"]))
def test_mark_changes_nothing_but_marks(tmp_path: Path, text: str, fmt: str) -> None:
    source = tmp_path / "s.txt"
    source.write_text(SOURCE, encoding="utf-8")
    marked = _mark(text, fmt, source)
    assert _MARK.sub("", marked) == _MARK.sub("", text)
    assert _mark(marked, fmt, source) == marked
