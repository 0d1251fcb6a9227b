"""Stage 1: load the ledger, sources and datasets into model objects."""
