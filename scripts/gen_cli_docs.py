"""Regenerate the option tables in docs/configuration.md from the click commands.

    python scripts/gen_cli_docs.py          # rewrite the block between the markers
    python scripts/gen_cli_docs.py --check  # exit 1 when the block is out of date

tests/test_docs.py independently checks that every command and option is documented.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from claimledger.cli import cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
BEGIN = "<!-- BEGIN GENERATED: options (scripts/gen_cli_docs.py) -->"
END = "<!-- END GENERATED: options -->"


def commands(group: click.Group, prefix: str = "claimledger") -> list[tuple[str, click.Command]]:
    """Every command, subcommands of subgroups included, sorted by name."""
    out: list[tuple[str, click.Command]] = []
    for name in sorted(group.commands):
        cmd = group.commands[name]
        out.append((f"{prefix} {name}", cmd))
        if isinstance(cmd, click.Group):
            out += commands(cmd, f"{prefix} {name}")
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def _default(param: click.Option) -> str:
    if param.is_flag or param.multiple:
        return ""
    if param.default is None or callable(param.default) or "UNSET" in repr(param.default):
        return ""  # click >= 8.2 marks "no default" with a sentinel
    return f"`{param.default}`"


def block() -> str:
    ctx = click.Context(cli, info_name="claimledger")
    lines: list[str] = []
    for path, cmd in commands(cli):
        lines += [f"### `{path}`", ""]
        args = [p for p in cmd.params if isinstance(p, click.Argument)]
        if args:
            lines += ["Arguments: " + ", ".join(f"`{p.human_readable_name}`" for p in args), ""]
        opts = [p for p in cmd.params if isinstance(p, click.Option)]
        if not opts:
            lines += ["No options.", ""]
            continue
        lines += ["| option | default | what it does |", "|---|---|---|"]
        for p in opts:
            flags = ", ".join(f"`{o}`" for o in p.opts + p.secondary_opts)
            if isinstance(p.type, click.Choice):
                flags += " " + "\\|".join(str(c) for c in p.type.choices)
            help_text = p.help or ""
            if p.multiple:
                help_text += " (repeatable)" if "repeatable" not in help_text else ""
            lines.append(f"| {flags} | {_default(p)} | {_cell(help_text)} |")
        lines.append("")
    del ctx
    return "\n".join(lines).rstrip() + "\n"


def render(text: str) -> str:
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n\n{block()}\n{END}{tail}"


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"{DOC}: markers not found", file=sys.stderr)
        return 2
    new = render(text)
    if "--check" in sys.argv[1:]:
        if new != text:
            print(f"{DOC} is out of date: run python scripts/gen_cli_docs.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
