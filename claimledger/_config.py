"""Run configuration: one frozen object, built from defaults, the environment and flags."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MIN_QUOTE_CHARS = 8
DEFAULT_TOLERANCE = 0.005
DEFAULT_FETCH_TIMEOUT = 20.0
DEFAULT_MAX_SOURCE_BYTES = 200 * 1024 * 1024
DEFAULT_MAX_PDF_PAGES = 5000
DEFAULT_SQL_TIMEOUT = 30.0
DEFAULT_SQL_MEMORY = "512MB"  # DuckDB's own limit: the first line, below the process limit
DEFAULT_SQL_PROCESS_MEMORY = 1 << 30  # the SQL child process's heap and address-space limit (bytes)
DEFAULT_PDF_TIMEOUT = 60.0
DEFAULT_MAX_SOURCE_CHARS = 20_000_000  # text extracted from one PDF or HTML source
DEFAULT_REFS_TIMEOUT = 10.0
DEFAULT_EXTRACT_MEMORY = 1 << 30  # the extraction child process's heap and address-space limit (bytes)


@dataclass(frozen=True)
class GateConfig:
    """Everything that changes how a run checks. Defaults are the ``DEFAULT_*`` constants."""

    fail_closed: bool = True
    min_quote_chars: int = DEFAULT_MIN_QUOTE_CHARS
    default_tolerance: float = DEFAULT_TOLERANCE
    fetch_timeout: float = DEFAULT_FETCH_TIMEOUT
    allow_private_urls: bool = False
    cache_dir: Path | None = None
    refresh: bool = False
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES
    max_pdf_pages: int = DEFAULT_MAX_PDF_PAGES
    sql_timeout: float = DEFAULT_SQL_TIMEOUT
    sql_memory_limit: str = DEFAULT_SQL_MEMORY
    sql_process_memory: int = DEFAULT_SQL_PROCESS_MEMORY
    pdf_timeout: float = DEFAULT_PDF_TIMEOUT  # seconds to extract one PDF or HTML source (child process)
    max_source_chars: int = DEFAULT_MAX_SOURCE_CHARS
    extract_memory: int = DEFAULT_EXTRACT_MEMORY
    metrics_files: tuple[Path, ...] = field(default=())
    index_cache: bool = True
    bib_files: tuple[Path, ...] = field(default=())  # --bib: bibliographies checked beside the ledger's
    offline: bool = False  # --offline: answers only from the cache; the rest MED "not checked"
    refs_timeout: float = DEFAULT_REFS_TIMEOUT  # seconds per reference-service request
    fetch_sources: bool = False  # --fetch-sources: a verified reference's arXiv/OA PDF is its quotes' source
