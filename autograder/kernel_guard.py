# Run by IPython when a grading kernel starts (copied into the sandbox's IPython startup folder).
# It guards the grading, never the student's learning: nothing here runs in JupyterLab.
#
# - A per-cell alarm: code that ignores Ctrl-C (nbgrader's only way to stop a cell) still stops.
# - os._exit() raises an error instead of killing the kernel, so the other cells keep their points.
# - One thread for the maths libraries (set through the environment as well).
# - An audit hook that records, for the instructor, reads of course files or the gradebook, writes
#   or deletions outside the submission's folder, and network connections.
import json as _json
import os as _os
import signal as _signal
import sys as _sys


class CellTimeLimit(BaseException):
    """Raised in a cell that ran past the grader's per-cell limit (a BaseException, like Ctrl-C)."""


class KernelExitBlocked(BaseException):
    """Raised instead of ending the kernel process from a cell."""


def _install() -> None:
    limit = float(_os.environ.get("AUTOGRADER_CELL_LIMIT_S", "0") or 0)
    threads = int(_os.environ.get("AUTOGRADER_THREADS", "0") or 0)
    log_path = _os.environ.get("AUTOGRADER_AUDIT_LOG", "")
    allowed = [p for p in _os.environ.get("AUTOGRADER_ALLOWED_WRITES", "").split(_os.pathsep) if p]
    protected = [p for p in _os.environ.get("AUTOGRADER_PROTECTED", "").split(_os.pathsep) if p]
    log_file = open(log_path, "a", buffering=1, encoding="utf-8") if log_path else None
    busy = [False]

    def record(kind: str, detail: str) -> None:
        if log_file is None or busy[0]:
            return
        busy[0] = True
        try:
            log_file.write(_json.dumps({"kind": kind, "detail": detail[:300]}) + "\n")
        finally:
            busy[0] = False

    def inside(path: str, folders: list) -> bool:
        return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)

    def audit(event: str, args: tuple) -> None:
        if busy[0]:
            return
        try:
            if event == "open" and isinstance(args[0], (str, bytes)):
                path = _os.path.abspath(_os.fsdecode(args[0]))
                mode = args[1] if isinstance(args[1], str) else ""
                flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
                writing = any(c in mode for c in "wax+") or bool(flags & (_os.O_WRONLY | _os.O_RDWR | _os.O_CREAT))
                if inside(path, protected):
                    record("read course files" if not writing else "wrote course files", path)
                elif writing and not inside(path, allowed) and not path.startswith("/dev/"):
                    record("wrote outside its folder", path)
            elif event in ("os.remove", "os.rmdir", "os.rename", "shutil.rmtree") and args:
                path = _os.path.abspath(_os.fsdecode(args[0]))
                if not inside(path, allowed):
                    record("deleted or moved outside its folder", path)
            elif event == "socket.connect" and len(args) > 1:
                address = args[1]
                if isinstance(address, tuple):
                    record("network connection attempt", f"{address[0]}:{address[1]}")
        except Exception:  # the guard must never break the student's code
            pass

    _sys.addaudithook(audit)

    def exit_blocked(code=0):
        raise KernelExitBlocked(f"os._exit({code}) was called: a graded notebook may not end its own Python process")

    _os._exit = exit_blocked

    if threads:
        try:
            import torch
            torch.set_num_threads(threads)
        except Exception:
            pass

    try:
        shell = get_ipython()  # noqa: F821 (defined by IPython when this file runs)
    except NameError:
        return
    if limit > 0 and hasattr(_signal, "setitimer"):
        def on_alarm(signum, frame):
            raise CellTimeLimit(f"this cell ran for more than {limit:.0f} s and was stopped by the grader")

        _signal.signal(_signal.SIGALRM, on_alarm)
        shell.events.register("pre_run_cell", lambda info: _signal.setitimer(_signal.ITIMER_REAL, limit))
        shell.events.register("post_run_cell", lambda result: _signal.setitimer(_signal.ITIMER_REAL, 0))


_install()
del _install
