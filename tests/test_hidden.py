"""The hidden tests' records and how the grader judges them: coursekit.hidden (in the kernel) against
autograder.grading.rules and verdicts (outside). No notebook runs here: records are made in this process."""

from __future__ import annotations

import json
import os

import pytest
import torch
from torch import nn

from autograder.core import regions
from autograder.core.settings import FAILED, PARTIAL, PASSED, split_points
from autograder.grading import rules, scoring, verdicts
from autograder.grading.sandbox import CHANNEL_VARIABLE
from coursekit import hidden, testing


def records(fn) -> list[dict]:
    """What ``fn()`` sends, as the grader reads it back (through JSON, as on the channel)."""
    start = len(hidden.local_records())
    fn()
    return [json.loads(json.dumps(r)) for r in hidden.local_records()[start:]]


def judged(reference_fn, student_fn, code: str = "") -> verdicts.CellChecks:
    hidden.begin("cell")
    ref = records(reference_fn)
    hidden.begin("cell")
    got = records(student_fn)
    cell_rules = {"cell": rules.cell_rules(code, "test")}
    return verdicts.judge(ref, got, cell_rules)["cell"]


def messages(cell: verdicts.CellChecks) -> list[str]:
    return [f"{c.name}: {c.message}" for c in cell.checks if not c.passed]


def test_the_channel_variable_is_one_name():
    assert CHANNEL_VARIABLE == hidden.CHANNEL_VARIABLE


def test_same_passes_equal_values_and_names_what_differs():
    grid = torch.arange(6.0).reshape(2, 3)
    assert not messages(judged(lambda: hidden.same("g", grid), lambda: hidden.same("g", grid.clone())))
    wrong_dtype = judged(lambda: hidden.same("g", grid), lambda: hidden.same("g", grid.long()))
    assert "expected dtype float32, got int64" in messages(wrong_dtype)[0]
    wrong_shape = judged(lambda: hidden.same("g", grid), lambda: hidden.same("g", grid.reshape(3, 2)))
    assert "expected shape (2, 3), got (3, 2)" in messages(wrong_shape)[0]
    wrong_values = judged(lambda: hidden.same("g", grid), lambda: hidden.same("g", grid + 1))
    assert "6 of 6 values differ" in messages(wrong_values)[0]
    close = judged(lambda: hidden.same("g", grid, rtol=1e-3), lambda: hidden.same("g", grid * (1 + 1e-5)))
    assert not messages(close)


def test_containers_numbers_and_types_are_compared_item_by_item():
    ref = lambda: hidden.same("pair", (torch.ones(2), 3, 0.5, "cpu", None))  # noqa: E731
    assert not messages(judged(ref, ref))
    assert "expected a tuple" in messages(judged(ref, lambda: hidden.same("pair", [torch.ones(2), 3, 0.5, "cpu", None])))[0]
    assert "expected the float 0.5, got the float 0.25" in messages(judged(ref, lambda: hidden.same(
        "pair", (torch.ones(2), 3, 0.25, "cpu", None))))[0]
    assert "got a string" in messages(judged(ref, lambda: hidden.same("pair", (torch.ones(2), 3, 0.5, "CUDA", None))))[0]
    assert "expected the float" in messages(judged(lambda: hidden.same("n", 0.75), lambda: hidden.same("n", torch.tensor(0.75))))[0]


def test_a_missing_record_fails_and_extra_or_forged_records_do_not_pass():
    ref = lambda: (hidden.same("a", 1), hidden.same("b", 2))  # noqa: E731
    cell = judged(ref, lambda: hidden.same("a", 1))
    assert [c.passed for c in cell.checks] == [True, False] and cell.checks[1].message == verdicts.NOT_REPORTED
    # A record sent before the real one takes the first place: the real one is then judged as a second, extra record.
    forged = judged(ref, lambda: (hidden.same("a", 99), hidden.same("a", 1), hidden.same("b", 2)))
    assert [c.passed for c in forged.checks] == [False, True]


def test_the_reference_decides_the_rule_and_the_tolerance():
    ref = lambda: hidden.same("x", torch.tensor([1.0]), rtol=0.0, atol=0.0)  # noqa: E731
    lenient = lambda: hidden.same("x", torch.tensor([1.1]), rtol=1.0, atol=1.0)  # noqa: E731
    assert messages(judged(ref, lenient)), "a student's own tolerance must not count"
    assert messages(judged(lambda: hidden.same("x", 1), lambda: hidden.check("x", 5, rule="at_least", low=0)))


def test_tensor_subclasses_and_notebook_classes_are_never_looked_into():
    class Agreeable(torch.Tensor):
        pass

    got = judged(lambda: hidden.same("t", torch.zeros(2)), lambda: hidden.same("t", torch.zeros(2).as_subclass(Agreeable)))
    assert "tensor subclass" in messages(got)[0]

    class Secret:
        pass

    enc = hidden.encode(Secret())
    assert enc == {"t": "other", "class": None}


def test_errors_are_data_and_their_messages_are_never_shown():
    def bad(n):
        raise ValueError("aGlkZGVuIHRlc3Q=")

    cell = judged(lambda: hidden.shapes("s", lambda n: torch.zeros(n, 2)), lambda: hidden.shapes("s", bad))
    assert "an error (ValueError)" in messages(cell)[0] and "aGlk" not in messages(cell)[0]
    raising = judged(lambda: hidden.raises("r", lambda: int("x")), lambda: hidden.raises("r", lambda: 3))
    assert "expected an error (ValueError)" in messages(raising)[0]

    class MyError(ValueError):
        pass

    def raises_own():
        raise MyError("the header is too short")

    ok = judged(lambda: hidden.raises("r", lambda: int("x"), words=["short"]), lambda: hidden.raises("r", raises_own))
    assert not messages(ok), "a subclass of the expected error, with a word of the list, passes"
    assert rules.error_name(["MyError", "ValueError", "Exception"]) == "ValueError"


def test_on_meta_tells_a_written_in_device_from_the_inputs():
    cell = judged(lambda: hidden.on_meta("m", lambda x: x * 2, torch.ones(3)),
                  lambda: hidden.on_meta("m", lambda x: torch.ones(3, device="cpu") * 2, torch.ones(3)))
    assert "on meta" in messages(cell)[0]
    linear = nn.Linear(4, 2).to("meta")
    ref = lambda: hidden.on_meta("a", lambda x: _autocast(linear, x, x.device.type), torch.ones(3, 4))  # noqa: E731
    cell = judged(ref, lambda: hidden.on_meta("a", lambda x: _autocast(linear, x, "cpu"), torch.ones(3, 4)))
    assert "expected an error (RuntimeError)" in messages(cell)[0], "autocast with a written-in 'cpu' is told apart"


def _autocast(model, x, device_type):
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        return model(x)


def test_accuracy_uses_the_reference_labels():
    labels = torch.tensor([0, 1, 1, 0])
    ref = lambda: hidden.accuracy("acc", labels.clone(), labels, at_least=0.75)  # noqa: E731
    assert not messages(judged(ref, lambda: hidden.accuracy("acc", torch.tensor([0, 1, 1, 1]), labels, at_least=0.0)))
    forged = judged(ref, lambda: hidden.accuracy("acc", torch.tensor([1, 1, 1, 1]), torch.tensor([1, 1, 1, 1]), at_least=0.0))
    assert "50.0% of 4 predictions are right; at least 75% are needed" in messages(forged)[0]


def test_library_rules_for_bounds_logits_finiteness_and_reproducibility():
    assert not messages(judged(lambda: hidden.check("b", 0.5, rule="between", low=0, high=1),
                               lambda: hidden.check("b", torch.tensor([0.2, 0.9]), rule="x", low=9, high=9)))
    assert messages(judged(lambda: hidden.check("b", 0.5, rule="between", low=0, high=1),
                           lambda: hidden.check("b", torch.tensor([0.2, 1.5]), rule="between", low=0, high=1)))
    probabilities = torch.softmax(torch.randn(4, 3), dim=1)
    assert "probabilities" in messages(judged(lambda: hidden.check("l", torch.randn(4, 3), rule="logits"),
                                              lambda: hidden.check("l", probabilities, rule="logits")))[0]
    assert "inf or NaN" in messages(judged(lambda: hidden.check("f", torch.ones(2), rule="finite"),
                                           lambda: hidden.check("f", torch.tensor([1.0, float("nan")]), rule="finite")))[0]
    seeded = lambda seed: torch.randn(3, generator=torch.Generator().manual_seed(seed))  # noqa: E731
    ref = lambda: hidden.check("r", testing.reproducibility(seeded), rule="reproducible")  # noqa: E731
    assert not messages(judged(ref, ref))
    assert "same seed gave different results" in messages(judged(ref, lambda: hidden.check(
        "r", testing.reproducibility(lambda seed: torch.randn(3)), rule="reproducible")))[0]


def test_a_grader_block_judges_decoded_values_outside():
    source = ("visible()\n### BEGIN HIDDEN TESTS\nhidden.check('radii', x, rule='on_circle')\n### BEGIN GRADER\n"
              "def on_circle(got, reference, radius=1.0):\n"
              "    err = (got.norm(dim=1) - radius).abs().max().item()\n"
              "    return None if err < 1e-4 else f'points lie up to {err:.3f} off the circle'\n"
              "### END GRADER\n### END HIDDEN TESTS\n")
    code = regions.grader_code(source)
    assert "def on_circle" in code and "def on_circle" not in regions.for_kernel(source)
    angle = torch.rand(50) * 6.28
    ring = torch.stack([angle.cos(), angle.sin()], dim=1)
    ref = lambda: hidden.check("radii", ring, rule="on_circle")  # noqa: E731
    assert not messages(judged(ref, lambda: hidden.check("radii", ring.flip(0), rule="on_circle"), code))
    assert "off the circle" in messages(judged(ref, lambda: hidden.check("radii", ring * 1.1, rule="on_circle"), code))[0]


def test_observations_cost_their_share_and_values_the_whole_cell():
    ref = lambda: (hidden.same("v", 1), hidden.observed("o", [False, False]))  # noqa: E731
    both = judged(ref, ref)
    assert scoring.cell_score(2.0, both, error=False, trusted=True) == (2.0, PASSED)
    assert scoring.cell_score(2.0, both, error=False, trusted=False) == (1.5, PARTIAL)
    obs_wrong = judged(ref, lambda: (hidden.same("v", 1), hidden.observed("o", [True, False])))
    assert scoring.cell_score(2.0, obs_wrong, error=False, trusted=True) == (1.5, PARTIAL)
    value_wrong = judged(ref, lambda: (hidden.same("v", 2), hidden.observed("o", [False, False])))
    assert scoring.cell_score(2.0, value_wrong, error=False, trusted=True) == (0.0, FAILED)
    assert scoring.cell_score(2.0, both, error=True, trusted=True) == (0.0, FAILED), "an error costs the whole cell"
    assert split_points(3.0, True, False) == (3.0, 0.0) and split_points(2.0, False, True) == (0.0, 2.0)


def test_begin_seeds_the_random_generators_from_the_cell():
    hidden.begin("some-cell")
    first = torch.rand(3)
    torch.rand(100)
    hidden.begin("some-cell")
    assert torch.equal(torch.rand(3), first)


def test_records_go_to_the_channel_when_there_is_one(tmp_path, monkeypatch):
    path = tmp_path / "channel"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    monkeypatch.setenv(hidden.CHANNEL_VARIABLE, str(fd))
    try:
        hidden.begin("c")
        hidden.same("big", torch.arange(200_000.0))
    finally:
        os.close(fd)
    sent = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(sent) == 1 and sent[0]["cell"] == "c" and sent[0]["value"]["shape"] == [200_000]
    assert torch.equal(rules.tensor_of(sent[0]["value"]), torch.arange(200_000.0))


@pytest.mark.parametrize("value", [torch.tensor([1.5, -2.0]).bfloat16(), torch.tensor([True, False]), torch.zeros(0, 3),
                                   torch.arange(6).reshape(2, 3).T, torch.tensor(3.0), torch.tensor([1 + 2j])])
def test_tensors_survive_the_trip(value):
    back = rules.tensor_of(json.loads(json.dumps(hidden.encode(value))))
    assert back.dtype == value.dtype and back.shape == value.shape and torch.equal(back, value)


def test_a_grader_blocks_rules_serve_its_cell_and_the_cells_after_it():
    first = "def near(got, reference, tol=0.1):\n    return None if abs(got - reference) <= tol else f'off by {abs(got - reference):g}'\n"
    second = "def nearer(got, reference):\n    return near(got, reference, tol=0.01)\n"
    found = rules.notebook_rules([("a", ""), ("b", first), ("c", second)], "nb")
    assert found["a"] == {} and set(found["b"]) == {"near"} and set(found["c"]) == {"near", "nearer"}
    one, two = hidden.encode(1.0), hidden.encode(1.05)
    assert found["c"]["near"](two, one) is None and found["c"]["nearer"](two, one) == "off by 0.05"


def test_naming_a_course_answer_forbids_the_private_helpers_it_delegates_to():
    from coursekit import mnist

    model = nn.Linear(2, 2)
    batch = [(torch.zeros(3, 2), torch.zeros(3, dtype=torch.long))]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    hidden.begin("cell")
    sent = records(lambda: (hidden.own_work(mnist.train_one_epoch, mnist.evaluate),
                            mnist._train_one_epoch(model, batch, optimizer, nn.CrossEntropyLoss(), "cpu", None),
                            mnist._evaluate(model, *batch[0], nn.CrossEntropyLoss(), "cpu", 10)))
    hidden.begin("cell")   # the watch ends with the cell
    assert [r["value"]["v"] for r in sent if r["kind"] == hidden.OWN_WORK] == ["coursekit.mnist._train_one_epoch",
                                                                                "coursekit.mnist._evaluate"]
    with pytest.raises(ValueError, match="marked answers"):
        from coursekit.answers import helper_of
        helper_of(len)


def test_every_module_that_marks_answers_is_one_the_grader_imports():
    from pathlib import Path

    import coursekit
    from coursekit import answers

    marking = {f"coursekit.{p.stem}" for p in Path(coursekit.__file__).parent.glob("*.py")
               if p.stem != "answers" and ("@course_answer" in p.read_text(encoding="utf-8")
                                           or "@helper_of" in p.read_text(encoding="utf-8"))}
    assert marking == set(answers.MODULES)
    assert "coursekit.mnist._train_one_epoch" in answers.registry()   # what the grader's message may name
