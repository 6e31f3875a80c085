"""``coursekit.plots``: the figures build with the right panels and lines, and bad input is explained."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from coursekit.data import CLASS_NAMES, DATASETS
from coursekit.plots import plot_runs


def _history(start: float) -> dict[str, list[float]]:
    return {"val_loss": [start, start / 2, start / 4], "val_acc": [0.9, 0.95, 0.97]}  # as coursekit.mnist.fit returns


def test_plot_runs_draws_one_panel_per_metric_and_one_colour_per_family():
    runs = {"Adam, seed 0": _history(1.0), "Adam, seed 1": _history(1.1), "SGD, seed 0": _history(2.0)}
    fig = plot_runs(runs)
    loss_ax, acc_ax = fig.axes
    assert (loss_ax.get_title(), acc_ax.get_title()) == ("val loss", "val acc")
    assert len(loss_ax.lines) == 3 and list(loss_ax.lines[1].get_ydata()) == [1.1, 0.55, 0.275]
    colours = [line.get_color() for line in loss_ax.lines]
    assert colours[0] == colours[1] != colours[2]  # seeds of one recipe share a colour
    assert [t.get_text() for t in loss_ax.get_legend().get_texts()] == ["Adam", "SGD"]
    plt.close(fig)


def test_plot_runs_names_the_missing_metric():
    with pytest.raises(KeyError, match="train_acc"):
        plot_runs({"a": _history(1.0)}, metrics=("train_acc",))


def test_every_data_set_has_ten_class_names():
    assert set(CLASS_NAMES) == set(DATASETS)
    assert all(len(names) == len(set(names)) == 10 for names in CLASS_NAMES.values())
