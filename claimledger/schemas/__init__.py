"""Published JSON Schemas: ``ledger.schema.json`` and ``report.schema.json``.

The ledger schema is generated from the pydantic models of every registered
claim kind (:mod:`claimledger.model.claim` and the modules of
:data:`claimledger.registry.BUILTIN_MODULES`); regenerate it with
``python -m claimledger.schemas`` (a test fails when the file is stale).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
LEDGER_SCHEMA_PATH = HERE / "ledger.schema.json"
REPORT_SCHEMA_PATH = HERE / "report.schema.json"


def ledger_schema() -> dict[str, Any]:
    """The ledger's JSON Schema, generated from the models."""
    from claimledger.model.claim import Ledger
    from claimledger.registry import load_plugins

    load_plugins()  # every registered claim kind is in the union
    schema = Ledger.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://claimledger.invalid/schemas/ledger.schema.json"
    schema["title"] = "claimledger ledger"
    return schema


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def write_ledger_schema() -> None:
    LEDGER_SCHEMA_PATH.write_text(json.dumps(ledger_schema(), indent=2, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    write_ledger_schema()
