"""Stage 3: independent checks. Each takes a claim and the run context and returns findings."""
