"""``python -m autograder.jail [options] -- COMMAND...``: apply limits, then become COMMAND.

Run as the first process of a grading sandbox (see sandbox.py). It sets resource limits that every
process it starts inherits, brings up the loopback interface when it runs in a fresh network
namespace (the kernel talks to nbgrader over 127.0.0.1), and then replaces itself with COMMAND.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import resource
import socket
import struct
import subprocess
import sys

_SIOCGIFFLAGS, _SIOCSIFFLAGS = 0x8913, 0x8914
_IFF_UP = 0x1


def loopback_up() -> bool:
    """Set the 'lo' interface up (needed in a new network namespace); False if not permitted."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            request = struct.pack("16sH14s", b"lo", 0, b"\0" * 14)
            flags = struct.unpack("16sH14s", fcntl.ioctl(s, _SIOCGIFFLAGS, request))[1]
            fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | _IFF_UP, b"\0" * 14))
        return True
    except OSError:
        return False


def protect_read_only(paths: list[str]) -> list[str]:
    """Re-mount each path read-only inside this (private) mount namespace; return those that failed."""
    failed = []
    # Mounts made here must not leak back to the host: make the whole tree private first.
    subprocess.run(["mount", "--make-rprivate", "/"], check=False, capture_output=True)
    for path in paths:
        ok = subprocess.run(["mount", "--bind", path, path], capture_output=True).returncode == 0 and \
            subprocess.run(["mount", "-o", "remount,bind,ro", path, path], capture_output=True).returncode == 0
        if not ok:
            failed.append(path)
    return failed


def _limit(kind: int, value: int) -> None:
    soft, hard = resource.getrlimit(kind)
    new_hard = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(kind, (new_hard, new_hard))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m autograder.jail")
    parser.add_argument("--memory-mb", type=int, default=0, help="private writable memory per process (0: none)")
    parser.add_argument("--file-mb", type=int, default=0, help="largest file a process may write (0: none)")
    parser.add_argument("--processes", type=int, default=0, help="process limit for this user (0: none)")
    parser.add_argument("--loopback", action="store_true", help="bring up 'lo' (fresh network namespace)")
    parser.add_argument("--read-only", action="append", default=[], help="re-mount this path read-only")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    if args.loopback and not loopback_up():
        print("jail: could not bring up the loopback interface", file=sys.stderr)
    if args.read_only:
        for path in protect_read_only(args.read_only):
            print(f"jail: could not make {path} read-only", file=sys.stderr)
    if args.memory_mb:
        # RLIMIT_DATA counts heap and private writable mappings: what a memory bomb allocates. Unlike an
        # address-space limit it leaves alone the large reservations CUDA makes without using them.
        _limit(resource.RLIMIT_DATA, args.memory_mb * 2**20)
    if args.file_mb:
        _limit(resource.RLIMIT_FSIZE, args.file_mb * 2**20)
    if args.processes:
        _limit(resource.RLIMIT_NPROC, args.processes)
    _limit(resource.RLIMIT_CORE, 0)  # a crashing kernel must not fill the disk with a core dump
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
