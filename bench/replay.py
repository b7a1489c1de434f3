"""Replay a real project's history through the hook: what daily use of the check costs.

    python3 bench/replay.py REPO --start REV --package PIP=ORG/REPO [--package ...]
        [-n 100] [--end HEAD] [--python /path/to/venv/bin/python]
        [--roots a,b] [--primary P] [--secondary P] [--tertiary P] [--exclude GLOB]
        [--import-name PIP=module] [--checklists DIR] [--config-file pyproject|own]
        [--json OUT.json] [--keep DIR] [--max-minutes M] [--timeout S] [--progress]
    python3 bench/replay.py --render OUT.json [--first K]

``REPO`` is a local clone (nothing is fetched). The harness clones it (``--shared``, no
checkout) into a temporary directory, leaves ``REPO`` untouched, and then plays a
newcomer who adopts the tool at ``--start`` and keeps it as a blocking pre-commit hook
for the next ``-n`` commits of the first-parent line towards ``--end``:

1. **Adopt** (at the start commit, README "Adopt it in five steps"): write the
   configuration, a ``[tool.upgrade-checklists]`` table appended to the project's
   ``pyproject.toml`` (``--config-file own``, or no ``pyproject.toml``: an
   ``upgrade-checklists.toml`` with the same keys at top level) with ``checklists``,
   ``roots``, ``exclude`` and the ``tiers`` given; ``upgrade-checklists new PIP --github
   ORG/REPO`` for each package, the drafts left as written; a first ``check --fix``; a
   baseline of what is left (``check --baseline .upgrade-checklists-baseline.json``); one
   commit of all that in the temporary clone.
2. **Each commit** ``C`` (first parent ``P``): the files ``git diff-tree P C`` reports are
   written into the work tree (the checklists, the baseline and the configuration stay;
   a ``pyproject.toml`` the commit changes gets the table appended again) and staged;
   then
   - ``check --baseline B FILES`` with ``PRE_COMMIT=1``, ``FILES`` the staged paths
     pre-commit would pass (added, copied, modified, renamed; ``.py``/``.pyi``, ``.md``,
     ``.toml``): the exit code says whether the hook **blocks** the commit, the JSON
     findings say why (codes of ``error`` findings; a blocked commit whose reasons are
     all ``LINE`` is "blocked for LINE alone");
   - ``check --fix --baseline B`` (the whole tree, as a maintainer runs it when told to):
     **checklist lines changed** (a changed line counts once: per difflib opcode the
     longer side);
   - the hook again, on ``FILES`` plus the rewritten checklists: still blocked means the
     commit **needs a hand edit** of a checklist (when ``--fix`` rewrote nothing, the
     first run's answer stands: same files, same tree); the harness then accepts what is left
     into the baseline (the file is written anew, as step 4 of the adoption), standing
     in for the maintainer's edit;
   - one commit (the fixed checklists kept, as a maintainer commits them).
3. **Report**: the issue's table (commits blocked, blocked for LINE alone, checklist
   lines changed by ``--fix``, the worst single commit, commits needing a hand edit), a
   breakdown per code (commits blocked with it, findings), the list of blocked commits
   with their reasons, and, with ``--json``, every commit's record.

The tool runs as ``PYTHON -I -m upgrade_checklists`` with ``--python`` (default: this
interpreter), so one harness measures two builds of the tool side by side (install each
in its own venv). The tool's own version is reported as the git commit of the folder it
is imported from. Runs are deterministic: no network, the environment cleaned of
``GIT_*``/``PYTHON*`` variables, git without system or global configuration, commits
with fixed identity and the replayed commit's dates; only the timings vary.
Blobs missing from a partial clone are written as empty files and listed in the report.
``--max-minutes`` stops the replay after that much time (the report says how many
commits it covered); ``--keep DIR`` keeps the work tree there (``DIR`` must not exist).
``--render OUT.json`` prints the report of a saved record again, ``--first K`` over its
first K commits only (to compare with a shorter replay of another build).
Nothing is written into ``REPO`` or into this repository.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

BASELINE = ".upgrade-checklists-baseline.json"
HOOK_SUFFIXES = (".py", ".pyi", ".md", ".markdown", ".toml")
IDENTITY = ("replay", "replay@localhost")


# --- processes -------------------------------------------------------------------------


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_", "PYTHON", "PRE_COMMIT", "UPGRADE_CHECKLISTS"))}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               LC_ALL="C.UTF-8", TZ="UTC", NO_COLOR="1")
    env.update(extra)
    return env


class Git:
    def __init__(self, root: Path) -> None:
        self.root = root

    def cmd(self, *args: str) -> list[str]:
        return ["git", "-C", str(self.root), "-c", "core.hooksPath=" + os.devnull, "-c", "commit.gpgsign=false",
                "-c", "core.autocrlf=false", "-c", "core.quotepath=false", "-c", f"user.name={IDENTITY[0]}",
                "-c", f"user.email={IDENTITY[1]}", *args]

    def run(self, *args: str, env: dict | None = None, input: bytes | None = None) -> bytes:
        out = subprocess.run(self.cmd(*args), env=env or clean_env(), input=input, capture_output=True)
        if out.returncode:
            raise RuntimeError(f"git {' '.join(args)}: {out.stderr.decode(errors='replace').strip()}")
        return out.stdout

    def text(self, *args: str) -> str:
        return self.run(*args).decode("utf-8", errors="surrogateescape")


class Blobs:
    """``git cat-file --batch``, one process for the whole replay."""

    def __init__(self, git: Git) -> None:
        self.proc = subprocess.Popen(git.cmd("cat-file", "--batch"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=clean_env())
        self.missing: list[str] = []

    def get(self, sha: str, path: str) -> bytes:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            self.missing.append(path)
            return b""
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        return data

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


@dataclass
class Run:
    """One run of the tool."""

    code: int
    seconds: float
    doc: dict | None
    stderr: str
    stdout: str = ""

    @property
    def findings(self) -> list[dict]:
        return (self.doc or {}).get("findings", [])


class Tool:
    def __init__(self, python: str, root: Path, timeout: float) -> None:
        self.python, self.root, self.timeout = python, root, timeout

    def __call__(self, *args: str, hook: bool = False) -> Run:
        env = clean_env(PRE_COMMIT="1") if hook else clean_env()
        t0 = time.perf_counter()
        try:
            out = subprocess.run([self.python, "-I", "-m", "upgrade_checklists", *args], cwd=self.root, env=env,
                                 capture_output=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return Run(-1, time.perf_counter() - t0, None, f"timeout after {self.timeout:.0f} s")
        seconds = time.perf_counter() - t0
        doc = None
        if "json" in args:
            try:
                doc = json.loads(out.stdout or b"{}")
            except json.JSONDecodeError:
                doc = None
        return Run(out.returncode, seconds, doc, out.stderr.decode("utf-8", errors="replace").strip(),
                   "" if doc is not None else out.stdout.decode("utf-8", errors="replace").strip())

    def describe(self) -> str:
        probe = "import upgrade_checklists, os; print(os.path.dirname(upgrade_checklists.__file__))"
        out = subprocess.run([self.python, "-I", "-c", probe], capture_output=True, text=True, env=clean_env(),
                             cwd=tempfile.gettempdir())
        where = out.stdout.strip()
        if not where:
            return f"{self.python}: upgrade_checklists not importable ({out.stderr.strip()[-200:]})"
        sha = subprocess.run(["git", "-C", where, "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True,
                             env=clean_env())
        dirty = subprocess.run(["git", "-C", where, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, env=clean_env())
        rev = sha.stdout.strip() + (" (modified)" if dirty.stdout.strip() else "") if sha.returncode == 0 else "?"
        return f"{self.python} -> {where} @ {rev}"


# --- the work tree ---------------------------------------------------------------------


def write_entry(root: Path, path: str, mode: str, data: bytes) -> None:
    target = root / path
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir() and mode != "160000":
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode == "160000":  # a submodule: an empty folder, as a clone without --recursive leaves it
        target.mkdir(exist_ok=True)
    elif mode == "120000":
        os.symlink(data.decode("utf-8", errors="surrogateescape"), target)
    else:
        target.write_bytes(data)
        if mode == "100755":
            target.chmod(0o755)


def remove_entry(root: Path, path: str) -> None:
    target = root / path
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    parent = target.parent
    while parent != root and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def parse_raw(out: bytes) -> list[tuple[str, str, str, str]]:
    """``diff-tree -r -z --no-renames`` output: (status, new mode, new sha, path)."""
    parts = out.split(b"\0")
    entries = []
    i = 0
    while i < len(parts) - 1:
        meta = parts[i].decode()
        if not meta.startswith(":"):
            i += 1
            continue
        _old_mode, new_mode, _old_sha, new_sha, status = meta[1:].split()
        entries.append((status[0], new_mode, new_sha, parts[i + 1].decode("utf-8", errors="surrogateescape")))
        i += 2
    return entries


class Config:
    """The newcomer's configuration, and where it lives."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.checklists = args.checklists
        self.roots, self.exclude = args.roots, args.exclude
        self.tiers = {"primary": args.primary, "secondary": args.secondary, "tertiary": args.tertiary}
        self.import_names = dict(kv.split("=", 1) for kv in args.import_name)
        self.where = args.config_file

    def keys(self) -> list[str]:
        q = json.dumps  # TOML basic strings and arrays of them read as JSON writes them
        lines = [f"checklists = {q(self.checklists)}"]
        if self.roots:
            lines.append(f"roots = {q(self.roots)}")
        if self.exclude:
            lines.append(f"exclude = {q(self.exclude)}")
        return lines

    def text(self, top_level: bool) -> str:
        prefix = "" if top_level else "tool.upgrade-checklists."
        out = [] if top_level else ["[tool.upgrade-checklists]"]
        out += self.keys()
        if any(self.tiers.values()):
            out += ["", f"[{prefix}tiers]"]
            out += [f"{tier} = {json.dumps(v)}" for tier, v in self.tiers.items() if v]
        if self.import_names:
            out += ["", f"[{prefix}import-names]"]
            out += [f"{json.dumps(k)} = {json.dumps([v])}" for k, v in self.import_names.items()]
        return "\n".join(out) + "\n"

    def write(self, root: Path) -> str:
        """Writes the configuration; returns its path."""
        pyproject = root / "pyproject.toml"
        if self.where == "pyproject" and pyproject.is_file():
            body = pyproject.read_text(encoding="utf-8")
            pyproject.write_text(body + ("" if body.endswith("\n") else "\n") + "\n" + self.text(False), encoding="utf-8")
            return "pyproject.toml"
        (root / "upgrade-checklists.toml").write_text(self.text(True), encoding="utf-8")
        return "upgrade-checklists.toml"


# --- measures --------------------------------------------------------------------------


def snapshot(root: Path, folder: str) -> dict[str, list[str]]:
    base = root / folder
    if not base.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace").splitlines()
            for p in sorted(base.rglob("*")) if p.is_file()}


def lines_changed(before: dict[str, list[str]], after: dict[str, list[str]]) -> tuple[int, int, int, list[str]]:
    """(changed lines, added, removed, files changed): a replaced line counts once."""
    changed = added = removed = 0
    files = []
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path, []), after.get(path, [])
        if a == b:
            continue
        files.append(path)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            changed += max(i2 - i1, j2 - j1)
            removed += i2 - i1
            added += j2 - j1
    return changed, added, removed, files


def reasons(run: Run) -> list[str]:
    """The codes that make a run fail: its ``error`` findings (all findings if none says)."""
    errors = [f["code"] for f in run.findings if f.get("severity", "error") == "error"]
    return sorted(errors or [f["code"] for f in run.findings])


@dataclass
class Step:
    sha: str
    subject: str
    files: int  # the paths the hook gets
    hook_exit: int
    blocked_by: list[str]  # codes of the blocking findings, sorted, with repeats
    warnings: list[str]  # codes of findings reported that do not block
    fix_exit: int
    lines: int
    added: int
    removed: int
    fixed_files: list[str]
    after_fix_exit: int
    left: list[str]  # codes still blocking after --fix: a hand edit
    left_messages: list[str] = field(default_factory=list)
    blocked_messages: list[str] = field(default_factory=list)
    seconds: dict = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def errors_first(findings: list[dict]) -> list[dict]:
    return sorted(findings, key=lambda f: f.get("severity", "error") != "error")


def short(f: dict) -> str:
    where = f.get("file") or f.get("checklist") or ""
    return f"{f['code']} {where}: {f['message']}"[:300]


# --- the replay ------------------------------------------------------------------------


def commits(git: Git, start: str, end: str, n: int) -> list[tuple[str, str]]:
    out = git.text("rev-list", "--first-parent", "--reverse", f"{start}..{end}")
    shas = out.split()[:n]
    result = []
    for sha in shas:
        subject = git.text("log", "-1", "--format=%s", sha).strip()
        result.append((sha, subject))
    return result


def commit_all(git: Git, message: str, date: str) -> None:
    git.run("add", "-A")
    env = clean_env(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    git.run("commit", "-q", "--no-verify", "--allow-empty", "-m", message, env=env)


def staged_paths(git: Git) -> list[str]:
    out = git.run("diff", "--cached", "--name-only", "-z", "--diff-filter=ACMRTUXB", "HEAD")
    paths = [p.decode("utf-8", errors="surrogateescape") for p in out.split(b"\0") if p]
    return sorted(p for p in paths if p.endswith(HOOK_SUFFIXES))


def write_baseline(tool: Tool, root: Path, flags: list[str]) -> Run:
    """The baseline written anew from the whole tree's findings: ``--write-baseline FILE``
    where the build has it, else ``--baseline FILE`` with the file removed first."""
    if flags:
        return tool("check", flags[0], BASELINE, "--output-format", "json")
    (root / BASELINE).unlink(missing_ok=True)
    return tool("check", "--baseline", BASELINE, "--output-format", "json")


def baseline_flags(tool: Tool) -> list[str]:
    """The option a build has to write a baseline (none: ``--baseline`` alone writes a missing file)."""
    out = subprocess.run([tool.python, "-I", "-m", "upgrade_checklists", "check", "--help"], capture_output=True,
                         text=True, env=clean_env(), cwd=tempfile.gettempdir())
    return ["--write-baseline"] if "--write-baseline" in out.stdout else []


def replay(args: argparse.Namespace, work: Path) -> dict:
    src = Path(args.repo).resolve()
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(src), str(work)], check=True,
                   env=clean_env(), capture_output=True)
    git = Git(work)
    start = git.text("rev-parse", "--verify", f"{args.start}^{{commit}}").strip()
    end = git.text("rev-parse", "--verify", f"{args.end}^{{commit}}").strip()
    todo = commits(git, start, end, args.n)
    tool = Tool(args.python, work, args.timeout)
    bflags = baseline_flags(tool)
    blobs = Blobs(git)

    # the start commit, on a branch of its own: the tool sees the project's history
    git.run("update-ref", "refs/heads/replay", start)
    git.run("symbolic-ref", "HEAD", "refs/heads/replay")
    git.run("read-tree", start)
    for line in git.run("ls-tree", "-r", "-z", "--full-tree", start).split(b"\0"):
        if not line:
            continue
        meta, path = line.split(b"\t", 1)
        mode, _kind, sha = meta.decode().split()
        name = path.decode("utf-8", errors="surrogateescape")
        write_entry(work, name, mode, blobs.get(sha, name) if mode != "160000" else b"")

    cfg = Config(args)
    cfg_path = cfg.write(work)
    adoption: dict = {"config_file": cfg_path, "config": cfg.text(cfg_path != "pyproject.toml"), "new": {}}
    for spec in args.package:
        pip, _, github = spec.partition("=")
        run = tool("new", pip, "--github", github)
        path = work / args.checklists / f"{pip}.md"
        size = len(path.read_text(encoding="utf-8").splitlines()) if path.is_file() else 0
        adoption["new"][pip] = {"exit": run.code, "output": (run.stdout + run.stderr)[-500:], "lines": size,
                                "seconds": round(run.seconds, 2)}
    drafted = snapshot(work, args.checklists)
    first = tool("check", "--output-format", "json")
    adoption["after_new"] = dict(collections.Counter(f["code"] for f in first.findings))
    adoption["after_new_exit"] = first.code
    fix = tool("check", "--fix", "--output-format", "json")
    adoption["first_fix_lines"] = lines_changed(drafted, snapshot(work, args.checklists))[0]
    base = write_baseline(tool, work, bflags)
    adoption["baseline_exit"] = base.code
    adoption["baseline"] = dict(collections.Counter(f["code"] for f in json.loads(
        (work / BASELINE).read_text(encoding="utf-8")).get("findings", []))) if (work / BASELINE).is_file() else None
    adoption["fix_exit"] = fix.code
    adoption["checklist_lines"] = {p: len(v) for p, v in snapshot(work, args.checklists).items()}
    date = git.text("log", "-1", "--format=%cI", start).strip()
    commit_all(git, "replay: adopt upgrade-checklists", date)

    steps: list[Step] = []
    t_start = time.monotonic()
    previous = start
    stopped = None
    for sha, subject in todo:
        if args.max_minutes and time.monotonic() - t_start > args.max_minutes * 60:
            stopped = f"stopped after {len(steps)} commits: --max-minutes {args.max_minutes}"
            break
        raw = git.run("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", previous, sha)
        touched_config = False
        for status, mode, blob, path in parse_raw(raw):
            if path == "pyproject.toml":
                touched_config = True
            if status == "D":
                remove_entry(work, path)
            else:
                write_entry(work, path, mode, blobs.get(blob, path) if mode != "160000" else b"")
        if touched_config and cfg_path == "pyproject.toml":
            if (work / "pyproject.toml").is_file():
                cfg.write(work)
            else:  # the project dropped its pyproject.toml: the table stays, alone
                (work / "pyproject.toml").write_text(cfg.text(False), encoding="utf-8")
        previous = sha
        git.run("add", "-A")
        paths = staged_paths(git)
        hook = tool("check", "--baseline", BASELINE, "--output-format", "json", *paths, hook=True)
        before = snapshot(work, args.checklists)
        fixed = tool("check", "--fix", "--baseline", BASELINE, "--output-format", "json")
        after = snapshot(work, args.checklists)
        changed, added, removed, files = lines_changed(before, after)
        # nothing rewritten: the hook again would see what it saw (same files, same tree)
        again = hook if not files else tool("check", "--baseline", BASELINE, "--output-format", "json",
                                            *sorted(set(paths) | set(files)), hook=True)
        blocking = reasons(hook) if hook.code == 1 else []
        step = Step(sha=sha[:10], subject=subject[:90], files=len(paths), hook_exit=hook.code, blocked_by=blocking,
                    warnings=sorted(f["code"] for f in hook.findings if f.get("severity", "error") != "error"),
                    fix_exit=fixed.code, lines=changed, added=added, removed=removed, fixed_files=files,
                    after_fix_exit=again.code, left=reasons(again) if again.code == 1 else [],
                    left_messages=[short(f) for f in errors_first(again.findings)][:8] if again.code == 1 else [],
                    blocked_messages=[short(f) for f in errors_first(hook.findings)][:8] if hook.code == 1 else [],
                    seconds={"hook": round(hook.seconds, 2), "fix": round(fixed.seconds, 2),
                             "again": round(again.seconds, 2) if files else 0.0})
        for name, run in (("hook", hook), ("fix", fixed), ("again", again if files else None)):
            if run is None:
                continue
            if run.code not in (0, 1):
                step.errors.append(f"{name}: exit {run.code}: {run.stderr[-300:]}")
        if again.code == 1:  # the maintainer's hand edit: what is left is accepted
            accepted = write_baseline(tool, work, bflags)
            if accepted.code != 0:
                step.errors.append(f"baseline: exit {accepted.code}: {accepted.stderr[-300:]}")
        date = git.text("log", "-1", "--format=%cI", sha).strip()
        commit_all(git, f"replay {sha[:10]}: {subject[:60]}", date)
        steps.append(step)
        if args.progress:
            mark = "BLOCK " + ",".join(sorted(set(step.blocked_by))) if step.blocked_by else "ok"
            print(f"[{len(steps)}/{len(todo)}] {sha[:10]} {mark} fix={changed} "
                  f"{'HAND ' + ','.join(sorted(set(step.left))) if step.left else ''} "
                  f"({sum(step.seconds.values()):.1f}s)", file=sys.stderr, flush=True)
    blobs.close()
    return {
        "repo": str(src), "start": start, "end": end, "requested": args.n, "replayed": len(steps),
        "stopped": stopped, "packages": args.package, "tool": tool.describe(), "baseline_flags": bflags,
        "adoption": adoption, "missing_blobs": sorted(set(blobs.missing)),
        "steps": [asdict(s) for s in steps],
    }


def summarise(doc: dict) -> dict:
    steps = doc["steps"]
    blocked = [s for s in steps if s["hook_exit"] == 1]
    line_only = [s for s in blocked if set(s["blocked_by"]) == {"LINE"}]
    hand = [s for s in steps if s["after_fix_exit"] == 1]
    worst = max(steps, key=lambda s: s["lines"], default=None)
    by_code: dict[str, list[int]] = {}
    for s in blocked:
        for code, n in collections.Counter(s["blocked_by"]).items():
            entry = by_code.setdefault(code, [0, 0, 0])
            entry[0] += 1
            entry[1] += n
    for s in hand:
        for code in set(s["left"]):
            by_code.setdefault(code, [0, 0, 0])[2] += 1
    return {
        "commits": len(steps),
        "blocked": len(blocked),
        "blocked_line_only": len(line_only),
        "lines_changed": sum(s["lines"] for s in steps),
        "worst": {"lines": worst["lines"], "sha": worst["sha"], "subject": worst["subject"]} if worst else None,
        "hand_edits": len(hand),
        "errors": sum(1 for s in steps if s["errors"]),
        "by_code": {k: {"commits_blocked": v[0], "findings": v[1], "hand_edits": v[2]} for k, v in sorted(by_code.items())},
    }


def render(doc: dict) -> str:
    s = doc["summary"]
    a = doc["adoption"]
    out = [f"replay of {doc['repo']} {doc['start'][:10]}..{doc['end'][:10]}: "
           f"{doc['replayed']} of {doc['requested']} first-parent commits",
           f"packages: {', '.join(doc['packages'])}",
           f"tool: {doc['tool']}"]
    if doc["stopped"]:
        out.append(doc["stopped"])
    if doc["missing_blobs"]:
        out.append(f"missing blobs written empty: {', '.join(doc['missing_blobs'][:5])}")
    drafts = ", ".join(f"{k} (exit {v['exit']}, {v['lines']} lines)" for k, v in a["new"].items())
    out += ["", f"adoption ({a['config_file']}): new: {drafts}",
            f"  findings right after new: {a['after_new'] or 'none'}; first --fix changed {a['first_fix_lines']} "
            f"lines; baseline: {a['baseline'] or 'empty'}"]
    worst = s["worst"]
    worst_txt = f"{worst['lines']} lines ({worst['sha']} {worst['subject']})" if worst else "-"
    hand_codes = sorted({c for st in doc["steps"] for c in st["left"]})
    rows = [
        ("commits the hook would block", str(s["blocked"])),
        ("… blocked for line numbers alone (`LINE`)", str(s["blocked_line_only"])),
        ("checklist lines changed by `--fix`", str(s["lines_changed"])),
        ("worst single commit", worst_txt),
        ("commits needing a hand edit of a checklist",
         f"{s['hand_edits']}" + (f" ({', '.join(hand_codes)})" if hand_codes else "")),
    ]
    if s["errors"]:
        rows.append(("commits where the tool failed (exit 2 / timeout)", str(s["errors"])))
    w = max(len(r[0]) for r in rows)
    out += ["", f"| {'measure over ' + str(s['commits']) + ' commits':<{w}} | value |",
            f"| {'-' * w} | ---: |"]
    out += [f"| {k:<{w}} | {v} |" for k, v in rows]
    if s["by_code"]:
        out += ["", "| code | commits blocked | findings | hand edits |", "| --- | ---: | ---: | ---: |"]
        out += [f"| {k} | {v['commits_blocked']} | {v['findings']} | {v['hand_edits']} |" for k, v in s["by_code"].items()]
    blocked = [st for st in doc["steps"] if st["hook_exit"] == 1 or st["errors"]]
    if blocked:
        out += ["", "blocked commits (codes; lines --fix changed; left after --fix):"]
        for st in blocked:
            codes = ",".join(f"{c}x{n}" if n > 1 else c for c, n in sorted(collections.Counter(st["blocked_by"]).items()))
            left = f" HAND EDIT: {','.join(sorted(set(st['left'])))}" if st["left"] else ""
            out.append(f"  {st['sha']} {st['subject'][:60]!r}: {codes or '-'}; {st['lines']} lines{left}")
            for m in (st["left_messages"] or st["blocked_messages"])[:3]:
                out.append(f"      {m[:200]}")
            for e in st["errors"]:
                out.append(f"      error: {e[:200]}")
    secs = [sum(st["seconds"].values()) for st in doc["steps"]]
    if secs:
        hooks = sorted(st["seconds"]["hook"] for st in doc["steps"])
        out += ["", f"time: {sum(secs):.0f} s for the commits; hook run median {hooks[len(hooks) // 2]:.2f} s, "
                    f"max {hooks[-1]:.2f} s"]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", nargs="?", help="a local clone of the project (left untouched)")
    ap.add_argument("--start", help="the commit where the newcomer adopts the tool")
    ap.add_argument("--end", default="HEAD", help="replay towards this commit (default: HEAD)")
    ap.add_argument("-n", type=int, default=100, help="commits to replay (default: 100)")
    ap.add_argument("--package", action="append", default=[], metavar="PIP=ORG/REPO",
                    help="a package to draft with `new PIP --github ORG/REPO` (repeatable)")
    ap.add_argument("--import-name", action="append", default=[], metavar="PIP=MODULE",
                    help="[tool.upgrade-checklists.import-names] entry (repeatable)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter whose upgrade_checklists runs")
    ap.add_argument("--checklists", default="checklists", help="the checklists folder (default: checklists)")
    ap.add_argument("--roots", type=lambda s: [x for x in s.split(",") if x], default=[], help="comma-separated")
    ap.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    for tier in ("primary", "secondary", "tertiary"):
        ap.add_argument(f"--{tier}", action="append", default=[], metavar="PREFIX", help=f"tiers.{tier} (repeatable)")
    ap.add_argument("--config-file", choices=("pyproject", "own"), default="pyproject",
                    help="append the table to pyproject.toml (default) or write upgrade-checklists.toml")
    ap.add_argument("--json", type=Path, help="write the whole record (every commit) here")
    ap.add_argument("--keep", type=Path, help="keep the work tree in this (new) folder")
    ap.add_argument("--max-minutes", type=float, default=0, help="stop after this long (0: never)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds one tool run may take")
    ap.add_argument("--progress", action="store_true", help="a line per commit on stderr")
    ap.add_argument("--render", type=Path, metavar="RECORD.json",
                    help="print the report of a saved --json record instead of replaying")
    ap.add_argument("--first", type=int, default=0, metavar="K",
                    help="with --render: the report over the record's first K commits only")
    args = ap.parse_args(argv)
    if args.render:
        doc = json.loads(args.render.read_text(encoding="utf-8"))
        if args.first:
            doc["steps"] = doc["steps"][:args.first]
            doc["replayed"] = len(doc["steps"])
        doc["summary"] = summarise(doc)
        sys.stdout.write(render(doc))
        return 0
    if not (args.repo and args.start and args.package):
        ap.error("REPO, --start and at least one --package are needed (or --render RECORD.json)")
    if args.keep and args.keep.exists():
        ap.error(f"--keep {args.keep}: exists")
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        work = args.keep.resolve() if args.keep else Path(tmp) / "work"
        doc = replay(args, work)
    doc["summary"] = summarise(doc)
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(render(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
