"""Lesson 08's speed claims, measured side by side in one process.

Runs, on the same data, seed and recipe (MNISTModel, Adam 1e-3, batch 64, CrossEntropyLoss,
evaluation on the test set after every epoch):

1. the canonical loop: ``DataLoader(TensorDataset(...), batch_size=64, shuffle=True)``;
2. the lesson's loop: the same over ``InMemoryBatches`` (one ``index_select`` per batch) with
   ``Adam(fused=True)``, public PyTorch only;
3. a hand-written loop, for the benchmark only: the model wrapped in ``bench/fused_mlp.FusedMLP`` (one
   autograd node, backward written by hand, one flat parameter tensor) and that tensor updated by
   ``bench/flat_adam.FlatAdam`` (PyTorch's private fused-Adam kernel, called directly). It relies on
   internals that change between releases, which is why it lives here and not in the course;

taking turns epoch by epoch (so that all three meet the same busy and quiet minutes of a shared
machine); then two speed runs timed to the target accuracy: a first attempt (BatchNorm, dropout, batch
512, one cycle over 4 epochs) and the course's faster recipe, side by side. Prints seconds per epoch,
totals, accuracies and the ratios against the canonical loop, and writes them to bench/results/mnist_speed.md
(stamped with the date, the machine, the commit and the command).

    python bench/mnist_speed.py [--epochs 10] [--seeds 0] [--skip-canonical] [--speed-only] [--threads N]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from coursekit import set_seed
from coursekit.data import load_split
from coursekit.mnist import InMemoryBatches, MNISTModel, evaluate, train_one_epoch
import result_files                  # bench/ (this script's folder): the stamped results file
from flat_adam import FlatAdam      # bench/ (this script's folder) only: private PyTorch APIs
from fused_mlp import FusedMLP

TARGET = 0.978


class LoopRun:
    """One loop's run of the recipe, advanced one epoch at a time so that several runs can take turns.

    Taking turns epoch by epoch means every loop meets the same slow and fast minutes of a shared
    machine, so the ratios stay fair even when the absolute times drift. Each run keeps its own global
    random state (dropout masks), so its numbers are those of an uninterrupted run with that seed.
    """

    def __init__(self, name, batches, test, seed, make_optimizer, wrap=lambda model: model):
        self.name, self.batches, self.test = name, batches, test
        set_seed(seed)
        self.model = wrap(MNISTModel())
        self.optimizer = make_optimizer(self.model.parameters())
        self.rng_state = torch.get_rng_state()
        self.epoch_times, self.accs = [], []

    def epoch(self):
        torch.set_rng_state(self.rng_state)
        loss_fn, cpu = nn.CrossEntropyLoss(), torch.device("cpu")
        start = time.perf_counter()
        train_one_epoch(self.model, self.batches, self.optimizer, loss_fn, cpu)
        _, acc = evaluate(self.model, *self.test, loss_fn, cpu)  # timed: evaluation every epoch is part of the recipe
        self.epoch_times.append(time.perf_counter() - start)
        self.accs.append(acc)
        self.rng_state = torch.get_rng_state()

    def report(self):
        total = sum(self.epoch_times)
        print(f"{self.name:<34} {statistics.median(self.epoch_times):6.2f} s/epoch  {total:6.1f} s total  "
              f"test acc {self.accs[-1] * 100:5.2f}%", flush=True)
        return total


def compare_loops(train, test, epochs, seed, with_canonical):
    """The recipe's loops, interleaved epoch by epoch; prints each loop's time, accuracy and the ratios."""
    def in_memory():
        return InMemoryBatches(*train, batch_size=64, generator=torch.Generator().manual_seed(seed))

    runs = []
    if with_canonical:
        canonical = DataLoader(TensorDataset(*train), batch_size=64, shuffle=True,
                               generator=torch.Generator().manual_seed(seed))
        runs.append(LoopRun("canonical DataLoader loop", canonical, test, seed,
                            lambda params: torch.optim.Adam(params, lr=1e-3)))
    runs.append(LoopRun("lesson: in-memory, fused Adam", in_memory(), test, seed,
                        lambda params: torch.optim.Adam(params, lr=1e-3, fused=True)))
    runs.append(LoopRun("bench only: hand-written backward", in_memory(), test, seed,
                        lambda params: FlatAdam(params, lr=1e-3), wrap=FusedMLP))
    for _ in range(epochs):
        for run in runs:
            run.epoch()
    totals = {run.name: run.report() for run in runs}
    if with_canonical:
        canonical_total = totals[runs[0].name]
        for name, total in list(totals.items())[1:]:
            print(f"{'speed-up of ' + name.split(':')[0]:<34} {canonical_total / total:6.2f}x the canonical loop")


SPEED_RECIPES = {
    # A first attempt, kept as the bar to beat: BatchNorm and dropout, one cycle over 4 epochs.
    "first attempt (BN + dropout, 512, 1cycle/4)": dict(batch_size=512, epochs=4, max_lr=1e-2, dropout=0.2),
    # The course's speed run: no dropout (two epochs leave nothing to over-fit, and dropout's random masks
    # cost about a third of a step on a CPU) and a cycle that ends with the second epoch.
    "speed run (BN, 512, 1cycle/2)": dict(batch_size=512, epochs=2, max_lr=1e-2, dropout=0.0),
}


def speed_run(train, test, seed, threads, *, batch_size, epochs, max_lr, dropout):
    """BatchNorm MLP with one-cycle Adam: seconds of training until test accuracy >= TARGET."""
    torch.set_num_threads(threads)
    set_seed(seed)
    model = MNISTModel(batchnorm=True, dropout=dropout)
    batches = InMemoryBatches(*train, batch_size=batch_size, generator=torch.Generator().manual_seed(seed))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=max_lr, epochs=epochs, steps_per_epoch=len(batches))
    loss_fn = nn.CrossEntropyLoss()
    cpu = torch.device("cpu")
    clock = 0.0
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        train_one_epoch(model, batches, optimizer, loss_fn, cpu, scheduler)
        clock += time.perf_counter() - start
        _, acc = evaluate(model, *test, loss_fn, cpu)  # not timed: the clock counts training only
        print(f"  epoch {epoch}: test acc {acc * 100:5.2f}% after {clock:5.2f} s of training", flush=True)
        if acc >= TARGET:
            return clock, acc, epoch
    return float("nan"), acc, epochs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--skip-canonical", action="store_true")
    parser.add_argument("--speed-only", action="store_true", help="only the two speed runs")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(),
                        help="CPU threads (on a busy 2-core machine, 1 is steadier than 2)")
    args = parser.parse_args()

    with result_files.recorded("mnist_speed.md", "Lesson 08's training loops and speed runs, side by side"):
        run(args)


def run(args):
    train, test = load_split("mnist", "train"), load_split("mnist", "test")
    default_threads = args.threads
    torch.set_num_threads(default_threads)
    print(f"torch {torch.__version__}, {default_threads} of {torch.get_num_threads()} threads; recipe: Adam 1e-3, batch 64, "
          f"{args.epochs} epochs, evaluation every epoch included")
    for seed in args.seeds:
        print(f"seed {seed}:")
        if not args.speed_only:
            compare_loops(train, test, args.epochs, seed, with_canonical=not args.skip_canonical)
        reached = {}
        for name, recipe in SPEED_RECIPES.items():
            seconds, acc, epochs = speed_run(train, test, seed, default_threads, **recipe)
            reached[name] = seconds
            verdict = f"reached {acc * 100:.2f}% in {seconds:.2f} s" if not math.isnan(seconds) else \
                f"did not reach {TARGET:.1%} (last {acc * 100:.2f}%)"
            print(f"{name:<40} {verdict} of training ({epochs} epochs)", flush=True)
        quick, ours = reached.values()
        print(f"{'ratio first attempt / speed run':<40} {quick / ours:6.2f}x")


if __name__ == "__main__":
    main()
