"""The draft formats (``--draft-format``): a module of its own so that the command line can name them
without importing the draft parsers (claimledger/extract/draft.py reads drafts in these formats)."""

from __future__ import annotations

FORMATS = ("markdown", "latex", "text")
