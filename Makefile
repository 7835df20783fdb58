# lexbench: two commands set everything up on a fresh machine with Python 3.11.
#   make bench   run the real suite (articles) x default local providers, print the leaderboard; without
#                its evidence (.evidence/articles, or fetched from ../shared/corpus) the demo suite, with a note
#   make test    run the harness's own tests and the golden snapshots, then make package-check
#   make package-check  build the wheel, install it in a fresh venv outside the checkout, run the demo there
#   make test-fast  the same without the tests marked slow (no process or server started): the quick loop
#   make perf    print the performance figures (issue 10) with their targets; exit 1 when one is missed
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SUITE     ?=
PROVIDERS ?=
WORKERS   ?= auto
CORPUS    ?= ../shared/corpus
SUITES    ?= build/suites
# Every pytest process imports ~200 modules; without bytecode caches (some images set this variable)
# each start recompiles them and pytest re-rewrites its plugins: ~1 s more per process and per xdist worker.
# KEEP_PYTHONDONTWRITEBYTECODE=1 keeps your setting (no __pycache__ written, slower start-up).
ifndef KEEP_PYTHONDONTWRITEBYTECODE
unexport PYTHONDONTWRITEBYTECODE
endif

.PHONY: bench test test-fast package-check check perf setup workers crawl4ai langchain corpus-suites bench-corpus clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,engines,sdk-check]'
	touch $(STAMP)

setup: $(STAMP)

# The Node worker (jsdom engine, Readability on jsdom): its pinned npm packages, from package-lock.json.
NODE_WORKER  := providers/workers/readability-js
WORKER_STAMP := $(NODE_WORKER)/node_modules/.installed
$(WORKER_STAMP): $(NODE_WORKER)/package-lock.json
	@if command -v npm >/dev/null; then \
	  cd $(NODE_WORKER) && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else echo "make workers: npm is absent; the jsdom and readability-js providers will be skipped with that reason"; fi

workers: $(WORKER_STAMP)

# Optional and large: local crawl4ai for the crawl4ai provider (uses the system Chromium, downloads no browser).
crawl4ai: $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev,engines,crawl4ai]'

# LangChain's WebBaseLoader for the langchain provider (no browser; about 160 MB). make test installs it:
# the reader-judged set (tests/evals/test_judged_gate.py) regenerates langchain's judged answers. Its own
# tests run in tests/providers/test_langchain.py and are skipped, with that reason, without it.
LANGCHAIN_STAMP := $(VENV)/.langchain
$(LANGCHAIN_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev,engines,sdk-check,langchain]'
	touch $@

langchain: $(LANGCHAIN_STAMP)


# Provider misses are results: pytest's exit 1 (some items failed) is a successful benchmark run.
# SUITE=name runs that suite; by default articles when its evidence verifies or can be fetched from the
# corpus mirror $(CORPUS), otherwise demo. A suite whose pages are built and recorded (SUITE=dynamic:
# sources.json of kind built_site) gets its evidence first when it does not verify: npm ci, the build,
# the recording in Chromium, every archive checked against its sha256.
bench: $(STAMP)
	@suite="$(SUITE)"; \
	if [ -z "$$suite" ]; then \
	  if $(VENV)/bin/lexbench verify-inputs --suite articles --source .evidence/articles >/dev/null 2>&1 \
	     || { test -d $(CORPUS) && $(VENV)/bin/lexbench fetch-evidence --suite articles --mirror $(CORPUS); }; then \
	    suite=articles; \
	  else \
	    suite=demo; \
	    echo "make bench: running the demo suite; the real one, articles, needs its evidence: lexbench fetch-evidence --suite articles [--mirror DIR] (from a copy of the corpus, or from the upstream repositories), then make bench"; \
	  fi; \
	elif [ -f cases/$$suite/sources.json ] && grep -q '"kind": "built_site"' cases/$$suite/sources.json \
	     && ! $(VENV)/bin/lexbench verify-inputs --suite $$suite --source .evidence/$$suite >/dev/null 2>&1; then \
	  $(VENV)/bin/lexbench fetch-evidence --suite $$suite || exit 1; \
	fi; \
	$(PY) -m pytest -n $(WORKERS) --suite=$$suite $(if $(PROVIDERS),--providers=$(PROVIDERS)) -q --tb=no -rfs; \
	  status=$$?; [ $$status -le 1 ] || { echo "lexbench: the harness failed (pytest exit $$status)"; exit $$status; }

# pytest's exit 5 (no tests collected) is a broken setup, never a pass. make test runs every test and
# prints how long it took; make test-fast leaves out the tests marked slow (those that start a process
# or a server: pytest runs, browsers, Node and extraction workers, replay and loopback servers).
TEST_RUN = start=$$(date +%s); $(PY) -m pytest tests golden -n $(WORKERS) -q $(1); status=$$?; \
	  echo "make $(2): $$(( $$(date +%s) - start )) s"; \
	  if [ $$status -eq 5 ]; then echo "make $(2): pytest collected no tests (exit 5)"; exit 1; fi; exit $$status

test: $(STAMP) workers $(LANGCHAIN_STAMP)
	@$(call TEST_RUN,,test)
	@$(MAKE) --no-print-directory package-check

# The wheel as a user gets it: built, installed into a fresh venv outside the checkout, the demo suite and
# a user's test file (examples/) run there. Needs the package registry (or pip's cache), nothing else.
package-check: $(STAMP)
	@bash tools/package_check.sh $(PY)

test-fast: $(STAMP)
	@$(call TEST_RUN,-m "not slow",test-fast)

check: test
	$(PY) -m lexbench.cli --help > /dev/null

# Performance figures (issue 10): ratios measured side by side, median of ROUNDS rounds; takes minutes.
# Figures 1, 3a and 4 need the real corpus and are skipped, with the reason, without it. PERF_ARGS
# passes more options, e.g. PERF_ARGS="--only 2,5" or "--quick" (figure 3a on a quarter of the corpus).
ROUNDS ?= 3
perf: $(STAMP)
	LEXBENCH_CORPUS=$(CORPUS) $(PY) -m benchmarks.perf --rounds $(ROUNDS) $(PERF_ARGS)

# Import the real corpus (read from ../shared/corpus, written outside git) and benchmark it.
corpus-suites: $(STAMP)
	@test -d $(CORPUS) || { echo "$(CORPUS) is absent: the real corpus is not on this machine"; exit 1; }
	for f in scrapinghub-aeb mozilla-readability magic-html-bench; do \
	  test -d $(SUITES)/$$f || $(VENV)/bin/lexbench import-corpus --format $$f --source $(CORPUS)/$$f --output $(SUITES)/$$f || exit 1; \
	done

bench-corpus: corpus-suites
	for f in scrapinghub-aeb mozilla-readability magic-html-bench; do \
	  $(PY) -m pytest -n $(WORKERS) --suite=$(SUITES)/$$f $(if $(PROVIDERS),--providers=$(PROVIDERS)) -q --tb=no; \
	  status=$$?; [ $$status -le 1 ] || exit $$status; \
	done

clean:
	rm -rf $(VENV) build runs .evidence
