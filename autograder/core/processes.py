"""Ending a process and everything it started: the grader's executors, nbgrader's runs, their kernels."""

from __future__ import annotations

import os
import signal

import psutil


def kill_tree(pid: int) -> None:
    """Kill a process, its process group and every descendant still running (kernels included)."""
    try:
        parent = psutil.Process(pid)
        family = parent.children(recursive=True) + [parent]
    except psutil.NoSuchProcess:
        family = []
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for proc in family:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(family, timeout=5)
