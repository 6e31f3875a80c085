"""DataLoader workers on every laptop: what a spawned worker needs that a notebook cannot give it.

A ``DataLoader`` with ``num_workers > 0`` runs ``__getitem__`` (and the collate function, and ``worker_init_fn``) in
worker processes. How they start depends on the system. On Linux (up to Python 3.13) they are *forked*: copies of the
running Python, holding everything the notebook defined. On Windows and macOS they are *spawned* (and from Python 3.14
Linux starts them from a fresh server process, *forkserver*): each is a fresh Python that receives the dataset
pickled, and pickle stores a class or a function by its module and name, for the fresh Python to import. A class
defined in a notebook lives in the kernel's ``__main__``, which a fresh Python does not have: the worker dies ("Can't
get attribute 'SquaresDataset' on <module '__main__'>", printed in the worker's own error stream) and the DataLoader
says only that a worker "exited unexpectedly", after several seconds. A lambda cannot be pickled at all.

- :func:`start_method`: how a loader's workers will start (``"fork"``, ``"spawn"`` or ``"forkserver"``);
- :func:`notebook_names`: what a loader's workers would need from ``__main__`` (classes and functions defined in the
  notebook, lambdas), found by pickling what the workers receive, without its tensors;
- :func:`check_workers`: the guard; raises :class:`WorkersCannotStart` with what to do when a loader's workers would
  be spawned and need such names, and returns the loader otherwise;
- :func:`explain`: the same message for the error a DataLoader raised, which ``coursekit.ipython_errors`` shows in a
  notebook in place of the bare "exited unexpectedly".

Lesson 06 (section 4) teaches the rule and its fix: a class that workers load goes into a ``.py`` file next to the
notebook, imported from there. Public Python and PyTorch only.
"""

from __future__ import annotations

import io
import multiprocessing
import pickle
import types
from typing import Any

import torch
from torch.utils.data import DataLoader

from .i18n import gettext as _

__all__ = ["WorkersCannotStart", "start_method", "notebook_names", "check_workers", "explain"]

_FRESH_PYTHON = ("spawn", "forkserver")   # start methods whose workers import what they run, by name


class WorkersCannotStart(RuntimeError):
    """A DataLoader's workers would need classes or functions that exist only in the notebook."""


def start_method(loader: DataLoader) -> str:
    """How ``loader``'s workers start: its ``multiprocessing_context`` (a name or a context), else the default of
    this Python on this system (``fork`` on Linux, ``spawn`` on Windows and macOS)."""
    context = loader.multiprocessing_context
    if isinstance(context, str):
        return context
    if context is not None:
        return context.get_start_method()
    return multiprocessing.get_start_method(allow_none=True) or multiprocessing.get_context().get_start_method()


class _NameFinder(pickle.Pickler):
    """Pickles into nothing and notes every class and function that a fresh Python would have to find in
    ``__main__``. Tensors are replaced by empty ones on the way: their values never matter here, and a data set of
    hundreds of megabytes is not copied."""

    def __init__(self):
        super().__init__(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL)
        self.found: list[str] = []

    def reducer_override(self, obj: Any):
        if isinstance(obj, torch.Tensor):
            return torch.empty, (0,)
        if isinstance(obj, (type, types.FunctionType)) and getattr(obj, "__module__", None) == "__main__":
            kind = "class" if isinstance(obj, type) else "function"
            name = f"{kind} {obj.__qualname__}"
            if name not in self.found:
                self.found.append(name)
            return torch.empty, (0,)   # noted; no need to go inside it
        return NotImplemented


def _sent_to_workers(dataset: Any, collate_fn: Any, worker_init_fn: Any) -> dict[str, Any]:
    """What each worker receives: the dataset, the collate function, and worker_init_fn where there is one."""
    sent = {"the dataset": dataset, "collate_fn": collate_fn}
    if worker_init_fn is not None:
        sent["worker_init_fn"] = worker_init_fn
    return sent


def _needed(sent: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for what, value in sent.items():
        finder = _NameFinder()
        try:
            finder.dump(value)
        except Exception as error:  # noqa: BLE001 (an open file, a lock: spawned workers cannot get it either)
            found.append(f"{what}, which cannot be pickled ({type(error).__name__}: {str(error)[:120]})")
        found += [name for name in finder.found if name not in found]
    return found


def notebook_names(loader: DataLoader) -> list[str]:
    """The classes and functions of ``__main__`` that ``loader``'s workers would need (``"class SquaresDataset"``,
    ``"function <lambda>"``), or, for something else that cannot be pickled, what it is and why."""
    return _needed(_sent_to_workers(loader.dataset, loader.collate_fn, loader.worker_init_fn))


def _message(num_workers: int, names: list[str], method: str) -> str:
    return _("DataLoader(num_workers={num_workers}) starts its workers with '{method}' (as Windows and macOS do, and "
             "Linux from Python 3.14): each worker is a fresh Python that imports what it runs by name, and it cannot "
             "import what was defined in this notebook: {listed}. Put those definitions in a .py file next to the "
             "notebook and import them from it (a lambda becomes a def there), or use num_workers=0. Lesson 06, "
             "section 4, shows both.").format(num_workers=num_workers, method=method, listed=", ".join(names))


def check_workers(loader: DataLoader) -> DataLoader:
    """``loader`` itself when its workers can start here; :class:`WorkersCannotStart`, with what to do, when they
    would be fresh Pythons (spawn, forkserver) and need something that exists only in the notebook."""
    if loader.num_workers == 0:
        return loader
    method = start_method(loader)
    if method not in _FRESH_PYTHON:
        return loader
    names = notebook_names(loader)
    if names:
        raise WorkersCannotStart(_message(loader.num_workers, names, method))
    return loader


def explain(error: BaseException, tb) -> str | None:
    """For an error raised while a DataLoader's workers, fresh Pythons (spawn, forkserver), were starting or running,
    when they needed something that exists only in the notebook (a worker "exited unexpectedly", a lambda that cannot
    be pickled): what happened and what to do. None for any other error."""
    from torch.utils.data.dataloader import _MultiProcessingDataLoaderIter

    iterator, starting = None, None
    while tb is not None:
        local = tb.tb_frame.f_locals
        if isinstance(local.get("self"), _MultiProcessingDataLoaderIter):
            iterator = local["self"]
            starting = local.get("w", starting)   # the worker being started when its start failed (a lambda)
        tb = tb.tb_next
    if iterator is None:
        return None
    process = (iterator._workers or [starting])[0]
    method = getattr(process, "_start_method", None)   # SpawnProcess, ForkProcess, ... each name their method
    if method not in _FRESH_PYTHON:
        return None
    names = _needed(_sent_to_workers(iterator._dataset, iterator._collate_fn, iterator._worker_init_fn))
    return _message(iterator._num_workers, names, method) if names else None
