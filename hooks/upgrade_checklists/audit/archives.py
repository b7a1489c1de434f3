"""Unpack a downloaded sdist or wheel as plain files, never building or installing it.

Only regular files and directories are written. A member with an absolute path, a
``..`` component, a drive or a backslash is refused; links, devices, FIFOs are skipped.
The contents of what the audit reads -- Python sources, ``.py`` and ``.pyi``, and the
release's own metadata (a wheel's ``*.dist-info/METADATA`` and ``top_level.txt``, an sdist's
``PKG-INFO``, ``*.egg-info/requires.txt`` and ``pyproject.toml``: what it requires, read as
text by ``bases.py``) -- are written; every other regular member (a compiled extension, data, ``setup.py``'s
neighbours) is written as an empty file: its name is all the audit looks at (griffe finds
a compiled module by its name). Nothing in the archive is run: a ``setup.py`` or a
``.pth`` file is just a file here.

Everything an archive can make this process hold or write is bounded, so that a bomb stops
early and small: the size of a tar extended header or GNU long name (which ``tarfile``
reads whole into memory), the length of a member name and of all of them, the member
count (and a zip's central directory, which ``zipfile`` reads whole, before it is read),
what a compressed tar decompresses to (skipped members included: skipping decompresses
them), each written member and all of them. Sparse tar members are refused (their maps are
read whole too). Every message quotes a member name shortened and escaped (``repr``): no
megabytes, no terminal escapes.

An sdist's single top folder becomes the unpack folder itself: the archive is unpacked into
a fresh folder beside the destination, and that top folder renamed into place, so that no
name inside the archive can collide with a name of the tool's own.
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

MAX_FILE = 64 * 1024 * 1024  # one Python source written
MAX_TOTAL = 512 * 1024 * 1024  # all Python sources written
MAX_EXPANDED = 2 * 1024 * 1024 * 1024  # what a compressed tar decompresses to, skipped members included
MAX_MEMBERS = 100_000
MAX_HEADER = 64 * 1024  # a tar extended (pax) header, a GNU long name or link name
MAX_NAME = 4096  # one member name, in characters
MAX_NAMES = 32 * 1024 * 1024  # all member names, in characters (tarfile keeps every member it read)
MAX_DIRECTORY = 64 * 1024 * 1024  # a zip's central directory
READ = (".py", ".pyi")  # the members whose contents the audit reads
#: ... and the release's metadata files (by their last two path parts; ``*`` any folder name ending so)
METADATA = ((".dist-info", "METADATA"), (".dist-info", "top_level.txt"), ("", "PKG-INFO"), (".egg-info", "requires.txt"),
            (".egg-info", "PKG-INFO"), (".egg-info", "top_level.txt"), ("", "pyproject.toml"))
MAX_METADATA = 4 * 1024 * 1024  # one metadata file written


def kept(name: str) -> bool:
    """The audit reads this member's contents: a Python source, or a metadata file of the release at
    the archive's top (``pkg-1.0.dist-info/METADATA``, ``pkg-1.0/PKG-INFO``, ``pkg-1.0/pyproject.toml``)."""
    if name.endswith(READ):
        return True
    parts = [p for p in name.split("/") if p]
    for folder, last in METADATA:
        if parts and parts[-1] == last and 2 <= len(parts) <= 3 - (folder == ""):
            if folder == "" or parts[-2].endswith(folder):
                return True
    return False
_LONG_HEADERS = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.GNUTYPE_LONGNAME,
                 tarfile.GNUTYPE_LONGLINK)


class ArchiveError(Exception):
    """The archive is not one we unpack (unsafe member, too big, not an archive)."""


def shown(name: str, limit: int = 100) -> str:
    """A name from an archive, for a message: at most ``limit`` characters of it, escaped
    (``repr``: control characters, terminal escapes and bidirectional controls are shown as
    escapes), and its length when it was cut."""
    if len(name) <= limit:
        return repr(name)
    return f"{name[:limit]!r}... ({len(name)} characters)"


def _escaped(text: str, limit: int = 200) -> str:
    """``text`` for a message, escaped as :func:`shown` does, without quotes, cut at ``limit``."""
    return repr(text[:limit])[1:-1] + ("..." if len(text) > limit else "")


def _safe_parts(name: str) -> tuple[str, ...]:
    if len(name) > MAX_NAME:
        raise ArchiveError(f"archive member {shown(name)} has a name longer than {MAX_NAME} characters")
    if "\\" in name or "\0" in name:
        raise ArchiveError(f"archive member {shown(name)} has a backslash or NUL in its name")
    p = PurePosixPath(name)
    if p.is_absolute() or (p.parts and ":" in p.parts[0]):
        raise ArchiveError(f"archive member {shown(name)} has an absolute path")
    parts = tuple(x for x in p.parts if x not in ("", "."))
    if ".." in parts:
        raise ArchiveError(f"archive member {shown(name)} would be written outside the unpack directory")
    return parts


class _Budget:
    def __init__(self) -> None:
        self.total = 0  # bytes written
        self.expanded = 0  # bytes a tar decompresses to
        self.members = 0
        self.names = 0

    def member(self, name: str) -> None:
        self.members += 1
        self.names += len(name)
        if self.members > MAX_MEMBERS:
            raise ArchiveError(f"archive has more than {MAX_MEMBERS} members")
        if self.names > MAX_NAMES:
            raise ArchiveError(f"archive member names add up to more than {MAX_NAMES >> 20} M characters")

    def expand(self, size: int) -> None:
        self.expanded += max(size, 0)
        if self.expanded > MAX_EXPANDED:
            raise ArchiveError(f"archive decompresses to more than {MAX_EXPANDED >> 20} MB")

    def copy(self, src, dest: Path, name: str) -> None:
        """``src`` into the new file ``dest`` when the audit reads such a file, else an empty ``dest``."""
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_symlink() or dest.exists():
            raise ArchiveError(f"archive member {shown(name)} occurs twice")
        written = 0
        cap = MAX_FILE if name.endswith(READ) else MAX_METADATA
        with open(dest, "xb") as out:
            while src is not None and kept(name):
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                written += len(chunk)
                self.total += len(chunk)
                if written > cap:
                    raise ArchiveError(f"archive member {shown(name)} is larger than {cap >> 20} MB")
                if self.total > MAX_TOTAL:
                    raise ArchiveError(f"archive unpacks to more than {MAX_TOTAL >> 20} MB of Python sources")
                out.write(chunk)
        os.chmod(dest, 0o644)


def unpack(archive: Path, out: Path) -> None:
    """Unpack ``archive`` (``.whl``, ``.zip``, ``.tar.gz``, ``.tar.bz2``, ``.tar.xz``, ``.tar``) into
    ``out`` (created; it must not exist); an sdist's single top directory becomes ``out`` itself."""
    if os.path.lexists(out):
        raise FileExistsError(17, "File exists", str(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}@unpack-"))
    try:
        _unpack_into(archive, work)
        tops = list(work.iterdir())
        if not tops:
            raise ArchiveError(f"{_escaped(archive.name)}: no file to unpack")
        sdist = not archive.name.lower().endswith(".whl")
        os.rename(tops[0] if sdist and len(tops) == 1 and tops[0].is_dir() else work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _unpack_into(archive: Path, out: Path) -> None:
    budget = _Budget()
    name = archive.name.lower()
    if name.endswith((".whl", ".zip")):
        how = _unzip
    elif name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar")):
        how = _untar
    else:
        raise ArchiveError(f"{_escaped(archive.name)}: not an archive this tool unpacks")
    try:
        how(archive, out, budget)
    except ArchiveError as exc:
        raise ArchiveError(f"{_escaped(archive.name)}: {exc}") from None
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)  # never the path it names
        raise ArchiveError(f"{_escaped(archive.name)}: cannot unpack ({type(exc).__name__}: {_escaped(detail)})") from None


def _zip_directory_fits(archive: Path) -> None:
    """Refuse a zip whose central directory (read whole by ``zipfile``) is too big or lists too many members."""
    end_record = getattr(zipfile, "_EndRecData", None)
    if end_record is None:  # pragma: no cover (every CPython 3 has it)
        return
    with open(archive, "rb") as f:
        end = end_record(f)
    if end is None:
        return  # not a zip: zipfile says so
    if end[zipfile._ECD_ENTRIES_TOTAL] > MAX_MEMBERS:
        raise ArchiveError(f"archive has more than {MAX_MEMBERS} members")
    if end[zipfile._ECD_SIZE] > MAX_DIRECTORY:
        raise ArchiveError(f"its central directory is larger than {MAX_DIRECTORY >> 20} MB")


def _unzip(archive: Path, out: Path, budget: _Budget) -> None:
    _zip_directory_fits(archive)
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            budget.member(info.filename)
            parts = _safe_parts(info.filename)
            if not parts:
                continue
            mode = info.external_attr >> 16
            if info.is_dir():
                out.joinpath(*parts).mkdir(parents=True, exist_ok=True)
                continue
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # symlinks and other special files
                continue
            if not kept(info.filename):
                budget.copy(None, out.joinpath(*parts), info.filename)
                continue
            with z.open(info) as src:
                budget.copy(src, out.joinpath(*parts), info.filename)


class _Member(tarfile.TarInfo):
    """A tar header that refuses, before ``tarfile`` reads it, an extended header or long name
    bigger than :data:`MAX_HEADER`, and sparse members (whose maps are read whole)."""

    def _proc_member(self, tarfile_):
        if self.type in _LONG_HEADERS and self.size > MAX_HEADER:
            raise ArchiveError(f"a tar header of {self.size} bytes (an extended header or long name) is larger "
                               f"than {MAX_HEADER >> 10} KB")
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise ArchiveError("a sparse tar member: not unpacked")
        return super()._proc_member(tarfile_)

    def _proc_gnusparse_10(self, *args, **kwargs):
        raise ArchiveError("a sparse tar member: not unpacked")


def _untar(archive: Path, out: Path, budget: _Budget) -> None:
    with tarfile.open(archive, tarinfo=_Member) as t:
        for m in t:
            budget.member(m.name)
            parts = _safe_parts(m.name)
            if not parts:
                continue
            if m.isdir():
                out.joinpath(*parts).mkdir(parents=True, exist_ok=True)
                continue
            if not m.isreg():  # symlinks, hard links, devices, FIFOs
                continue
            budget.expand(m.size)  # read, or skipped by decompressing it
            if m.size > MAX_FILE and m.name.endswith(READ):
                raise ArchiveError(f"archive member {shown(m.name)} is larger than {MAX_FILE >> 20} MB")
            if not kept(m.name):
                budget.copy(None, out.joinpath(*parts), m.name)
                continue
            src = t.extractfile(m)
            if src is None:
                continue
            with src:
                budget.copy(src, out.joinpath(*parts), m.name)
