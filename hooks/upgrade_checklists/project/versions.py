"""Which versions the manifests and lock files fix, per variant, now and at a git ref.

A *variant* is a manifest and the lock file paired with it by name:
``pyproject.toml`` + ``uv.lock`` is the ``default`` variant, ``pyproject.vllm.toml`` +
``uv.vllm.lock`` the ``vllm`` variant. ``requirements*.txt`` pin the default variant
(``requirements.<variant>.txt`` that variant). The files are found with the
``manifests`` globs (default: those three patterns at the repository root).

Read from a manifest: ``[project] dependencies``, optional dependencies,
``[tool.uv] override-dependencies``, ``[dependency-groups]`` (only ``==`` pins, and
git pins ``name @ git+URL@ref``); from a lock: the exact resolved versions (which also
reveal transitive bumps; a lock's git source gives the commit). A lock's version wins
over a pin.

What a file of the working tree pins is extracted once per run and, given a cache
(``Reader(root, cache=...)``: a :class:`~upgrade_checklists.project.cache.ScanCache`), kept as
plain JSON keyed by the file's stat (path, size, mtime, ctime, inode): a warm audit
parses neither the manifests nor the (large) lock files again.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import time
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from upgrade_checklists.core import proc

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

VERSION_RE = re.compile(r"^[A-Za-z0-9._/-]+$")
DEFAULT = "default"
DEFAULT_MANIFESTS = ["pyproject*.toml", "uv*.lock", "requirements*.txt"]
_GIT_SCHEMES = ("https", "http", "ssh", "file")


class VersionError(ValueError):
    """A version string that must not reach a command."""


def check_version(version: str, what: str = "version") -> str:
    """Section 6 step 1: ``^[A-Za-z0-9._/-]+$``, no leading ``-``, no ``..``."""
    if not isinstance(version, str) or not VERSION_RE.match(version) or version.startswith("-") or ".." in version:
        raise VersionError(f"{what} {version!r} is not a valid version (allowed: letters, digits, . _ / -; no leading '-', no '..')")
    return version


def check_git_url(url: str) -> str:
    """A git URL from a pin: https/http/ssh/file, no whitespace, no leading ``-``."""
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in _GIT_SCHEMES or url.startswith("-") or any(c.isspace() or c == "\0" for c in url) \
            or (parts.scheme != "file" and not parts.netloc) or ".." in parts.path.split("/"):
        raise VersionError(f"git URL {url!r} is not allowed (https, http, ssh or file URLs only)")
    return url


@dataclass(frozen=True)
class Pin:
    version: str
    source: str  # "uv.lock", "pyproject.toml", "requirements.txt"
    git: str | None = None  # the repository of a git pin; ``version`` is then the ref

    def same(self, other: Pin | None) -> bool:
        """The same version (a git ref and the commit it abbreviates are the same)."""
        if other is None:
            return False
        if self.git or other.git:
            short, long = sorted((self.version, other.version), key=len)
            return bool(self.git and other.git and _same_repo(self.git, other.git)
                        and (short == long or (7 <= len(short) < len(long) and long.startswith(short))))
        return self.version == other.version


@dataclass(frozen=True)
class Variant:
    name: str
    manifests: tuple[str, ...] = ()  # pyproject and requirements files
    lock: str | None = None


@dataclass
class Pins:
    """One variant's versions: ``resolved`` (the lock winning) and ``declared`` (manifests only)."""

    variant: Variant
    resolved: dict[str, Pin] = field(default_factory=dict)
    declared: dict[str, Pin] = field(default_factory=dict)


class Reader:
    """Files of the working tree, or of a git ref (``git show REF:path``). ``cache``: where
    what a working-tree file pins is kept (see :func:`_pins_of`)."""

    def __init__(self, root: Path, ref: str | None = None, cache=None) -> None:
        self.root = root
        self.ref = ref
        self.cache = cache
        if ref is not None and (ref.startswith("-") or not re.match(r"^[\w./@{}^~-]+$", ref)):
            raise VersionError(f"git ref {ref!r} is not allowed")

    def read(self, rel: str) -> str | None:
        if self.ref is None:
            p = self.root / rel
            return p.read_text(encoding="utf-8") if p.is_file() else None
        r = proc.run(["git", "show", f"{self.ref}:{rel}"], kind=proc.GIT_REPO, cwd=self.root, timeout=60)
        return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None

    def files(self, patterns: list[str]) -> list[str]:
        """Repository-relative paths matching the globs (root-level unless a glob has a ``/``)."""
        deep = any("/" in p for p in patterns)
        if self.ref is None:
            names = set()
            for pat in patterns:
                names |= {p.relative_to(self.root).as_posix() for p in self.root.glob(pat) if p.is_file()}
            return sorted(names)
        cmd = ["git", "ls-tree", "--name-only"] + (["-r"] if deep else []) + [self.ref]
        r = proc.run(cmd, kind=proc.GIT_REPO, cwd=self.root, text=True, timeout=60)
        return sorted(n for n in r.stdout.splitlines() if any(fnmatch.fnmatchcase(n, p) for p in patterns))

    def requirement_files(self) -> list[str]:
        return self.files(["requirements*.txt"])


_PYPROJECT = re.compile(r"^pyproject(?:[.-](?P<v>.+))?\.toml$")
_LOCK = re.compile(r"^uv(?:[.-](?P<v>.+))?\.lock$")
_REQS = re.compile(r"^requirements(?:[.-](?P<v>.+))?\.txt$")


def variants(paths: list[str]) -> list[Variant]:
    """Group manifest and lock paths into variants, pairing them by name."""
    groups: dict[str, dict] = {}

    def key(rel: str, suffix: str | None) -> str:
        d = rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
        return d + (suffix or DEFAULT)

    reqs = []
    for rel in paths:
        base = rel.rsplit("/", 1)[-1]
        if m := _PYPROJECT.match(base):
            groups.setdefault(key(rel, m["v"]), {"m": [], "l": None})["m"].append(rel)
        elif m := _LOCK.match(base):
            groups.setdefault(key(rel, m["v"]), {"m": [], "l": None})["l"] = rel
        elif m := _REQS.match(base):
            reqs.append((rel, m["v"]))
    for rel, suffix in reqs:
        k = key(rel, suffix)
        if k not in groups:
            k = key(rel, None)
        groups.setdefault(k, {"m": [], "l": None})["m"].append(rel)
    return [Variant(name, tuple(sorted(g["m"])), g["l"]) for name, g in sorted(groups.items(), key=lambda kv: (kv[0] != DEFAULT, kv[0]))]


def resolve(reader: Reader, packages: list[str], patterns: list[str] | None = None) -> dict[str, Pins]:
    """``{variant name: Pins}`` for the wanted packages, in every variant the files define."""
    wanted = {canonicalize_name(p) for p in packages}
    out: dict[str, Pins] = {}
    for var in variants(reader.files(patterns or DEFAULT_MANIFESTS)):
        pins = Pins(var)
        for rel in var.manifests:
            for name, pin in _manifest_pins(reader, rel):
                key = canonicalize_name(name)
                if key in wanted and key not in pins.declared:
                    pins.declared[key] = pin
        pins.resolved = dict(pins.declared)
        if var.lock:
            pins.resolved.update(_lock_pins(reader, var.lock, wanted, pins.declared))
        out[var.name] = pins
    return out


def resolved_versions(reader: Reader, packages: list[str], patterns: list[str] | None = None) -> dict[str, Pin]:
    """The default variant's ``{canonical name: Pin}`` (the first variant when none is called default)."""
    every = resolve(reader, packages, patterns)
    pins = every.get(DEFAULT) or next(iter(every.values()), None)
    return dict(pins.resolved) if pins else {}


RACY_NS = 2_000_000_000
_EXTRACTED: dict[tuple, list[list]] = {}  # (kind, path, stat) -> pins: this process parses a file once


def _pins_of(reader: Reader, rel: str, kind: str, extract) -> list[list]:
    """``extract(reader, rel)``: ``[[name, version, git or None], ...]``, what ``rel`` pins. For a
    working-tree file, taken from the cache when it was stored for exactly this stat, else
    extracted and kept (not for a file changed in the last two seconds: git's racy rule)."""
    st = None
    if reader.ref is None:
        try:
            st = os.stat(reader.root / rel)
        except (OSError, ValueError):
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            st = None
    if st is None:
        return extract(reader, rel)
    memo = (kind, str(reader.root / rel), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    found = _EXTRACTED.get(memo)
    key = f"pins:{kind}:{rel}"
    if found is None and reader.cache is not None:
        hit, value = reader.cache.get(key, st)
        if hit and _pin_rows(value):
            found = value
    if found is None:
        found = extract(reader, rel)
        if reader.cache is not None:
            reader.cache.put(key, st, found)  # not stored when racy
    if st.st_mtime_ns <= time.time_ns() - RACY_NS:
        _EXTRACTED[memo] = found
    return found


def _pin_rows(value) -> bool:
    """A stored extraction has the shape :func:`_pins_of` wrote (a forged or garbled one is a miss)."""
    return type(value) is list and all(
        type(r) is list and len(r) == 3 and type(r[0]) is str and type(r[1]) is str and (r[2] is None or type(r[2]) is str)
        for r in value)


def _manifest_pins(reader: Reader, rel: str) -> list[tuple[str, Pin]]:
    """``(name, Pin)`` for each exact or git pin of a manifest, in the file's order."""
    return [(name, Pin(version, rel, git)) for name, version, git in _pins_of(reader, rel, "manifest", _manifest_rows)]


def _manifest_rows(reader: Reader, rel: str) -> list[list]:
    return [[name, pin.version, pin.git] for name, pin in _manifest_read(reader, rel)]


def _manifest_read(reader: Reader, rel: str):
    base = rel.rsplit("/", 1)[-1]
    text = reader.read(rel)
    if not text:
        return
    if base.endswith(".toml"):
        data = _toml(text)
        project = data.get("project", {})
        reqs = list(project.get("dependencies", []))
        for group in project.get("optional-dependencies", {}).values():
            reqs += list(group)
        reqs += list(data.get("tool", {}).get("uv", {}).get("override-dependencies", []))
        for group in data.get("dependency-groups", {}).values():
            reqs += [r for r in group if isinstance(r, str)]
        for req in reqs:
            name, pin = _exact(req, rel) if isinstance(req, str) else ("", None)
            if pin:
                yield name, pin
        return
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith(("#", "-")):
            name, pin = _exact(line.split(" --hash", 1)[0].rstrip("\\ "), rel)
            if pin:
                yield name, pin


def _lock_rows(reader: Reader, rel: str) -> list[list]:
    """Every package a lock resolves, in its order: ``[canonical name, version, None]``, or
    ``[canonical name, commit, repository]`` for a git source with a commit."""
    rows = []
    for pkg in _toml(reader.read(rel) or "").get("package", []):
        if not isinstance(pkg, dict) or not isinstance(pkg.get("version"), str):
            continue
        key = canonicalize_name(str(pkg.get("name", "")))
        source = pkg.get("source") if isinstance(pkg.get("source"), dict) else {}
        if isinstance(source.get("git"), str):
            url, _, commit = source["git"].partition("#")
            url = url.split("?", 1)[0]
            rows.append([key, commit, url] if commit else [key, pkg["version"], None])
        else:
            rows.append([key, pkg["version"], None])
    return rows


def _lock_pins(reader: Reader, rel: str, wanted: set[str], declared: dict[str, Pin]) -> dict[str, Pin]:
    found: dict[str, list[Pin]] = {}
    for key, version, git in _pins_of(reader, rel, "lock", _lock_rows):
        if key in wanted:
            found.setdefault(key, []).append(Pin(version, rel, git))
    out = {}
    for key, pins in found.items():
        if len(pins) == 1:
            out[key] = pins[0]
            continue
        # several resolutions (per platform): the declared pin if the lock has it, else the newest
        pin = declared.get(key)
        match = [p for p in pins if pin is not None and p.version.split("+")[0] == pin.version]
        out[key] = match[0] if match else max(pins, key=lambda p: _sort_key(p.version))
    return out


def _sort_key(version: str):
    try:
        return (1, Version(version))
    except InvalidVersion:
        return (0, version)


def _toml(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}  # a broken pin file pins nothing: the audit says so per package


def parse_requirement(text: str) -> Requirement | None:
    """A PEP 508 requirement; also ``name @ URL; marker`` without the space before ``;``
    that PEP 508 asks for and uv accepts."""
    try:
        return Requirement(text)
    except InvalidRequirement:
        if "@" not in text or ";" not in text:
            return None
        try:
            return Requirement(re.sub(r"\s*;", " ;", text, count=1))
        except InvalidRequirement:
            return None


def _exact(text: str, source: str) -> tuple[str, Pin | None]:
    req = parse_requirement(text)
    if req is None:
        return "", None
    if req.url:
        git = git_pin(req.url)
        return req.name, (Pin(git[1], source, git[0]) if git else None)
    specs = list(req.specifier)
    exact = [s.version for s in specs if s.operator in ("==", "===") and "*" not in s.version]
    return req.name, (Pin(exact[0], source) if exact else None)


def git_pin(url: str) -> tuple[str, str] | None:
    """``git+https://host/org/repo.git@ref`` -> (``https://host/org/repo.git``, ``ref``); None without a ref."""
    if not url.startswith("git+"):
        return None
    parts = urlsplit(url[4:])
    path, at, ref = parts.path.rpartition("@")
    if not at or not path or not ref:
        return None
    return parts._replace(path=path, query="", fragment="").geturl(), ref


def _same_repo(a: str, b: str) -> bool:
    def norm(u: str) -> str:
        return u.lower().rstrip("/").removesuffix(".git")
    return norm(a) == norm(b)
