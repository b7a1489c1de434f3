"""Compare the lazy upstream model with the whole-package model on a real source tree.

    python3 bench/lazy_vs_whole.py ROOT[,ROOT...] MODULE[,MODULE...] [--names 400] [--seed 1]

Loads the whole model (``api.UpstreamModel``), then asks both models, for a random sample of
the dotted paths the whole model holds (module members two levels down, class members
included), ``lookup`` and ``file_of``, and ``by_name`` of each path's last name. Prints every
difference, how many questions made the lazy model give up (``NeedFull``: a fresh lazy model
is made for the next one, as the audit would load the whole package), why, and the times.
Exit status 1 when an answer differs. ROOT is an unpacked source tree (e.g. a cached
``index/<package>/<version>`` folder of the audit's cache).
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hooks"))

from upgrade_checklists.audit.api import Unresolved, UpstreamModel  # noqa: E402
from upgrade_checklists.audit.lazy_model import LazyModel, NeedFull  # noqa: E402


def answer(model, question: str, *args):
    try:
        r = getattr(model, question)(*args)
    except Unresolved as exc:
        return ("unresolved", str(exc))
    if hasattr(r, "path"):
        return ("api", r.path, r.kind, repr(r.signature), r.parameters, r.method)
    return ("ok", r)


def paths_of(whole: UpstreamModel) -> list[str]:
    out: list[str] = []

    def walk(obj, depth: int) -> None:
        for name, member in list(obj.members.items()):
            if "/" in name:
                continue
            out.append(f"{obj.path}.{name}")
            if depth and not member.is_alias and member.kind.value in ("module", "class"):
                walk(member, depth - 1)

    for top in whole.collection.members.values():
        walk(top, 2)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots")
    ap.add_argument("modules")
    ap.add_argument("--names", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sys.setrecursionlimit(10000)
    roots = [Path(r) for r in args.roots.split(",")]
    modules = args.modules.split(",")
    t = time.perf_counter()
    whole = UpstreamModel(roots, modules)
    print(f"whole model loaded in {time.perf_counter() - t:.1f} s")
    paths = paths_of(whole)
    random.Random(args.seed).shuffle(paths)
    paths = paths[: args.names]
    lazy = LazyModel(roots, modules)
    differences, gave_up = 0, Counter()
    t = time.perf_counter()
    for path in paths:
        questions = [("lookup", path), ("file_of", path)]
        last = path.rsplit(".", 1)[-1]
        if not last.startswith("__"):
            questions.append(("by_name", last, ("class", "function", "module")))
        for q, *a in questions:
            expected = answer(whole, q, *a)
            try:
                got = answer(lazy, q, *a)
            except NeedFull as why:
                gave_up[str(why)] += 1
                lazy = LazyModel(roots, modules)
                continue
            if got != expected:
                differences += 1
                print(f"DIFFERENT {q}{tuple(a)}:\n  whole: {expected}\n  lazy:  {got}")
    print(f"{len(paths)} paths asked in {time.perf_counter() - t:.1f} s: {differences} different, "
          f"{sum(gave_up.values())} gave up; peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")
    for why, n in gave_up.most_common():
        print(f"  gave up {n}x: {why}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
