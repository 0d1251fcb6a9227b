"""The JSON report envelope (``schemas/report.schema.json``)."""

from __future__ import annotations

import json

from claimledger.model.report import Report


def render_json(report: Report) -> str:
    return json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n"
