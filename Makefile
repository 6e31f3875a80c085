# Two commands do everything on a fresh machine:
#   make course   installs (first time only) and opens JupyterLab on the lessons
#   make test     installs (first time only) and runs the whole test suite
# Other targets: release, check NB=path, grade SUBMISSIONS=dir, variants, gpu-check, bench, clean.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed

# Offline data: use ../shared/data when it is there (read only), unless the variables are set already.
SHARED_DATA ?= ../shared/data
export COURSEKIT_MNIST_DIR ?= $(if $(wildcard $(SHARED_DATA)/mnist/*.gz),$(abspath $(SHARED_DATA)/mnist))
export COURSEKIT_FASHION_MNIST_DIR ?= $(if $(wildcard $(SHARED_DATA)/fashion-mnist/*.gz),$(abspath $(SHARED_DATA)/fashion-mnist))
export PATH := $(abspath $(BIN)):$(PATH)
export MPLBACKEND ?= Agg

# JupyterLab refuses to run as root unless told it is on purpose (containers, CI machines).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

PYTEST_ARGS ?=
NBVAL := --nbval-lax --nbval-cell-timeout=600 --nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: install course test release check grade variants gpu-check bench clean

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

course: install
	$(BIN)/jupyter lab --ServerApp.root_dir=lessons $(ROOT_FLAG)

test: install
	$(PY) -m pytest tests solutions $(NBVAL) $(PYTEST_ARGS)

release: install
	$(PY) -m autograder release

check: install
	$(PY) -m autograder check $(NB)

grade: install
	$(PY) -m autograder grade $(SUBMISSIONS)

variants: install
	$(PY) -m autograder variants

gpu-check: install
	$(PY) -m pytest tests -m gpu -rs

bench: install
	$(PY) bench/mnist_speed.py

clean:
	rm -rf graded .grading .pytest_cache .hypothesis
