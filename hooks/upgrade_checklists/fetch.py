"""Get a dependency's upstream source at a version: a shallow git clone of the
checklist's ``branch_template`` (sparse where that helps), or the sdist/wheel of
that exact version through pip. Cached and reused.

Every value that reaches a command is validated first; commands get argument
lists, never a shell; git never prompts; every command has a timeout.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Callable

from upgrade_checklists.versions import check_version

_GITHUB_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9_.][A-Za-z0-9_.-]*$")
_REF_RE = re.compile(r"^[A-Za-z0-9._/+-]+$")
_PACKAGE_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_MARK = ".upgrade-checklists-complete"


class FetchError(Exception):
    """The upstream source could not be had (the audit cannot run: exit 2)."""


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "upgrade-checklists"


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


def _run(cmd: list[str], timeout: int, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "PIP_NO_INPUT": "1"}
    try:
        r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
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


def _first_error(output: str) -> str:
    """The first line that states the error (pip's ``ERROR:``, git's ``fatal:``), else the last line."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    for line in lines:
        if re.match(r"^(ERROR|error|fatal):", line):
            return line
    return lines[-1] if lines else ""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def _cached(dest: Path, produce: Callable[[Path, Path], str]) -> Path:
    """``dest`` if a complete copy is there; else ``produce(work, src)`` fills ``src`` (and
    returns what to record of it), and ``src`` is renamed into place: never half-written."""
    if (dest / _MARK).is_file():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".fetch-"))
    try:
        src = work / "src"
        mark = produce(work, src)
        (src / _MARK).write_text(mark + "\n")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(src, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest


def fetch_git(github: str, branch_template: str, version: str, *, url_template: str, cache_dir: Path,
              sparse: list[str] | None = None, timeout: int = 600) -> Path:
    """A checkout of ``branch_template`` at ``version``; reused from the cache when there."""
    ref = git_ref(branch_template, version)
    url = git_url(url_template, github)
    dirs = sorted({d.strip("/") for d in sparse or [] if d.strip("/")})
    key = _slug(ref) + (f"-sparse-{hashlib.sha1(' '.join(dirs).encode()).hexdigest()[:8]}" if dirs else "")

    def clone(work: Path, src: Path) -> str:
        cmd = ["git", "-c", "advice.detachedHead=false", "clone", "--quiet", "--depth", "1", "--branch", ref]
        if dirs:
            cmd += ["--no-checkout", "--filter=blob:none"]
        _run([*cmd, "--", url, str(src)], timeout)
        if dirs:
            _run(["git", "-C", str(src), "sparse-checkout", "set", "--cone", "--", *dirs], timeout)
            _run(["git", "-C", str(src), "checkout", "--quiet"], timeout)
        shutil.rmtree(src / ".git", ignore_errors=True)
        return f"{url} {ref}"

    return _cached(cache_dir / "git" / _slug(github) / key, clone)


def fetch_index(package: str, version: str, *, cache_dir: Path, timeout: int = 600) -> Path:
    """The unpacked sdist (else wheel) of exactly ``package==version``, via ``pip download``.

    pip's own configuration applies (``PIP_INDEX_URL``, ``PIP_FIND_LINKS``, ``PIP_NO_INDEX``),
    so a mirror or a local directory serves it offline.
    """
    check_version(version)
    if not _PACKAGE_RE.match(package):
        raise FetchError(f"package name {package!r} is not allowed")

    def download(work: Path, src: Path) -> str:
        base = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--quiet",
                "-d", str(work / "dl")]
        try:
            _run([*base, "--no-binary", ":all:", f"{package}=={version}"], timeout)
        except FetchError:
            _run([*base, "--only-binary", ":all:", f"{package}=={version}"], timeout)
        files = sorted((work / "dl").iterdir()) if (work / "dl").is_dir() else []
        if not files:
            raise FetchError(f"pip downloaded nothing for {package}=={version}")
        _unpack(files[0], src)
        return files[0].name

    return _cached(cache_dir / "index" / _slug(package) / _slug(version), download)


def _unpack(archive: Path, out: Path) -> None:
    """Unpack an sdist or wheel, refusing members that would land outside ``out``."""
    out.mkdir(parents=True)
    root = out.resolve()
    if archive.name.endswith(".whl") or archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                _inside(root, name)
            z.extractall(out)
        return
    with tarfile.open(archive) as t:
        members = []
        for m in t.getmembers():
            _inside(root, m.name)
            if m.issym() or m.islnk() or m.isdev():
                continue
            members.append(m)
        kwargs = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        t.extractall(out, members=members, **kwargs)
    tops = list(out.iterdir())
    if len(tops) == 1 and tops[0].is_dir():  # sdists hold one top directory: use it as the root
        top = tops[0].rename(out / ".sdist-top")
        for child in list(top.iterdir()):
            os.replace(child, out / child.name)
        top.rmdir()


def _inside(root: Path, name: str) -> None:
    target = (root / name).resolve()
    if target != root and root not in target.parents:
        raise FetchError(f"archive member {name!r} would be written outside the unpack directory")
