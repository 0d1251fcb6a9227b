"""Stage 5: render a :class:`~claimledger.model.report.Report`."""
