"""``claimledger check``: verify every claim of a ledger."""

from __future__ import annotations

import sys
from typing import Any

from claimledger._api import gate
from claimledger._exceptions import InputError
from claimledger.cli._common import _emit, _fail_input, _Progress, common_check_options, config_from, render
from claimledger.cli._group import cli


@cli.command()
@common_check_options
def check(**kw: Any) -> None:
    """Check every claim of a ledger: quotes against sources, numbers against data.

    \b
    Example:
      claimledger check --ledger examples/en/ledger.yaml --metrics examples/en/metrics.py
    """
    progress = _Progress(kw["quiet"])
    try:
        report = gate(kw["ledger"], config=config_from(kw), progress=progress)
    except InputError as exc:
        progress.close()
        _fail_input(str(exc))
        return
    progress.close()
    _emit(render(report, kw["fmt"]), kw["output"])
    sys.exit(report.exit_code)
