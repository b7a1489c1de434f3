"""Fault injection: SIGKILL during ``check --fix`` at random moments, and concurrent runs on one cache.

A killed run leaves every checklist byte-identical to its old or its fully fixed
version, the cache whole or absent, and no temporary file once the next run is done.
Concurrent runs sharing a cache directory print exactly what a serial run prints.
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
    cache = root / ".upgrade-checklists-cache/v2/check.json"
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
            assert json.loads(header)["format"] == 2 and isinstance(json.loads(entries), dict)
    assert kills >= 50, f"only {kills} of {i} runs were killed before they ended"
    print(f"\n{i} runs, {kills} SIGKILLs during --fix: {seen['old']} checklists left old, {seen['fixed']} fully fixed")
    r = subprocess.run(CMD, cwd=root, env=ENV, capture_output=True, text=True)
    assert r.stderr == "" and _temps(root) == []  # the next run removed what the killed runs left
    cl.write_bytes(old)
    r = subprocess.run([*CMD, "--fix"], cwd=root, env=ENV, capture_output=True, text=True)
    assert (r.returncode, cl.read_bytes()) == (1, fixed)


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

    cache = root / ".upgrade-checklists-cache/v2/check.json"
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
