"""Exceptions raised by claimledger: one rooted tree.

Every exception the package raises on purpose derives from ``ClaimledgerError``
(``tests/test_exceptions.py`` walks the package and fails on any other). The
tree, with the module that defines each class when it is not this one:

* ``ClaimledgerError`` - base of everything the package raises on purpose.
    * ``InputError`` - a file, option or request given by the user cannot be
      used (the CLI exits 2).
        * ``LedgerError`` - the ledger is malformed; carries file, line and field.
        * ``ConfigError`` - a setting cannot be used.
            * ``JudgeConfigError`` (:mod:`claimledger.judge.types`) - a judge
              cannot be built (unknown kind, missing key, model or extra).
            * ``PluginError`` - a plugin failed to load or registered something
              the registry refuses (a claim kind, reason code or check twice, a
              check for an unknown kind).
        * ``MissingExtraError`` - an optional extra is not installed; also an
          :class:`ImportError`, its message is the ``pip install`` hint.
        * ``ServeError`` (:mod:`claimledger.server._core`) - a request the
          servers refuse: ``BadRequest``, ``PathNotFound``, ``PathOutsideRoot``,
          ``UrlRefused``, and the HTTP server's own ``HttpError``
          (:mod:`claimledger.server.http`).
    * ``SourceError`` - a source could not be loaded; turned into a finding,
      never raised past :func:`claimledger.gate`.
    * ``FileChanged`` (:mod:`claimledger.load.fetch`) - a file changed while
      claimledger was replacing it (``mark --in-place``); also an :class:`OSError`.
    * ``RootError`` (:mod:`claimledger.server._rootfs`) - a path the servers'
      root refuses (outside, missing, not a file); also an :class:`OSError`,
      turned into a ``ServeError``.
    * ``PoolError`` (:mod:`claimledger.server._pool`) - the HTTP server's worker
      pool could not run a check: ``Busy`` (503), ``TimedOut`` (504),
      ``WorkerDied`` (500).
    * ``QueryError`` (:mod:`claimledger.load.data`) - a dataset query failed;
      turned into a finding.
    * ``StoreRowError`` (:mod:`claimledger.checks.overclaim.store`) - a stored
      overclaim result that does not parse; never leaves the store (the rules
      run again).
    * ``_NotPlain`` (:mod:`claimledger.model.finding`) - a finding's value that is
      not plain JSON data; never leaves ``Finding.to_dict`` (``asdict`` copies it).
    * ``BackendError`` - an optional backend failed; turned into a MED finding.
        * ``JudgeError`` (:mod:`claimledger.judge.types`) - a judge gave no
          usable answer (timeout, HTTP error, refusal, malformed output).
        * ``ServiceError`` (:mod:`claimledger.refs.client`) - a reference
          service (Crossref, DataCite, arXiv, OpenAlex) could not answer.

One exception stays outside on purpose and never leaves its module:
``HTMLUnreadable`` (:mod:`claimledger.load.html`, which imports nothing from the
package so the extractor child starts fast) is turned into a ``SourceError``
by every caller.

Each class carries what a caller needs to act: ``LedgerError`` its file, line
and field; ``SourceError`` and ``QueryError`` a reason code; ``JudgeError`` the
failure kind and the attempts made.
"""

from __future__ import annotations


class ClaimledgerError(Exception):
    """Base class of every error claimledger raises on purpose.

    Catch it to handle anything the package reports::

        try:
            report = claimledger.gate("ledger.yaml")
        except claimledger.ClaimledgerError as exc:
            print(f"cannot check: {exc}")
    """


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


class ConfigError(InputError):
    """A setting (option, environment variable, configuration value) cannot be used."""


class MissingExtraError(InputError, ImportError):
    """An optional extra is not installed; the message says which ``pip install`` adds it."""


class SourceError(ClaimledgerError):
    """A source could not be loaded. ``reason`` is a :class:`Reason` code value."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        self.message = message
        super().__init__(message)


class BackendError(ClaimledgerError):
    """An optional backend (a judge model, an encoder) failed. Never a pass: a MED finding."""


class PluginError(ConfigError):
    """A plugin failed to load, or registered something the registry refuses (a duplicate, an unknown kind)."""
