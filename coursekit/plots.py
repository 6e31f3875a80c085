"""Plots the lessons share: tensors as labelled grids, digit grids, training curves."""

from __future__ import annotations

from functools import lru_cache
from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import torch
from matplotlib import font_manager

from .i18n import N_, gettext


__all__ = ["show_matrix", "show_broadcast", "show_digits", "plot_history", "plot_runs", "plot_confusion"]

# The names of the figures fit and the lessons record, as a legend or a panel's title shows them ("val_loss" reads
# "val loss"); in an edition, in its language.
_METRICS = (N_("loss"), N_("accuracy"), N_("train loss"), N_("train acc"), N_("val loss"), N_("val acc"))


# Fonts that draw Traditional Chinese, as Linux (fonts-noto-cjk), Windows and macOS name them. Matplotlib's own
# DejaVu Sans has no Chinese glyphs: without one of these a zh_TW label would be drawn as empty boxes.
_CJK_FONTS = ("Noto Sans CJK TC", "Noto Sans TC", "Microsoft JhengHei", "PingFang TC", "Heiti TC",
              "Noto Sans CJK JP", "WenQuanYi Zen Hei", "AR PL UMing TW")


@lru_cache(maxsize=None)
def _cjk_font() -> str | None:
    """The first installed font that draws Chinese, put first in Matplotlib's sans-serif list (DejaVu Sans still draws
    the Latin letters and digits it has); None when there is none."""
    installed = {font.name for font in font_manager.fontManager.ttflist}
    found = next((name for name in _CJK_FONTS if name in installed), None)
    if found is not None:
        plt.rcParams["font.sans-serif"] = [found, *plt.rcParams["font.sans-serif"]]
    return found


def _(english: str) -> str:
    """A plot's label in the student's language, or in English where no installed font can draw that language's
    script (a zh_TW label on a machine without a Chinese font): a word in English reads better than empty boxes."""
    text = gettext(english)
    if text.isascii() or not any("\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" for ch in text):
        return text
    return text if _cjk_font() is not None else english


def _metric(name: str) -> str:
    shown = name.replace("_", " ")
    return _(shown) if shown in _METRICS else shown


def show_matrix(t: torch.Tensor, title: str = "", ax=None, fmt: str = "{:g}"):
    """Draw a 1-D or 2-D tensor as a grid of cells with each value written in it."""
    t = t.detach().cpu()
    grid = t.reshape(1, -1) if t.dim() == 1 else t  # a vector is drawn as one row
    if grid.dim() != 2:
        raise ValueError(f"show_matrix draws 1-D or 2-D tensors, got shape {tuple(t.shape)}")
    if ax is None:
        _, ax = plt.subplots(figsize=(0.6 * grid.shape[1] + 1, 0.6 * grid.shape[0] + 0.8))
    ax.imshow(grid.float(), cmap="Blues", vmin=float(grid.min()) - 1, vmax=float(grid.max()) + 1)
    for (i, j), value in zip(torch.cartesian_prod(torch.arange(grid.shape[0]), torch.arange(grid.shape[1])).tolist(),
                             grid.flatten().tolist()):
        ax.text(j, i, fmt.format(value), ha="center", va="center", fontsize=9)
    ax.set_xticks(range(grid.shape[1]))
    ax.set_yticks(range(grid.shape[0]))
    ax.set_title(f"{title} {tuple(t.shape)}".strip(), fontsize=10)
    return ax


def show_broadcast(a: torch.Tensor, b: torch.Tensor, op=torch.add, symbol: str = "+"):
    """Show ``a``, ``b`` and ``op(a, b)`` side by side, each with its shape, to picture broadcasting."""
    result = op(a, b)
    fig, axes = plt.subplots(1, 3, figsize=(10, 3))
    show_matrix(a, "a", axes[0])
    show_matrix(b, "b", axes[1])
    show_matrix(result, f"a {symbol} b", axes[2])
    fig.tight_layout()
    return result


def show_digits(images: torch.Tensor, labels: torch.Tensor, predictions: torch.Tensor | None = None,
                columns: int = 8, class_names: Sequence[str] | None = None):
    """A grid of 28x28 images titled with their labels; mistakes (prediction != label) in red."""
    images = images.detach().cpu().reshape(-1, 28, 28)  # (N, 28, 28)
    n = images.shape[0]
    rows = (n + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(1.4 * columns, 1.6 * rows), squeeze=False)
    name = (lambda k: class_names[k]) if class_names else str
    for k, ax in enumerate(axes.flat):
        ax.axis("off")
        if k >= n:
            continue
        ax.imshow(images[k], cmap="gray_r")
        label = int(labels[k])
        if predictions is None:
            ax.set_title(name(label), fontsize=9)
        else:
            guess = int(predictions[k])
            ax.set_title(_("{guess} (true {label})").format(guess=name(guess), label=name(label)) if guess != label
                         else name(guess),
                         fontsize=8, color="black" if guess == label else "red")
    fig.tight_layout()
    return fig


def plot_history(history: Mapping[str, Sequence[float]], xlabel: str | None = None, title: str = ""):
    """One panel per metric kind: names containing 'loss' share the left panel, the rest the right."""
    losses = {k: v for k, v in history.items() if "loss" in k}
    others = {k: v for k, v in history.items() if "loss" not in k}
    panels = [p for p in (losses, others) if p]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.2), squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        for name, values in panel.items():
            ax.plot(range(1, len(values) + 1), values, marker="o", label=_metric(name))
        ax.set_xlabel(xlabel or _("epoch"))
        ax.grid(alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_runs(runs: Mapping[str, Mapping[str, Sequence[float]]], metrics: Sequence[str] = ("val_loss", "val_acc"),
              xlabel: str | None = None, title: str = ""):
    """Compare several runs: one panel per metric, one line per run.

    ``runs`` maps a run's name (for example "Adam 1e-3, seed 0") to a history such as
    :func:`coursekit.mnist.fit` returns. Runs whose names share the text before the first ", seed"
    get one colour, so repeats over seeds read as a band of lines rather than a rainbow.
    """
    missing = sorted({m for h in runs.values() for m in metrics if m not in h})
    if missing:
        raise KeyError(f"plot_runs: some runs have no {missing}; each history needs every metric in {list(metrics)}")
    families = list(dict.fromkeys(name.split(", seed")[0] for name in runs))
    colours = {family: f"C{i % 10}" for i, family in enumerate(families)}
    fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 3.4), squeeze=False)
    for ax, metric in zip(axes.flat, metrics):
        labelled: set[str] = set()
        for name, history in runs.items():
            family = name.split(", seed")[0]
            values = history[metric]
            ax.plot(range(1, len(values) + 1), values, marker="o", markersize=3, color=colours[family],
                    label=None if family in labelled else family, alpha=0.85)
            labelled.add(family)
        ax.set_xlabel(xlabel or _("epoch"))
        ax.set_title(_metric(metric))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_confusion(confusion: torch.Tensor, class_names: Sequence[str], title: str | None = None):
    """Counts (true class = row, predicted class = column) as a heat map with the counts written in."""
    confusion = confusion.detach().cpu()
    k = confusion.shape[0]
    fig, ax = plt.subplots(figsize=(0.55 * k + 2, 0.55 * k + 1.5))
    ax.imshow(confusion.float().log1p(), cmap="Blues")  # log scale: mistakes stay visible beside the diagonal
    for i in range(k):
        for j in range(k):
            value = int(confusion[i, j])
            ax.text(j, i, str(value), ha="center", va="center", fontsize=7,
                    color="white" if i == j else "black")
    ax.set_xticks(range(k), class_names, rotation=45 if max(map(len, class_names)) > 2 else 0)
    ax.set_yticks(range(k), class_names)
    ax.set_xlabel(_("predicted"))
    ax.set_ylabel(_("true"))
    ax.set_title(title or _("confusion matrix"))
    fig.tight_layout()
    return fig
