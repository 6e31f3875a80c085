"""What students import and run uses public PyTorch only, and the Build's pieces have one behaviour.

- No file of coursekit/, lessons/ or solutions/ names a private PyTorch API (``torch._...``,
  ``torch.ops.aten``): the next PyTorch release must not break the course. bench/ may.
- Lesson 08's solution (MNISTModel, train_one_epoch, evaluate) and coursekit.mnist, which the exercises
  import, give the same results on the same data and seed.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from autograder.core import course, notebooks

PRIVATE = re.compile(r"torch\._|torch\.ops\.aten")


def test_course_code_uses_no_private_torch_api():
    offenders = []
    for folder in ("coursekit", "lessons", "solutions"):
        for path in sorted((course.ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".ipynb") and ".ipynb_checkpoints" not in path.parts:
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                    if PRIVATE.search(line):
                        offenders.append(f"{path.relative_to(course.ROOT)}:{number}: {line.strip()[:100]}")
    assert not offenders, "private PyTorch APIs (move such code to bench/):\n" + "\n".join(offenders)


def _lesson_08_solution() -> dict:
    """MNISTModel, train_one_epoch and evaluate as lesson 08's solution defines them."""
    nb = notebooks.read(course.solution_notebook("08_mnist_mlp"))
    namespace = {"torch": torch, "nn": nn}
    for cell in nb.cells:
        if notebooks.grading(cell).get("grade_id") in ("mnist-model", "train-one-epoch", "evaluate"):
            exec(compile(cell.source, f"08_mnist_mlp:{notebooks.grading(cell)['grade_id']}", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("batches", ["dataloader", "in-memory"])
def test_lesson_08_and_coursekit_mnist_train_alike(batches):
    from coursekit import mnist

    lesson = _lesson_08_solution()
    g = torch.Generator().manual_seed(8)
    x, y = torch.rand(600, 784, generator=g), torch.randint(0, 10, (600,), generator=g)   # (600, 784), (600,)

    def run(model_class, train_one_epoch, evaluate):
        torch.manual_seed(0)
        model = model_class()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        if batches == "dataloader":
            loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(1))
        else:
            loader = mnist.InMemoryBatches(x, y, batch_size=64, generator=torch.Generator().manual_seed(1))
        history = [train_one_epoch(model, loader, optimizer, nn.CrossEntropyLoss(), torch.device("cpu")) for _ in range(2)]
        test = [(x[:300], y[:300]), (x[300:], y[300:])]
        if evaluate is mnist.evaluate:
            scores = evaluate(model, x, y, nn.CrossEntropyLoss(), torch.device("cpu"), batch_size=300)
        else:
            scores = evaluate(model, test, nn.CrossEntropyLoss(), torch.device("cpu"))
        return history, scores, model.state_dict()

    theirs = run(lesson["MNISTModel"], lesson["train_one_epoch"], lesson["evaluate"])
    ours = run(lambda: mnist.MNISTModel(), mnist.train_one_epoch, mnist.evaluate)
    for (a_loss, a_acc), (b_loss, b_acc) in zip(theirs[0], ours[0]):
        assert a_loss == pytest.approx(b_loss, rel=1e-5) and a_acc == b_acc
    assert theirs[1][0] == pytest.approx(ours[1][0], rel=1e-5) and theirs[1][1] == ours[1][1]
    assert theirs[2].keys() == ours[2].keys()
    for key in theirs[2]:
        torch.testing.assert_close(theirs[2][key], ours[2][key], rtol=1e-5, atol=1e-6)
