"""Unpack a downloaded sdist or wheel as plain files, never building or installing it.

Only regular files and directories are written. A member with an absolute path, a
``..`` component, a drive or a backslash is refused; links, devices and FIFOs are
skipped; sizes are bounded (per file, in total, and in member count), so a
decompression bomb stops early. Nothing in the archive is run: a ``setup.py`` or a
``.pth`` file is just a file here.
"""

from __future__ import annotations

import os
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

MAX_FILE = 256 * 1024 * 1024
MAX_TOTAL = 2 * 1024 * 1024 * 1024
MAX_MEMBERS = 200_000


class ArchiveError(Exception):
    """The archive is not one we unpack (unsafe member, too big, not an archive)."""


def _safe_parts(name: str) -> tuple[str, ...]:
    if "\\" in name or "\0" in name:
        raise ArchiveError(f"archive member {name!r} has a backslash or NUL in its name")
    p = PurePosixPath(name)
    if p.is_absolute() or (p.parts and ":" in p.parts[0]):
        raise ArchiveError(f"archive member {name!r} has an absolute path")
    parts = tuple(x for x in p.parts if x not in ("", "."))
    if ".." in parts:
        raise ArchiveError(f"archive member {name!r} would be written outside the unpack directory")
    return parts


class _Budget:
    def __init__(self) -> None:
        self.total = 0
        self.members = 0

    def member(self) -> None:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise ArchiveError(f"archive has more than {MAX_MEMBERS} members")

    def copy(self, src, dest: Path, name: str) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_symlink() or dest.exists():
            raise ArchiveError(f"archive member {name!r} occurs twice")
        written = 0
        with open(dest, "xb") as out:
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                written += len(chunk)
                self.total += len(chunk)
                if written > MAX_FILE:
                    raise ArchiveError(f"archive member {name!r} is larger than {MAX_FILE >> 20} MB")
                if self.total > MAX_TOTAL:
                    raise ArchiveError(f"archive unpacks to more than {MAX_TOTAL >> 20} MB")
                out.write(chunk)
        os.chmod(dest, 0o644)


def unpack(archive: Path, out: Path) -> None:
    """Unpack ``archive`` (``.whl``, ``.zip``, ``.tar.gz``, ``.tar.bz2``, ``.tar.xz``, ``.tar``) into
    ``out`` (created); an sdist's single top directory becomes ``out`` itself."""
    out.mkdir(parents=True)
    budget = _Budget()
    name = archive.name.lower()
    try:
        if name.endswith((".whl", ".zip")):
            _unzip(archive, out, budget)
        elif name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar")):
            _untar(archive, out, budget)
        else:
            raise ArchiveError(f"{archive.name}: not an archive this tool unpacks")
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ArchiveError(f"{archive.name}: cannot unpack ({type(exc).__name__}: {exc})") from None
    tops = list(out.iterdir())
    if not tops:
        raise ArchiveError(f"{archive.name}: no file to unpack")
    if not name.endswith(".whl") and len(tops) == 1 and tops[0].is_dir():
        top = tops[0].rename(out / ".sdist-top")
        for child in list(top.iterdir()):
            os.replace(child, out / child.name)
        top.rmdir()


def _unzip(archive: Path, out: Path, budget: _Budget) -> None:
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            budget.member()
            parts = _safe_parts(info.filename)
            if not parts:
                continue
            mode = info.external_attr >> 16
            if info.is_dir():
                out.joinpath(*parts).mkdir(parents=True, exist_ok=True)
                continue
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # symlinks and other special files
                continue
            with z.open(info) as src:
                budget.copy(src, out.joinpath(*parts), info.filename)


def _untar(archive: Path, out: Path, budget: _Budget) -> None:
    with tarfile.open(archive) as t:
        for m in t:
            budget.member()
            parts = _safe_parts(m.name)
            if not parts:
                continue
            if m.isdir():
                out.joinpath(*parts).mkdir(parents=True, exist_ok=True)
                continue
            if not m.isreg():  # symlinks, hard links, devices, FIFOs
                continue
            if m.size > MAX_FILE:
                raise ArchiveError(f"archive member {m.name!r} is larger than {MAX_FILE >> 20} MB")
            src = t.extractfile(m)
            if src is None:
                continue
            with src:
                budget.copy(src, out.joinpath(*parts), m.name)
