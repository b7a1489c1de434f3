"""The audit's targets: which focused packages, from which version to which, in which variants.

From the command line (``PKG==VERSION``, ``PKG==VERSION@variant``), or from what moved in
the manifests and lock files between a git ref and the working tree, per variant (see
``versions.py``). A package whose versions differ between variants gives one target per
distinct move ("torchao 0.15.0 @ default, 0.16.0 @ vllm"). When nothing moved, every
focused package is a target at its pinned version(s): binding only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from packaging.utils import canonicalize_name

from upgrade_checklists.core.checklist import Checklist
from upgrade_checklists.core.config import Config
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.project.versions import (
    DEFAULT,
    Pin,
    Pins,
    Reader,
    VersionError,
    check_git_url,
    check_version,
    resolve,
)


@dataclass
class Target:
    package: str
    checklist: Checklist
    old: str | None
    new: str
    why: str  # "moved in uv.lock since HEAD", "command line", "pinned in ... (nothing moved: binding only)"
    source: str = ""  # where the new source came from (git ref / index)
    resolved: int = 0  # catalog entries whose API resolved upstream
    calls: int = 0  # call sites of the package found in the code (direct, inherited, patched, forwarded)
    bound: int = 0  # call sites bound against a signature
    not_resolved: list[tuple[int, str, str]] = field(default_factory=list)  # (entry, API, why) of the others
    variants: list[str] = field(default_factory=lambda: [DEFAULT])
    old_git: str | None = None  # the repository of a git pin (the version is then a git ref)
    new_git: str | None = None
    transitive: bool = False  # moved through a lock file only: no pin changed
    base_ref: str | None = None  # the git ref the old version was read at (a comparison with one)
    findings: list[Finding] = field(default_factory=list)  # this target's findings (set by the audit)
    entry_bound: dict[int, int] = field(default_factory=dict)  # catalog entry number -> call sites bound
    #: uses of the package found in the code, checked, and unknown by reason (``bind.coverage``)
    coverage: dict = field(default_factory=dict)

    @property
    def variant_label(self) -> str:
        return ", ".join(self.variants)


class AuditError(Exception):
    """Bad input that stops the audit before it starts (exit 2)."""


def parse_spec(spec: str) -> tuple[str, str, str | None]:
    """``PKG==VERSION[@variant]`` -> (package, version, variant or None)."""
    name, sep, rest = spec.partition("==")
    version, at, variant = rest.partition("@")
    if not sep or not name.strip() or not version or (at and not variant):
        raise AuditError(f"{spec!r}: expected PKG==VERSION or PKG==VERSION@variant")
    return name.strip(), version, (variant if at else None)


def plan(cfg: Config, checklists: list[Checklist], specs: list[str], from_version: str | None,
         base_ref: str, cache=None) -> tuple[list[Target], list[str]]:
    """The targets to audit and notes on them; ``cache``: where what the manifests pin is kept (``versions.Reader``)."""
    by_name = {canonicalize_name(cl.package): cl for cl in checklists}
    packages = [cl.package for cl in checklists]
    notes: list[str] = []
    try:
        now = resolve(Reader(cfg.root, cache=cache), packages, cfg.manifests)
        if from_version is not None:
            check_version(from_version, "--from")
        if specs:
            return _from_specs(specs, by_name, now, from_version, cfg.checklists, notes), notes
        before = resolve(Reader(cfg.root, base_ref), packages, cfg.manifests)
        return _moved(by_name, now, before, base_ref, notes), notes
    except VersionError as exc:
        raise AuditError(str(exc)) from None


def _validated(pin: Pin | None, what: str) -> Pin | None:
    if pin is not None:
        check_version(pin.version, what)
        if pin.git:
            check_git_url(pin.git)
    return pin


def _from_specs(specs: list[str], by_name: dict[str, Checklist], now: dict[str, Pins], from_version: str | None,
                where: str, notes: list[str] | None = None) -> list[Target]:
    targets = []
    for spec in specs:
        name, version, variant = parse_spec(spec)
        cl = by_name.get(canonicalize_name(name))
        if cl is None:
            raise AuditError(f"{name!r} has no checklist in {where}/")
        check_version(version)
        key = canonicalize_name(cl.package)
        if variant is not None:
            if variant not in now:
                raise AuditError(f"{spec!r}: no variant {variant!r} (variants: {', '.join(now) or 'none'})")
            chosen = [variant]
        else:
            chosen = [v for v, p in now.items() if key in p.resolved] or [next(iter(now), DEFAULT)]
        groups: dict[tuple, list[str]] = {}
        new_git = None
        for v in chosen:
            pinned = _validated(now[v].resolved.get(key) if v in now else None, f"{cl.package} @ {v}:")
            new_git = new_git or (pinned.git if pinned else None)
            if from_version is not None:
                old = (from_version, pinned.git if pinned else None)
            elif pinned is not None and pinned.version != version:
                old = (pinned.version, pinned.git)
            else:
                old = (None, None)
                if pinned is None and notes is not None:  # a range (or no) pin: nothing says what the old version was
                    notes.append(f"{cl.package} @ {v}: no exact pin and no --from: only {version} is checked (binding "
                                 f"only, no old/new comparison); give --from OLD to compare")
            groups.setdefault(old, []).append(v)
        for (old, old_git), vs in groups.items():
            targets.append(Target(cl.package, cl, old, version, "command line", variants=vs, old_git=old_git, new_git=new_git))
    return targets


def _moved(by_name: dict[str, Checklist], now: dict[str, Pins], before: dict[str, Pins], base_ref: str,
           notes: list[str]) -> list[Target]:
    moved: list[Target] = []
    pinned: list[Target] = []
    for key, cl in sorted(by_name.items()):
        moves: dict[tuple, list[str]] = {}
        stays: dict[tuple, list[str]] = {}
        for v, pins in now.items():
            try:
                n = _validated(pins.resolved.get(key), f"{cl.package} @ {v}:")
                b = before.get(v)
                o = _validated(b.resolved.get(key) if b else None, f"{cl.package} @ {v} at {base_ref}:")
            except VersionError as exc:
                raise AuditError(str(exc)) from None
            if n is None:
                continue
            new_decl, old_decl = pins.declared.get(key), (b.declared.get(key) if b else None)
            pin_moved = new_decl is not None and old_decl is not None and not new_decl.same(old_decl)
            if pin_moved and n.source != new_decl.source and not n.same(new_decl):
                notes.append(f"{cl.package} @ {v}: the pin moved {old_decl.version} -> {new_decl.version} in {new_decl.source}, "
                             f"but {n.source} still resolves {n.version}: the lock wins (re-lock to audit {new_decl.version})")
            if o is not None and not o.same(n):
                transitive = not pin_moved and n.source == pins.variant.lock
                moves.setdefault((o.version, o.git, n.version, n.git, n.source, transitive), []).append(v)
            else:
                stays.setdefault((n.version, n.git), []).append((v, n.source))
        if not moves and not stays:
            notes.append(f"{cl.package}: no pinned version (`==`) in any manifest or lock file; not audited: "
                         f"name the versions, `upgrade-checklists audit {cl.package}==NEW --from OLD`")
            continue
        for (old, old_git, new, new_git, source, transitive), vs in moves.items():
            why = f"moved in {source} since {base_ref}" + (" (transitive: no pin changed)" if transitive else "")
            moved.append(Target(cl.package, cl, old, new, why, variants=vs, old_git=old_git, new_git=new_git, transitive=transitive,
                                base_ref=base_ref))
        for (version, git), where in stays.items():
            sources = ", ".join(dict.fromkeys(s for _, s in where))
            pinned.append(Target(cl.package, cl, None, version, f"pinned in {sources} (nothing moved: binding only)",
                                 variants=[v for v, _ in where], old_git=git, new_git=git))
    return moved or pinned
