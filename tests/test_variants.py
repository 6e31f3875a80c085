"""Hidden tests catch the mistakes in tests/variants/ and accept the other correct answers there.
(Which rows must exist is tests/test_promises.py's job.)"""

from __future__ import annotations

import pytest

from autograder import course
from autograder.variants import try_variants

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", course.assignments())
def test_variants_are_judged_correctly(name):
    results = try_variants(name)
    wrong_passed = [f"{r.cell} {r.mistake} wrong #{r.index}" for r in results if r.kind == "wrong" and not r.ok]
    right_failed = [f"{r.cell} {r.mistake} right #{r.index}: {r.messages[:1]}" for r in results if r.kind == "right" and not r.ok]
    assert not wrong_passed, f"{name}: these mistakes pass every test: {wrong_passed}"
    assert not right_failed, f"{name}: these correct answers lose points: {right_failed}"
