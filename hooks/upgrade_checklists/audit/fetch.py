"""Get a dependency's upstream source at a version: a shallow git clone of the
checklist's ``branch_template`` (sparse where that helps), or the wheel (else the
sdist) of that exact version from the package index. Cached and reused.

Nothing from upstream runs:

- a wheel comes from ``pip download --only-binary :all:`` (no build); when the
  release has no wheel for this interpreter, the sdist archive itself is found on
  pip's configured indexes and downloaded by ``index.py`` (``pip download`` of an
  sdist would run its build backend to prepare metadata);
- archives are unpacked as plain files by ``archives.py`` (no links, no paths
  outside, sizes bounded); nothing is installed, so a ``.pth`` file is inert;
- git runs with neither system nor user configuration (so no filter driver, hook
  path or template a ``.gitattributes`` of the fetched repository could invoke),
  no hooks (``core.hooksPath=/dev/null``, an empty template), no LFS smudge, no
  submodules, symlinks checked out as plain files, and only the https/http/ssh/file
  transports; and with none of the caller's git variables (a git hook in a linked
  worktree exports ``GIT_DIR`` and ``GIT_INDEX_FILE``: inherited, they would point the
  clone at the user's repository), in an empty folder that is also its ``HOME``;
- pip runs isolated (``python -I``, no ``PYTHON*`` variable, an empty working folder):
  a ``pip/`` package or a ``sitecustomize.py`` in the repository is never imported.
  Both through ``proc.py``, as every command the tool runs.

Every value that reaches a command is validated first; commands get argument
lists, never a shell; git never prompts; every command has a timeout. A lock
(``filelock``) around installing a fetched source lets concurrent audits share
the cache: one fetches, the others wait and reuse it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from upgrade_checklists.audit.archives import ArchiveError, unpack
from upgrade_checklists.core import proc
from upgrade_checklists.project.versions import VersionError, check_git_url, check_version

_GITHUB_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9_.][A-Za-z0-9_.-]*$")
_REF_RE = re.compile(r"^[A-Za-z0-9._/+-]+$")
_PACKAGE_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
#: git configuration that keeps a fetched repository from running anything (given to every git
#: command through GIT_CONFIG_COUNT/KEY/VALUE, so commands stay short in messages)
_GIT_SAFE = {
    "core.hooksPath": "/dev/null", "core.symlinks": "false", "core.fsmonitor": "false",
    "submodule.recurse": "false", "filter.lfs.smudge": "", "filter.lfs.process": "", "filter.lfs.required": "false",
    "protocol.allow": "never", "protocol.https.allow": "always", "protocol.http.allow": "always",
    "protocol.ssh.allow": "always", "protocol.file.allow": "always", "advice.detachedHead": "false",
}


class FetchError(Exception):
    """The upstream source could not be had (the audit cannot run: exit 2)."""


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "upgrade-checklists"


def audit_cache_dir(cache_dir: Path | None, repository: Path) -> Path:
    """Where the audit keeps fetched sources and model records (``cache_dir``, else the
    per-user cache), resolved; refused when that is inside the repository (its root, or the
    git work tree holding it). What is there is trusted -- a tree marked complete is not
    fetched again, a model record is not checked against the source -- and a folder in the
    checkout holds what the branch under review committed: a forged tree of the new
    version, or a forged record (its key is computable by anyone), would make a breaking
    upgrade pass. Records are not bound to the machine instead (as the scan cache's
    entries are, to each file's inode and change time): a CI cache restored on another
    runner is legitimately the same cache."""
    chosen = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    real = Path(os.path.realpath(os.path.abspath(chosen)))
    for top in _repository_tops(repository):
        if real == top or top in real.parents:
            raise FetchError(f"the audit cache {chosen} is inside the repository ({top}): a branch could commit "
                             "forged sources or records there; use a folder outside the checkout (--cache-dir, XDG_CACHE_HOME)")
    return real


def _repository_tops(repository: Path) -> list[Path]:
    """The repository's root, and the top of the git work tree that holds it (when another)."""
    root = Path(os.path.realpath(repository))
    tops = [root]
    for d in (root, *root.parents):
        if os.path.lexists(d / ".git"):
            if d != root:
                tops.append(d)
            break
    return tops


def git_ref(branch_template: str, version: str) -> str:
    check_version(version)
    if not isinstance(branch_template, str) or "${VERSION}" not in branch_template:
        raise FetchError(f"branch_template {branch_template!r} does not contain ${{VERSION}}")
    ref = branch_template.replace("${VERSION}", version)
    if not _REF_RE.match(ref) or ref.startswith("-") or ".." in ref:
        raise FetchError(f"git ref {ref!r} is not allowed")
    return ref


def git_url(template: str, github: str) -> str:
    if not isinstance(github, str) or not _GITHUB_RE.match(github) or ".." in github:
        raise FetchError(f"github {github!r} is not of the form 'org/repo'")
    if template.count("{github}") != 1 or re.search(r"\{(?!github\})", template):
        raise FetchError(f"git_url {template!r} must contain {{github}} once and no other placeholder")
    url = template.replace("{github}", github)
    if url.startswith("-") or any(c in url for c in "\n\r\0 "):
        raise FetchError(f"git URL {url!r} is not allowed")
    return url


def _run(cmd: list[str], timeout: int) -> subprocess.CompletedProcess:
    """A git command on an upstream, or this interpreter (pip), isolated (``proc``); a failure is a FetchError."""
    kind = proc.GIT_UPSTREAM if cmd[:1] == ["git"] else proc.PYTHON
    cmd = proc.command(cmd, kind)
    extra = {"GIT_CONFIG_COUNT": str(len(_GIT_SAFE))} if kind == proc.GIT_UPSTREAM else {}
    for i, (key, value) in enumerate(_GIT_SAFE.items() if kind == proc.GIT_UPSTREAM else ()):
        extra[f"GIT_CONFIG_KEY_{i}"], extra[f"GIT_CONFIG_VALUE_{i}"] = key, value
    try:
        r = proc.run(cmd, kind=kind, timeout=timeout, text=True, extra_env=extra)
    except subprocess.TimeoutExpired:
        raise FetchError(f"`{_shown(cmd)}` timed out after {timeout}s") from None
    except OSError as exc:
        raise FetchError(f"cannot run {cmd[0]}: {exc.strerror}") from None
    if r.returncode != 0:
        raise FetchError(f"`{_shown(cmd)}` failed: {_first_error(r.stderr or r.stdout) or 'exit ' + str(r.returncode)}")
    return r


def _shown(cmd: list[str]) -> str:
    """The command whole, as a person would type it (the interpreter by its name)."""
    return shlex.join(["python3" if c == sys.executable else c for c in cmd])


def _first_error(output: str, limit: int = 500) -> str:
    """The first line that states the error (pip's ``ERROR:``, git's ``fatal:``), else the last
    line; cut at ``limit`` characters, control characters escaped (a server's message or a
    name from upstream may hold terminal escapes)."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    found = next((line for line in lines if re.match(r"^(ERROR|error|fatal):", line)), lines[-1] if lines else "")
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in found[:limit])
    return shown + ("..." if len(found) > limit else "")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def _mark(dest: Path) -> Path:
    """The file that says ``dest`` is complete, and what it was fetched from: beside ``dest``,
    never in it (nothing upstream can name it), and under a name no other entry of the
    folder can have (``@`` starts no destination, lock or work folder)."""
    return dest.parent / f"@{dest.name}.complete"


def _complete(dest: Path) -> bool:
    return _mark(dest).is_file() and dest.is_dir()


def fetched_from(dest: Path) -> str | None:
    """What the cached source ``dest`` was fetched from (as :func:`_cached` recorded it), or None."""
    try:
        return _mark(dest).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def _cached(dest: Path, produce: Callable[[Path, Path], str], timeout: int = 600) -> Path:
    """``dest`` if a complete copy is there; else ``produce(work, src)`` fills ``src`` (and
    returns what to record of it), and ``src`` is renamed into place, then marked complete:
    never half-written. A lock next to ``dest`` makes concurrent audits fetch once and share
    the result; the work directories of fetches into ``dest`` that were killed are removed
    under it."""
    if _complete(dest):
        return dest
    from filelock import FileLock, Timeout  # a fetch to make: a warm audit never locks

    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        with FileLock(str(dest.parent / f".{dest.name}.lock"), timeout=timeout + 60):
            if _complete(dest):  # another audit fetched it while we waited
                return dest
            prefix = f".fetch-{dest.name}@"  # `@` is in no slug (and needs no shell quoting): dest's alone
            for left in dest.parent.iterdir():  # we hold dest's lock: these fetches were killed
                if left.name.startswith(prefix):
                    shutil.rmtree(left, ignore_errors=True)
            work = Path(tempfile.mkdtemp(dir=dest.parent, prefix=prefix))
            try:
                src = work / "src"
                mark = produce(work, src)
                (work / "mark").write_text(mark + "\n", encoding="utf-8")
                _mark(dest).unlink(missing_ok=True)  # a crash from here on leaves dest unmarked: fetched again
                if dest.is_dir() and not dest.is_symlink():
                    shutil.rmtree(dest)
                elif os.path.lexists(dest):
                    dest.unlink()
                os.replace(src, dest)
                os.replace(work / "mark", _mark(dest))
            finally:
                shutil.rmtree(work, ignore_errors=True)
    except Timeout:
        raise FetchError(f"another audit has been fetching into {dest} for over {timeout + 60}s") from None
    return dest


def fetch_git(github: str, branch_template: str, version: str, *, url_template: str, cache_dir: Path,
              sparse: list[str] | None = None, timeout: int = 600) -> Path:
    """A checkout of ``branch_template`` at ``version``; reused from the cache when there."""
    ref = git_ref(branch_template, version)
    url = git_url(url_template, github)
    dirs = sorted({d.strip("/") for d in sparse or [] if d.strip("/")})
    key = _slug(ref) + (f"-sparse-{hashlib.sha1(' '.join(dirs).encode()).hexdigest()[:8]}" if dirs else "")

    def clone(work: Path, src: Path) -> str:
        cmd = ["git", "clone", "--quiet", "--template=", "--no-recurse-submodules", "--depth", "1",
               "--branch", ref]
        if dirs:
            cmd += ["--no-checkout", "--filter=blob:none"]
        _run([*cmd, "--", url, str(src)], timeout)
        if dirs:
            _run(["git", "-C", str(src), "sparse-checkout", "set", "--cone", "--", *dirs], timeout)
            _run(["git", "-C", str(src), "checkout", "--quiet"], timeout)
        shutil.rmtree(src / ".git", ignore_errors=True)
        return f"{url} {ref}"

    return _cached(cache_dir / "git" / _slug(github) / key, clone, timeout)


def fetch_git_pin(url: str, ref: str, *, cache_dir: Path, timeout: int = 600) -> Path:
    """A checkout of a git pin (``name @ git+URL@ref``): ``ref`` a commit, tag or branch of ``url``."""
    try:
        check_version(ref, "git ref")
        check_git_url(url)
    except VersionError as exc:
        raise FetchError(str(exc)) from None

    def clone(work: Path, src: Path) -> str:
        _run(["git", "init", "--quiet", "--template=", str(src)], timeout)
        _run(["git", "-C", str(src), "remote", "add", "origin", url], timeout)
        try:  # a full commit id or a tag: one shallow fetch
            _run(["git", "-C", str(src), "fetch", "--quiet", "--depth", "1", "origin", ref], timeout)
            _run(["git", "-C", str(src), "-c", "advice.detachedHead=false", "checkout", "--quiet", "FETCH_HEAD"], timeout)
        except FetchError:  # an abbreviated commit id: the history, then the commit it names
            _run(["git", "-C", str(src), "fetch", "--quiet", "--filter=blob:none", "--tags", "origin"], timeout)
            _run(["git", "-C", str(src), "-c", "advice.detachedHead=false", "checkout", "--quiet", ref + "^{commit}"], timeout)
        shutil.rmtree(src / ".git", ignore_errors=True)
        return f"{url} {ref}"

    return _cached(cache_dir / "git-pin" / _slug(url) / _slug(ref), clone, timeout)


def fetch_index(package: str, version: str, *, cache_dir: Path, timeout: int = 600) -> Path:
    """The unpacked wheel (else sdist) of exactly ``package==version``; nothing of it is built or run.

    pip's own configuration applies (``PIP_INDEX_URL``, ``PIP_EXTRA_INDEX_URL``, ``PIP_FIND_LINKS``,
    ``PIP_NO_INDEX``, pip.conf), so a mirror or a local directory serves it offline.
    """
    check_version(version)
    if not _PACKAGE_RE.match(package):
        raise FetchError(f"package name {package!r} is not allowed")

    def download(work: Path, src: Path) -> str:
        dl = work / "dl"
        cmd = [*proc.python_command("-m", "pip"), "download", "--no-deps", "--disable-pip-version-check", "--quiet",
               "--only-binary", ":all:", "-d", str(dl), f"{package}=={version}"]
        try:
            _run(cmd, timeout)
            archive = next(iter(sorted(p for p in dl.iterdir() if p.name.endswith(".whl"))), None) if dl.is_dir() else None
            if archive is None:
                raise FetchError(f"`{_shown(cmd)}` downloaded no wheel")
        except FetchError as wheel_error:
            from upgrade_checklists.audit import index  # ssl, urllib: only for a release without a wheel

            try:
                sources = index.pip_sources(timeout=min(timeout, 120))
                urls = index.find_sdist(package, version, sources, timeout)
                archive = index.download(urls[0], dl, timeout, sources.cert)
            except (index.IndexLookupError, OSError, ValueError) as exc:
                raise FetchError(f"{wheel_error}; and no sdist: {exc}") from None
        try:
            unpack(archive, src)
        except ArchiveError as exc:
            raise FetchError(str(exc)) from None
        return archive.name

    return _cached(cache_dir / "index" / _slug(package) / _slug(version), download, timeout)
