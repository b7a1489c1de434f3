"""Reading a repository's files without trusting what they are.

A path the check reads may be a FIFO (opening it blocks), a device (``/dev/zero``
never ends), a directory named ``*.py``, a symlink that leaves the repository or
loops, a file too large to be source, or unreadable. :func:`read_file` reads only
regular files inside the repository, up to a size limit, opening without blocking;
everything else raises :class:`Skipped` with the reason, which the caller turns
into one note.
"""

from __future__ import annotations

import errno
import os
import stat

MAX_BYTES = 16 * 1024 * 1024  # larger "source" is generated data: skipped
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class Skipped(Exception):
    """The file is not something to read; ``str(exc)`` says why."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def file_stat(root: str | os.PathLike, rel: str) -> os.stat_result:
    """The stat of the regular file ``rel`` below ``root`` (a symlink's target's, if the
    target is inside ``root``); :class:`Skipped` if it is anything else, ``OSError``
    (``FileNotFoundError``...) if it cannot be found."""
    if os.path.isabs(rel) or ".." in rel.replace("\\", "/").split("/"):
        raise Skipped("outside the repository")
    path = os.path.join(root, rel)
    try:
        st = os.lstat(path)
    except ValueError as exc:  # an embedded NUL
        raise Skipped(f"not a usable path ({exc})") from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise Skipped("path too long") from None
        raise
    if stat.S_ISLNK(st.st_mode):
        real_root = os.path.realpath(root)
        try:
            st = os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise Skipped("a symlink loop") from None
            raise Skipped("a broken symlink") from None
        target = os.path.realpath(path)
        if os.path.commonpath([real_root, target]) != real_root:
            raise Skipped("a symlink leaving the repository")
    if not stat.S_ISREG(st.st_mode):
        raise Skipped(_kind(st.st_mode))
    if st.st_size > MAX_BYTES:
        raise Skipped(f"larger than {_size(MAX_BYTES)}")
    return st


def read_file(root: str | os.PathLike, rel: str, st: os.stat_result | None = None) -> bytes:
    """The bytes of regular file ``rel`` below ``root``; :class:`Skipped` or ``OSError``
    otherwise. Never blocks, never reads more than :data:`MAX_BYTES`."""
    if st is None:
        st = file_stat(root, rel)
    try:
        fd = os.open(os.path.join(root, rel), _FLAGS)
    except PermissionError:
        raise Skipped("unreadable (permission denied)") from None
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode):  # swapped for something else since the stat
            raise Skipped(_kind(now.st_mode))
        # os.read until the end, the first read sized by the stat: a buffered file object
        # allocated MAX_BYTES for each read (a fifth of reading a repository's sources)
        chunks, got, want = [], 0, min(now.st_size, MAX_BYTES) + 1
        while got <= MAX_BYTES:
            chunk = os.read(fd, want if not got else min(1 << 20, MAX_BYTES + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if len(data) > MAX_BYTES:  # grew since the stat
        raise Skipped(f"larger than {_size(MAX_BYTES)}")
    return data


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MB" if n % (1024 * 1024) == 0 else f"{n} bytes"
