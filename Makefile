# Two commands do everything on a fresh machine:
#   make course   installs (first time only) and opens JupyterLab on the lessons (student set-up);
#                 make course LANG=pt_BR opens an edition (lessons/pt_BR/, in Portuguese)
#   make test     installs (first time only) and runs the whole test suite
# Other targets: test-fast (the edit loop: unit tests, release sync, leaks; a few minutes), instructor
# (JupyterLab at the course root, nbgrader's instructor tools), nbgrader ARGS="..." (nbgrader's commands on
# the instructor's course), release, check NB=path,
# grade SUBMISSIONS=dir, variants, gpu-check, bench, clean. One lesson alone: make test PYTEST_ARGS="-m 08_mnist_mlp".

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
# Headless runs draw their figures with a backend that needs no screen. Only those: a notebook kernel
# started by `make course` must not inherit it, or no plot would ever show (courselab removes it too).
HEADLESS := test test-fast nbval check grade variants gpu-check bench release
$(HEADLESS): export MPLBACKEND ?= Agg

PYTEST_ARGS ?=
# The fast tier leaves out what executes notebooks, grades, drives a browser or starts Slurm.
FAST := -m "not slow and not browser and not slurm and not gpu"

.PHONY: install course instructor nbgrader test test-fast nbval release check grade variants gpu-check bench clean

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

# JupyterLab with the settings in jupyter/student (lessons/) or jupyter/instructor (the course root);
# see courselab/__init__.py. Extra options for `jupyter lab`: make course LAB_ARGS=--no-browser
LAB_ARGS ?=
# An edition: `make course LANG=pt_BR` opens lessons/pt_BR/ with JupyterLab and the course in Portuguese.
# LANG is also the locale every program reads, and make hands a LANG given on its command line to every process it
# starts: a bare `pt_BR` (no such locale, or a Latin-1 one) would change how Python and the kernels read and write
# files. So a LANG given to make names the edition only; the processes get that language's UTF-8 locale where the
# system has one (pt_BR.UTF-8), else C.UTF-8. A LANG that only comes from the environment is the locale, as always.
ifeq ($(origin LANG),command line)
EDITION := $(firstword $(subst ., ,$(LANG)))
override LANG := $(or $(shell locale -a 2>/dev/null | grep -i -m1 -x '$(EDITION)\.utf-\?8'),C.UTF-8)
endif
EDITION ?=
course: install
	$(PY) -m courselab student $(if $(EDITION),--lang $(EDITION)) $(LAB_ARGS)

instructor: install
	$(PY) -m courselab instructor $(LAB_ARGS)

# nbgrader's own commands on the instructor's course (the gradebook, exchange and course id of
# jupyter/instructor, as in make instructor): make nbgrader ARGS="collect 01_tensors"
ARGS ?= --help
nbgrader: install
	JUPYTER_CONFIG_PATH=$(abspath jupyter/instructor) $(PY) -m nbgrader $(ARGS)

# The suite, then nbval over every lesson and edition as a student first opens it (the cells that can only fail before
# the exercises are answered carry release's raises-exception tag). Every solution runs top to bottom in the suite
# already, as its reference run (in the grading box, no error allowed, GPU-only cells skipped on a CPU), where the few
# facts its nbval-check-output cells print are compared with their stored output (tests/test_nbval.py); a third run
# of each under nbval would only cost time (make nbval NOTEBOOKS=solutions/NN still runs one). Three workers
# (pytest-xdist) on this 2-core machine, one maths thread per kernel: a worker spends much of its time waiting (a
# kernel or a box starting, JupyterLab and the browser, nbgrader's commands, Slurm), and with two a core sat idle
# about half the time (20 min 7 s with two workers, 17 min 22 s with three, same tests, one run after the other).
# With three the machine is busy throughout (bench/suite_time.py reads /proc/stat): a fourth would only queue.
# Tests that share a fixture, and the cells of one notebook, go to one worker together, the longest first
# (tests/conftest.py). Serial: make test WORKERS=0.
WORKERS ?= 3
PARALLEL = $(if $(filter-out 0,$(WORKERS)),-n $(WORKERS) --dist loadscope --no-loadscope-reorder)
NBVAL := --nbval-lax --nbval-sanitize-with tests/nbval-sanitize.cfg --nbval-cell-timeout=600
test: export OMP_NUM_THREADS ?= 1
test: export MKL_NUM_THREADS ?= 1
# (GitHub Actions runs the notebooks as a matrix of their own, one job per lesson, and sets NBVAL_PATHS empty here.)
# The English lessons, and one lesson of an edition: an edition's code cells are the English ones token for token and
# its checks print the edition's words (both tested in tests/test_translations.py), so running all of its lessons again
# would repeat the English runs (15 more kernels) to prove nothing new. Every edition lesson: NBVAL_PATHS=lessons.
NBVAL_PATHS ?= $(sort $(wildcard lessons/[0-9]*_* lessons/ex[0-9]_*)) lessons/pt_BR/00_setup
test: install
	$(PY) -m pytest tests $(NBVAL_PATHS) $(NBVAL) $(PARALLEL) $(PYTEST_ARGS)

# nbval alone, on one notebook or folder: make nbval NOTEBOOKS=lessons/03_modules
NOTEBOOKS ?= solutions lessons
nbval: export OMP_NUM_THREADS ?= 1
nbval: install
	$(PY) -m pytest $(NOTEBOOKS) $(NBVAL) -p no:cacheprovider $(PYTEST_ARGS)

test-fast: install
	$(PY) -m pytest tests $(FAST) $(PYTEST_ARGS)

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
