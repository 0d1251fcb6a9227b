"""Optional surfaces for agents and services: an MCP server and an HTTP service.

Both are thin: they confine every path to a root given at start-up, build the
same inputs the CLI builds, call :func:`claimledger.gate` (or mark, lint,
audit) and return :meth:`claimledger.Report.to_dict` unchanged in shape. Their
third-party packages (``mcp``; ``starlette`` + ``uvicorn``) are imported only
when a server starts: ``pip install 'claimledger[mcp]'`` or ``'claimledger[server]'``.
"""
