"""Attacks on the audit and its upstream fetching (issue 21, items 1, 2, 4, 8 and 15), each
run through the installed console script (``upgrade-checklists`` of this interpreter's
environment) as a subprocess, on real git repositories in tmp_path and local upstreams:
local git repositories, and archives written here by hand served through
``PIP_FIND_LINKS`` (no network: the proxies point at a closed port).

Each test says what the attack did before the fix.
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import tarfile
import textwrap
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import git
from test_audit import bump, make_project
from upstream import CORE_V1, CORE_V2, _tree, make_sdist, make_upstreams, make_wheel

SCRIPT = Path(sys.executable).with_name("upgrade-checklists")
MB = 1024 * 1024


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_upstreams(tmp_path_factory.mktemp("upstream"))


@dataclass
class Ran:
    code: int
    out: str
    err: str
    peak_rss: int = 0  # bytes
    written: int = 0  # bytes the process passed to write() (all files and pipes), as last seen


def environment(tmp_path: Path, dist: Path | None = None, **extra: str) -> dict[str, str]:
    """The caller's environment without git's, pip's or Python's variables; pip sees only ``dist``;
    nothing reaches the network; the per-user cache is in tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PIP_", "PYTHON"))}
    env.update({"XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "http_proxy": "http://127.0.0.1:9",
                "https_proxy": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
                "no_proxy": "", "NO_PROXY": ""})
    if dist is not None:
        env.update({"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(dist), "PIP_CONFIG_FILE": os.devnull,
                    "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    env.update(extra)
    return env


def cli(cwd: Path, env: dict[str, str], *args: str, timeout: int = 300) -> Ran:
    """The console script, run as a user would run it in ``cwd``."""
    assert SCRIPT.is_file(), f"the console script is not installed at {SCRIPT}"
    r = subprocess.run([str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return Ran(r.returncode, r.stdout, r.stderr)


def cli_measured(cwd: Path, env: dict[str, str], *args: str, timeout: int = 300) -> Ran:
    """:func:`cli`, with the process's peak memory (``VmHWM`` of ``/proc/PID/status``) and the
    bytes it wrote (``wchar`` of ``/proc/PID/io``), both read every 20 ms while it runs.

    Not ``wait4``'s ``ru_maxrss``: Linux carries a process's peak over ``exec`` from the
    memory it had before, and a child started by ``subprocess`` (``vfork``) had the test
    worker's, which grows over a long parallel run past the ceiling measured here."""
    if not Path("/proc/self/io").is_file():
        pytest.skip("measuring what a process writes needs Linux's /proc/PID/io")
    out, err = cwd.parent / f"{cwd.name}.stdout", cwd.parent / f"{cwd.name}.stderr"
    with open(out, "wb") as o, open(err, "wb") as e:
        p = subprocess.Popen([str(SCRIPT), *args], cwd=cwd, env=env, stdout=o, stderr=e, stdin=subprocess.DEVNULL)
    written, peak, deadline = 0, 0, time.monotonic() + timeout
    while True:
        pid, status, _usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        try:
            for line in Path(f"/proc/{p.pid}/io").read_text().splitlines():
                if line.startswith("wchar:"):
                    written = max(written, int(line.split()[1]))
            for line in Path(f"/proc/{p.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):  # kB; the high-water mark of this program's own memory
                    peak = max(peak, int(line.split()[1]) * 1024)
        except (OSError, ValueError, IndexError):
            pass
        if time.monotonic() > deadline:
            p.kill()
            raise AssertionError(f"`upgrade-checklists {' '.join(args)}` ran over {timeout}s")
        time.sleep(0.02)
    p.returncode = os.waitstatus_to_exitcode(status)
    return Ran(p.returncode, out.read_text(errors="replace"), err.read_text(errors="replace"), peak, written)


def dists(upstreams: Path, dist: Path, *, core2: bool = True) -> Path:
    """fakepkg-core 1.0.0 (and 2.0.0) as sdists, fakepkg-bridge 1.0.0 as a wheel."""
    core, bridge = upstreams / "example" / "fakepkg-core", upstreams / "example" / "fakepkg-bridge"
    make_sdist(core, "v1.0.0", dist)
    if core2:
        make_sdist(core, "v2.0.0", dist)
    make_wheel(bridge, "v1.0.0", dist)
    return dist


def project_at(tmp_path: Path, upstreams: Path, name: str = "project"):
    """The audit's fixture project, committed at 1.0.0, with fakepkg-core moved to 2.0.0 (not committed)."""
    project = make_project(tmp_path / name, None, upstreams)
    bump(project, upstreams)
    return project


# -- item 1: helper interpreters run isolated ---------------------------------------------------------


def test_the_repositorys_own_pip_package_is_never_imported(upstreams: Path, tmp_path: Path) -> None:
    """The repository has ``pip/__init__.py`` (and an empty ``pip/__main__.py``) at its root, a
    ``sitecustomize.py`` beside it, and the environment names a folder with another ``pip``
    on ``PYTHONPATH`` and a start-up file: before, ``python -m pip`` ran with the repository
    as its working directory, so the repository's ``pip`` ran (twice: ``pip download``, then
    ``pip config list``)."""
    canary = tmp_path / "CANARY"
    project = make_project(tmp_path / "project", None, upstreams)
    writes = "import pathlib\nwith open({path!r}, 'a') as f:\n    f.write({what!r} + '\\n')\n"
    project.write("pip/__init__.py", writes.format(path=str(canary), what="repository pip"))
    project.write("pip/__main__.py", "")
    project.write("sitecustomize.py", writes.format(path=str(canary), what="repository sitecustomize"))
    project.commit("a pip package of our own")
    bump(project, upstreams)
    shadow = tmp_path / "shadow"
    (shadow / "pip").mkdir(parents=True)
    (shadow / "pip" / "__init__.py").write_text(writes.format(path=str(canary), what="PYTHONPATH pip"))
    (shadow / "pip" / "__main__.py").write_text("")
    startup = tmp_path / "startup.py"
    startup.write_text(writes.format(path=str(canary), what="PYTHONSTARTUP"))
    dist = dists(upstreams, tmp_path / "dist")
    env = environment(tmp_path, dist, PYTHONPATH=str(shadow), PYTHONSTARTUP=str(startup))
    r = cli(project.path, env, "audit", "--source", "index", "--timeout", "120")
    assert not canary.exists(), canary.read_text()
    assert r.code == 1, r.err
    assert "RENAMED_PARAM" in r.out, r.out  # the real pip fetched both versions


# -- item 2: git's environment never reaches the upstream clones -----------------------------------------


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (links as their targets), by path."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            out[rel] = b"->" + os.readlink(p).encode()
        elif p.is_file():
            out[rel] = p.read_bytes()
    return out


@pytest.mark.parametrize("work_tree", [False, True], ids=["hook", "hook+GIT_WORK_TREE"])
def test_a_hook_in_a_linked_worktree_leaves_the_users_repository_untouched(upstreams: Path, tmp_path: Path, work_tree: bool) -> None:
    """Run the way a git hook in a linked worktree runs it (git exports ``GIT_DIR``,
    ``GIT_INDEX_FILE``, ``GIT_EXEC_PATH``, ``GIT_PREFIX``; ``git -c`` adds
    ``GIT_CONFIG_PARAMETERS``, here a hook path whose hook writes a canary; a wrapper may
    export ``GIT_WORK_TREE`` too): before, the upstream clone and its sparse checkout acted
    on the user's repository (its config became ``bare = true`` with a remote, HEAD moved,
    sparse checkout was switched on)."""
    main = make_project(tmp_path / "main", None, upstreams)
    wt = tmp_path / "wt"
    git(main.path, "worktree", "add", "-q", "-b", "feature", str(wt))
    (wt / "pyproject.toml").write_text((main.path / "pyproject.toml").read_text().replace(
        '"fakepkg-core==1.0.0"', '"fakepkg-core==2.0.0"'))
    canary = tmp_path / "CANARY"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-checkout", "post-merge", "reference-transaction", "post-index-change"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {canary}\n")
        (hooks / hook).chmod(0o755)
    gitdir = main.path / ".git" / "worktrees" / "wt"
    assert gitdir.is_dir()
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip()
    env = environment(tmp_path, GIT_DIR=str(gitdir), GIT_INDEX_FILE=str(gitdir / "index"),
                      GIT_EXEC_PATH=exec_path, GIT_PREFIX="", GIT_CONFIG_PARAMETERS=f"'core.hookspath'='{hooks}'")
    if work_tree:
        env["GIT_WORK_TREE"] = str(wt)
    before_git, before_wt = _snapshot(main.path / ".git"), _snapshot(wt)
    r = cli(wt, env, "audit", "--source", "git", "--timeout", "120")
    assert _snapshot(main.path / ".git") == before_git
    ours = ("upgrade-summary.md", ".upgrade-checklists-cache/")
    after_wt = {k: v for k, v in _snapshot(wt).items() if not k.startswith(ours)}
    assert after_wt == before_wt
    assert not canary.exists(), canary.read_text()
    assert r.code == 1, r.err
    assert "RENAMED_PARAM" in r.out  # the upstream clones are right too
    # and what the hook's git sees of the user's repository is the same as before
    assert git(wt, "status", "--porcelain") == " M pyproject.toml\n"
    assert git(wt, "config", "--get", "core.bare") == "false\n"


# -- item 4: a source or model cache inside the repository is refused -----------------------------------


def _forge(cache: Path) -> None:
    """fakepkg-core "2.0.0", as an audit cache holds it, with 1.0.0's code: complete by the marker
    of before (in the tree) and by the one beside it."""
    dest = cache / "index" / "fakepkg-core" / "2.0.0"
    for rel, text in CORE_V1.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(textwrap.dedent(text).lstrip("\n"))
    (dest / ".upgrade-checklists-complete").write_text("fakepkg_core-2.0.0.tar.gz\n")
    (dest.parent / "@2.0.0.complete").write_text("fakepkg_core-2.0.0.tar.gz\n")


@pytest.mark.parametrize("where", ["XDG_CACHE_HOME in the project (the GitLab example)", "--cache-dir relative",
                                   "--cache-dir through a symlink outside"])
def test_a_committed_source_cache_cannot_make_a_breaking_upgrade_pass(upstreams: Path, tmp_path: Path, where: str) -> None:
    """The branch commits a forged source tree of the new version (the old version's code,
    with the completion marker): before, an audit whose cache was inside the checkout took
    it, and a breaking upgrade exited 0."""
    project = make_project(tmp_path / "project", None, upstreams)
    env = environment(tmp_path, dists(upstreams, tmp_path / "dist"))
    args = ["audit", "--source", "index", "--timeout", "120"]
    if where.startswith("XDG"):
        _forge(project.path / ".cache" / "upgrade-checklists")
        env["XDG_CACHE_HOME"] = str(project.path / ".cache")
    elif where == "--cache-dir relative":
        _forge(project.path / "ci-cache")
        args += ["--cache-dir", "ci-cache"]
    else:
        _forge(project.path / "ci-cache")
        (tmp_path / "link").symlink_to(project.path / "ci-cache")
        args += ["--cache-dir", str(tmp_path / "link")]
    project.commit("a cache, committed")
    bump(project, upstreams)
    r = cli(project.path, env, *args)
    assert r.code == 2, r.out + r.err
    assert "is inside the repository" in r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert "RENAMED_PARAM" not in r.out
    # the same audit with the cache outside the checkout finds the breaking change
    ok = cli(project.path, environment(tmp_path, tmp_path / "dist"), "audit", "--source", "index", "--timeout", "120",
             "--cache-dir", str(tmp_path / "outside"))
    assert ok.code == 1 and "RENAMED_PARAM" in ok.out, ok.err


# -- item 8: archive bombs ------------------------------------------------------------------------------


def _long_name_sdist(upstreams: Path, dist: Path, fmt: int) -> Path:
    """fakepkg-core 2.0.0's sdist (``make_sdist``'s members) plus one member whose name is 20 MB
    long: in a pax extended header (PAX) or a GNU long-name header (GNU)."""
    files = _tree(upstreams / "example" / "fakepkg-core", "v2.0.0")
    path = dist / "fakepkg_core-2.0.0.tar.gz"
    with tarfile.open(path, "w:gz", format=fmt) as t:
        for rel, data in sorted(files.items()):
            info = tarfile.TarInfo(f"fakepkg_core-2.0.0/{rel}")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo("fakepkg_core-2.0.0/" + "\x1b[31m" + "a" * (20 * MB))
        info.size = 4
        t.addfile(info, io.BytesIO(b"boom"))
    assert path.stat().st_size < 200_000
    return path


@pytest.mark.parametrize("fmt", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT], ids=["pax", "gnu"])
def test_a_20_mb_member_name_goes_nowhere(upstreams: Path, tmp_path: Path, fmt: int) -> None:
    """A small sdist with a 20 MB member name: before, the name was read whole (the audit peaked
    at 819 MB) and printed whole on stdout, on stderr and in the summary."""
    dist = dists(upstreams, tmp_path / "dist", core2=False)
    _long_name_sdist(upstreams, dist, fmt)
    project = project_at(tmp_path, upstreams)
    r = cli_measured(project.path, environment(tmp_path, dist), "audit", "--source", "index", "--timeout", "120")
    summary = (project.path / "upgrade-summary.md").read_text()
    assert r.code == 2, r.err[:2000]
    assert "header" in r.err and "fakepkg-core 2.0.0" in r.err
    assert len(r.out) < 20_000 and len(r.err) < 20_000 and len(summary) < 50_000
    assert "\x1b" not in r.out + r.err + summary
    assert 10 * MB < r.peak_rss < 250 * MB, r.peak_rss  # measured while it ran, and under the ceiling


def _zip(path: Path, files: dict[str, bytes], bombs: list[str], bomb_size: int) -> Path:
    """A zip archive written by hand: ``files``, and each of ``bombs`` a member of ``bomb_size``
    zero bytes (its deflated stream made once: the archive is small and quick to write)."""
    zero = bytes(bomb_size)
    packed = {}

    def deflate(data: bytes) -> bytes:
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        return c.compress(data) + c.flush()

    bomb = (deflate(zero), zlib.crc32(zero), bomb_size)
    for name, data in files.items():
        packed[name] = (deflate(data), zlib.crc32(data), len(data))
    for name in bombs:
        packed[name] = bomb
    local, central = io.BytesIO(), io.BytesIO()
    for name, (comp, crc, size) in packed.items():
        raw = name.encode()
        offset = local.tell()
        local.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(comp), size, len(raw), 0) + raw + comp)
        central.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x0314, 20, 0, 8, 0, 0x21, crc, len(comp), size,
                                  len(raw), 0, 0, 0, 0, 0o100644 << 16, offset) + raw)
    body, directory = local.getvalue(), central.getvalue()
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(packed), len(packed), len(directory), len(body), 0)
    path.write_bytes(body + directory + end)
    return path


def _bomb_wheel(upstreams: Path, dist: Path, suffix: str) -> Path:
    files = {k: v for k, v in _tree(upstreams / "example" / "fakepkg-core", "v2.0.0").items() if k.startswith("fakepkg/")}
    info = "fakepkg_core-2.0.0.dist-info"
    files[f"{info}/METADATA"] = b"Metadata-Version: 2.1\nName: fakepkg-core\nVersion: 2.0.0\n"
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    bombs = [f"fakepkg/core/bomb{i:02d}{suffix}" for i in range(60)]  # 60 x 40 MB: 2.4 GB
    files[f"{info}/RECORD"] = "".join(f"{rel},,\n" for rel in [*files, *bombs]).encode()
    path = _zip(dist / "fakepkg_core-2.0.0-py3-none-any.whl", files, bombs, 40 * MB)
    assert path.stat().st_size < 5 * MB
    return path


@pytest.mark.parametrize("suffix", [".py", ".so"])
def test_a_zip_bomb_writes_no_gigabytes(upstreams: Path, tmp_path: Path, suffix: str) -> None:
    """A 2.5 MB wheel unpacking to 2.4 GB (60 members of 40 MB, each under the per-file cap of
    before): before, 2 GB were written before the total cap stopped it. Python sources are
    capped in total (the audit stops, exit 2, well under a gigabyte); other members (what
    the audit never reads) are written empty, so the audit runs."""
    dist = dists(upstreams, tmp_path / "dist", core2=False)
    _bomb_wheel(upstreams, dist, suffix)
    project = project_at(tmp_path, upstreams)
    r = cli_measured(project.path, environment(tmp_path, dist), "audit", "--source", "index", "--timeout", "300",
                     "--cache-dir", str(tmp_path / "cache"))
    assert r.written < 700 * MB, r.written
    if suffix == ".py":
        assert r.code == 2, r.err
        assert "more than 512 MB" in r.err
    else:
        assert r.code == 1, r.err
        assert "RENAMED_PARAM" in r.out
        bomb = tmp_path / "cache" / "index" / "fakepkg-core" / "2.0.0" / "fakepkg" / "core" / "bomb00.so"
        assert bomb.is_file() and bomb.stat().st_size == 0


# -- item 15: archive content cannot collide with the tool's bookkeeping --------------------------------


@pytest.mark.parametrize("member", [".sdist-top", ".upgrade-checklists-complete/x", ".upgrade-checklists-complete"])
def test_members_named_like_the_tools_bookkeeping_are_just_files(upstreams: Path, tmp_path: Path, member: str) -> None:
    """An sdist whose top folder holds ``.sdist-top`` (the name its top folder was renamed to
    while unpacking) or ``.upgrade-checklists-complete`` (the completion marker's name): before,
    the audit ended in an internal error and wrote no summary."""
    dist = dists(upstreams, tmp_path / "dist", core2=False)
    make_sdist(upstreams / "example" / "fakepkg-core", "v2.0.0", dist, {member: "x = 1\n"})
    project = project_at(tmp_path, upstreams)
    r = cli(project.path, environment(tmp_path, dist), "audit", "--source", "index", "--timeout", "120",
            "--cache-dir", str(tmp_path / "cache"))
    assert r.code == 1, r.err
    assert "RENAMED_PARAM" in r.out
    summary = (project.path / "upgrade-summary.md").read_text()
    assert "Source: fakepkg_core-2.0.0.tar.gz." in " ".join(summary.split())
    unpacked = tmp_path / "cache" / "index" / "fakepkg-core" / "2.0.0"
    assert (unpacked / member).read_bytes() == (b"x = 1\n" if member.endswith(".py") else b"")


# -- the one way subprocesses start (proc.py) -----------------------------------------------------------

PACKAGE = Path(__file__).resolve().parent.parent / "hooks" / "upgrade_checklists"


def test_only_proc_starts_a_process() -> None:
    """Every command goes through ``proc`` (isolation in one place): no other module of the
    package calls ``subprocess`` or ``os`` to start one."""
    starts = ("subprocess.run(", "subprocess.Popen(", "subprocess.call(", "subprocess.check_call(",
              "subprocess.check_output(", "subprocess.getoutput(", "os.system(", "os.popen(", "os.exec", "os.spawn",
              "os.posix_spawn", "asyncio.create_subprocess")
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "proc.py":
            continue
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(PACKAGE)}: {s}" for s in starts if s in text]
    assert found == []
    assert any(PACKAGE.rglob("proc.py"))


def test_every_variable_git_calls_local_is_dropped(tmp_path: Path) -> None:
    """What ``git rev-parse --local-env-vars`` lists never reaches a command on an upstream; on
    the user's repository only the configuration ones stay (the user's ``git -c``, meant for
    this repository), and ``GIT_INDEX_FILE`` under the condition tested below."""
    from upgrade_checklists.core import proc

    listed = subprocess.run(["git", "rev-parse", "--local-env-vars"], capture_output=True, text=True, check=True).stdout.split()
    assert "GIT_DIR" in listed and "GIT_INDEX_FILE" in listed
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    base = {name: str(tmp_path / "elsewhere") for name in listed}
    base.update({"GIT_EXEC_PATH": "/x", "GIT_SSH_COMMAND": "x", "GIT_TEMPLATE_DIR": "/x", "GIT_ASKPASS": "x",
                 "GIT_CONFIG_GLOBAL": "/x", "GIT_CONFIG_SYSTEM": "/x", "GIT_CONFIG_KEY_0": "k", "GIT_CONFIG_VALUE_0": "v",
                 "GIT_SSL_CAINFO": "/ca.pem", "PATH": os.environ["PATH"], "PYTHONPATH": "/x"})
    upstream = proc.environment(proc.GIT_UPSTREAM, base=base)
    assert sorted(k for k in upstream if k.startswith("GIT_")) == [
        "GIT_ASKPASS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_LFS_SKIP_SMUDGE", "GIT_SSL_CAINFO", "GIT_TERMINAL_PROMPT"]
    assert (upstream["GIT_ASKPASS"], upstream["GIT_CONFIG_GLOBAL"], upstream["GIT_SSL_CAINFO"]) == ("", os.devnull, "/ca.pem")
    mine = proc.environment(proc.GIT_REPO, repo, base=base)
    config = {"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"}
    assert [name for name in listed if name in mine] == [name for name in listed if name in config]
    assert "PYTHONPATH" not in mine and "PYTHONPATH" not in upstream
    assert (mine["GIT_OPTIONAL_LOCKS"], mine["GIT_TERMINAL_PROMPT"]) == ("0", "0")


def test_a_temporary_index_is_kept_only_in_the_repositorys_git_folder(tmp_path: Path) -> None:
    """``git commit -- path`` runs the hook with ``GIT_INDEX_FILE`` naming a temporary index in
    the repository's git folder (a linked worktree's own folder, for one): kept, so the check
    sees what is committed. An index anywhere else (another repository's) is dropped."""
    from upgrade_checklists.core import proc

    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "commit", "-q", "--allow-empty", "-m", "start")
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    for root, index, kept in [
        (main, main / ".git" / "next-index-7.lock", True),
        (tmp_path / "wt", main / ".git" / "worktrees" / "wt" / "next-index-7.lock", True),
        (tmp_path / "wt", main / ".git" / "index", False),  # the main worktree's index, not this one's
        (main, other / ".git" / "index", False),
        (main, tmp_path / "index", False),
    ]:
        env = proc.environment(proc.GIT_REPO, root, base={"PATH": os.environ["PATH"], "GIT_INDEX_FILE": str(index),
                                                           "GIT_DIR": str(other / ".git")})
        assert env.get("GIT_INDEX_FILE") == (str(index) if kept else None), (root, index)
        assert "GIT_DIR" not in env


def test_helper_interpreters_run_isolated(tmp_path: Path, monkeypatch) -> None:
    from upgrade_checklists.core import proc

    assert proc.command([sys.executable, "-m", "pip"], proc.PYTHON) == [sys.executable, "-I", "-m", "pip"]
    assert proc.python_command("-m", "pip") == [sys.executable, "-I", "-m", "pip"]
    with pytest.raises(ValueError):
        proc.command(["python3", "-m", "pip"], proc.PYTHON)  # only this interpreter
    with pytest.raises(ValueError):
        proc.command(["git", "status"], proc.GIT_REPO)  # git on the repository runs in it
    with pytest.raises(ValueError):
        proc.command(["sh", "-c", "x"], proc.GIT_UPSTREAM)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("PYTHONSAFEPATH", "")
    monkeypatch.setenv("PIP_INDEX_URL", "file:///nowhere")
    probe = ("import json, os, sys; print(json.dumps([sys.flags.isolated, os.getcwd(), os.listdir('.'), "
             "sorted(k for k in os.environ if k.startswith(('PYTHON', 'PIP_')))]))")
    r = proc.run([sys.executable, "-c", probe], kind=proc.PYTHON, timeout=60, text=True)
    isolated, cwd, listing, names = json.loads(r.stdout)
    assert isolated == 1
    assert cwd != str(tmp_path) and listing == [] and not Path(cwd).exists()  # a fresh empty folder, removed after
    assert not [n for n in names if n.startswith("PYTHON")] and {"PIP_INDEX_URL", "PIP_NO_INPUT"} <= set(names)
