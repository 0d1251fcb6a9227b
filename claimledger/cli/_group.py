"""The ``claimledger`` command group."""

from __future__ import annotations

import click

from claimledger import _normalize_core
from claimledger._version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__,
    prog_name="claimledger",
    message=f"%(prog)s, version %(version)s\nnormalizer core: {_normalize_core.CORE}",
)
def cli() -> None:
    """claimledger: a program, not the writer's word, decides what is verified.

    Quotes are checked literally against their sources, numbers are recomputed
    from the data, and the outcome is PASS, PARTIAL, FAIL or NO_CLAIMS.

    Exit codes: 0 PASS, 1 FAIL, 2 usage or input error, 3 PARTIAL, 4 NO_CLAIMS.
    """


