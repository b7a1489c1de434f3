"""Reading a repository's files without trusting what they are, or where they lead.

Every path the tool reads or writes for a repository goes through :func:`inside`: it
must resolve (every component, symlinks followed: ``realpath``) inside the repository
root, else :class:`Outside` is raised and nothing is read or written there. A committed
symlink may point anywhere: at the user's home, at ``/dev/zero``, at nothing yet.

A path the check reads may also be a FIFO (opening it blocks), a device (``/dev/zero``
never ends), a directory named ``*.py``, a symlink that loops, a file too large to be
source, or unreadable. :func:`read_file` reads only regular files inside the repository,
up to a size limit, opening without blocking; everything else raises :class:`Skipped`
with the reason, which the caller turns into one note (:class:`Unreadable`: a finding,
as a file that is there but cannot be read is never empty text).

Each path asked about is remembered (:func:`journal`): a run's record keys the stats of
every path the run read, listed by git or not (``runcache.py``).
"""

from __future__ import annotations

import errno
import os
import stat

MAX_BYTES = 16 * 1024 * 1024  # larger "source" is generated data: skipped
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class Skipped(Exception):
    """The file is not something to read; ``str(exc)`` says why."""


class Outside(Skipped):
    """A path that resolves outside the repository (through a symlink); ``str(exc)`` names it."""


class Unreadable(Skipped):
    """A regular file of the repository that cannot be read (permission denied, an I/O error)."""


#: per run (:func:`forget`): real path of each directory looked at, and of each root
_real: dict[str, str] = {}
#: per run: every repository-relative path :func:`inside` was asked about, in order
_journal: dict[str, None] = {}
#: per run: every glob :func:`glob_files` expanded, and what it matched
_globs: dict[str, list[str]] = {}


def forget() -> None:
    """A new run: symlinks may have changed since the last one in this process."""
    _real.clear()
    _journal.clear()
    _globs.clear()


def journal() -> list[str]:
    """The repository-relative paths asked about since :func:`forget` (read, or looked for)."""
    return list(_journal)


def globs() -> dict[str, list[str]]:
    """The globs expanded on the file system since :func:`forget`, and their matches."""
    return dict(_globs)


def glob_files(root: str | os.PathLike, pattern: str) -> list[str]:
    """The regular files matching ``pattern`` below ``root`` (pathlib's glob, any file the
    folders hold, listed by git or not), none reached through a symlink leading out."""
    from pathlib import Path

    base = Path(root)
    try:
        found = sorted(p.relative_to(base).as_posix() for p in base.glob(pattern) if p.is_file())
    except (ValueError, NotImplementedError, OSError):
        found = []
    out = []
    for rel in found:
        try:
            inside(root, rel)
        except Skipped:
            continue
        out.append(rel)
    _globs[pattern] = out
    return out


def _realdir(d: str) -> str:
    r = _real.get(d)
    if r is None:
        r = _real[d] = os.path.realpath(d)
    return r


def _within(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root if real_root.endswith(os.sep) else real_root + os.sep)


def inside(root: str | os.PathLike, rel: str | os.PathLike, follow: bool = True, record: bool = True) -> str:
    """The path of ``rel`` (relative to ``root``, or absolute below it) when every component
    resolves inside ``root``; :class:`Outside` otherwise (absolute elsewhere, ``..``, a
    symlinked folder or, with ``follow``, a final symlink leading out; a dangling link by
    where it points). Without ``follow`` the last component is taken as it is (a write
    replaces a link rather than writing through it; :func:`file_stat` looks at it itself). The folders' real paths are
    memoised per run: a check of the thousandth file of a folder is a dict look-up.
    ``record``: remember ``rel`` as read (:func:`journal`); not for the tool's own cache."""
    root = os.fspath(root)
    rel = os.fspath(rel)
    if os.path.isabs(rel):
        prefix = root if root.endswith(os.sep) else root + os.sep
        if not rel.startswith(prefix):
            raise Outside(f"{rel}: outside the repository")
        rel = rel[len(prefix):]
    rel = rel.replace(os.sep, "/") if os.sep != "/" else rel
    if "\0" in rel:
        raise Skipped(f"not a usable path ({rel!r})")
    parts = rel.split("/")
    if ".." in parts or os.path.isabs(rel):
        raise Outside(f"{rel}: outside the repository")
    if record:
        _journal[rel] = None
    path = os.path.join(root, rel)
    real_root = _realdir(root)
    last = path.rstrip("/") or path  # "tests/": the folder itself is the last component
    parent = os.path.dirname(last) or root
    if parent != root and not _within(_realdir(parent), real_root):
        raise Outside(f"{rel}: a symlinked folder leaving the repository")
    if follow and os.path.islink(last):
        if not _within(os.path.realpath(last), real_root):
            raise Outside(f"{rel}: a symlink leaving the repository")
    return path


def is_inside(root: str | os.PathLike, rel: str) -> bool:
    """Whether ``rel`` resolves inside ``root`` (:func:`inside` raises nothing)."""
    try:
        inside(root, rel)
    except Skipped:
        return False
    return True


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
        raise Outside("outside the repository")
    try:
        path = inside(root, rel, follow=False)
    except Outside:
        raise Outside("a symlinked folder leaving the repository") from None
    try:
        st = os.lstat(path)
    except ValueError as exc:  # an embedded NUL
        raise Skipped(f"not a usable path ({exc})") from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise Skipped("path too long") from None
        raise
    if stat.S_ISLNK(st.st_mode):
        real_root = _realdir(os.fspath(root))
        try:
            st = os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise Skipped("a symlink loop") from None
            raise Skipped("a broken symlink") from None
        if not _within(os.path.realpath(path), real_root):
            raise Outside("a symlink leaving the repository")
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
    else:
        try:
            inside(root, rel, follow=False)  # the scan's quick stat followed any symlinked folder
        except Outside:
            raise Outside("a symlinked folder leaving the repository") from None
    try:
        fd = os.open(os.path.join(root, rel), _FLAGS)
    except PermissionError:
        raise Unreadable("unreadable (permission denied)") from None
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.ELOOP, errno.ENOTDIR):
            raise Skipped(os.strerror(exc.errno)) from None
        raise Unreadable(f"unreadable ({exc.strerror or exc})") from None
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode):  # swapped for something else since the stat
            raise Skipped(_kind(now.st_mode))
        # os.read until the end, the first read sized by the stat: a buffered file object
        # allocated MAX_BYTES for each read (a fifth of reading a repository's sources)
        chunks, got, want = [], 0, min(now.st_size, MAX_BYTES) + 1
        while got <= MAX_BYTES:
            try:
                chunk = os.read(fd, want if not got else min(1 << 20, MAX_BYTES + 1 - got))
            except OSError as exc:  # EIO, EISDIR...: a file that is there and cannot be read
                raise Unreadable(f"unreadable ({exc.strerror or exc})") from None
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


def read_capped(path: str | os.PathLike, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed: check where they lead
    with :func:`inside` first), at most ``limit`` of them: a FIFO, a device (``/dev/zero``),
    a directory or a larger file raise :class:`Skipped` saying which, before anything is
    read into memory; an unreadable file :class:`Unreadable`; an absent one ``FileNotFoundError``."""
    try:
        fd = os.open(path, _FLAGS)
    except PermissionError:
        raise Unreadable("unreadable (permission denied)") from None
    except IsADirectoryError:
        raise Skipped("a directory, not a file") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, a FIFO without writer on some systems
            raise Skipped("not a regular file") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Skipped(f"{_kind(st.st_mode)}, not a file")
        if st.st_size > limit:
            raise Skipped(f"larger than {_size(limit)}")
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    if got > limit:
        raise Skipped(f"larger than {_size(limit)}")
    return b"".join(chunks)


def read_setting(root: str | os.PathLike, rel: str) -> bytes | None:
    """The bytes of a file a setting names (the status file, the maintenance guide...),
    None when it does not exist: inside the repository (:class:`Outside`), a regular file of
    at most :data:`MAX_BYTES` (:class:`Skipped`). The caller makes either one clear error."""
    path = inside(root, rel)
    try:
        return read_capped(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def setting_stat(root: str | os.PathLike, rel: str) -> os.stat_result | None:
    """The stat of a file a setting names, None when it does not exist; :class:`Outside`
    when it leads out of the repository, :class:`Skipped` when it is no regular file or
    is larger than :data:`MAX_BYTES` (what reads it later may then read it whole)."""
    path = inside(root, rel)
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(st.st_mode):
        raise Skipped(f"{_kind(st.st_mode)}, not a file")
    if st.st_size > MAX_BYTES:
        raise Skipped(f"larger than {_size(MAX_BYTES)}")
    return st


def read_text(root: str | os.PathLike, rel: str) -> str | None:
    """The text of the repository's file ``rel`` (UTF-8, undecodable bytes replaced), as
    :func:`read_file` reads it; None when it is absent or not a file to read (a symlink
    leading out, a FIFO, too large, unreadable): the caller says what that means."""
    try:
        return read_file(root, rel).decode("utf-8", errors="replace")
    except (Skipped, OSError):
        return None
