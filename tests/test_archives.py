"""Unpacking fetched archives as plain files, and finding an sdist without pip building it."""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from upgrade_checklists.audit import archives, index
from upgrade_checklists.audit.archives import ArchiveError, unpack


def tar(path: Path, members: list[tuple[str, bytes | None, str | None]]) -> Path:
    """members: (name, data, linkname); data None and linkname set = a symlink."""
    with tarfile.open(path, "w:gz") as t:
        for name, data, link in members:
            info = tarfile.TarInfo(name)
            if link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, link
                t.addfile(info)
            else:
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
    return path


def test_sdist_top_directory_becomes_the_root(tmp_path: Path) -> None:
    a = tar(tmp_path / "p-1.0.tar.gz", [("p-1.0/pkg/__init__.py", b"x = 1\n", None), ("p-1.0/setup.py", b"raise SystemExit\n", None)])
    unpack(a, tmp_path / "out")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")) == [
        "pkg", "pkg/__init__.py", "setup.py"]
    assert stat.S_IMODE((tmp_path / "out/setup.py").stat().st_mode) == 0o644


@pytest.mark.parametrize("name", ["../evil.py", "p-1.0/../../evil.py", "/tmp/evil.py", "p-1.0\\..\\evil.py", "C:/evil.py"])
def test_members_outside_the_directory_are_refused(tmp_path: Path, name: str) -> None:
    a = tar(tmp_path / "p-1.0.tar.gz", [("p-1.0/ok.py", b"", None), (name, b"boom", None)])
    with pytest.raises(ArchiveError, match="outside|absolute|backslash"):
        unpack(a, tmp_path / "out")
    assert not (tmp_path / "evil.py").exists()


def test_links_are_not_written_nor_followed(tmp_path: Path) -> None:
    a = tar(tmp_path / "p-1.0.tar.gz", [
        ("p-1.0/link", None, "/etc"),
        ("p-1.0/ok.py", b"x\n", None),
    ])
    unpack(a, tmp_path / "out")
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["ok.py"]
    z = tmp_path / "w-1.0-py3-none-any.whl"
    with zipfile.ZipFile(z, "w") as zf:
        info = zipfile.ZipInfo("w/link")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
        zf.writestr("w/__init__.py", "x = 1\n")
    unpack(z, tmp_path / "wout")
    assert sorted(p.relative_to(tmp_path / "wout").as_posix() for p in (tmp_path / "wout").rglob("*")) == ["w", "w/__init__.py"]


def test_sizes_are_bounded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(archives, "MAX_FILE", 1000)
    z = tmp_path / "w-1.0-py3-none-any.whl"
    with zipfile.ZipFile(z, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("w/big.py", "#" * 5000)  # small compressed, large unpacked
    with pytest.raises(ArchiveError, match="larger than"):
        unpack(z, tmp_path / "out")
    monkeypatch.setattr(archives, "MAX_FILE", 10_000)
    monkeypatch.setattr(archives, "MAX_TOTAL", 6000)
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("w/a.py", "#" * 4000)
        zf.writestr("w/b.py", "#" * 4000)
    with pytest.raises(ArchiveError, match="more than"):
        unpack(z, tmp_path / "out2")


def test_not_an_archive_and_empty(tmp_path: Path) -> None:
    (tmp_path / "p-1.0.tar.gz").write_bytes(b"not gzip")
    with pytest.raises(ArchiveError, match="cannot unpack"):
        unpack(tmp_path / "p-1.0.tar.gz", tmp_path / "out")
    (tmp_path / "p.exe").write_bytes(b"MZ")
    with pytest.raises(ArchiveError, match="not an archive"):
        unpack(tmp_path / "p.exe", tmp_path / "out2")
    with pytest.raises(ArchiveError, match="no file"):
        unpack(tar(tmp_path / "e-1.0.tar.gz", []), tmp_path / "out3")


def test_pip_sources_come_from_pip_config(monkeypatch, tmp_path: Path) -> None:
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nindex-url = https://mirror.example/simple\nextra-index-url = file:///a file:///b\n"
                    "find-links = /from/config\n[download]\nfind-links = /from/download\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    for var in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
        monkeypatch.delenv(var, raising=False)
    got = index.pip_sources()
    assert (got.index_urls, got.find_links) == (["https://mirror.example/simple", "file:///a", "file:///b"], ["/from/download"])
    monkeypatch.setenv("PIP_FIND_LINKS", "/env/one /env/two")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    got = index.pip_sources()
    assert (got.index_urls, got.find_links) == ([], ["/env/one", "/env/two"])


def test_find_sdist_on_a_simple_index_and_check_its_hash(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    good = files / "My_Pkg-1.0.tar.gz"
    good.write_bytes(b"sdist bytes")
    (files / "my_pkg-1.0-py3-none-any.whl").write_bytes(b"wheel")
    (files / "my-pkg-1.0.1.tar.gz").write_bytes(b"other version")
    sha = hashlib.sha256(b"sdist bytes").hexdigest()
    page = tmp_path / "simple" / "my-pkg"
    page.mkdir(parents=True)
    (page / "index.html").write_text(
        f'<html><body><a href="{files.as_uri()}/My_Pkg-1.0.tar.gz#sha256={sha}">My_Pkg-1.0.tar.gz</a>'
        f'<a href="{files.as_uri()}/my-pkg-1.0.1.tar.gz">x</a><a href="{files.as_uri()}/my_pkg-1.0-py3-none-any.whl">w</a></body></html>')
    sources = index.PipSources([(tmp_path / "simple").as_uri()], [])
    urls = index.find_sdist("my.pkg", "1.0", sources, timeout=10)
    assert urls == [f"{files.as_uri()}/My_Pkg-1.0.tar.gz#sha256={sha}"]
    # file:// index pages are directories: urllib serves the listing only for index.html
    got = index.download(urls[0], tmp_path / "dl", timeout=10)
    assert got.read_bytes() == b"sdist bytes"
    bad = urls[0].replace(sha, "0" * 64)
    with pytest.raises(index.IndexLookupError, match="does not match"):
        index.download(bad, tmp_path / "dl2", timeout=10)
    with pytest.raises(index.IndexLookupError, match="no sdist of my-pkg==2.0"):
        index.find_sdist("my-pkg", "2.0", sources, timeout=10)
    assert index.find_sdist("my-pkg", "1.0.1", index.PipSources([], [str(files)]), timeout=10) == [str(files / "my-pkg-1.0.1.tar.gz")]
    with pytest.raises(index.IndexLookupError, match="scheme 'ftp' is not allowed"):
        index.download("ftp://example/x-1.0.tar.gz", tmp_path / "dl3", timeout=10)
    assert os.listdir(tmp_path / "dl") == ["My_Pkg-1.0.tar.gz"]
