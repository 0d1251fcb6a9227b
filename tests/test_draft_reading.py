"""Reading drafts: prose view, positions, sentences (JA/EN), citations, quotations, extract."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger import extract_ledger
from claimledger.cli import cli
from claimledger.extract.citations import find_citations
from claimledger.extract.draft import parse_draft
from claimledger.extract.quotes import find_quotations
from claimledger.extract.sentences import split_sentences
from claimledger.load.ledger import parse_ledger


def _sentences(text: str) -> list[str]:
    return [text[s.start : s.end].strip() for s in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("今日は晴れ。明日は雨！本当？", ["今日は晴れ。", "明日は雨！", "本当？"]),
        ("彼は「調べた。確かだ。」と言った。次の文。", ["彼は「調べた。確かだ。」と言った。", "次の文。"]),
        ("『本の題。』を読んだ。", ["『本の題。』を読んだ。"]),
        ("Smith et al. found 3.5% more. Then it fell.", ["Smith et al. found 3.5% more.", "Then it fell."]),
        ("See e.g. Fig. 2 for details. Next.", ["See e.g. Fig. 2 for details.", "Next."]),
        ("J. Smith wrote it. He said “It works.” Then he left.",
         ["J. Smith wrote it.", "He said “It works.”", "Then he left."]),
        ("It rose 4x! Why? Nobody knows.", ["It rose 4x!", "Why?", "Nobody knows."]),
        ("No break\nacross a line. But\n\nparagraphs split", ["No break\nacross a line.", "But", "paragraphs split"]),
    ],
)  # fmt: skip
def test_sentences(text: str, expected: list[str]) -> None:
    assert _sentences(text) == expected


def test_markdown_prose_view_and_positions() -> None:
    text = "---\ntitle: x\n---\n\n## 3. Results {#sec-res}\n\n- item with **bold 42** and [a link](http://x.org/7).\n"
    d = parse_draft(text, "markdown", "f.md")
    assert "title" not in d.prose and "3." not in d.prose and "sec-res" not in d.prose
    assert "bold 42" in d.prose and "x.org" not in d.prose and "a link" in d.prose
    i = d.prose.index("42")
    assert d.where(i) == (7, 20)
    assert text[d.raw_pos(i) : d.raw_end(i + 2)] == "42"
    assert [h.title for h in d.headings] == ["Results"]


def test_latex_prose_view() -> None:
    text = "\\begin{document}\n\\section{2.1 Methods}\nWe used \\emph{30\\%} of data~\\cite{a}.\n\\end{document}\n"
    d = parse_draft(text, "latex", "f.tex")
    assert "30%" in d.prose and "\\emph" not in d.prose and "\\cite{a}" in d.prose
    assert [h.title for h in d.headings] == ["Methods"]
    i = d.prose.index("30%")
    assert d.where(i) == (3, 15)


def test_citations_and_quotations() -> None:
    prose = "As “it works” [see @smith2019, p. 4; -@jones2021] and 「引用です」 and a@b.com."
    cites = find_citations(prose, "markdown")
    assert [c.keys for c in cites] == [("smith2019", "jones2021")]
    assert [q.text for q in find_quotations(prose)] == ["“it works”", "「引用です」"]
    assert find_citations(r"\citet{a, b} and \parencite[p.~3]{c}", "latex")[1].keys == ("c",)
    assert find_citations("@smith2019 says so, mail me@host.", "markdown", {"smith2019"})[0].keys == ("smith2019",)


def test_extract_writes_a_loadable_ledger_that_fails_closed(tmp_path: Path) -> None:
    draft = tmp_path / "d.md"
    draft.write_text(
        "# Digest\n\nClicks rose to 1,202 [@dash].\n\n「回答企業は1.2万社で、そのうち３０％が導入済み」[V] [@chosa2024]。\n"
        "It happened on 2024-03-15.\n",
        encoding="utf-8",
    )
    text = extract_ledger(draft, sources={"chosa2024": "sources/chosa2024.pdf"})
    ledger = parse_ledger(text, "x.yaml")
    assert ledger.sources == {"chosa2024": "sources/chosa2024.pdf", "dash": "TODO"}
    kinds = [(c.kind, getattr(c, "metric", None)) for c in ledger.claims]
    assert kinds == [("quote", None), ("attribution", None), ("number", "TODO")]  # the cited sentence attributes
    assert getattr(ledger.claims[1], "attributed", None) == "Clicks rose to 1,202"
    assert ledger.claims[0].location is not None and ledger.claims[0].location.line == 5
    assert "# date '2024-03-15' on line 6" in text
    out = tmp_path / "ledger.yaml"
    res = CliRunner().invoke(cli, ["extract", str(draft), "-o", str(out)])
    assert res.exit_code == 0 and out.read_text("utf-8").startswith("# Ledger extracted")
    check = CliRunner().invoke(cli, ["check", "--ledger", str(out)])
    assert check.exit_code == 1  # placeholders fail closed


def test_hostile_markdown_is_linear() -> None:
    """Runs of link, math, shortcode and attribute openers once took quadratic time."""
    import subprocess
    import sys

    code = (
        "from claimledger.extract.draft import parse_draft\n"
        "for s in ['[' * 200000, '![' * 100000, '\\\\(' * 100000, '\\\\[' * 100000, '{{<' * 100000,"
        " '{#' * 100000, '[^' * 100000]:\n"
        "    parse_draft(s, 'markdown')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], timeout=60, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
