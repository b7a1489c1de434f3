"""Attacks through the repository's paths, run through the installed console script.

Issue 21, items 3, 5, 6, 7, 12, 13 and 15: committed symlinks that lead reads or writes
out of the repository, a run record that answered after a file it read (but git does not
list) was deleted, unreadable sources that passed and had their rows struck by ``--fix``,
a cache directory that took over a folder of the project, a baseline or configuration
that is a device or a huge file, a ``.gitignore`` left empty by a full disk, and a
configuration found above the repository root. Each test reproduces the attack as a
contributor's branch would carry it (real git, the ``upgrade-checklists`` script).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FILES, git

CL = "checklists/fakepkg-core.md"
SCRIPT = shutil.which("upgrade-checklists", path=str(Path(sys.executable).parent)) or shutil.which("upgrade-checklists")
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PYTHON"))}
SECRET = "hunter2-outside-the-repository"
IGNORE_TEXT = "# Automatically created by upgrade-checklists.\n*\n"


def uc(root: Path, *args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """``upgrade-checklists ARGS`` in ``root`` (the console script of this environment)."""
    assert SCRIPT is not None, "the console script upgrade-checklists is not installed"
    return subprocess.run([SCRIPT, *args], cwd=root, env=env or ENV, capture_output=True, text=True, timeout=120, **kw)


def make_repo(root: Path, files: dict[str, str] | None = None, old: bool = True) -> Path:
    """The conftest fixture repository (plus ``files``), committed; its files an hour old
    (a run record is not stored for files changed in the last two seconds)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for rel, text in {**FILES, **(files or {})}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    commit(root)
    if old:
        age(root)
    return root


def commit(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", "change", "--allow-empty")


def age(root: Path) -> None:
    then = time.time() - 3600
    for p in [root, *root.rglob("*")]:
        if ".git" not in p.parts and not p.is_symlink():
            os.utime(p, (then, then))


def settled(root: Path) -> None:
    """Wait until every file below ``root`` changed more than two seconds ago: a run record or a
    cache entry is not stored for a file in git's racy window, and a file's change time (which
    the racy rule reads) cannot be set back like its mtime. (In-process tests move the clock
    instead: conftest.settle.)"""
    newest = max(os.lstat(p).st_ctime_ns for p in [root, *root.rglob("*")])
    wait = (newest + 2_050_000_000 - time.time_ns()) / 1e9
    if wait > 0:
        time.sleep(wait)


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry below ``folder``: a file's bytes, a link's target, a folder's name."""
    out: dict[str, bytes | str] = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        out[rel] = f"-> {os.readlink(p)}" if p.is_symlink() else ("dir" if p.is_dir() else p.read_bytes())
    return out


def one_error(r: subprocess.CompletedProcess, *words: str) -> None:
    """Exit 2 and exactly one line on stderr, an error naming each of ``words``."""
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and len(lines) == 1, (r.returncode, r.stdout, r.stderr)
    assert lines[0].startswith("upgrade-checklists: error: ") and "internal error" not in lines[0], lines[0]
    for w in words:
        assert w in lines[0], (w, lines[0])


def set_config(root: Path, extra: str) -> None:
    p = root / "pyproject.toml"
    p.write_text(p.read_text().replace("[tool.upgrade-checklists]\n", "[tool.upgrade-checklists]\n" + extra + "\n", 1))


# 3. reads and writes through committed symlinks ------------------------------------------


def test_a_symlinked_checklist_folder_is_refused_by_check_fix_and_new(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "fakepkg-core.md").write_text(FILES[CL])
    root = make_repo(tmp_path / "repo", {"app/utils/new.py": "import fakepkg.core\n"})
    shutil.rmtree(root / "checklists")
    (root / "docs").mkdir()
    os.symlink(outside, root / "docs/cl")
    set_config(root, 'checklists = "docs/cl"')
    commit(root)
    before = snapshot(outside)
    for args in (("check", "--fix"), ("check", "--no-cache", "--fix"), ("new", "otherpkg", "--github", "o/p"),
                 ("check",)):
        r = uc(root, *args)
        one_error(r, "docs/cl: a symlink leaving the repository")
        assert snapshot(outside) == before, args  # no checklist rewritten, none created there


def test_a_catalog_reference_through_a_symlinked_folder_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.py").write_text(f'def f():\n    TOKEN = "{SECRET}"\n    return TOKEN\n')
    root = make_repo(tmp_path / "repo")
    os.symlink(outside, root / "app/ext")
    entry = ("### 3. `fakepkg.core.x`\n\n**Source:** `fakepkg/core/x.py`\n\n"
             "Called in `app/ext/secret.py` (line 2):\n\n```python\nTOKEN = \"different\"\n```\n\n"
             "**Check:** nothing.\n\n## Version-Guarded Code")
    (root / CL).write_text(FILES[CL].replace("## Version-Guarded Code", entry))
    commit(root)
    for args in (("check",), ("check", "--output-format", "json"), ("check", "--fix")):
        r = uc(root, *args, "-v")
        assert SECRET not in r.stdout + r.stderr
        assert r.returncode == 1
        assert "is not read: a symlinked folder leaving the repository" in r.stdout and "app/ext/secret.py" in r.stdout, r.stdout
    assert (root / CL).read_text() == FILES[CL].replace("## Version-Guarded Code", entry)


def test_a_row_through_a_symlinked_folder_is_not_read(tmp_path: Path) -> None:
    """A row's tokens matched against an outside file would tell its content, token by token."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "notes.txt").write_text(f"{SECRET}\n")
    root = make_repo(tmp_path / "repo")
    os.symlink(outside, root / "app/ext")
    row = f"| `tests/test_core.py` | `dist_checkpointing.save`                                |\n| `app/ext/notes.txt` | `{SECRET}` |"
    (root / CL).write_text(FILES[CL].replace("| `tests/test_core.py` | `dist_checkpointing.save`                                |", row))
    commit(root)
    r = uc(root, "check")
    assert r.returncode == 1 and "`app/ext/notes.txt` is not read: a symlinked folder leaving the repository" in r.stdout, r.stdout + r.stderr


def test_a_cache_dir_through_a_symlink_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    root = make_repo(tmp_path / "repo")
    os.symlink(outside, root / "cachelink")
    set_config(root, 'cache_dir = "cachelink/c"')
    commit(root)
    r = uc(root, "check")
    one_error(r, "cachelink/c: a symlinked folder leaving the repository")
    assert snapshot(outside) == {}


def test_a_dangling_gitignore_symlink_in_the_cache_dir_writes_nothing_outside(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    root = make_repo(tmp_path / "repo")
    (root / ".upgrade-checklists-cache").mkdir()
    os.symlink(outside / "planted", root / ".upgrade-checklists-cache/.gitignore")
    commit(root)
    r = uc(root, "check")
    one_error(r, ".upgrade-checklists-cache")
    assert snapshot(outside) == {}
    assert (root / ".upgrade-checklists-cache/.gitignore").is_symlink()


def test_a_status_file_through_a_symlinked_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "STATUS.md").write_text(f"| Package | Entries |\n| --- | --- |\n| {SECRET} | 3 API entries |\n")
    root = make_repo(tmp_path / "repo")
    os.symlink(outside, root / "docs")
    set_config(root, 'status_file = "docs/STATUS.md"')
    commit(root)
    before = snapshot(outside)
    for args in (("check",), ("check", "--fix"), ("new", "otherpkg", "--github", "o/p")):
        r = uc(root, *args)
        one_error(r, "docs/STATUS.md: a symlinked folder leaving the repository")
        assert SECRET not in r.stdout + r.stderr and snapshot(outside) == before


def test_an_audit_summary_through_a_symlinked_folder_is_refused(tmp_path: Path) -> None:
    """Refused before anything is fetched (no index is asked: the error comes first)."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    root = make_repo(tmp_path / "repo")
    os.symlink(outside, root / "out")
    commit(root)
    r = uc(root, "audit", "fakepkg-core==2.0", "--from", "1.0", "--summary", "out/summary.md",
           "--cache-dir", str(tmp_path / "audit-cache"), "--source", "index")
    one_error(r, "out/summary.md: a symlinked folder leaving the repository")
    assert snapshot(outside) == {} and not (tmp_path / "audit-cache").exists()


# 5. the run record keys every path a run read, listed by git or not ----------------------


def test_the_run_record_sees_a_deleted_gitignored_file(tmp_path: Path) -> None:
    row = ("| `tests/test_core.py` | `dist_checkpointing.save`                                |\n"
           "| `build/gen.txt` | `fakepkg.core` |")
    root = make_repo(tmp_path / "repo", {
        ".gitignore": "build/\n",
        CL: FILES[CL].replace("| `tests/test_core.py` | `dist_checkpointing.save`                                |", row),
    })
    (root / "build").mkdir()
    (root / "build/gen.txt").write_text("uses fakepkg.core to generate\n")
    age(root)
    settled(root)
    cold = uc(root, "check", "--no-cache")
    assert cold.returncode == 0, cold.stdout + cold.stderr
    assert uc(root, "check").returncode == 0  # cold: writes the record
    warm = uc(root, "check", "-v")
    assert warm.returncode == 0 and "its outcome is reused" in warm.stderr  # warm: answered from it
    (root / "build/gen.txt").unlink()
    cold = uc(root, "check", "--no-cache")
    assert cold.returncode == 1 and "STALE" in cold.stdout, cold.stdout
    warm = uc(root, "check")
    assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout)


def test_the_run_record_sees_a_changed_gitignored_catalog_reference(tmp_path: Path) -> None:
    entry = ("### 3. `fakepkg.core.gen`\n\n**Source:** `fakepkg/core/gen.py`\n\n"
             "Called in `build/gen.py` (line 1):\n\n```python\ngen(1)\n```\n\n"
             "**Check:** nothing.\n\n## Version-Guarded Code")
    root = make_repo(tmp_path / "repo", {".gitignore": "build/\n", CL: FILES[CL].replace("## Version-Guarded Code", entry)})
    (root / "build").mkdir()
    (root / "build/gen.py").write_text("gen(1)\n")
    age(root)
    settled(root)
    assert uc(root, "check").returncode == 0
    assert "its outcome is reused" in uc(root, "check", "-v").stderr
    (root / "build/gen.py").write_text("gen(2)\n")
    os.utime(root / "build/gen.py", (time.time() - 60,) * 2)
    warm = uc(root, "check")
    assert warm.returncode == 1 and "SNIPPET" in warm.stdout, warm.stdout
    (root / "build/gen.py").unlink()
    warm = uc(root, "check")
    assert warm.returncode == 1 and "`build/gen.py:1` does not exist" in warm.stdout, warm.stdout


# 6. unreadable sources are findings; --fix leaves their rows alone ------------------------


def _unprivileged() -> list[str]:
    """A prefix that runs a command without root's power to read any file: as root, in a
    user namespace (root's files then obey their permission bits, as for anyone)."""
    if os.geteuid() != 0:
        return []
    probe = subprocess.run(["unshare", "--user", "true"], capture_output=True) if shutil.which("unshare") else None
    if probe is None or probe.returncode != 0:
        pytest.skip("running as root without user namespaces: a chmod 000 file stays readable")
    return ["unshare", "--user"]


def test_an_unreadable_listed_source_is_a_finding_and_its_row_is_kept(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    os.chmod(root / "app/tools/names.py", 0)
    before = (root / CL).read_bytes()
    prefix = _unprivileged()
    run = lambda *args: subprocess.run([*prefix, SCRIPT, *args], cwd=root, env=ENV, capture_output=True, text=True,  # noqa: E731
                                       timeout=120)
    r = run("check")
    assert r.returncode == 1 and "PARSE" in r.stdout and "app/tools/names.py" in r.stdout, r.stdout + r.stderr
    assert "CHANGED" not in r.stdout and "STALE" not in r.stdout
    r = run("check", "--fix")
    assert r.returncode == 1 and "Fixing" not in r.stdout + r.stderr
    assert (root / CL).read_bytes() == before


def test_a_source_too_large_to_read_keeps_its_row(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    with open(root / "app/tools/names.py", "a") as f:
        f.write("#" * (17 * 1024 * 1024) + "\n")
    age(root)
    before = (root / CL).read_bytes()
    r = uc(root, "check")
    assert r.returncode == 1 and "PARSE" in r.stdout and "CHANGED" not in r.stdout, r.stdout
    r = uc(root, "check", "--fix")
    assert "Fixing" not in r.stdout + r.stderr and (root / CL).read_bytes() == before


def test_a_directory_where_a_listed_text_file_was_is_a_finding(tmp_path: Path) -> None:
    row = ("| `tests/test_core.py` | `dist_checkpointing.save`                                |\n"
           "| `app/tools/*.cfg` | `fakepkg.core` |")
    root = make_repo(tmp_path / "repo", {
        "app/tools/a.cfg": "backend = fakepkg.core\n",
        CL: FILES[CL].replace("| `tests/test_core.py` | `dist_checkpointing.save`                                |", row),
    })
    assert uc(root, "check").returncode == 0
    (root / "app/tools/a.cfg").unlink()
    (root / "app/tools/a.cfg").mkdir()  # git still lists the file; a folder stands there
    before = (root / CL).read_bytes()
    r = uc(root, "check")
    assert r.returncode == 1 and "PARSE" in r.stdout and "app/tools/a.cfg" in r.stdout, r.stdout
    r = uc(root, "check", "--fix")
    assert "Fixing" not in r.stdout + r.stderr and (root / CL).read_bytes() == before


# 7. a cache dir must hold only the tool's files ------------------------------------------


@pytest.mark.parametrize("folder", [".", "app"])
def test_a_cache_dir_on_a_project_folder_is_refused(tmp_path: Path, folder: str) -> None:
    root = make_repo(tmp_path / "repo", {"app/utils/new.py": "import fakepkg.core\n"})
    set_config(root, f'cache_dir = "{folder}"')
    commit(root)
    before = snapshot(root / folder)
    r = uc(root, "check")
    one_error(r, "cache_dir", "not the tool's")
    assert snapshot(root / folder) == before  # no `*` .gitignore, no v3/
    assert uc(root, "check", "--no-cache").returncode == 1  # the folder is still checked: MISSING


def test_an_empty_or_own_cache_dir_is_used(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "cache").mkdir()
    set_config(root, 'cache_dir = "cache"')
    settled(root)
    assert uc(root, "check").returncode == 0
    assert (root / "cache/.gitignore").read_text() == IGNORE_TEXT
    assert uc(root, "check").returncode == 0  # its own files: used again


# 12. a baseline (or any file a setting names) is capped and must be a regular file ---------


def _limited():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # today's read ends in MemoryError, not a swap storm


def test_a_baseline_on_dev_zero_is_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    os.symlink("/dev/zero", root / "base.json")
    commit(root)
    start = time.monotonic()
    r = uc(root, "check", "--baseline", "base.json", preexec_fn=_limited)
    one_error(r, "base.json")
    assert time.monotonic() - start < 30


def test_a_huge_baseline_is_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    with open(root / "base.json", "wb") as f:
        f.truncate(3 << 30)  # sparse: 3 GB that take no room
    r = uc(root, "check", "--baseline", "base.json", preexec_fn=_limited)
    one_error(r, "base.json", "larger than")


@pytest.mark.parametrize("setting", ["status_file", "maintenance_guide"])
def test_a_configured_file_on_a_device_is_refused(tmp_path: Path, setting: str) -> None:
    root = make_repo(tmp_path / "repo")
    os.mkfifo(root / "named.md")  # a FIFO: opening it for reading would block for ever
    set_config(root, f'{setting} = "named.md"')
    r = uc(root, "check", preexec_fn=_limited)
    one_error(r, "named.md", "FIFO")


def test_a_configuration_on_dev_zero_is_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "pyproject.toml").unlink()
    os.symlink("/dev/zero", root / "upgrade-checklists.toml")
    r = uc(root, "check", preexec_fn=_limited)
    one_error(r, "upgrade-checklists.toml")


# 13. a full disk while the cache folder is made leaves no empty .gitignore ----------------

# the console script's own entry point, with every write to a file named .gitignore (or to
# a temporary file for one) going to /dev/full: ENOSPC, as on a full disk
_DISK_FULL = """
import io, os, sys
real_io_open, real_os_open = io.open, os.open

def full(path):
    return ".gitignore" in os.path.basename(os.fspath(path))

def io_open(file, mode="r", *a, **k):
    if not isinstance(file, int) and full(file) and any(c in mode for c in "wax"):
        real_io_open(file, mode.replace("b", "") if "t" in mode else mode).close()  # the file is made, then the disk is full
        return real_io_open("/dev/full", mode, *a, **k)
    return real_io_open(file, mode, *a, **k)

def os_open(path, flags, mode=0o777, *a, **k):
    if full(path) and flags & (os.O_WRONLY | os.O_RDWR):
        os.close(real_os_open(path, flags, mode, *a, **k))
        return real_os_open("/dev/full", os.O_WRONLY)
    return real_os_open(path, flags, mode, *a, **k)

io.open = os_open_io = io_open
import builtins
builtins.open = io_open
os.open = os_open
sys.argv = ["upgrade-checklists", *sys.argv[1:]]
from upgrade_checklists.cli import entry
entry()
"""


def test_a_full_disk_while_the_cache_is_made_leaves_no_empty_gitignore(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    r = subprocess.run([sys.executable, "-c", _DISK_FULL, "check"], cwd=root, env=ENV, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr  # the check itself does not depend on its cache
    ignore = root / ".upgrade-checklists-cache/.gitignore"
    assert not ignore.exists() or ignore.read_text() == IGNORE_TEXT
    settled(root)
    assert uc(root, "check").returncode == 0
    assert ignore.read_text() == IGNORE_TEXT
    assert git(root, "status", "--porcelain") == ""  # the cache ignores itself


def test_an_empty_gitignore_left_by_an_older_run_is_repaired(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / ".upgrade-checklists-cache").mkdir()
    (root / ".upgrade-checklists-cache/.gitignore").write_text("")
    settled(root)
    assert uc(root, "check").returncode == 0
    assert (root / ".upgrade-checklists-cache/.gitignore").read_text() == IGNORE_TEXT
    assert git(root, "status", "--porcelain") == ""


# 15. the configuration is looked for up to the repository root, not above ----------------


def test_a_configuration_above_the_repository_root_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.upgrade-checklists]\nchecklists = "planted"\ncache_dir = "."\n')
    root = make_repo(tmp_path / "repo", {"pyproject.toml": "[project]\nname = 'x'\n"})
    r = uc(root, "check")
    assert "planted" not in r.stderr and r.returncode in (0, 1), r.stderr
    assert not (tmp_path / ".gitignore").exists() and not (tmp_path / "v3").exists()
    sub = uc(root / "app", "check")  # no configuration up to the root: defaults, rooted where the run starts
    assert "planted" not in sub.stderr, sub.stderr
    assert not (tmp_path / ".gitignore").exists() and not (tmp_path / "v3").exists()


def test_an_explicit_configuration_outside_the_repository_applies_to_it(tmp_path: Path) -> None:
    shared = tmp_path / "shared.toml"
    shared.write_text('[tool.upgrade-checklists]\nroots = ["app", "tests"]\nchecklists = "checklists"\n')
    root = make_repo(tmp_path / "repo", {"app/utils/new.py": "import fakepkg.core\n"})
    r = uc(root, "check", "--config", str(shared), "--output-format", "concise")
    assert r.returncode == 1 and "MISSING" in r.stdout and "app/utils/new.py" in r.stdout, r.stdout + r.stderr
    assert not (tmp_path / ".upgrade-checklists-cache").exists()  # the root is the repository, not the file's folder
