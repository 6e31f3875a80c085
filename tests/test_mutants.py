"""Mutation analysis (autograder/authoring/mutants.py): which mutants a solution gets, and what stays stable.

Whether each cell's tests kill its mutants is measured by ``python -m autograder mutants`` (tests/mutants/NN.json);
tests/test_variants.py tries a fixed sample of them again. Here: the operators themselves, on a made-up cell.
"""

from __future__ import annotations

import pytest

from autograder.authoring import mutants

CELL = '''def step(model, x, y, optimizer, loss_fn):
    """A training step."""
    ### BEGIN SOLUTION
    model.train()
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        correct = (model(x).argmax(dim=1) == y).float().mean()
    total = x.sum(dim=-1, keepdim=True) / 2
    total += 1
    return loss.detach().item(), correct
    ### END SOLUTION
'''


@pytest.fixture(scope="module")
def found() -> list[mutants.Mutant]:
    return mutants.mutants_of(CELL, "step")


def _afters(found, operator: str) -> set[str]:
    return {" ".join(m.after.split()) for m in found if m.operator == operator}


def test_each_course_operator_makes_the_mistake_it_names(found):
    assert "pass" in _afters(found, "drop_call")                                    # zero_grad(), backward(), step() dropped
    assert "model.eval()" in _afters(found, "mode")                                # train() for eval()
    assert any(a.startswith("if True:") for a in _afters(found, "no_grad"))        # no_grad() unwrapped
    assert any("argmax(dim=0)" in a for a in _afters(found, "dim"))                # another dimension
    assert any("keepdim=False" in a for a in _afters(found, "dim"))
    assert any(a.startswith("total = total + 1") for a in _afters(found, "in_place"))
    assert any("loss.item()" in a for a in _afters(found, "detach"))               # .detach() removed
    assert any("// 2" in a for a in _afters(found, "rounding"))                    # / for //
    assert any("loss_fn(y, model(x))" in a for a in _afters(found, "swap_args"))   # arguments swapped
    assert any("== y" not in a and "!= y" in a for a in _afters(found, "swap_op"))  # mutmut's comparison swap
    assert any("/ 3" in a for a in _afters(found, "number")) and any("/ 1" in a for a in _afters(found, "minus_one"))


def test_only_the_solution_region_is_mutated_and_every_mutant_compiles_and_differs(found):
    assert found
    for mutant in found:
        assert mutant.source != CELL
        compile(mutant.source, "<mutant>", "exec")
        assert mutant.source.split("### BEGIN SOLUTION")[0] == CELL.split("### BEGIN SOLUTION")[0]
        assert mutant.source.split("### END SOLUTION")[1] == CELL.split("### END SOLUTION")[1]
    assert len({m.source for m in found}) == len(found)


def test_a_mutants_id_survives_an_edit_elsewhere_in_the_cell(found):
    """A reason given for a mutant in tests/mutants/NN.toml stays with it when another line of the cell changes."""
    edited = CELL.replace('    """A training step."""\n', '    """A training step, documented."""\n    # a note\n')
    ids_before = {m.id: m.after for m in found}
    ids_after = {m.id: m.after for m in mutants.mutants_of(edited, "step")}
    assert ids_before == ids_after


def test_a_cell_without_solution_markers_has_no_mutants():
    assert mutants.mutants_of("def f(x):\n    return x + 1\n", "f") == []
