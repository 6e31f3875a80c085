"""The environment report that lesson 00 prints."""

from __future__ import annotations

import platform
import sys
from importlib import metadata


import torch

from . import data
from .answers import course_answer
from .i18n import N_, gettext as _

__all__ = ["pick_device", "environment_report"]

# The report's rows that an edition names in its language (the returned dict keeps these English keys).
_KEYS = (N_("cpu threads (torch)"), N_("device chosen"))
_PACKAGES = ("torch", "jupyterlab", "notebook", "nbgrader", "matplotlib", "tqdm", "ipywidgets")


@course_answer
def pick_device() -> torch.device:
    """The best device here: CUDA, then Apple's MPS, then the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return _("not installed")


def environment_report() -> dict[str, str]:
    """Collect versions, devices and data locations; print them as a table and return them."""
    report = {"python": sys.version.split()[0], "platform": platform.platform()}
    report.update({p: _version(p) for p in _PACKAGES})
    report["cpu threads (torch)"] = str(torch.get_num_threads())
    if torch.cuda.is_available():
        names = ", ".join(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
        report["cuda"] = f"{torch.version.cuda} ({names})"
    else:
        report["cuda"] = _("not available (the course runs on the CPU; GPU-only parts say so)")
    report["device chosen"] = str(pick_device())
    for name in data.DATASETS:
        report[f"data: {name}"] = data.describe_sources(name)
    shown = {key: _(key) if key in _KEYS else key for key in report}   # the printed table in the kernel's language
    width = max(len(k) for k in shown.values())
    for key, value in report.items():
        first, *rest = value.splitlines()
        print(f"{shown[key]:<{width}}  {first}")
        for line in rest:
            print(f"{'':<{width}}  {line}")
    return report
