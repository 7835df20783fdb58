# lexbench: two commands set everything up on a fresh machine with Python 3.11.
#   make bench   run the default suite x default local providers, print the leaderboard
#   make test    run the harness's own tests and the golden snapshots
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SUITE     ?= demo
PROVIDERS ?=
WORKERS   ?= auto
CORPUS    ?= ../shared/corpus
SUITES    ?= build/suites

.PHONY: bench test check setup corpus-suites bench-corpus clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# Provider misses are results: pytest's exit 1 (some items failed) is a successful benchmark run.
bench: $(STAMP)
	$(PY) -m pytest -n $(WORKERS) --suite=$(SUITE) $(if $(PROVIDERS),--providers=$(PROVIDERS)) -q --tb=no -rfs; \
	  status=$$?; [ $$status -le 1 ] || { echo "lexbench: the harness failed (pytest exit $$status)"; exit $$status; }

# pytest's exit 5 (no tests collected) is a broken setup, never a pass.
test: $(STAMP)
	$(PY) -m pytest tests golden -n $(WORKERS) -q; status=$$?; \
	  if [ $$status -eq 5 ]; then echo "make test: pytest collected no tests (exit 5)"; exit 1; fi; exit $$status

check: test
	$(PY) -m lexbench.cli --help > /dev/null

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
	rm -rf $(VENV) build runs
