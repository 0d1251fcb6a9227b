"""Exceptions raised by claimledger.

The tree:

* ``ClaimledgerError`` - base of everything the package raises on purpose.
    * ``InputError`` - a file given by the user cannot be used (exit code 2).
        * ``LedgerError`` - the ledger is malformed; carries file, line and field.
    * ``SourceError`` - a source could not be loaded; turned into a finding,
      never raised past :func:`claimledger.gate`.
"""

from __future__ import annotations


class ClaimledgerError(Exception):
    """Base class of every error claimledger raises on purpose."""


class InputError(ClaimledgerError):
    """A user-supplied file or option cannot be used. The CLI exits 2."""


class LedgerError(InputError):
    """The ledger file is malformed.

    ``str(error)`` reads ``file:line: field: message`` so editors can jump to it.
    """

    def __init__(self, file: str, line: int | None, field: str | None, message: str) -> None:
        self.file = file
        self.line = line
        self.field = field
        self.message = message
        where = f"{file}:{line}" if line else file
        what = f"{field}: " if field else ""
        super().__init__(f"{where}: {what}{message}")


class SourceError(ClaimledgerError):
    """A source could not be loaded. ``reason`` is a :class:`Reason` code value."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        self.message = message
        super().__init__(message)
