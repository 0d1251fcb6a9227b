# Two commands do all the setup on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: bench eval demo fuzz test lint typecheck check-all clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# the optional C core (claimledger/_cnormalize.c) is compiled by the install (hatch_build.py)
$(STAMP): pyproject.toml hatch_build.py claimledger/_cnormalize.c claimledger/_cseeds.c claimledger/_cnear.c claimledger/_cutf8skel.c claimledger/_lazytable.h | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev,mcp,server,docx,ray]"
	touch $(STAMP)

## demo: run `claimledger check` on the bundled examples (English and Japanese; no network)
demo: $(STAMP)
	@echo "== English: the seed-000 analytics report (numbers) and a paper's quotes =="
	$(BIN)/claimledger check --ledger examples/en/ledger.yaml --metrics examples/en/metrics.py || echo "(exit code $$?)"
	@echo
	@echo "== Japanese: 調査ダイジェスト (quotes from PDFs, one across a page break, and HTML pages, one with furigana) =="
	$(BIN)/claimledger check --ledger examples/ja/ledger.yaml || echo "(exit code $$?)"
	@echo
	@echo "== Japanese digest (seed 004): the writer's own [V] marks, recomputed by the program =="
	$(BIN)/claimledger lint examples/ja_digest/digest.md --ledger examples/ja_digest/ledger.yaml || echo "(exit code $$?)"
	$(BIN)/claimledger mark examples/ja_digest/digest.md --ledger examples/ja_digest/ledger.yaml -o .demo-digest.marked.md
	diff examples/ja_digest/digest.md .demo-digest.marked.md || true
	$(BIN)/claimledger lint .demo-digest.marked.md --ledger examples/ja_digest/ledger.yaml
	@rm -f .demo-digest.marked.md
	@echo
	@echo "== Attributions (\"Smith (2019) shows X\" without quoting): figures and names the source never prints =="
	@echo "   (line 4: a figure Smith never prints; line 5: names it never prints; the rest: meaning not checked without a judge)"
	$(BIN)/claimledger check examples/attribution/review.md --ledger examples/attribution/ledger.yaml || echo "(exit code $$?)"
	@echo
	@echo "(The examples contain planted errors, so FAIL above is the expected outcome.)"

## test: ruff, mypy, then the whole test suite (its summary is the last line). Installs what the
## browser tests need when missing (chromium, fonts-noto-cjk: scripts/install-test-deps.sh).
## Property tests run derandomized (hypothesis profile "ci"); `make test HYPOTHESIS_PROFILE=explore`
## explores at random.
HYPOTHESIS_PROFILE ?= ci
test: $(STAMP)
	scripts/install-test-deps.sh
	$(BIN)/ruff check claimledger evaluation tests scripts
	$(BIN)/mypy
	HYPOTHESIS_PROFILE=$(HYPOTHESIS_PROFILE) $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check claimledger evaluation tests scripts
	$(BIN)/ruff format --check claimledger evaluation tests

typecheck: $(STAMP)
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

## bench: speed and memory at scale (10-15 minutes; writes docs/benchmarks.md and .png)
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,mcp,server,bench]"
	$(BIN)/python scripts/bench.py $(BENCH_ARGS)
	$(BIN)/python scripts/bench_batch.py $(BENCH_BATCH_ARGS)

## eval: accuracy of every check (mutation benchmark + labelled slices in ../shared/bench; about a minute);
## writes docs/accuracy.md and claimledger/operating_points.json. The judge runs only when
## CLAIMLEDGER_JUDGE and CLAIMLEDGER_JUDGE_MODEL (and CLAIMLEDGER_JUDGE_URL) are set.
eval: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,eval]"
	$(BIN)/python -m evaluation.run $(EVAL_ARGS)
	$(BIN)/python scripts/refs_bench.py

## fuzz: coverage-guided fuzzing (atheris) of the ledger, source and draft loaders for FUZZ_SECONDS each;
## fails on the first crash and keeps the input in .fuzz/<target>-crash-*
FUZZ_SECONDS ?= 60
fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet "atheris>=2.3"
	PYTHON=$(BIN)/python fuzz/run.sh $(FUZZ_SECONDS)
