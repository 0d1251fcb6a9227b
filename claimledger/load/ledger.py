"""Read a ledger (YAML or JSON) into a validated :class:`Ledger`.

Every problem is a :class:`LedgerError` that names the file, the line and the
field. YAML anchors and aliases are refused (they serve no purpose in a ledger
and are the vehicle of "billion laughs" bombs), and so is deep nesting.

A JSON ledger's claim lines are read from its JSON tokens (load/_json_lines.py) when the YAML
reading would give the same ones; PyYAML is imported, and the text composed as YAML, only for a
YAML ledger, a JSON text outside that case, or to name the line of a validation error.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from claimledger._exceptions import LedgerError
from claimledger.load._json_lines import claim_lines
from claimledger.model.claim import Ledger
from claimledger.registry import load_plugins

if TYPE_CHECKING:
    import yaml

MAX_LEDGER_BYTES = 20 * 1024 * 1024
MAX_DEPTH = 32

Path_ = tuple[str | int, ...]


def _loader() -> Any:
    """LibYAML's parser when PyYAML has it (about ten times faster); the same safe constructor either way."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _positions(node: yaml.Node, path: Path_, out: dict[Path_, int], depth: int = 0) -> None:
    import yaml

    if depth > MAX_DEPTH:
        raise ValueError(f"nesting deeper than {MAX_DEPTH} levels")
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            k = key.value if isinstance(key, yaml.ScalarNode) else str(key.value)
            out[(*path, k)] = key.start_mark.line + 1
            _positions(value, (*path, k), out, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _positions(item, (*path, i), out, depth + 1)


def _compose(text: str, file: str) -> yaml.Node | None:
    """Compose the YAML tree after a pass over its events (no aliases, bounded depth: no recursion blow-up)."""
    import yaml

    try:
        depth = 0
        for event in yaml.parse(text, Loader=_loader()):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                line = event.start_mark.line + 1 if event.start_mark is not None else None
                raise LedgerError(file, line, None, "YAML anchors and aliases are not allowed in a ledger")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    line = event.start_mark.line + 1 if event.start_mark is not None else None
                    raise LedgerError(file, line, None, f"nesting deeper than {MAX_DEPTH} levels")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        return yaml.compose(text, Loader=_loader())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise LedgerError(file, line, None, f"invalid YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise LedgerError(file, None, None, f"invalid YAML: {exc}") from None


def _field_name(loc: tuple[Any, ...], data: Any) -> tuple[str, Path_]:
    """Turn a pydantic error location into ``claims[1].value`` and the data path."""
    name = ""
    path: list[str | int] = []
    cursor = data
    tag_skipped = False
    for part in loc:
        if isinstance(cursor, dict) and not tag_skipped and part == cursor.get("kind"):
            tag_skipped = True  # pydantic puts the union tag in the location
            continue
        if isinstance(cursor, list) and isinstance(part, int):
            name += f"[{part}]"
            path.append(part)
            cursor = cursor[part] if part < len(cursor) else None
        elif isinstance(cursor, dict) and part in cursor:
            name += f".{part}" if name else str(part)
            path.append(part)
            cursor = cursor[part]
        elif isinstance(cursor, dict) and isinstance(part, str):
            name += f".{part}" if name else str(part)  # a missing field
            cursor = None
    return name or "(top level)", tuple(path)


def _line_for(path: Path_, positions: dict[Path_, int]) -> int | None:
    for n in range(len(path), -1, -1):
        if path[:n] in positions:
            return positions[path[:n]]
    return None


def parse_ledger(text: str, file: str = "<ledger>", *, is_json: bool | None = None) -> Ledger:
    """Parse ledger text. ``file`` is used in error messages."""
    if is_json is None:
        is_json = file.lower().endswith(".json")
    if is_json:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LedgerError(file, exc.lineno, None, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
        except RecursionError:
            raise LedgerError(file, None, None, f"nesting deeper than {MAX_DEPTH} levels") from None
        except ValueError as exc:  # e.g. an integer with more digits than Python converts
            raise LedgerError(file, None, None, f"invalid JSON: {exc}") from None
        lines = claim_lines(text)
        if lines is not None:  # the claims' lines without YAML: the same ones (load/_json_lines.py)
            return _validated(data, text, file, lines)
        node = _json_as_yaml(text, file)
    else:
        import yaml

        node = _compose(text, file)
        if node is None:
            raise LedgerError(file, 1, None, "the ledger is empty; it needs at least `version: 1`")
        try:
            data = _loader()(text).construct_document(node)
        except yaml.YAMLError as exc:
            raise LedgerError(file, None, None, f"invalid YAML: {exc}") from None
        except (ValueError, TypeError, OverflowError) as exc:  # e.g. a 5,000-digit integer
            raise LedgerError(file, None, None, f"invalid YAML value: {exc}") from None
    positions = _node_positions(node, file)
    lines = {p[1]: line for p, line in positions.items() if len(p) == 2 and p[0] == "claims" and type(p[1]) is int}
    return _validated(data, text, file, lines, positions)


def _json_as_yaml(text: str, file: str) -> yaml.Node | None:
    """A JSON text composed as YAML, for its lines: None when PyYAML refuses it (no lines then);
    deep nesting is still an error."""
    try:
        return _compose(text, file)
    except LedgerError as exc:
        if "nesting" in exc.message:
            raise
        return None


def _node_positions(node: yaml.Node | None, file: str) -> dict[Path_, int]:
    positions: dict[Path_, int] = {}
    if node is not None:
        try:
            _positions(node, (), positions)
        except ValueError as exc:
            raise LedgerError(file, None, None, str(exc)) from None
    return positions


def _validated(
    data: Any, text: str, file: str, lines: dict[int, int], positions: dict[Path_, int] | None = None
) -> Ledger:
    """The ledger of parsed ``data``, each claim given its line (``lines``: by claim index). A
    validation error names its line from ``positions``; a JSON text read without YAML has none
    yet, and is composed as YAML only then (the same lines as before)."""
    if not isinstance(data, dict):
        raise LedgerError(file, 1, None, "the ledger must be a mapping with `version`, `sources`, `claims`")
    load_plugins()  # plugin claim kinds join the ledger's union before it is validated
    try:
        ledger = Ledger.model_validate(data)
    except ValidationError as exc:
        if positions is None:
            positions = _node_positions(_json_as_yaml(text, file), file)
        errors = exc.errors()
        first = errors[0]
        field, path = _field_name(first["loc"], data)
        if "'kind'" in first["msg"]:
            field, path = f"{field}.kind", (*path, "kind")
        line = _line_for(path, positions)
        message = first["msg"]
        if len(errors) > 1:
            more = []
            for err in errors[1:6]:
                f2, p2 = _field_name(err["loc"], data)
                l2 = _line_for(p2, positions)
                more.append(f"{file}:{l2}: {f2}: {err['msg']}")
            message += "\n" + "\n".join(more)
        raise LedgerError(file, line, field, message) from None
    for i, claim in enumerate(ledger.claims):
        claim._line = lines.get(i)
    ledger._path = file
    ledger._sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return ledger


def load_ledger(path: str | Path) -> Ledger:
    """Read and validate a ledger file (``.yaml``, ``.yml`` or ``.json``)."""
    p = Path(path)
    file = str(path)
    try:
        size = p.stat().st_size
        if size > MAX_LEDGER_BYTES:
            raise LedgerError(file, None, None, f"ledger is {size:,} bytes, over the {MAX_LEDGER_BYTES:,} limit")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise LedgerError(file, None, None, "file not found") from None
    except IsADirectoryError:
        raise LedgerError(file, None, None, "is a directory, not a ledger file") from None
    except OSError as exc:
        raise LedgerError(file, None, None, f"cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise LedgerError(file, line, None, "not UTF-8 text") from None
    ledger = parse_ledger(text, file)
    ledger._path = str(p.resolve())
    return ledger
