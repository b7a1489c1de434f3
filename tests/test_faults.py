"""Fault injection: SIGKILL during ``check --fix`` and the audit at random moments, and concurrent runs on one cache.

A killed run leaves every checklist byte-identical to its old or its fully fixed
version, the audit summary its old or its new full version, the cache whole or absent,
and no temporary file once the next run is done. Concurrent runs sharing a cache
directory print exactly what a serial run prints.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from conftest import FILES, REPO_ROOT, git
from test_audit import bump, make_project
from upstream import make_upstreams

CL = "checklists/fakepkg-core.md"
ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "hooks")}
CMD = [sys.executable, "-m", "upgrade_checklists", "check"]

# What --fix makes of the fixture checklist once app/utils/new.py imports fakepkg.core,
# written out by hand: the Secondary tier's "_None._" becomes an aligned table.
SECONDARY_FIXED = """\
| File               | Imports / Usage |
| ------------------ | --------------- |
| `app/utils/new.py` | `fakepkg.core`  |"""


def _fixture(root: Path) -> None:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for rel, text in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fixture")
    old = time.time() - 3600
    for p in root.rglob("*"):
        if ".git" not in p.parts:
            os.utime(p, (old, old))


def _temps(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.tmp") if ".git" not in p.parts)


def test_sigkill_during_fix_loses_nothing(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _fixture(root)
    (root / "app/utils/new.py").write_text("import fakepkg.core\n")
    cl = root / CL
    old = cl.read_bytes()
    fixed = old.replace(b"### Secondary (model / infra layer)\n\n_None._",
                        b"### Secondary (model / infra layer)\n\n" + SECONDARY_FIXED.encode())
    assert fixed != old
    cache = root / ".upgrade-checklists-cache/v3/check.json"
    rnd = random.Random(9)
    start = time.monotonic()
    subprocess.run([*CMD, "--no-cache"], cwd=root, env=ENV, capture_output=True, check=False)
    span = time.monotonic() - start  # how long a run takes here: kill somewhere within it
    seen = {"old": 0, "fixed": 0}
    kills = i = 0
    while kills < 55 and i < 200:  # until 55 runs were killed before their end
        i += 1
        if i % 3 == 0 and cache.exists():
            cache.unlink()  # every third kill lands on a cold run, which writes the whole cache
        cl.write_bytes(old)
        os.utime(cl, (time.time() - 3600,) * 2)
        proc = subprocess.Popen([*CMD, "--fix"], cwd=root, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rnd.uniform(0, span))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        _, err = proc.communicate()
        assert b"Traceback" not in err
        now = cl.read_bytes()
        assert now in (old, fixed), f"kill {i}: the checklist is neither old nor fixed"
        seen["old" if now == old else "fixed"] += 1
        if cache.exists():  # the cache is whole (or absent): a header line and the entries
            header, entries = cache.read_text().split("\n", 1)
            assert json.loads(header)["format"] == 3 and isinstance(json.loads(entries), dict)
    assert kills >= 50, f"only {kills} of {i} runs were killed before they ended"
    print(f"\n{i} runs, {kills} SIGKILLs during --fix: {seen['old']} checklists left old, {seen['fixed']} fully fixed")
    r = subprocess.run(CMD, cwd=root, env=ENV, capture_output=True, text=True)
    assert r.stderr == "" and _temps(root) == []  # the next run removed what the killed runs left
    cl.write_bytes(old)
    r = subprocess.run([*CMD, "--fix"], cwd=root, env=ENV, capture_output=True, text=True)
    assert (r.returncode, cl.read_bytes()) == (1, fixed)


# Runs the audit in forked children of one warm interpreter (the imports take most of a
# fresh run's time): for each delay read from stdin, fork a child that runs the audit,
# SIGKILL it after the delay unless it has ended, and print its wait status and when the
# summary it renamed into place was written (its mtime; -1: not replaced). A child is
# reaped only once it has ended or been killed, so its pid can never be another process's.
_AUDIT_FORKER = """
import contextlib, io, os, signal, sys, time
from upgrade_checklists.cli import main
argv = sys.argv[1:]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(argv)  # once in this process: every module the audit and the summary need is imported
print("ready", flush=True)
for line in sys.stdin:
    inode, started = os.stat("upgrade-summary.md").st_ino, time.time()
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os._exit(main(argv))
    start = time.monotonic()
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < start + float(line):
        time.sleep(0.001)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        done = os.waitpid(pid, 0)
    st = os.stat("upgrade-summary.md")
    print(done[1], st.st_mtime - started if st.st_ino != inode else -1.0, flush=True)
"""


def test_sigkill_during_audit_loses_no_summary(tmp_path: Path, capsys) -> None:
    """The audit writes ``upgrade-summary.md`` last, through the same atomic writer: killed at
    random moments (most of them late in the run, where the write is), the summary is its
    old bytes or the new full summary, and the next audit leaves no temporary file."""
    upstreams = make_upstreams(tmp_path / "upstream")
    project = make_project(tmp_path / "project", capsys, upstreams)
    bump(project, upstreams)  # fakepkg-core 1.0.0 -> 2.0.0, from a local git upstream
    root, cache = project.path, tmp_path / "cache"
    summary = root / "upgrade-summary.md"
    old = b"## Dependency Upgrade Summary\n\nThe summary of an earlier audit.\n"
    argv = ["audit", "--cache-dir", str(cache)]
    cmd = [sys.executable, "-m", "upgrade_checklists", *argv]
    summary.write_bytes(old)
    first = subprocess.run(cmd, cwd=root, env=ENV, capture_output=True, text=True)  # fetches both versions
    assert first.returncode == 1 and first.stderr.endswith("Wrote upgrade-summary.md\n"), first.stderr
    new = summary.read_bytes()
    assert "#### fakepkg-core (1.0.0 → 2.0.0) @ default".encode() in new and b"RENAMED_PARAM" in new
    forker = subprocess.Popen([sys.executable, "-c", _AUDIT_FORKER, *argv], cwd=root, env=ENV, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert forker.stdout.readline() == "ready\n"

        def run(delay: float) -> tuple[int, float]:
            forker.stdin.write(f"{delay}\n")
            forker.stdin.flush()
            status, wrote = forker.stdout.readline().split()
            return int(status), float(wrote)

        writes = []  # when whole runs replaced the summary (the machine's load moves it: kept up to date)
        for _ in range(3):
            summary.write_bytes(old)
            status, wrote = run(60)
            assert os.waitstatus_to_exitcode(status) == 1 and summary.read_bytes() == new and wrote > 0
            writes.append(wrote)
        rnd = random.Random(13)
        seen = {"old": 0, "new": 0}
        kills = i = 0
        while kills < 55 and i < 200:
            i += 1
            summary.write_bytes(old)
            at = sorted(writes[-5:])[len(writes[-5:]) // 2]
            status, wrote = run(at * rnd.uniform(0.5, 1.1))  # most of them around the write
            now = summary.read_bytes()
            assert now in (old, new), f"run {i}: the summary is neither the old one nor the new one"
            if os.WIFSIGNALED(status):
                kills += 1
                seen["old" if now == old else "new"] += 1
            else:
                assert (os.waitstatus_to_exitcode(status), now) == (1, new)
            if wrote > 0:
                writes.append(wrote)
    finally:
        forker.stdin.close()
        forker.wait(timeout=60)
    assert kills >= 50, f"only {kills} of {i} runs were killed before they ended"
    left = _temps(root)
    print(f"\n{i} audits, {kills} SIGKILLs: {seen['old']} summaries left old, {seen['new']} new; "
          f"{len(left)} temporary files left by the killed runs")
    summary.write_bytes(old)
    r = subprocess.run(cmd, cwd=root, env=ENV, capture_output=True, text=True)
    assert r.returncode == 1 and summary.read_bytes() == new
    assert _temps(root) == [] and _temps(cache) == []  # the next audit removed what the killed ones left


def test_concurrent_checks_share_one_cache(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _fixture(root)
    (root / "app/utils/new.py").write_text("import fakepkg.core\n")
    (root / "app/engine/broken.py").write_text("import fakepkg.core\ndef f(:\n")
    os.utime(root / "app/utils/new.py", (time.time() - 3600,) * 2)
    os.utime(root / "app/engine/broken.py", (time.time() - 3600,) * 2)
    argv = [*CMD, "--format", "json"]
    serial = subprocess.run([*argv, "--no-cache"], cwd=root, env=ENV, capture_output=True, text=True)
    codes = sorted(f["code"] for f in json.loads(serial.stdout)["findings"])
    assert serial.returncode == 1 and codes == ["MISSING", "PARSE"] and serial.stderr == ""

    def one(_: int) -> tuple[int, str, str]:
        r = subprocess.run(argv, cwd=root, env=ENV, capture_output=True, text=True)
        return r.returncode, r.stdout, r.stderr

    cache = root / ".upgrade-checklists-cache/v3/check.json"
    results = []
    with ThreadPoolExecutor(8) as pool:
        for round_ in range(20):
            if round_ % 4 == 0 and cache.exists():
                cache.unlink()  # cold rounds: all eight write the whole cache at once
            elif round_ % 4 == 2:  # a changed stat: entries rewritten by everyone
                t = time.time() - 7200 - round_
                os.utime(root / "app/engine/core.py", (t, t))
            results += pool.map(one, range(8))
    assert len(results) == 160
    assert [r for r in results if r != (1, serial.stdout, "")] == []
    assert _temps(root) == []
