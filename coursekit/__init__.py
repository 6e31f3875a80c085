"""coursekit: the helpers every notebook of the course imports.

One place for each helper: data (``coursekit.data``), checks for test cells (``coursekit.checks``),
seeding (``coursekit.seeding``), timing (``coursekit.timing``), plots (``coursekit.plots``), the
environment report (``coursekit.environment``), the Build's reference model and loop (``coursekit.mnist``),
DataLoader workers on Windows and macOS (``coursekit.workers``), and the probes the hidden tests use (``coursekit.testing``). Public PyTorch only: speed experiments that
need PyTorch's internals live in ``bench/``.
"""

from .checks import CheckFailed, check, check_close, check_device, check_dtype, check_equal, check_shape, rel_error
from .environment import environment_report, pick_device
from .seeding import set_seed
from .timing import Timer, measure, synchronize
from .ipython_errors import install as _install_error_display

_install_error_display()  # in IPython only: short messages for unfinished exercises (see coursekit.ipython_errors)

__all__ = [
    "CheckFailed", "check", "check_close", "check_device", "check_dtype", "check_equal", "check_shape",
    "rel_error", "environment_report", "pick_device", "set_seed", "Timer", "measure", "synchronize",
]
