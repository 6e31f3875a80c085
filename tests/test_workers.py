"""coursekit.workers: DataLoader workers started as fresh Pythons (spawn: Windows, macOS; forkserver: Linux from
Python 3.14) cannot import what a notebook defined. The guard names it and says what to do; a notebook shows the same
words in place of "worker exited unexpectedly". (A class in a module works: lesson 06 shows it, under nbval.)"""

from __future__ import annotations

import re
import textwrap
import threading
import time

import nbformat
import pytest
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset

from autograder.core import course, notebooks
from coursekit import workers


class _Squares(Dataset):
    """A data set whose class claims to live in ``__main__``, as a notebook's classes do."""

    def __len__(self):
        return 10

    def __getitem__(self, i):
        return torch.tensor([float(i)])


_Squares.__module__ = "__main__"


def _in_main(batch):
    return batch


_in_main.__module__ = "__main__"
_starts = lambda _worker: None   # noqa: E731 (a lambda at the top of a notebook: what spawned workers cannot get)
_starts.__module__ = "__main__"


def test_start_method_reads_the_loaders_context_or_the_default():
    assert workers.start_method(DataLoader(_Squares(), num_workers=2, multiprocessing_context="spawn")) == "spawn"
    assert workers.start_method(DataLoader(_Squares(), num_workers=2, multiprocessing_context="forkserver")) == "forkserver"
    assert workers.start_method(DataLoader(_Squares(), num_workers=2)) in ("fork", "spawn", "forkserver")


def test_the_notebooks_classes_functions_and_lambdas_are_named():
    loader = DataLoader(_Squares(), num_workers=2, collate_fn=_in_main, worker_init_fn=_starts)
    assert workers.notebook_names(loader) == ["class _Squares", "function _in_main", "function <lambda>"]
    assert workers.notebook_names(DataLoader(TensorDataset(torch.zeros(3, 2)), num_workers=2)) == []


def test_what_cannot_be_pickled_at_all_is_named_too():
    holder = TensorDataset(torch.zeros(3, 2))
    holder.lock = threading.Lock()
    (named,) = workers.notebook_names(DataLoader(holder, num_workers=2))
    assert named.startswith("the dataset, which cannot be pickled (TypeError")


def test_a_large_data_set_is_not_copied_to_find_the_names():
    big = TensorDataset(torch.zeros(20_000_000))   # 80 MB that a real pickle would copy
    start = time.perf_counter()
    assert workers.notebook_names(DataLoader(big, num_workers=2)) == []
    assert time.perf_counter() - start < 0.5


def test_the_guard_says_what_spawned_workers_cannot_import_and_what_to_do():
    with pytest.raises(workers.WorkersCannotStart) as refused:
        workers.check_workers(DataLoader(_Squares(), num_workers=2, multiprocessing_context="spawn"))
    message = str(refused.value)
    assert "'spawn'" in message and "class _Squares" in message
    assert ".py file next to the notebook" in message and "num_workers=0" in message and "Lesson 06" in message


def test_the_guard_lets_through_what_can_start():
    for loader in (DataLoader(_Squares(), num_workers=0, multiprocessing_context=None),
                   DataLoader(_Squares(), num_workers=2, multiprocessing_context="fork"),
                   DataLoader(TensorDataset(torch.zeros(4, 1)), num_workers=2, multiprocessing_context="spawn")):
        assert workers.check_workers(loader) is loader


# --- in a notebook's kernel, with real workers -------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELLS = {
    "setup": "import coursekit, torch\nfrom torch.utils.data import DataLoader, Dataset",
    "class": textwrap.dedent("""\
        class Squares(Dataset):
            def __len__(self):
                return 10

            def __getitem__(self, i):
                return torch.tensor([float(i)])"""),
    "spawned": "list(DataLoader(Squares(), batch_size=4, num_workers=2, multiprocessing_context='spawn'))",
    "other": "torch.zeros(2, 3) @ torch.zeros(2, 3)",
}


@pytest.fixture(scope="module")
def ran():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in _CELLS.values()])
    notebooks.client(nb, course.ROOT, timeout=180).execute()
    return dict(zip(_CELLS, nb.cells))


def _shown(cell) -> str:
    (error,) = notebooks.errors(cell)
    return _ANSI.sub("", "\n".join(error["traceback"]))


@pytest.mark.slow
def test_a_notebooks_dataset_with_two_spawned_workers_gets_the_course_message(ran):
    """The class in a module gets the right batches with spawned workers: lesson 06 runs that itself (nbval)."""
    (error,) = notebooks.errors(ran["spawned"])
    assert error["ename"] == "RuntimeError" and "exited unexpectedly" in error["evalue"]   # the error as raised
    shown = _shown(ran["spawned"])
    assert shown.startswith("✗ DataLoader workers:") and "class Squares" in shown and ".py file" in shown, shown
    other = _shown(ran["other"])   # any other error keeps its usual traceback
    assert "DataLoader workers" not in other and "Traceback" in other and "mat1 and mat2" in other
