"""Findings of the structure check on the real-world corpus, per code and per checklist.

    python3 bench/accuracy.py [TARBALL] [--config TOML] [--list CODE ...] [--fix]

Unpacks the corpus tarball (default ``../shared/corpus/areal-4c20289.tar.gz``, relative
to the repository) into a temporary directory, makes it a git repository, runs
``check`` with the corpus configuration (default: ``areal.toml`` beside the tarball)
and prints the number of findings per code and per checklist. ``--list CODE`` also
prints every finding of that code; ``--fix`` first runs ``check --fix`` (twice: the
second run must change nothing) and reports what is left.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import tarfile
import tempfile
from pathlib import Path

from upgrade_checklists.core import config
from upgrade_checklists.check import fix
from upgrade_checklists.check.compare import run_check
from upgrade_checklists.core.findings import STRUCTURE_CODES

HERE = Path(__file__).resolve().parent.parent
CORPUS = Path("shared") / "corpus" / "areal-4c20289.tar.gz"


def default_tarball() -> Path:
    """``../shared/corpus/...`` beside the repository (or beside a folder holding a worktree of it)."""
    for up in HERE.parents:
        if (up / CORPUS).is_file():
            return up / CORPUS
    return HERE.parent / CORPUS


def unpack(tarball: Path, into: Path) -> Path:
    with tarfile.open(tarball) as tf:
        try:
            tf.extractall(into, filter="data")
        except TypeError:  # Python without extraction filters
            tf.extractall(into)
    tops = [p for p in into.iterdir() if p.is_dir()]
    root = tops[0] if len(tops) == 1 else into
    env = dict(os.environ, GIT_AUTHOR_NAME="corpus", GIT_AUTHOR_EMAIL="corpus@localhost",
               GIT_COMMITTER_NAME="corpus", GIT_COMMITTER_EMAIL="corpus@localhost")
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "corpus"]):
        subprocess.run(cmd, cwd=root, check=True, env=env)
    return root


def run_fix(cfg: config.Config) -> int:
    res = run_check(cfg, use_cache=False)
    changes = fix.plan(res, cfg, res.findings)
    for path, (_, new) in changes.items():
        fix.write_atomic(path, new)
    return len(changes)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tarball", nargs="?", type=Path, default=None)
    ap.add_argument("--config", type=Path, help="corpus configuration (default: areal.toml beside the tarball)")
    ap.add_argument("--list", nargs="*", default=[], metavar="CODE", help="print every finding of these codes")
    ap.add_argument("--fix", action="store_true", help="run --fix twice first and report what is left")
    args = ap.parse_args()
    tarball = (args.tarball or default_tarball()).resolve()
    toml = (args.config or tarball.with_name("areal.toml")).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        root = unpack(tarball, Path(tmp))
        cfg = config.load(root, toml)
        if args.fix:
            first = run_fix(cfg)
            second = run_fix(cfg)
            print(f"--fix rewrote {first} file(s); a second run rewrote {second}")
        res = run_check(cfg, use_cache=False)
        by_code = collections.Counter(f.code for f in res.findings)
        by_list: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        for f in res.findings:
            by_list[f.checklist or "(none)"][f.code] += 1
        codes = [c for c in STRUCTURE_CODES if by_code[c]]
        print(f"{len(res.findings)} findings in {len(res.checklists)} checklists, {res.files_scanned} files scanned")
        print("per code: " + ", ".join(f"{c} {by_code[c]}" for c in codes))
        width = max((len(k) for k in by_list), default=10)
        print(f"{'checklist':<{width}}  " + " ".join(f"{c:>8}" for c in codes))
        for name in sorted(by_list):
            print(f"{name:<{width}}  " + " ".join(f"{by_list[name][c]:>8}" for c in codes))
        for code in args.list:
            print(f"\n--- {code}")
            for f in sorted(res.findings):
                if f.code == code:
                    where = f" ({f.file}:{f.line})" if f.file else ""
                    print(f"{f.checklist}:{f.checklist_line}: {f.message}{where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
