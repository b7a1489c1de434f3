"""Benchmark the structure check against ``git grep`` over the same roots and patterns.

    python3 bench/bench_check.py [--files 800] [--checklists 8] [--repeat 7]

Generates a large fixture repository (Python files of realistic size, a share of
them importing one of the focused packages, one checklist per package that lists
every user with catalog entries), then times in this one process:

- baseline: ``git grep -l -E`` for the import patterns of all packages over the roots;
- check (in process): ``run_check`` on the whole repository, as the hook does;
- check (command): the ``upgrade-checklists check`` command, interpreter start included.

It prints the median of each and the ratios to the baseline.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from upgrade_checklists import config
from upgrade_checklists.compare import run_check

BODY = '''

class Worker{n}:
    """A worker. import {pkg} here in a docstring is not an import."""

    def __init__(self, size: int = {n}) -> None:
        self.size = size
        self.items = [i * {n} for i in range(size)]

    def run(self, data):
        # from {pkg} import nothing
        total = 0
        for item in self.items:
            if item % 3 == 0:
                total += item
            elif item % 5 == 0:
                total -= item
            else:
                total ^= item
        return {{"total": total, "name": "worker-{n}", "data": data}}


def helper_{n}(x, y=2, *args, **kwargs):
    values = sorted(set(args))
    return sum(values) + x * y + len(kwargs)
'''


def generate(root: Path, n_files: int, n_checklists: int, seed: int = 1) -> list[str]:
    rnd = random.Random(seed)
    pkgs = [(f"bench-pkg{i}", f"benchpkg{i}.core") for i in range(n_checklists)]
    dirs = ["app/engine", "app/models", "app/utils", "app/api", "tests", "tests/unit", "examples"]
    tiers = {"app/engine": "Primary", "app/models": "Secondary", "app/utils": "Secondary",
             "app/api": "Secondary", "tests": "Tertiary", "tests/unit": "Tertiary", "examples": "Tertiary"}
    users: dict[str, list[tuple[str, str, int, str]]] = {p: [] for p, _ in pkgs}
    for d in dirs:
        (root / d).mkdir(parents=True, exist_ok=True)
        if d.startswith("app"):
            (root / d / "__init__.py").write_text("")
    (root / "app/__init__.py").write_text("")
    for n in range(n_files):
        d = dirs[n % len(dirs)]
        rel = f"{d}/mod_{n}.py"
        head = ["import os", "import json", "from typing import Any"]
        calls = []
        if rnd.random() < 0.15:
            pip, mod = pkgs[rnd.randrange(len(pkgs))]
            fn = f"api_{rnd.randrange(6)}"
            head.append(f"from {mod} import {fn}")
            calls.append((pip, fn))
        text = "\n".join(head) + "\n" + "".join(BODY.format(n=n * 10 + k, pkg=pkgs[0][1]) for k in range(4))
        lines = text.count("\n")
        for pip, fn in calls:
            text += f"\n\ndef use_{n}():\n    return {fn}(1, key='v')\n"
            users[pip].append((rel, fn, lines + 4, f"return {fn}(1, key='v')"))
        (root / rel).write_text(text)
    (root / "checklists").mkdir()
    for pip, mod in pkgs:
        rows = {"Primary": [], "Secondary": [], "Tertiary": []}
        for rel, fn, _, _ in users[pip]:
            rows[tiers[rel.rsplit("/", 1)[0]]].append(f"| `{rel}` | `{fn}` |")
        parts = [f"---\npackage: {pip}\ngithub: bench/{pip}\nbranch_template: v${{VERSION}}\n"
                 f"upstream_paths:\n  - {mod.replace('.', '/')}/\nimport_names:\n  - {mod}\n---\n\n## Affected Files\n"]
        for tier, rs in rows.items():
            parts.append(f"\n### {tier}\n\n" + ("| File | Imports / Usage |\n| --- | --- |\n" + "\n".join(rs) if rs else "_None._") + "\n")
        parts.append("\n## API Usage Catalog\n")
        for i, (rel, fn, line, snippet) in enumerate(users[pip][:10], 1):
            parts.append(f"\n### {i}. `{mod}.{fn}`\n\nCalled in `{rel}` (line {line}):\n\n```python\n{snippet}\n```\n\n**Check:** `key` still accepted.\n")
        parts.append("\n## Version-Guarded Code\n\n_None._\n")
        (root / "checklists" / f"{pip}.md").write_text("".join(parts))
    (root / "pyproject.toml").write_text('[tool.upgrade-checklists]\nroots = ["app", "tests", "examples"]\n')
    old = time.time() - 3600  # files last touched an hour ago, as in a real checkout
    for p in root.rglob("*"):
        os.utime(p, (old, old))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    return [mod for _, mod in pkgs]


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=800)
    ap.add_argument("--checklists", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        mods = generate(root, args.files, args.checklists)
        cfg = config.load(root)
        pattern = r"^\s*(from|import)\s+(" + "|".join(m.replace(".", r"\.") for m in mods) + r")\b"
        grep = ["git", "grep", "-l", "-E", pattern, "--", *cfg.roots]
        check_cmd = [sys.executable, "-m", "upgrade_checklists", "check"]

        res = run_check(cfg, use_cache=False)
        assert not res.findings, [f.message for f in res.findings[:5]]
        hits = subprocess.run(grep, cwd=root, capture_output=True, text=True).stdout.split()
        base = timed(lambda: subprocess.run(grep, cwd=root, capture_output=True, check=True), args.repeat)

        here = os.getcwd()
        os.chdir(root)
        cold = timed(lambda: run_check(config.load(root), use_cache=False), args.repeat)
        run_check(config.load(root))  # fill the cache
        warm = timed(lambda: run_check(config.load(root)), args.repeat)
        os.chdir(here)
        # as a user runs it: bytecode cached (an environment may set PYTHONDONTWRITEBYTECODE,
        # which would time the compilation of every module on every run)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run(check_cmd, cwd=root, capture_output=True, check=True, env=env)  # writes the .pyc files
        command = timed(lambda: subprocess.run(check_cmd, cwd=root, capture_output=True, check=True, env=env), args.repeat)
        print(f"repository: {res.files_scanned} Python files, {len(res.checklists)} checklists, "
              f"{len(hits)} files importing a focused package, {len(res.facts)} parsed")
        print(f"git grep (baseline):              {base * 1000:8.1f} ms")
        print(f"check, in process, no cache:      {cold * 1000:8.1f} ms   ratio {cold / base:5.2f}")
        print(f"check, in process, warm cache:    {warm * 1000:8.1f} ms   ratio {warm / base:5.2f}")
        print(f"check command, warm cache:        {command * 1000:8.1f} ms   ratio {command / base:5.2f}"
              "  (includes interpreter start and imports)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
