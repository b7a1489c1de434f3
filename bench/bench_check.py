"""Benchmark the structure check against ``git grep`` over the same roots and patterns.

    python3 bench/bench_check.py [--files 800] [--checklists 8] [--repeat 7]
    python3 bench/bench_check.py --corpus ../shared/corpus [--replicate 28] [--repeat 5]

Default: generates a large fixture repository (Python files of realistic size, a share
of them importing one of the focused packages, one checklist per package that lists
every user with catalog entries), then times in this one process:

- baseline: ``git grep -l -E`` for the import patterns of all packages over the roots;
- check (in process): ``run_check`` on the whole repository, as the hook does;
- check (command): the ``upgrade-checklists check`` command, interpreter start included.

``--corpus DIR``: the real-world corpus instead (``DIR`` holds ``areal-*.tar.gz`` and
``areal.toml``), unpacked into a temporary git repository. ``--replicate N`` copies its
Python files N times more (``ROOT/_replica_K/...``, for a 20,000-file tree). Every
timing is the ``check`` command (interpreter start included) against two baselines
measured in the same run: ``git grep -l`` once per checklist's import pattern (how one
checks the checklists by hand, and how the speed issue measured it) and one ``git grep``
with all patterns joined. The runs go round by round, the baselines first in each, and a
ratio is the median of the rounds' ratios (a shared machine's speed drifts within a
minute). Times are medians; peak memory is the child's max RSS.

- cold: no cache directory; warm: nothing changed since the last run;
- one file: ``check FILE`` as pre-commit runs it, the file unchanged, and the file
  edited since the last run: one importing file gets a comment line appended each time
  (nothing the check reads of it changes: the last outcome is reused, ``cutoff.py``),
  then one in its middle (every later line moves: the common commit), then one at its top
  (every line moves); and a "plain" file edited, one that imports no focused package and
  that no checklist names (most commits). Each edit is made two seconds before its run:
  a file changed within git's racy window is never answered from a cache (its change
  time cannot be set back), and a commit comes some seconds after its edit.

It prints the median of each and the ratios to the baselines.
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

from upgrade_checklists.core import config
from upgrade_checklists.check.compare import run_check

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


# --- the real-world corpus ---------------------------------------------------------------


def unpack_corpus(corpus: Path, into: Path, replicate: int) -> tuple[Path, Path]:
    """The corpus as a git repository (one commit) and its configuration file."""
    import shutil
    import tarfile

    tarballs = sorted(corpus.glob("areal-*.tar.gz"))
    if not tarballs:
        raise SystemExit(f"bench_check: no areal-*.tar.gz in {corpus} (--corpus names the folder that holds it)")
    tarball = tarballs[-1]
    with tarfile.open(tarball) as tf:
        tf.extractall(into, filter="data")
    root = next(p for p in into.iterdir() if p.is_dir())
    toml = root / "upgrade-checklists.bench.toml"
    shutil.copyfile(corpus / "areal.toml", toml)
    cfg = config.load(root, toml)
    sources = [p for r in cfg.roots for p in sorted((root / r).rglob("*.py"))]
    for k in range(replicate):
        for p in sources:
            rel = p.relative_to(root)
            dst = root / rel.parts[0] / f"_replica_{k}" / Path(*rel.parts[1:])
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dst)
    old = time.time() - 3600
    for p in root.rglob("*"):
        os.utime(p, (old, old), follow_symlinks=False)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "corpus"], check=True)
    return root, toml


def run_child(cmd: list[str], cwd: Path, env: dict) -> tuple[float, int, int]:
    """Wall time, exit code and peak RSS (KiB) of one child process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t, p.returncode, usage.ru_maxrss


def corpus_main(args: argparse.Namespace) -> int:
    import shutil

    from upgrade_checklists.core.checklist import read_checklist
    from upgrade_checklists.project.import_names import read_guide_mapping, resolve_import_names

    with tempfile.TemporaryDirectory() as tmp:
        root, toml = unpack_corpus(args.corpus.resolve(), Path(tmp), args.replicate)
        cfg = config.load(root, toml)
        guide = read_guide_mapping(cfg)
        patterns = []
        for p in sorted(cfg.checklist_dir.glob("*.md")):
            if p.name.startswith("_"):
                continue
            names, _ = resolve_import_names(read_checklist(p, p.name), cfg, guide, None)
            patterns.append(r"^\s*(from|import)\s+(" + "|".join(n.replace(".", r"\.") for n in names) + r")\b")
        per_checklist = [["git", "grep", "-l", "-E", pat, "--", *cfg.roots] for pat in patterns]
        joined = ["git", "grep", "-l", "-E", "|".join(f"({p})" for p in patterns), "--", *cfg.roots]
        hits = subprocess.run(joined, cwd=root, capture_output=True, text=True).stdout.split()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        check = [sys.executable, "-m", "upgrade_checklists", "check", "--config", str(toml)]
        cache = root / cfg.cache_dir
        edited = root / hits[len(hits) // 2]
        # the common commit: a source that imports no focused package and no checklist names
        named = "\n".join(p.read_text(encoding="utf-8") for p in cfg.checklist_dir.glob("*.md"))
        others = sorted(str(p.relative_to(root)) for r in cfg.roots for p in (root / r).rglob("*.py")
                        if str(p.relative_to(root)) not in hits and str(p.relative_to(root)) not in named)
        plain = root / others[len(others) // 2]

        def grep_each() -> None:
            for cmd in per_checklist:
                subprocess.run(cmd, cwd=root, capture_output=True)

        def no_cache() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        def edit(path: Path = edited, where: str = "end") -> None:
            """A comment added at the file's end, top (every line moves) or middle (every later
            line moves: the common commit), two seconds before the run: a file changed within
            git's racy window (by its modification or change time) is never answered from a
            cache, and a commit comes some seconds after the edit it commits."""
            data = path.read_bytes()
            if where == "top":
                data = b"# edited\n" + data
            elif where == "middle":
                lines = data.splitlines(keepends=True)
                data = b"".join(lines[: len(lines) // 2] + [b"# edited\n"] + lines[len(lines) // 2:])
            else:
                data += b"# edited\n"
            path.write_bytes(data)
            past = time.time() - 60
            os.utime(path, (past, past))
            time.sleep(2.05)  # out of the racy window of its change time, which cannot be set back

        n_py = sum(1 for r in cfg.roots for _ in (root / r).rglob("*.py"))
        subprocess.run(check, cwd=root, env=env, capture_output=True)  # .pyc files written
        steps = [("check, cold (no cache)", no_cache, check), ("check, warm (nothing changed)", lambda: None, check),
                 ("check FILE, warm, file unchanged", lambda: None, [*check, str(edited.relative_to(root))]),
                 ("check FILE, warm, file edited", edit, [*check, str(edited.relative_to(root))]),
                 ("check FILE, warm, edited in its middle", lambda: edit(where="middle"), [*check, str(edited.relative_to(root))]),
                 ("check FILE, warm, edited at its top", lambda: edit(where="top"), [*check, str(edited.relative_to(root))]),
                 ("check FILE, warm, plain file edited", lambda: edit(plain), [*check, str(plain.relative_to(root))])]
        # round by round, the baselines first: a ratio compares runs made moments apart (a shared
        # machine's speed drifts over a minute more than the differences measured here)
        base_each, base_joined = [], []
        times: dict[str, list[float]] = {label: [] for label, _, _ in steps}
        peaks = dict.fromkeys(times, 0)
        for _ in range(args.repeat):
            base_each.append(timed(grep_each, 1))
            base_joined.append(timed(lambda: subprocess.run(joined, cwd=root, capture_output=True), 1))
            for label, before, cmd in steps:
                before()
                wall, code, rss = run_child(cmd, root, env)
                if code not in (0, 1):
                    raise SystemExit(f"{' '.join(cmd)} exited {code}")
                times[label].append(wall)
                peaks[label] = max(peaks[label], rss)
        print(f"corpus {root.name}{f' + {args.replicate} replicas' if args.replicate else ''}: {n_py} Python files "
              f"in {', '.join(cfg.roots)}, {len(patterns)} checklists, {len(hits)} files importing a focused package; "
              f"the edited files are {edited.relative_to(root)} and (no focused import) {plain.relative_to(root)}")
        print(f"git grep -l, once per checklist ({len(patterns)} runs): {statistics.median(base_each) * 1000:8.1f} ms   (baseline A)")
        print(f"git grep -l, all patterns in one run:     {statistics.median(base_joined) * 1000:8.1f} ms   (baseline B)")
        print("(ratios: the median over rounds of each round's time over that round's baseline)")
        for label, walls in times.items():
            a = statistics.median(t / b for t, b in zip(walls, base_each))
            b = statistics.median(t / j for t, j in zip(walls, base_joined))
            print(f"{label:<40} {statistics.median(walls) * 1000:8.1f} ms   ratio A {a:5.2f}   ratio B {b:5.2f}"
                  f"   peak {peaks[label] / 1024:6.1f} MB")
    return 0


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
    ap.add_argument("--corpus", type=Path, help="folder holding areal-*.tar.gz and areal.toml")
    ap.add_argument("--replicate", type=int, default=0, help="with --corpus: copies of its Python files to add")
    args = ap.parse_args()
    if args.corpus is not None:
        return corpus_main(args)
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
