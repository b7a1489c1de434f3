"""Issue 21, items 9-11, 14, 16-20: each attack reproduced through the installed console script.

Every test runs ``upgrade-checklists`` (the script pip installed beside this Python) as a
subprocess on a fixture repository made with real git in ``tmp_path``. Where the attack
needs a condition this machine does not have (a file system with one-second timestamps, a
power loss, a Ctrl-C at an exact moment), a small wrapper script made by the test sets it
up around the console script, in the child only: it changes what the operating system
answers (a stat, the clock, an import's duration), never the tool's code.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import CHECKLIST, Repo

CL = "checklists/fakepkg-core.md"
SCRIPT = Path(sys.executable).with_name("upgrade-checklists")


def uc(repo: Repo | Path, *argv: str, wrapper: Path | None = None, env: dict | None = None,
       timeout: float = 120) -> subprocess.CompletedProcess:
    """The console script in the repository (through ``wrapper``, a Python file that runs it, if given)."""
    assert SCRIPT.is_file(), f"the console script is not installed at {SCRIPT}"
    cwd = repo.path if isinstance(repo, Repo) else repo
    cmd = [sys.executable, str(wrapper), str(SCRIPT), *argv] if wrapper else [str(SCRIPT), *argv]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def age_all(repo: Repo, seconds: int = 3600) -> None:
    old = time.time() - seconds
    for p in repo.path.rglob("*"):
        if ".git" not in p.parts:
            os.utime(p, (old, old))


#: runs the console script given as its first argument, as the script itself runs
RUN_SCRIPT = """
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


# --- 9. racy writes: the change time counts too ---------------------------------------

#: A file system with one-second timestamps, and every write of the test in one second:
#: each stat's times are cut to whole seconds, and any time from the test's second on *is*
#: that second; the clock says half a second later.
COARSE = """
import os, runpy, sys, time
SECOND = int(os.environ["UC_TEST_SECOND"]) * 10**9
EXTRA = [n for n in ("st_atime", "st_mtime", "st_ctime", "st_atime_ns", "st_mtime_ns", "st_ctime_ns",
                     "st_blksize", "st_blocks", "st_rdev", "st_flags", "st_gen", "st_birthtime") if hasattr(os.stat_result, n)]

def coarse(ns):
    return SECOND if ns >= SECOND else ns - ns % 10**9

def cut(st):
    times = {n: coarse(getattr(st, n + "_ns")) for n in ("st_atime", "st_mtime", "st_ctime")}
    extra = {n: getattr(st, n) for n in EXTRA}
    for n, ns in times.items():
        extra[n], extra[n + "_ns"] = ns / 1e9, ns
    seq = list(st[:10])
    seq[7:10] = [times["st_atime"] // 10**9, times["st_mtime"] // 10**9, times["st_ctime"] // 10**9]
    return os.stat_result(seq, extra)

def coarsened(f):
    return lambda *a, **k: cut(f(*a, **k))

os.stat, os.lstat, os.fstat = coarsened(os.stat), coarsened(os.lstat), coarsened(os.fstat)
time.time_ns = lambda: SECOND + 500_000_000
""" + RUN_SCRIPT


def test_9_a_same_size_rewrite_within_the_timestamp_step_is_not_a_stale_pass(repo: Repo, tmp_path: Path) -> None:
    """Used to pass: the first run stored its outcome (the files' mtimes were set back, only
    their change times were recent), the second run's files had the same stats and got it."""
    wrapper = tmp_path / "coarse.py"
    wrapper.write_text(COARSE)
    env = {"UC_TEST_SECOND": str(int(time.time()) - 1)}
    age_all(repo)
    core = repo.path / "app/engine/core.py"
    old = core.stat().st_mtime
    first = uc(repo, "check", wrapper=wrapper, env=env)
    assert (first.returncode, first.stdout.splitlines()[0]) == (0, "All checks passed (1 checklist, 8 files scanned)."), first
    text = core.read_text()
    core.write_text(text.replace("tensor_model_parallel_size=2", "tensor_model_parallel_size=4"))  # same size, same inode
    os.utime(core, (old, old))
    second = uc(repo, "check", "--output-format", "concise", wrapper=wrapper, env=env)
    assert second.returncode == 1, second
    assert "SNIPPET entry 1: documented code changed" in second.stdout


# --- 10. --fix is durable ----------------------------------------------------------

#: records, in order, every fsync (of what) and every rename the run makes
RECORD_SYNCS = """
import os, runpy, sys
LOG = os.environ["UC_TEST_LOG"]

def note(*what):
    fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.write(fd, ("\\t".join(what) + "\\n").encode())
    os.close(fd)

real_fsync, real_replace = os.fsync, os.replace

def fsync(fd):
    real_fsync(fd)
    note("fsync", os.readlink(f"/proc/self/fd/{fd}"))

def replace(src, dst, **kw):
    real_replace(src, dst, **kw)
    note("rename", os.fspath(src), os.fspath(dst))

os.fsync, os.replace = fsync, replace
""" + RUN_SCRIPT

SECONDARY_FIXED = """\
| File               | Imports / Usage |
| ------------------ | --------------- |
| `app/utils/new.py` | `fakepkg.core`  |"""


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to name a synced file")
def test_10_fix_syncs_the_new_checklist_and_its_folder(repo: Repo, tmp_path: Path) -> None:
    """Used to rename an unsynced temporary file: after a power loss, an empty or partial checklist."""
    wrapper, log = tmp_path / "syncs.py", tmp_path / "syncs.log"
    wrapper.write_text(RECORD_SYNCS)
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    r = uc(repo, "check", "--fix", wrapper=wrapper, env={"UC_TEST_LOG": str(log)})
    assert r.returncode == 1 and "Fixing checklists/fakepkg-core.md" in r.stdout, r
    expected = CHECKLIST.replace("### Secondary (model / infra layer)\n\n_None._",
                                 "### Secondary (model / infra layer)\n\n" + SECONDARY_FIXED)
    assert repo.read(CL) == expected  # complete: what the fix means, every byte
    events = [line.split("\t") for line in log.read_text().splitlines()]
    folder, target = str((repo.path / "checklists").resolve()), str((repo.path / CL).resolve())
    renames = [i for i, e in enumerate(events) if e[0] == "rename" and os.path.realpath(e[2]) == target]
    assert len(renames) == 1, events
    at = renames[0]
    temp = os.path.realpath(events[at][1])
    assert ["fsync", temp] in events[:at], events  # the new bytes are on the disk before the rename
    assert ["fsync", folder] in events[at + 1:], events  # and the rename itself after it


# --- 14. deep TOML nesting in the configuration --------------------------------------


@pytest.mark.parametrize("value", ["[" * 50_000 + "]" * 50_000, "{a = " * 50_000 + "1" + "}" * 50_000],
                         ids=["arrays", "inline-tables"])
def test_14_deeply_nested_configuration_is_a_configuration_error(repo: Repo, value: str) -> None:
    """Used to be 'internal error: RecursionError' (exit 2 and a crash log)."""
    repo.write("pyproject.toml", '[tool.upgrade-checklists]\nroots = ["app", "tests"]\nx = ' + value + "\n")
    r = uc(repo, "check")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "upgrade-checklists: error: pyproject.toml: invalid TOML: arrays or inline tables nested too deeply\n"


# --- 16. Ctrl-C while the modules import ----------------------------------------------

#: makes the command line's import of the configuration module take long, and says when it starts
SLOW_IMPORT = """
import os, runpy, signal, sys, time

# as in a terminal: Ctrl-C interrupts (a test runner's worker may leave SIGINT ignored or blocked for its children)
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

class Slow:
    def find_spec(self, name, path=None, target=None):
        if name == "upgrade_checklists.core.config":
            os.write(2, b"importing\\n")
            time.sleep(60)
        return None

sys.meta_path.insert(0, Slow())
""" + RUN_SCRIPT


def test_16_ctrl_c_while_importing_is_one_line_and_exit_130(repo: Repo, tmp_path: Path) -> None:
    """Used to print a KeyboardInterrupt traceback (the script imported the command line unguarded)."""
    wrapper = tmp_path / "slow.py"
    wrapper.write_text(SLOW_IMPORT)
    proc = subprocess.Popen([sys.executable, str(wrapper), str(SCRIPT), "check"], cwd=repo.path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stderr.readline() == b"importing\n"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (proc.returncode, out, err) == (130, b"", b"upgrade-checklists: interrupted\n")


# --- 18, 20. carriage returns ----------------------------------------------------------

STALE_RANGE = ("(lines 10-13)", "(lines 11-14)")  # entry 2's reference, one line off


def test_18_lone_cr_line_endings_are_checked_and_fixed(repo: Repo) -> None:
    """A checklist with old-Mac line endings and a stale line range: used to be
    'internal error: IndexError' in both check and check --fix."""
    text = CHECKLIST.replace(*STALE_RANGE).replace("\n", "\r")
    repo.write(CL, text.encode())
    r = uc(repo, "check", "--output-format", "concise")
    assert r.returncode == 0 and r.stderr == "", r  # a stale line number is a warning (strict-lines is off)
    assert r.stdout.splitlines()[0] == ("checklists/fakepkg-core.md:50:1: LINE [warning] entry 2: snippet in `app/engine/core.py` "
                                        "is now at lines 10-13 (recorded lines 11-14) (app/engine/core.py:10)")
    r = uc(repo, "check", "--fix")
    assert r.returncode == 1 and r.stderr == "", r
    assert (repo.path / CL).read_bytes() == CHECKLIST.replace("\n", "\r").encode()  # fixed, and still all CR
    assert uc(repo, "check").returncode == 0


def test_20_a_cr_inside_a_line_is_fixed_once(repo: Repo) -> None:
    """A lone CR inside a paragraph above a stale range (markdown-it: a line break; the
    catalog's line splitter: none). Each --fix used to write the number again into the
    wrong place ("lines 10131013101311-14"), the file changing on every run."""
    para = "**Check:** `tensor_model_parallel_size` still accepted."
    text = CHECKLIST.replace(*STALE_RANGE).replace(para, para.replace(" still ", " still\r"))
    repo.write(CL, text.encode())
    assert uc(repo, "check", "--fix").returncode == 1
    fixed = text.replace(STALE_RANGE[1], STALE_RANGE[0])
    assert (repo.path / CL).read_bytes() == fixed.encode()
    r = uc(repo, "check", "--fix")
    assert (r.returncode, (repo.path / CL).read_bytes()) == (0, fixed.encode()), r


# --- 17. the baseline keeps the numbers that are not positions ----------------------------


def test_17_a_baselined_value_change_does_not_hide_another_value(repo: Repo) -> None:
    """Used to pass: every number in a message was ignored, so the baseline's
    "`=2` is now `=4`" also matched "`=2` is now `=64`"."""
    core = "app/engine/core.py"
    repo.edit(core, "tensor_model_parallel_size=2", "tensor_model_parallel_size=4")
    r = uc(repo, "check", "--write-baseline", "known.json")
    assert r.returncode == 0 and "not shown: 1 in the baseline" in r.stdout, r
    assert [f["code"] for f in json.loads((repo.path / "known.json").read_text())["findings"]] == ["SNIPPET"]
    # where the finding is may move: two lines above the call, the same finding
    repo.edit(core, "def build(model):\n", "def build(model):\n    # two lines\n    # above the call\n")
    for was, now in (("(line 9)", "(line 11)"), ("(lines 10-13)", "(lines 12-15)"), ("core.py:7`", "core.py:9`")):
        repo.edit(CL, was, now)  # the checklist's references follow (a LINE or GUARD finding would be new)
    r = uc(repo, "check", "--baseline", "known.json", "--output-format", "concise")
    assert (r.returncode, r.stdout.splitlines()[0]) == (0, "All checks passed (1 checklist, 8 files scanned; not shown: 1 in the baseline)."), r
    repo.edit(core, "tensor_model_parallel_size=4", "tensor_model_parallel_size=64")
    r = uc(repo, "check", "--baseline", "known.json", "--output-format", "concise")
    assert r.returncode == 1, r
    found = [line for line in r.stdout.splitlines() if " SNIPPET " in line]
    assert len(found) == 1 and "`tensor_model_parallel_size=2` is now `tensor_model_parallel_size=64`" in found[0], r.stdout


# --- 11. control characters from the repository ------------------------------------------

#: a source file whose name would end its row and add one of its own; one whose name colours the terminal red
FORGED = "app/engine/new\n| `app/engine/ghost.py` | `fakepkg.core` |\n.py"
RED = "app/engine/\x1b[31mred.py"


def _hostile_names(repo: Repo) -> None:
    for rel in (FORGED, RED):
        repo.write(rel, "import fakepkg.core\n")
    repo.commit("names with control characters")


def test_11_a_file_name_with_a_newline_is_reported_never_written_into_a_row(repo: Repo) -> None:
    """Used to write the name into the Primary table: its newline ended the row, and the
    rest of the name became a row of its own (a forged `app/engine/ghost.py`)."""
    _hostile_names(repo)
    before = (repo.path / CL).read_bytes()
    r = uc(repo, "check", "--fix", "--output-format", "concise")
    assert r.returncode == 1 and r.stderr == "", r
    assert (repo.path / CL).read_bytes() == before
    assert r.stdout.splitlines() == [
        "checklists/fakepkg-core.md:11:1: MISSING `app/engine/\\x1b[31mred.py` imports `fakepkg.core` but no tier lists it"
        " (belongs in Primary) (app/engine/\\x1b[31mred.py:1)",
        "checklists/fakepkg-core.md:11:1: MISSING `app/engine/new\\n| `app/engine/ghost.py` | `fakepkg.core` |\\n.py` imports"
        " `fakepkg.core` but no tier lists it (belongs in Primary) (app/engine/new\\n| `app/engine/ghost.py` | `fakepkg.core`"
        " |\\n.py:1)",
        "Found 2 findings in 1 checklist: 2 MISSING.",
        "Needs a hand edit (--fix leaves them): 2 errors.",  # a row cannot hold such a name
    ]


@pytest.mark.parametrize("fmt", ["text", "concise", "github", "json", "sarif"])
def test_11_no_output_format_prints_a_control_character_from_the_repository(repo: Repo, fmt: str) -> None:
    """Used to print the names raw: an ANSI escape reached the terminal, a newline started a
    line of its own (in `github`, a workflow command of the repository's choosing)."""
    _hostile_names(repo)
    r = uc(repo, "check", "--output-format", fmt)
    assert r.returncode == 1 and r.stderr == "", r
    assert "\x1b" not in r.stdout
    if fmt in ("json", "sarif"):  # JSON escapes the paths; the messages are shown escaped as everywhere
        doc = json.loads(r.stdout)
        found = doc["findings"] if fmt == "json" else doc["runs"][0]["results"]
        messages = [f["message"] if fmt == "json" else f["message"]["text"] for f in found]
        assert len(messages) == 2 and all(m.isprintable() for m in messages), messages
        if fmt == "json":
            assert sorted(f["file"] for f in found) == sorted([RED, FORGED])  # exact, for tools
    else:
        assert not any(line.startswith("| `app/engine/ghost.py`") for line in r.stdout.splitlines())
        assert sum("MISSING" in line and "`app/engine/" in line for line in r.stdout.splitlines()) == 2
        assert all(line.isprintable() for line in r.stdout.splitlines()), r.stdout


def test_11_new_never_writes_a_name_with_a_control_character(repo: Repo) -> None:
    """Used to write every importing file's name into the new checklist's rows."""
    repo.write("app/engine/uses_other.py", "import otherlib\n\notherlib.helper(1)\n")
    repo.write("app/engine/\x1b]0;owned\x07.py", "import otherlib\n\notherlib.helper(2)\n")
    r = uc(repo, "new", "otherlib", "--github", "example/otherlib")
    assert r.returncode == 0, r
    text = (repo.path / "checklists/otherlib.md").read_text()
    rows = [" ".join(line.split()) for line in text.splitlines() if line.startswith("| `")]
    assert rows == ["| `app/engine/uses_other.py` | `otherlib` |"]
    assert not any(not line.isprintable() for line in text.splitlines()), text


# --- 19. --fix never loses a row ---------------------------------------------------------------


def test_19_a_rewrite_that_would_lose_rows_is_refused(repo: Repo) -> None:
    """An aligned Primary table 19,995 characters wide (a cell of prose, e.g. a pasted
    nested list) and a MISSING file with a longer name than the table's: aligning the new
    row widens every line past the 20,000 characters a checklist line may have, and the
    whole table is unread from then on. Used to write it: the next check lost the table's
    rows (MISSING `app/engine/core.py`, four FORMAT findings). Now nothing is written."""
    usage = "`parallel_state` (as `mpu`), `DistributedDataParallel`; notes: "
    usage = (usage + "- " * ((19_968 - len(usage)) // 2)).ljust(19_968)

    def row(a: str, b: str) -> str:
        return "| " + a.ljust(20) + " | " + b + " |"

    wide = "\n".join([row("File", "Imports / Usage".ljust(len(usage))), "| " + "-" * 20 + " | " + "-" * len(usage) + " |",
                      row("`app/engine/core.py`", usage)])
    assert {len(line) for line in wide.split("\n")} == {19_995}
    start = CHECKLIST.index("| File  ")
    text = CHECKLIST[:start] + wide + "\n\n" + CHECKLIST[CHECKLIST.index("### Secondary"):]
    repo.write(CL, text)
    repo.write("app/engine/a_much_longer_module.py", "import fakepkg.core\n")
    assert uc(repo, "check", "--output-format", "concise").stdout.splitlines()[0].startswith(
        "checklists/fakepkg-core.md:11:1: MISSING `app/engine/a_much_longer_module.py` imports `fakepkg.core`")
    r = uc(repo, "check", "--fix")
    assert (r.returncode, r.stdout) == (2, ""), r
    assert r.stderr == ("upgrade-checklists: error: checklists/fakepkg-core.md: --fix would lose 1 table row(s) "
                        "(`app/engine/core.py`); nothing was written. Fix the findings by hand, or report this as a bug\n")
    assert repo.read(CL) == text
