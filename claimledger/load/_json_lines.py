"""The line of each claim of a JSON ledger, read from the JSON text itself.

A JSON ledger's claim lines used to come from composing the text a second time as YAML (JSON is
a subset of YAML's flow style): about as slow as the rest of a warm run's ledger reading, and the
reason PyYAML was imported at all for a JSON ledger. :func:`claim_lines` finds the same lines from
the JSON tokens, but only for text on which the YAML composer is known to agree with JSON on where
each claim starts; on anything else it answers None and the caller composes the YAML as before, so
the lines (and their absence, where PyYAML refuses a valid JSON text) never change.

YAML differs from JSON, for this purpose, on: characters YAML does not accept or counts as line
breaks (C1 controls, DEL, U+0085, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF; a carriage return not
followed by a line feed), ``\\u`` escapes of surrogates (a JSON-encoded emoji: PyYAML refuses it),
tabs outside the top-level object, a mapping key whose ``:`` is on a later line or more than 1,024
characters on (a YAML simple key), and nesting deeper than the ledger's limit (the YAML path raises
its error). tests/test_json_ledger_lines.py compares both readings on generated layouts.
"""

from __future__ import annotations

import functools
import json
import re

# every character outside this class sends the text to the YAML path (compiled when a text is not
# ASCII: its ranges cost a few milliseconds to compile; on ASCII text the second class is the same test)
_PLAIN = "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
_PLAIN_ASCII = re.compile("[^\t\n\r\x20-\x7e]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# a JSON string, optionally followed by the colon that makes it a key; or one structural character
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"([ \t\r\n]*:)?|[{}\[\],]')
MAX_KEY_SPAN = 250  # characters from a key's opening quote to its colon (YAML's limit is 1,024)
MAX_DEPTH = 30  # below the ledger's nesting limit (32): deeper texts take the YAML path and its error


@functools.cache
def _plain() -> re.Pattern[str]:
    return re.compile(_PLAIN)


def claim_lines(text: str) -> dict[int, int] | None:
    """The 1-based line of each claim (by its index in the top-level ``claims`` array: the line of
    its ``{``) of a text ``json.loads`` accepted, or None when the YAML path must decide."""
    odd = _PLAIN_ASCII if text.isascii() else _plain()
    if odd.search(text) is not None or _SURROGATE_ESCAPE.search(text) is not None:
        return None
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return None
    first, last = text.find("{"), text.rfind("}")
    if first < 0 or "\t" in text[:first] or "\t" in text[last:]:
        return None
    lines: dict[int, int] = {}
    depth = 0
    claims_keys = 0
    armed = False  # the last token was the top-level key "claims"
    in_claims = False  # depth 2 is the claims array
    line, counted, prev_end = 1, 0, 0
    for m in _TOKEN.finditer(text):
        start = m.start()
        tok = text[start]
        opens_claims, armed = armed and tok == "[", False
        at_claims = in_claims and depth == 2
        if at_claims and text[prev_end:start].strip():
            return None  # a number, true, false or null as a claim: the YAML path reads it
        prev_end = m.end()
        if tok == '"':
            colon = m.group(1)
            if colon is None:
                if at_claims:
                    return None  # a string as a claim
                continue
            if "\n" in colon or "\r" in colon or m.end() - start > MAX_KEY_SPAN:
                return None
            if depth == 1:
                key = text[start : m.end() - len(colon)]
                if key == '"claims"' or ("\\" in key and json.loads(key) == "claims"):
                    claims_keys += 1
                    if claims_keys > 1:
                        return None  # a repeated key: JSON keeps the last value, YAML's lines the first
                    armed = True
        elif tok in "{[":
            if at_claims:
                if tok != "{":
                    return None  # an array as a claim
                line += text.count("\n", counted, start)
                counted = start
                lines[len(lines)] = line
            depth += 1
            if depth > MAX_DEPTH:
                return None
            in_claims = in_claims or opens_claims
        elif tok in "}]":
            depth -= 1
            if depth < 2:
                in_claims = False
    return lines
