"""The course's own answers: functions and classes of this package that do the work of a graded exercise.

Lesson 08 builds ``MNISTModel``, ``train_one_epoch`` and ``evaluate``, lesson 06 reads IDX files, lesson 00 picks a
device; the package holds the course's versions of them for the exercises that come later. A submission that hands
one of them in as its own answer (``from coursekit.mnist import MNISTModel`` in 08's model cell) has written nothing,
so it must earn nothing for that cell; later lessons may use them freely.

Each such function or class is marked here with :func:`course_answer`. A hidden test names the ones that answer its
exercise with ``hidden.own_work(...)``: from then on until its cell ends, a call to one of them is recorded on the
grader's channel, and the grader takes the cell's points with a message that says why (autograder/grading/verdicts.py).
The mark only watches; the function still runs as it always does.

A private function that does a marked answer's work (``_train_one_epoch`` behind ``train_one_epoch``) is marked with
:func:`helper_of`: naming the answer in ``own_work`` forbids its helpers too, so a submission cannot hand in the
course's code by calling the private name the public one delegates to.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

REGISTRY: set[str] = set()   # the qualified names of every marked function and class
HELPERS: dict[str, set[str]] = {}   # a marked answer's qualified name -> the marked private helpers doing its work
# Every module of the package that marks answers: the grader imports them before naming one (``registry``), since it
# never runs the course's code itself and would otherwise know only the names of modules something else imported.
MODULES = ("coursekit.environment", "coursekit.data", "coursekit.mnist")


def registry() -> set[str]:
    """The qualified names of every marked function and class of the package (its answer modules imported)."""
    import importlib

    for module in MODULES:
        importlib.import_module(module)
    return REGISTRY


def with_helpers(names: set[str]) -> set[str]:
    """``names`` and the helpers of each (and theirs), as qualified names."""
    found, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(HELPERS.get(name, ()))
    return found


def name_of(answer: Any) -> str | None:
    """The qualified name a marked function or class was registered under, or None."""
    return getattr(answer, "__course_answer__", None)


def _called(name: str) -> None:
    from . import hidden

    hidden.answer_called(name)


def course_answer(answer: Callable) -> Callable:
    """Mark ``answer`` (a function or a class) as the course's own answer to an exercise."""
    name = f"{answer.__module__}.{answer.__qualname__}"
    REGISTRY.add(name)
    if isinstance(answer, type):
        original = answer.__init__

        def __init__(self, *args, **kwargs):
            _called(name)
            original(self, *args, **kwargs)

        __init__.__qualname__, __init__.__doc__ = original.__qualname__, original.__doc__
        __init__.__signature__ = inspect.signature(original)
        answer.__init__ = __init__
        answer.__course_answer__ = name
        return answer

    def marked(*args, **kwargs):
        _called(name)
        return answer(*args, **kwargs)

    for attribute in ("__module__", "__name__", "__qualname__", "__doc__", "__annotations__"):
        setattr(marked, attribute, getattr(answer, attribute, None))
    marked.__signature__ = inspect.signature(answer)   # help() shows the real signature (no __wrapped__ to call)
    marked.__course_answer__ = name
    return marked


def helper_of(*answers: Callable) -> Callable[[Callable], Callable]:
    """Mark a private function as doing the work of the marked ``answers`` (they call it): it becomes a course answer of
    its own, and ``hidden.own_work`` naming one of ``answers`` forbids it too."""
    owners = [name_of(answer) for answer in answers]
    if not answers or None in owners:
        raise ValueError("helper_of takes the marked answers (coursekit.answers.course_answer) a helper works for")

    def mark(helper: Callable) -> Callable:
        marked = course_answer(helper)
        for owner in owners:
            HELPERS.setdefault(owner, set()).add(name_of(marked))
        return marked

    return mark
