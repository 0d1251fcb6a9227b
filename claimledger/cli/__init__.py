"""The ``claimledger`` command line: a click group, one module per subcommand.

Every module in this package that does not start with ``_`` is imported and
registers its commands on :data:`claimledger.cli._group.cli`. Exit codes: 0
PASS, 1 FAIL, 2 usage or input error, 3 PARTIAL (or FAIL under
``--no-fail-closed``), 4 NO_CLAIMS.
"""

from __future__ import annotations

import importlib
import pkgutil

from claimledger.cli._group import cli

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")


def main() -> None:
    """Entry point of the ``claimledger`` script."""
    cli(prog_name="claimledger")


__all__ = ["cli", "main"]
