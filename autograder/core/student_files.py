"""A student's files are data: regular files and folders only, read or copied without ever following a link.

On a shared server the students write the exchange themselves, so anything can stand where a notebook should: a
symbolic link (to the course's solutions, the gradebook, ``/dev/zero``, another student, a loop), a named pipe
that blocks whoever opens it, a socket, a device, a file too large to read, a folder of a million files. Every
reader of what a student left (collect, intake, the gradebook's exchange files) goes through this module:

- an entry's kind is taken with ``lstat`` before anything opens it: anything but a regular file or a folder is
  refused, with its kind as the reason (never what a link points to), and is never opened, followed or copied;
- a file is then opened with ``O_NOFOLLOW | O_NONBLOCK`` (a link or pipe put in its place between the two steps
  fails to open, or opens without blocking) and checked again on the open descriptor (``fstat``) before a byte is
  read; sizes are bounded before reading, and the read stops at the bound even if the file grows;
- a folder is walked through descriptors (``O_DIRECTORY | O_NOFOLLOW``, each entry relative to its folder), so no
  part of a path is looked up again after it was checked; entries, depth and bytes are bounded.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


class Refused(Exception):
    """A student's entry that is not read: ``reason`` says what it is, in words that quote nothing of it."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def kind(mode: int) -> str:
    """What an entry is, in words, from its ``lstat`` mode."""
    for test, words in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                        (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                        (stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return words
    return "an entry of an unknown kind"


def size_words(size: int) -> str:
    return f"{size / 2**20:.0f} MB" if size >= 2**20 else f"{size / 2**10:.0f} KB" if size >= 2**10 else f"{size} bytes"


def _why_not_opened(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "a symbolic link"            # put in its place after it was checked
    if error.errno in (errno.EACCES, errno.EPERM):
        return "a file the grader may not read (permission denied)"
    if error.errno == errno.ENOTDIR:
        return "not a folder"
    return f"an entry that could not be opened ({errno.errorcode.get(error.errno, error.errno)})"


def open_folder(path: str | Path, dir_fd: int | None = None) -> int:
    """A descriptor of the folder ``path`` (relative to ``dir_fd`` when given), never through a link. Raises
    FileNotFoundError when there is nothing there, Refused when it is not a folder."""
    info = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    if not stat.S_ISDIR(info.st_mode):
        raise Refused(f"{kind(info.st_mode)}, not a folder")
    try:
        return os.open(path, _FOLDER_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise Refused(_why_not_opened(error)) from None


def _open_regular(name: str | Path, limit: int, dir_fd: int | None) -> tuple[int, int]:
    """(descriptor, size) of the regular file ``name``, checked before and after opening; Refused otherwise."""
    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if not stat.S_ISREG(info.st_mode):
        raise Refused(kind(info.st_mode))
    if info.st_size > limit:
        raise Refused(f"a file of {size_words(info.st_size)}, over the limit of {size_words(limit)}")
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise Refused(_why_not_opened(error)) from None
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode) or opened.st_size > limit:
        os.close(fd)
        raise Refused(kind(opened.st_mode) if not stat.S_ISREG(opened.st_mode) else
                      f"a file of {size_words(opened.st_size)}, over the limit of {size_words(limit)}")
    return fd, opened.st_size


def _read_all(fd: int, limit: int) -> bytes:
    chunks, total = [], 0
    while True:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise Refused(f"a file that grew past the limit of {size_words(limit)} while it was read")


def read_file(name: str | Path, limit: int, dir_fd: int | None = None) -> bytes:
    """The bytes of the regular file ``name`` (relative to ``dir_fd`` when given), at most ``limit`` of them.
    Raises FileNotFoundError when there is nothing there, Refused for anything else that is not such a file."""
    fd, _ = _open_regular(name, limit, dir_fd)
    try:
        return _read_all(fd, limit)
    finally:
        os.close(fd)


def open_submission(folder: Path) -> int:
    """A descriptor of a submission's folder ``SUBMISSIONS/<student>/<assignment>``: the student's folder and the
    assignment's are both opened without following a link (a student's folder that is a link would otherwise lead
    every path below it elsewhere). Raises FileNotFoundError, NotADirectoryError or Refused as ``open_folder``."""
    parent = open_folder(folder.parent)
    try:
        return open_folder(folder.name, dir_fd=parent)
    finally:
        os.close(parent)


def read_in_submission(folder: Path, name: str, limit: int) -> bytes:
    """``read_file`` of the file ``name`` in the submission's folder (``open_submission``)."""
    fd = open_submission(folder)
    try:
        return read_file(name, limit, dir_fd=fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class TreeLimits:
    """What one copied folder may hold (nbgrader's ``max_file_size`` and ``max_dir_size``, and counts)."""
    file_bytes: int = 100_000 * 1000     # a larger file is left out (nbgrader's default, 100 MB)
    total_bytes: int = 100_000 * 1000    # a larger folder is refused whole
    entries: int = 10_000                # files and folders; more is refused whole
    depth: int = 20                      # folders below this depth are left out


@dataclass
class Copied:
    """What ``copy_tree`` copied, and what it left out and why (a relative path and a reason)."""
    files: int = 0
    bytes: int = 0
    entries: int = 0
    left_out: list[tuple[str, str]] = field(default_factory=list)


def copy_tree(source: Path, target: Path, limits: TreeLimits = TreeLimits(),
              ignored: Callable[[str, bool], bool] = lambda name, is_folder: False) -> Copied:
    """Copy the folder ``source`` to ``target`` (which must not exist): its regular files and folders, nothing else.
    Links, pipes, sockets, devices, unreadable and too-large files are left out and listed in ``left_out``;
    ``ignored(name, is_folder)`` names what to leave out silently (nbgrader's ignore and include patterns). Raises
    Refused when ``source`` is no folder or holds more than the limits allow (``target`` may then hold a part:
    the caller removes it), FileNotFoundError when it is gone."""
    done = Copied()
    top = open_folder(source)
    try:
        _copy_folder(top, target, "", 0, limits, ignored, done)
    finally:
        os.close(top)
    return done


def _copy_folder(fd: int, target: Path, where: str, depth: int, limits: TreeLimits,
                 ignored: Callable[[str, bool], bool], done: Copied) -> None:
    target.mkdir(mode=0o755)
    with os.scandir(fd) as entries:
        names = []
        for entry in entries:
            done.entries += 1
            if done.entries > limits.entries:
                raise Refused(f"more than {limits.entries} files and folders")
            names.append(entry.name)
    for name in sorted(names):
        relative = f"{where}{name}"
        info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            if ignored(name, True):
                continue
            if depth + 1 > limits.depth:
                done.left_out.append((relative + "/", f"a folder more than {limits.depth} levels deep"))
                continue
            try:
                child = open_folder(name, dir_fd=fd)
            except (Refused, FileNotFoundError) as error:
                done.left_out.append((relative, getattr(error, "reason", "gone while it was copied")))
                continue
            try:
                _copy_folder(child, target / name, relative + "/", depth + 1, limits, ignored, done)
            finally:
                os.close(child)
        elif not stat.S_ISREG(info.st_mode):
            done.left_out.append((relative, kind(info.st_mode)))
        elif not ignored(name, False):
            _copy_file(fd, name, target / name, relative, limits, done)


def _copy_file(fd: int, name: str, target: Path, relative: str, limits: TreeLimits, done: Copied) -> None:
    try:
        source, size = _open_regular(name, limits.file_bytes, fd)
    except (Refused, FileNotFoundError) as error:
        done.left_out.append((relative, getattr(error, "reason", "gone while it was copied")))
        return
    try:
        if done.bytes + size > limits.total_bytes:
            raise Refused(f"more than {size_words(limits.total_bytes)} in all")
        try:
            data = _read_all(source, limits.file_bytes)
        except Refused as error:   # it grew while it was read
            done.left_out.append((relative, error.reason))
            return
        if done.bytes + len(data) > limits.total_bytes:
            raise Refused(f"more than {size_words(limits.total_bytes)} in all")
        info = os.fstat(source)
    finally:
        os.close(source)
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                  stat.S_IMODE(info.st_mode) & 0o777 | 0o600)
    with os.fdopen(out, "wb") as f:
        f.write(data)
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    done.files += 1
    done.bytes += len(data)
