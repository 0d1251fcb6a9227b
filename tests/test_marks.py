"""Program-applied marks: mark and lint over .md, .qmd and .tex, and the Japanese digest (seed 004)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimledger import lint, mark
from claimledger.cli import cli
from tests.conftest import ROOT

DIGEST = ROOT / "examples" / "ja_digest"
SOURCE = "Adding an independent verification step reduced errors by 37 percent.\n調査は全国の会社員1,500人を対象に実施した。\n"


@pytest.fixture
def src(tmp_path: Path) -> dict[str, str]:
    path = tmp_path / "smith.txt"
    path.write_text(SOURCE, encoding="utf-8")
    return {"smith2019": str(path)}


@pytest.fixture
def digest(tmp_path: Path) -> Path:
    target = tmp_path / "ja_digest"
    shutil.copytree(DIGEST, target)
    return target


def test_digest_mark_turns_the_two_unfound_quotes_into_d(digest: Path) -> None:
    original = (digest / "digest.md").read_text("utf-8")
    result = mark(digest / "digest.md", ledger=digest / "ledger.yaml")
    changed = [v for v in result.verdicts if v.writer_letter != v.letter]
    assert [(v.writer_letter, v.letter, v.finding.reason.value) for v in changed] == [
        ("V", "D", "quote_near_miss"),
        ("V", "D", "quote_absent"),
    ]
    assert "全体の約4割を占めた」[D]" in result.text
    assert "全体の25％に達した」[D]とされる" in result.text
    assert result.text.count("[V]") == original.count("[V]") - 2
    assert re.sub(r"\[[VD]\]", "", result.text) == re.sub(r"\[[VD]\]", "", original)
    assert (digest / "digest.md").read_text("utf-8") == original  # never overwritten unless asked


def test_digest_lint_fails_on_original_and_passes_on_marked(digest: Path) -> None:
    runner = CliRunner()
    draft, ledger = str(digest / "digest.md"), str(digest / "ledger.yaml")
    before = runner.invoke(cli, ["lint", draft, "--ledger", ledger])
    assert before.exit_code == 1
    problems = [line for line in before.output.splitlines() if line.startswith(draft)]
    assert [p.split(": ", 1)[0] for p in problems] == [f"{draft}:17:10", f"{draft}:19:4"]
    assert "quote_near_miss" in problems[0] and "約[-4-]{+3+}割" in problems[0]
    marked = digest / "marked.md"
    done = runner.invoke(cli, ["mark", draft, "--ledger", ledger, "-o", str(marked)])
    assert done.exit_code == 0, done.output
    after = runner.invoke(cli, ["lint", str(marked), "--ledger", ledger])
    assert after.exit_code == 0, after.output


def test_digest_check_with_draft_merges_findings(digest: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["check", str(digest / "digest.md"), "--ledger", str(digest / "ledger.yaml"),
                              "--format", "json"])  # fmt: skip
    assert res.exit_code == 1
    assert res.output.count('"reason": "mark_not_verified"') == 2
    assert '"reason": "unlisted_' not in res.output


MD = """# Notes

Smith found that “adding an independent verification step reduced errors by 37 percent”[V] [@smith2019, p. 4].
He also wrote “verification always removes every single error”[V] [@smith2019].
An unmarked one: "an independent verification step reduced errors" [@smith2019].
A stray mark[V] here, and a short "title"[@smith2019].
"""


def test_markdown_marks(tmp_path: Path, src: dict[str, str]) -> None:
    path = tmp_path / "d.md"
    path.write_text(MD, encoding="utf-8")
    result = mark(path, sources=src)
    lines = result.text.splitlines()
    assert lines[2].endswith("37 percent”[V] [@smith2019, p. 4].")
    assert "every single error”[D]" in lines[3]
    assert '"an independent verification step reduced errors"[V] [@smith2019]' in lines[4]
    assert "A stray mark[D] here" in lines[5]  # an orphan mark can never be [V]
    assert '"title"[@smith2019]' in lines[5]  # too short to be a claim: left alone
    problems = lint(path, sources=src).problems
    assert [(p.line, p.reason.value) for p in problems] == [(4, "mark_not_verified"), (5, "mark_missing"),
                                                             (6, "mark_orphan")]  # fmt: skip
    path.write_text(result.text, encoding="utf-8")
    assert lint(path, sources=src).ok


QMD = """---
title: "Report 2024"
format: html
---

```{r}
#| label: setup
x <- "this is code, not a claim [V]"
```

Errors fell: “reduced errors by 37 percent”[D] [@smith2019]. See @fig-plot.

::: {.callout-note}
A note with “reduced errors by 73 percent”[V] [@smith2019].
:::

{{< include _other.qmd >}}
"""


def test_quarto_marks(tmp_path: Path, src: dict[str, str]) -> None:
    path = tmp_path / "d.qmd"
    path.write_text(QMD, encoding="utf-8")
    result = mark(path, sources=src)
    assert "“reduced errors by 37 percent”[V] [@smith2019]" in result.text
    assert "“reduced errors by 73 percent”[D] [@smith2019]" in result.text
    assert 'x <- "this is code, not a claim [V]"' in result.text  # code is untouched
    assert [v.line for v in result.verdicts] == [11, 14]


TEX = r"""\documentclass{article}
\begin{document}
\section{Results}
Smith reports that ``reduced errors by 37 percent''[V] \citep[p.~4]{smith2019}.
A made-up ``errors vanished completely overnight''[V] \cite{smith2019}.
% ``a commented quotation of some length''[V] \cite{smith2019}
The survey covered “全国の会社員1,500人を対象に実施した”[V] \citet{smith2019}.
\begin{verbatim}
``verbatim text is never checked''[V]
\end{verbatim}
\end{document}
"""


def test_latex_marks(tmp_path: Path, src: dict[str, str]) -> None:
    path = tmp_path / "d.tex"
    path.write_text(TEX, encoding="utf-8")
    result = mark(path, sources=src)
    out = result.text.splitlines()
    assert out[3] == r"Smith reports that ``reduced errors by 37 percent''[V] \citep[p.~4]{smith2019}."
    assert out[4] == r"A made-up ``errors vanished completely overnight''[D] \cite{smith2019}."
    assert out[5].startswith("% ``a commented quotation of some length''[V]")
    assert "会社員1,500人を対象に実施した”[V]" in out[6]
    assert out[8] == "``verbatim text is never checked''[V]"
    assert [(v.line, v.letter) for v in result.verdicts] == [(4, "V"), (5, "D"), (7, "V")]


def test_numbers_are_marked_only_from_the_ledger(tmp_path: Path, write_ledger: object) -> None:
    data = tmp_path / "d.csv"
    data.write_text("clicks\n600\n602\n", encoding="utf-8")
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text(
        "version: 1\ndatasets:\n  daily: d.csv\nclaims:\n"
        "  - {id: N1, kind: number, value: '1,202', sql: 'SELECT sum(clicks) FROM daily', location: {line: 1}}\n"
        "  - {id: N2, kind: number, value: '2,000', sql: 'SELECT sum(clicks) FROM daily', location: {line: 1}}\n",
        encoding="utf-8",
    )
    draft = tmp_path / "w.md"
    draft.write_text("Clicks: 1,202 this week. Maybe 2,000[V] next week. 売上は1.2万社[V]。\n", encoding="utf-8")
    result = mark(draft, ledger=ledger)
    assert result.text == "Clicks: 1,202[V] this week. Maybe 2,000[D] next week. 売上は1.2万社[D]。\n"
    reasons = [v.finding.reason.value for v in result.verdicts]
    assert reasons == ["number_match", "number_mismatch", "number_unbacked"]


def test_mark_in_place_and_never_overwrites_by_default(tmp_path: Path, src: dict[str, str]) -> None:
    path = tmp_path / "d.md"
    path.write_text(MD, encoding="utf-8")
    runner = CliRunner()
    args = ["--source", f"smith2019={src['smith2019']}"]
    out = runner.invoke(cli, ["mark", str(path), *args])
    assert out.exit_code == 0
    assert "every single error”[D]" in out.stdout
    assert path.read_text("utf-8") == MD
    check = runner.invoke(cli, ["mark", str(path), *args, "--check"])
    assert check.exit_code == 1 and path.read_text("utf-8") == MD
    inplace = runner.invoke(cli, ["mark", str(path), *args, "--in-place"])
    assert inplace.exit_code == 0
    assert path.read_text("utf-8") == out.stdout
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    again = runner.invoke(cli, ["mark", str(path), *args, "--check"])
    assert again.exit_code == 0  # marking is idempotent


def test_crlf_and_bom_survive_byte_for_byte(tmp_path: Path, src: dict[str, str]) -> None:
    raw = "\ufeffIntro line.\r\nHe said “reduced errors by 37 percent”[D] [@smith2019].\r\n"
    path = tmp_path / "d.md"
    path.write_bytes(raw.encode("utf-8"))
    result = mark(path, sources=src)
    assert result.text.encode("utf-8") == raw.replace("[D]", "[V]").encode("utf-8")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "draft not found"),
        (b"\xff\xfe\x00bad", "binary"),
        (b"caf\xe9 au lait", "not UTF-8"),
    ],
)
def test_bad_draft_exits_2_without_traceback(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "bad.md"
    if content is not None:
        path.write_bytes(content)
    runner = CliRunner()
    for command in (["mark"], ["lint"], ["extract"], ["audit", "--ledger", str(path)]):
        res = runner.invoke(cli, [command[0], str(path), *command[1:]])
        assert res.exit_code == 2, (command, res.output)
        assert message in res.output or "ledger" in res.output
        assert "Traceback" not in res.output
        assert res.exception is None or isinstance(res.exception, SystemExit)


def test_directory_and_bad_source_option(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["lint", str(tmp_path)])
    assert res.exit_code == 2 and "is a directory" in res.output
    draft = tmp_path / "d.md"
    draft.write_text("text\n", "utf-8")
    res = runner.invoke(cli, ["mark", str(draft), "--source", "nokey"])
    assert res.exit_code == 2 and "KEY=PATH" in res.output


def test_uncited_marked_quote_and_undeclared_key_are_d(tmp_path: Path, src: dict[str, str]) -> None:
    path = tmp_path / "d.md"
    path.write_text("“reduced errors by 37 percent”[V] said someone.\n“reduced errors by 37 percent”[V] [@nokey].\n",
                    encoding="utf-8")  # fmt: skip
    result = mark(path, sources=src)
    assert [v.finding.reason.value for v in result.verdicts] == ["quote_uncited", "source_undeclared"]
    assert result.text.count("[D]") == 2
