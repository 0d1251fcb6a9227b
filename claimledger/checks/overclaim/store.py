"""The overclaim rules' results remembered across runs (issue 19: a warm run must not redo them).

A claim's rule hits are a pure function of the three strings the rules read (the statement, the
quote, the source text around the found quote) and of the code that reads them. The key is the
SHA-256 of all of them together (:func:`key_text`):

* ``statement``, ``quote``, ``context``: exactly the arguments of
  :func:`claimledger.checks.overclaim.overclaim_hits` (``context`` ``None`` when the quote was not
  found); the claim id is not part of the hits (:meth:`Hit.to_finding` adds it);
* ``code``: :func:`rules_fingerprint`, the SHA-256 over the source of every file whose code the
  rules run (:func:`rule_files`: all of checks/overclaim/ and the helpers they call, the C
  normalizer's source included), the Python version and the Unicode database version (case
  folding and ``\\w`` depend on both);
* the store's own format version.

The store is one SQLite file in the cache directory (``overclaim/v2.sqlite``), used when the index
cache is (``GateConfig.index_cache``). New results are written in one transaction when the run
closes. Every row carries a SHA-256 over its key and payload; a row that fails it, does not parse
into hits, or any error of the store itself, counts as not stored: the rules run again. A stored
result only ever stands for the rules' own answer on the same input and code, so it can never
turn a claim into a verified one that the rules would have flagged.
"""

from __future__ import annotations

import functools
import hashlib
import json
import platform
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimledger._exceptions import ClaimledgerError
from claimledger._files import digest_files
from claimledger.checks._rowstore import CheckedRows, run_rows
from claimledger.checks.overclaim._hit import Hit
from claimledger.model.finding import Reason

if TYPE_CHECKING:
    from claimledger.checks.context import RunContext

STORE_VERSION = 2  # 2: the key is no longer the JSON of its fields (key_text)


class StoreRowError(ClaimledgerError):
    """A stored row that does not parse into hits (never raised out of the store: the rules run again)."""

_PACKAGE = Path(__file__).resolve().parents[2]  # claimledger/
# The code the rules run besides checks/overclaim/*.py (every file there is read too).
# tests/test_overclaim_store.py traces overclaim_hits on English and Japanese input and fails when
# it runs code of a file that is neither here nor in checks/overclaim/.
RULE_FILES = (
    "numbers.py",
    "normalize.py",
    "_normalize_core.py",
    "_cnormalize.c",  # the compiled normalizer (locate() normalizes the context)
    "checks/quote.py",  # strip_outer_quotes
    "checks/negative.py",
    "model/finding.py",
    "model/reasons.py",
)


def rule_files() -> list[str]:
    """The files :func:`rules_fingerprint` reads, relative to the package."""
    own = sorted(p.relative_to(_PACKAGE).as_posix() for p in (_PACKAGE / "checks" / "overclaim").glob("*.py"))
    return own + list(RULE_FILES)


@functools.cache
def rules_fingerprint() -> str:
    """SHA-256 over the code the overclaim rules run (see the module docstring)."""
    digest = hashlib.sha256()
    digest_files(digest, _PACKAGE, rule_files())
    digest.update(f"python {platform.python_version()}; unicode {unicodedata.unidata_version}".encode())
    return digest.hexdigest()


def result_key(statement: str, quote: str | None, context: str | None) -> str:
    """The key of the rules' hits on these arguments under this code: the SHA-256 of :func:`key_text`
    in UTF-8 (a lone surrogate written as itself, ``surrogatepass``: the encoding is one-to-one)."""
    return hashlib.sha256(key_text(statement, quote, context).encode("utf-8", "surrogatepass")).hexdigest()


def key_text(statement: str, quote: str | None, context: str | None) -> str:
    """A head line ``"{STORE_VERSION} {rules_fingerprint()} {s} {q} {c}\\n"``, then the strings it counts.

    ``s``, ``q``, ``c`` are the lengths of ``statement``, ``quote`` and ``context``; ``q`` is -2 for a
    quote equal to the statement (not written again: a quote claim without a statement), and
    ``q`` or ``c`` -1 for None. The strings follow in that order, with no separator: the lengths
    split the text one way only, so two different argument lists never give the same text
    (tests/test_overclaim_store.py checks this against the fields themselves). Before store
    version 2 the text was the JSON of the five fields, a third slower to write."""
    if quote == statement:
        q, quoted = -2, ""
    elif quote is None:
        q, quoted = -1, ""
    else:
        q, quoted = len(quote), quote
    c, around = (-1, "") if context is None else (len(context), context)
    return f"{_key_head()}{len(statement)} {q} {c}\n{statement}{quoted}{around}"


@functools.cache
def _key_head() -> str:
    """The start of every key's text: the format version and the rules' fingerprint."""
    return f"{STORE_VERSION} {rules_fingerprint()} "


def dump_hits(hits: list[Hit]) -> str:
    if not hits:
        return "[]"  # json.dumps([]): most claims
    return json.dumps(
        [
            {
                "reason": h.reason.value, "rule": h.rule,
                "statement_span": list(h.statement_span) if h.statement_span is not None else None,
                "statement_text": h.statement_text, "source_span": list(h.source_span),
                "source_text": h.source_text, "source_in": h.source_in,
                "suggestion": h.suggestion, "message": h.message,
            }
            for h in hits
        ]
    )  # fmt: skip


def _span(value: Any) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)):
        raise StoreRowError("not a span")
    return value[0], value[1]


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise StoreRowError("not a string")
    return value


def load_hits(payload: str) -> list[Hit]:
    """The hits of a stored payload; :class:`StoreRowError` when it is not one."""
    try:
        return _load_hits(payload)
    except (ValueError, KeyError, TypeError) as exc:  # not JSON, a field missing, an unknown reason
        raise StoreRowError(f"not a stored result: {type(exc).__name__}: {exc}") from exc


def _load_hits(payload: str) -> list[Hit]:
    rows = json.loads(payload)
    if not isinstance(rows, list):
        raise StoreRowError("not a list of hits")
    out: list[Hit] = []
    for r in rows:
        if not isinstance(r, dict) or len(r) != 9:
            raise StoreRowError("not a hit")
        span = r["statement_span"]
        out.append(
            Hit(
                Reason(_text(r["reason"])), _text(r["rule"]), None if span is None else _span(span),
                _text(r["statement_text"]), _span(r["source_span"]), _text(r["source_text"]),
                _text(r["source_in"]), _text(r["suggestion"]), _text(r["message"]),
            )
        )  # fmt: skip
    return out


class ResultStore(CheckedRows):
    """Rule results of earlier runs (read as needed) and of this run (written by :meth:`close`)."""

    TABLE = "hits"

    def get(self, key: str) -> list[Hit] | None:
        """The stored hits for ``key``, or None (not stored, or a row that fails its check)."""
        payload = self._new.get(key)
        if payload is None and not self.cold():
            payload = self._get([key]).get(key)
        if payload is None:
            return None
        try:
            return load_hits(payload)
        except StoreRowError:
            return None

    def put(self, key: str, hits: list[Hit]) -> None:
        self._new[key] = dump_hits(hits)

    def remembered(
        self, statement: str, quote: str | None, context: str | None,
        rules: Callable[[str, str | None, str | None], list[Hit]],
    ) -> list[Hit]:  # fmt: skip
        """``rules(statement, quote, context)``, answered from the store when an earlier run (or
        this one) computed it on the same input with the same code."""
        key = result_key(statement, quote, context)
        hits = self.get(key)
        if hits is None:
            hits = rules(statement, quote, context)
            self.put(key, hits)
        return hits


def store_path(cache_dir: Path) -> Path:
    return cache_dir / "overclaim" / f"v{STORE_VERSION}.sqlite"


_STORE = "overclaim_store"  # RunContext.shared: this run's ResultStore (None: the index cache is off)


def run_store(ctx: RunContext) -> ResultStore | None:
    """The run's store (opened at first use, written when the run closes), or None without the index cache."""
    store = run_rows(ctx, _STORE, lambda d: ResultStore(store_path(d)))
    return store if isinstance(store, ResultStore) else None
