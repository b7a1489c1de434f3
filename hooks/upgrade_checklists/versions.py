"""Which focused packages changed version: pins and lock files, now and at a git ref.

Read from ``pyproject.toml`` (``[project] dependencies``, optional dependencies,
``[tool.uv] override-dependencies``, ``[dependency-groups]``), ``uv.lock`` (exact
resolved versions, which also reveal transitive bumps) and ``requirements*.txt``
at the repository root. A lock file's version wins over a pin.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

VERSION_RE = re.compile(r"^[A-Za-z0-9._/-]+$")


class VersionError(ValueError):
    """A version string that must not reach a command."""


def check_version(version: str, what: str = "version") -> str:
    """Section 6 step 1: ``^[A-Za-z0-9._/-]+$``, no leading ``-``, no ``..``."""
    if not isinstance(version, str) or not VERSION_RE.match(version) or version.startswith("-") or ".." in version:
        raise VersionError(f"{what} {version!r} is not a valid version (allowed: letters, digits, . _ / -; no leading '-', no '..')")
    return version


@dataclass(frozen=True)
class Pin:
    version: str
    source: str  # "uv.lock", "pyproject.toml", "requirements.txt"


class Reader:
    """Files of the working tree, or of a git ref (``git show REF:path``)."""

    def __init__(self, root: Path, ref: str | None = None) -> None:
        self.root = root
        self.ref = ref
        if ref is not None and (ref.startswith("-") or not re.match(r"^[\w./@{}^~-]+$", ref)):
            raise VersionError(f"git ref {ref!r} is not allowed")

    def read(self, rel: str) -> str | None:
        if self.ref is None:
            p = self.root / rel
            return p.read_text(encoding="utf-8") if p.is_file() else None
        r = subprocess.run(["git", "show", f"{self.ref}:{rel}"], cwd=self.root, capture_output=True, timeout=60)
        return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None

    def requirement_files(self) -> list[str]:
        if self.ref is None:
            return sorted(p.name for p in self.root.glob("requirements*.txt"))
        r = subprocess.run(["git", "ls-tree", "--name-only", self.ref], cwd=self.root, capture_output=True, text=True, timeout=60)
        return sorted(n for n in r.stdout.split() if re.match(r"^requirements.*\.txt$", n))


def resolved_versions(reader: Reader, packages: list[str]) -> dict[str, Pin]:
    """``{canonical name: Pin}`` for the packages whose version the files fix."""
    wanted = {canonicalize_name(p) for p in packages}
    pins: dict[str, Pin] = {}
    for name, version, source in _pins(reader):
        key = canonicalize_name(name)
        if key in wanted and version and key not in pins:
            pins[key] = Pin(version, source)
    lock = reader.read("uv.lock")
    if lock:
        for pkg in _toml(lock).get("package", []):
            key = canonicalize_name(str(pkg.get("name", "")))
            if key in wanted and isinstance(pkg.get("version"), str):
                pins[key] = Pin(pkg["version"], "uv.lock")
    return pins


def _pins(reader: Reader):
    text = reader.read("pyproject.toml")
    if text:
        data = _toml(text)
        project = data.get("project", {})
        reqs = list(project.get("dependencies", []))
        for group in project.get("optional-dependencies", {}).values():
            reqs += list(group)
        reqs += list(data.get("tool", {}).get("uv", {}).get("override-dependencies", []))
        for group in data.get("dependency-groups", {}).values():
            reqs += [r for r in group if isinstance(r, str)]
        for req in reqs:
            yield (*_exact(req), "pyproject.toml")
    for rel in reader.requirement_files():
        for line in (reader.read(rel) or "").splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith(("#", "-")):
                yield (*_exact(line.split(" --hash", 1)[0].rstrip("\\ ")), rel)


def _toml(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}  # a broken pin file pins nothing: the audit says so per package


def _exact(text: str) -> tuple[str, str | None]:
    try:
        req = Requirement(text)
    except InvalidRequirement:
        return "", None
    specs = list(req.specifier)
    exact = [s.version for s in specs if s.operator in ("==", "===") and "*" not in s.version]
    return req.name, (exact[0] if exact else None)
