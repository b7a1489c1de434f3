"""Bases in other distributions: a class of the audited package whose base class comes from
another distribution (a test client on ``httpx.Client``, a model on ``torch.nn.Module``) has
that base's members. :class:`Followed` stands in front of a model (``CachedModel``) and, where
a class's member is not in the loaded source and the class has such a base, follows the base
into its own distribution's model: fetched and cached as the audited package is (the same
source kinds, cache, and safety rules: ``fetch.py``), lazily (only a distribution a base chain
reaches, when a member is asked of it), once per version.

Which distribution: the import name's top package is mapped statically, first match wins:

1. the configuration's ``distributions`` table (``{import name = "distribution"}``);
2. a checklist of the project whose import names hold it (then fetched as that checklist says:
   its git repository, else the index);
3. a requirement of the audited release (its ``Requires-Dist``, extras included) of that name
   (``-``, ``_`` and ``.`` alike, as the index compares names);
4. the import name itself (the index name equal to the import name).

The fetched tree must hold that top package (a module or folder of the name), else the
mapping was wrong and the base is not followed (the message says to name it in
``distributions``).

Which version: the one the project's lock or manifest pins (the same files and variant as the
audited package's; at the base ref for the old version when the audit compares with one),
else the newest release (no pre-release) the audited release's own requirements allow (read
statically: ``*.dist-info/METADATA``, ``PKG-INFO``, ``*.egg-info/requires.txt``,
``pyproject.toml``; nothing is built), listed from pip's configured indexes and find-links as
the ledger lists releases; that choice is kept a day in the cache (``bases/newest.json``) so
that a warm audit asks no index. A base's own bases in a third distribution are followed the
same way (its release's requirements), up to :data:`DEPTH` distributions deep.

The followed models answer more than members: a receiver whose steps leave the audited source
(``TestClient(app).get(url)`` annotated ``-> httpx.Response``, then ``.cookies`` iterated) is
typed on in the distribution of a base a class on the way has (``Followed.receiver_class``), a
question about a class of a followed distribution goes to its model (``Followed._owner``), and a
keyword a method hands on (``super().get(url, cookies=cookies)``) to a method there that warns
when it is passed is that method's deprecation too (``Followed.keyword_deprecations``).

What cannot be followed (the standard library, a builtin, a fetch that fails, no release the
requirements allow, a distribution without that package) stays as before: its members are
unknown (``UNRESOLVED``, info, with the reason), never removed, never an error of the audit.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from upgrade_checklists.audit.api import Api, Signature, Unresolved, search_paths
from upgrade_checklists.audit.deprecation import FORWARD_DEPTH, WHERE, split_where

if TYPE_CHECKING:
    from packaging.requirements import Requirement

DEPTH = 3  # distributions followed along one base chain
NEWEST_TTL = 24 * 3600  # how long the newest release a requirement allows is trusted, in seconds
_NEWEST = "newest.json"
_MAX_READ = 4 * 1024 * 1024


class NotFollowed(Exception):
    """Why a base's distribution cannot be followed (said with the base, never an error)."""


# -- a release's requirements, read statically ------------------------------------------------


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.is_symlink():
            return None
        with open(path, "rb") as f:
            return f.read(_MAX_READ).decode("utf-8", errors="replace")
    except OSError:
        return None


def requirements(root: Path) -> list[Requirement] | None:
    """What the release unpacked (or checked out) at ``root`` requires, extras included: a wheel's
    ``*.dist-info/METADATA``, an sdist's ``PKG-INFO`` or ``*.egg-info/requires.txt``, a source
    tree's ``pyproject.toml`` (``[project] dependencies`` and ``optional-dependencies``). None when
    none of them says (a ``setup.py`` is never run)."""
    from email.parser import HeaderParser  # only when a base is followed at a version no pin gives

    from packaging.requirements import InvalidRequirement, Requirement

    texts: list[str] = []
    try:
        metas = sorted(root.glob("*.dist-info/METADATA")) + [root / "PKG-INFO"] + sorted(root.glob("*.egg-info/PKG-INFO"))
    except OSError:
        metas = []
    for meta in metas:
        text = _read(meta)
        if text:
            reqs = HeaderParser().parsestr(text).get_all("Requires-Dist") or []
            if reqs or "Metadata-Version" in text:
                texts += [str(r) for r in reqs]
                if reqs:
                    break
    if not texts:
        for req in sorted(root.glob("*.egg-info/requires.txt")):
            text = _read(req) or ""
            texts += [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith(("[", "#"))]
    if not texts:
        text = _read(root / "pyproject.toml")
        if text:
            try:
                import tomllib
            except ModuleNotFoundError:  # Python 3.10
                import tomli as tomllib
            try:
                project = tomllib.loads(text).get("project") or {}
            except (ValueError, AttributeError):
                project = {}
            deps = project.get("dependencies") if isinstance(project, dict) else None
            texts += [d for d in deps or [] if isinstance(d, str)]
            for extra in (project.get("optional-dependencies") or {}).values() if isinstance(project, dict) else []:
                texts += [d for d in extra or [] if isinstance(d, str)]
    if not texts:
        return None
    out = []
    for t in texts:
        try:
            out.append(Requirement(t))
        except InvalidRequirement:
            continue
    return out


def allowed(reqs: list[Requirement], dist: str) -> SpecifierSet | None:
    """The versions of ``dist`` the requirements allow (their specifiers joined; a marker of another
    platform or Python leaves its requirement out, an ``extra`` marker does not), None when none names it."""
    key = canonicalize_name(dist)
    spec, named = SpecifierSet(), False
    for r in reqs:
        if canonicalize_name(r.name) != key:
            continue
        if r.marker is not None:
            try:
                if not any(r.marker.evaluate({"extra": e}) for e in ("", *_extras(r))):
                    continue
            except Exception:  # an unknown marker variable: kept
                pass
        named = True
        spec &= r.specifier
    return spec if named else None


def _extras(r: Requirement) -> list[str]:
    """The extra names a requirement's marker compares with (``extra == 'full'``)."""
    text = str(r.marker)
    out = []
    for part in text.split("extra")[1:]:
        quoted = part.split("'")[1:2] or part.split('"')[1:2]
        out += quoted
    return out


def newest(releases: list[str], spec: SpecifierSet) -> str | None:
    """The newest of ``releases`` that ``spec`` allows, pre-releases left out (unless only those are)."""
    good = []
    for r in releases:
        try:
            v = Version(r)
        except InvalidVersion:
            continue
        if spec.contains(v, prereleases=True):
            good.append(v)
    final = [v for v in good if not v.is_prerelease] or good
    return str(max(final)) if final else None


def provides(root: Path, top: str) -> bool:
    """The tree at ``root`` holds the top-level module or package ``top``."""
    rel = top.replace(".", "/")
    for s in search_paths([root]):
        if (s / rel).is_dir() or (s / f"{rel}.py").is_file() or (s / f"{rel}.pyi").is_file():
            return True
    return False


# -- following a base ------------------------------------------------------------------------


class Follower:
    """How one side (the old or the new version) of one audited package reaches other
    distributions: ``model(top)`` gives the (followed) model of the distribution providing
    import name ``top`` at the version that side uses, or raises :class:`NotFollowed`.

    ``auditor`` provides ``distribution_model(dist, version, top)`` (the fetched source's model
    and tree), ``newest_release(dist, spec)``, ``cfg``, ``check``, ``cache_dir``, ``progress``
    and ``base_notes``; ``pin_of(dist)`` is the version the project pins; ``release`` is the
    tree whose requirements choose a version when nothing pins one; ``own`` the distribution
    this follows from (never followed into itself)."""

    def __init__(self, auditor, release: Path | None, pin_of, depth: int = 1, label: str = "", own: str | None = None) -> None:
        self.auditor = auditor
        self.own = own  # the distribution whose model this follows from (never followed into itself)
        self.release = release
        self.pin_of = pin_of  # distribution name -> the version the project pins (or None)
        self.depth = depth
        self.label = label
        self._reqs: list[Requirement] | None | bool = False
        self._models: dict[str, object] = {}
        self._why: dict[str, str] = {}

    def reqs(self) -> list[Requirement] | None:
        if self._reqs is False:
            self._reqs = requirements(self.release) if self.release is not None else None
        return self._reqs

    def import_root(self, path: str) -> str:
        """The import name a base's dotted ``path`` is found under: the longest import name of a
        checklist that it starts with (``megatron.bridge`` of a namespace shared by several
        distributions), else its top-level package."""
        best = path.split(".")[0]
        for cl in self.auditor.check.checklists:
            for n in self.auditor.check.import_names.get(cl.rel, []):
                if (path == n or path.startswith(n + ".")) and len(n) > len(best):
                    best = n
        return best

    def distribution(self, top: str) -> tuple[str, str]:
        """(distribution name, how it was chosen) for the import name ``top`` (a top-level package,
        or an import name :meth:`import_root` found)."""
        cfg = self.auditor.cfg
        mapped = getattr(cfg, "distributions", {}).get(top)
        if mapped:
            return mapped, "configuration"
        for cl in self.auditor.check.checklists:
            names = self.auditor.check.import_names.get(cl.rel, [])
            if top in names or ("." not in top and top in [n.split(".")[0] for n in names]):
                return cl.package, "checklist"
        key = canonicalize_name(top)
        if "." not in top and self.pin_of(top):  # the project pins a distribution of that name: no requirement to read
            return str(key), "import name, which the project pins"
        for r in self.reqs() or []:
            if canonicalize_name(r.name) == key:
                return r.name, "requirement"
        return top, "import name"

    def version(self, dist: str) -> tuple[str, str]:
        """(version, why that one) of ``dist``: the project's pin, else the newest its requirements allow."""
        pinned = self.pin_of(dist)
        if pinned:
            return pinned, "pinned by the project"
        reqs = self.reqs()
        spec = allowed(reqs, dist) if reqs else None
        if spec is None:
            spec = SpecifierSet()
        found = self.auditor.newest_release(dist, spec)
        said = f" `{spec}`" if str(spec) else ""
        if found is None:
            raise NotFollowed(f"no release of {dist}{said} found on the configured indexes")
        if reqs is None:
            return found, f"the newest release ({self.label or 'the release'} says nothing of its requirements)"
        return found, f"the newest release {self.label or 'the release'} allows{said}"

    def model(self, top: str):
        """The (followed) model of the distribution providing ``top``; NotFollowed says why not."""
        if top in self._models:
            return self._models[top]
        if top in self._why:
            raise NotFollowed(self._why[top])
        try:
            if top.split(".")[0] in getattr(sys, "stdlib_module_names", ()) or top in ("builtins", "__builtins__"):
                raise NotFollowed("the standard library, not followed")
            if self.depth > DEPTH:
                raise NotFollowed(f"more than {DEPTH} distributions deep, not followed")
            dist, how = self.distribution(top)
            if self.own is not None and canonicalize_name(dist) == canonicalize_name(self.own):
                raise NotFollowed(f"`{top}` is {dist}'s own, yet not in its source")
            version, chosen = self.version(dist)
            failed = Memo(self.auditor.cache_dir, "failed.json", FAILED_TTL)
            key = f"{canonicalize_name(dist)}=={version}"
            said = failed.get(key)
            if said is not None:
                raise NotFollowed(f"{said} (failed within the last hour: not tried again before then)")
            try:
                model, root = self.auditor.distribution_model(dist, version, top)
            except Exception as exc:  # FetchError, OSError: remembered, so that the next audits do not wait for it again
                failed.put(key, str(exc))
                raise
            if not provides(root, top):
                raise NotFollowed(f"{dist} {version} holds no module `{top}` (name its distribution under "
                                  f"[tool.upgrade-checklists] distributions)")
        except Exception as exc:  # a fetch that failed (FetchError), an index not reachable: said, never an error
            plain = isinstance(exc, NotFollowed) or type(exc).__name__ == "FetchError"
            self._why[top] = str(exc) if plain else f"{type(exc).__name__}: {exc}"
            self.auditor.base_notes.append(f"{self.label}: bases from `{top}` not followed: {self._why[top]}")
            raise NotFollowed(self._why[top]) from None
        inner = Follower(self.auditor, root, self.pin_of, self.depth + 1, f"{dist} {version}", own=dist)
        self._models[top] = wrapped = Followed(model, inner)
        self.auditor.progress(f"following bases into {dist} {version}")
        self.auditor.base_notes.append(f"{self.label}: bases from `{top}` followed into {dist} {version} "
                                       f"(the distribution by its {how}; {chosen})")
        return wrapped

    def why(self, top: str) -> str | None:
        return self._why.get(top)


class Followed:
    """A model whose classes have the members of their bases in other distributions (see the
    module doc); every other question goes to the model in front of which it stands."""

    def __init__(self, inner, follower: Follower) -> None:
        self._inner = inner
        self._follower = follower

    def __getattr__(self, name):
        return getattr(self._inner, name)

    @property
    def inner(self):
        return self._inner

    def _foreign(self, cls: Api) -> list[str]:
        try:
            return self._inner.foreign_bases(cls)
        except Unresolved:
            return []

    def _base(self, path: str):
        """(model, the base class there) of a foreign base ``path``; NotFollowed says why not."""
        if "." not in path:
            raise NotFollowed("a builtin, not followed")
        model = self._follower.model(self._follower.import_root(path))
        try:
            cls = model.lookup(path)
        except Unresolved as exc:
            raise NotFollowed(f"`{path}` cannot be resolved in {self._follower_label(path)}: {exc}") from None
        if cls is None or cls.kind != "class":
            raise NotFollowed(f"`{path}` is not a class in {self._follower_label(path)}")
        return model, cls

    def _follower_label(self, path: str) -> str:
        root = self._follower.import_root(path)
        model = self._follower._models.get(root)
        return model._follower.label if model is not None else root

    def _owner(self, path: str) -> Followed:
        """The model that holds ``path``: this one, or the model of another distribution followed
        already (a receiver typed ``httpx.Response`` is asked of httpx's model)."""
        tops = self.__dict__.get("_tops")
        if tops is None:
            tops = self.__dict__["_tops"] = frozenset(m.split(".")[0] for m in getattr(self._inner, "modules", None) or ())
        if not tops or path.split(".")[0] in tops:
            return self
        model = self._follower._models.get(self._follower.import_root(path))
        return model if isinstance(model, Followed) else self

    def member(self, cls: Api, name: str) -> Api | None:
        owner = self._owner(cls.path)
        if owner is not self:
            return owner.member(cls, name)
        try:
            found, error = self._inner.member(cls, name), None
        except Unresolved as exc:
            found, error = None, exc
        if found is not None:
            return found
        for path in self._foreign(cls):
            try:
                model, base = self._base(path)
            except NotFollowed:
                continue
            try:
                hit = model.member(base, name)
            except Unresolved:
                continue
            if hit is not None:
                return hit
        if error is not None and self.foreign_bases(cls):
            raise error
        return None

    def resolve_heading(self, heading: str, source: str | None, import_names: list[str]) -> Api:
        """The API a catalog heading names; ``Cls.method`` where ``method`` is inherited from a base in
        another distribution (``sphinx.parsers.Parser.get_transforms``, from docutils) is that base's."""
        try:
            return self._inner.resolve_heading(heading, source, import_names)
        except Unresolved:
            name = heading.strip().strip("`").removesuffix("()").strip()
            owner, _, last = name.rpartition(".")
            try:
                cls = self._inner.resolve_heading(owner, source, import_names) if owner else None
            except Unresolved:
                cls = None
            hit = self.member(cls, last) if cls is not None and cls.kind == "class" and self._foreign(cls) else None
            if hit is None:
                raise
            return hit

    def lookup(self, dotted: str) -> Api | None:
        """The API at ``dotted``; a class without an ``__init__`` of its own source (nor of a base
        there) that has a base in another distribution is constructed as that base's ``__init__`` says."""
        api = self._inner.lookup(dotted)
        if api is None or api.kind != "class" or api.signature is not None:
            return api
        try:
            if self._inner.member(api, "__init__") is not None or not self._foreign(api):
                return api
        except Unresolved:
            return api
        init = self.member(api, "__init__")
        if init is None or init.kind != "function" or init.signature is None:
            return api
        return replace(api, signature=Signature(list(init.signature.params), api.path))

    def defined_at(self, dotted: str) -> str | None:
        owner = self._owner(dotted)
        return owner.defined_at(dotted) if owner is not self else self._inner.defined_at(dotted)

    # -- receivers typed across distributions ---------------------------------------------------

    def receiver_class(self, start: str, steps: tuple[str, ...]) -> Api | None:
        """``api.receiver_class``, continued into another distribution where the steps leave this
        one's source (``receiver_foreign``): an annotation naming a class there (``-> httpx.Response``),
        or a member inherited from a base there. A distribution is entered only when a class on the
        way inherits from it (its bases are followed there anyway: a return annotated ``torch.Tensor``
        alone does not fetch torch)."""
        found = self._inner.receiver_class(start, steps)
        if found is not None:
            return found
        try:
            stop = self._inner.receiver_foreign(start, tuple(steps))
        except Unresolved:
            return None
        if not stop:
            return None
        rest = tuple(steps[stop["at"]:])
        for path in stop["paths"]:
            if self._follower.import_root(path).split(".")[0] not in stop["roots"]:
                continue  # no class on the way inherits from that distribution: not fetched for a receiver
            try:
                model, cls = self._base(path)
            except NotFollowed:
                continue
            if not rest:
                return cls
            try:
                found = model.receiver_class(cls.path, rest)
            except Unresolved:
                continue
            if found is not None:
                return found
        return None

    # -- keywords handed on to a method that warns about them -----------------------------------------

    def keyword_deprecations(self, api: Api) -> dict[str, str]:
        """``api.keyword_deprecations``, and the warnings of the methods ``api`` hands a keyword on to
        (``super().m(..., p=p)``, ``self.m(**kwargs)``: ``api.forwards``), in this source or in a
        base's distribution, :data:`~upgrade_checklists.audit.deprecation.FORWARD_DEPTH` methods deep;
        a warning given further down says where (``deprecation.split_where``)."""
        return self._warned(api, FORWARD_DEPTH)

    def _warned(self, api: Api, depth: int) -> dict[str, str]:
        owner = self._owner(api.path)
        if owner is not self:
            return owner._warned(api, depth)
        key = (api.path, api.kind, depth)
        memo = self.__dict__.setdefault("_warned_memo", {})
        if key in memo:
            return memo[key]
        memo[key] = {}  # a cycle of forwards gives nothing more
        out: dict[str, str] = {}
        if depth > 0 and api.kind == "function":  # first: a warning given further down names where
            try:
                forwards = self._inner.forwards(api)
            except Unresolved:
                forwards = []
            for fw in forwards:
                target, model = self._forward_target(fw)
                if target is None:
                    continue
                theirs = model._warned(target, depth - 1)
                positional = [p.name for p in target.signature.positional()] if target.signature is not None else []
                for param, text in theirs.items():
                    mine = fw["map"].get(param)
                    if mine is None and param in positional:
                        mine = fw["map"].get(f"@{positional.index(param)}")
                    if mine is None and fw["whole"] and param not in fw["own"]:
                        mine = param
                    if mine is None or mine in out:
                        continue
                    msg, where = split_where(text)
                    out[mine] = f"{msg}{WHERE}{where or target.path}"
        try:
            for kw, text in self._inner.keyword_deprecations(api).items():
                out.setdefault(kw, text)
        except Unresolved:
            pass
        memo[key] = out
        return out

    def _forward_target(self, fw: dict) -> tuple[Api | None, Followed | None]:
        """The method a forwarded call reaches, and the model holding it."""
        if fw["target"]:
            try:
                found = self.lookup(fw["target"])
            except Unresolved:
                return None, None
            return (found, self) if found is not None and found.kind == "function" else (None, None)
        for path in fw["foreign"]:
            try:
                model, base = self._base(path)
                hit = model.member(base, fw["member"])
            except (NotFollowed, Unresolved):
                continue
            if hit is not None and hit.kind == "function":
                return hit, model
        return None, None

    def foreign_bases(self, cls: Api) -> list[str]:
        """The bases of ``cls`` in other distributions that could not be followed."""
        owner = self._owner(cls.path)
        if owner is not self:
            return owner.foreign_bases(cls)
        out = []
        for path in self._foreign(cls):
            try:
                model, base = self._base(path)
            except NotFollowed:
                out.append(path)
                continue
            try:
                out += model.foreign_bases(base)
            except Unresolved:
                out.append(path)
        return list(dict.fromkeys(out))

    def ancestors(self, dotted: str) -> list[str]:
        """As the model's (``api.UpstreamModel.ancestors``), with a base in another distribution followed
        there; a class of a distribution followed already is asked of its model."""
        owner = self._owner(dotted)
        if owner is not self:
            return owner.ancestors(dotted)
        own = self._inner.ancestors(dotted)  # a class of a distribution not followed: none (an annotation fetches nothing)
        out: list[str] = []
        for path in own:
            if not path.startswith("?"):
                out.append(path)
                continue
            try:
                model, base = self._base(path[1:])
                more = model.ancestors(base.path)
            except (NotFollowed, Unresolved):
                more = []
            out += more or [path]
        return list(dict.fromkeys(out))

    def why_not_followed(self, path: str) -> str:
        """Why the base ``path`` (one :meth:`foreign_bases` gave) was not followed ("" when unknown)."""
        try:
            self._base(path)
        except NotFollowed as exc:
            return str(exc)
        for model in self._follower._models.values():
            why = model.why_not_followed(path) if isinstance(model, Followed) else ""
            if why:
                return why
        return ""


class Memo:
    """Answers kept a while in ``<cache_dir>/bases/<name>`` (plain JSON: ``{key: [answer, time]}``),
    so that a warm audit asks no index and does not try again, on every run, a fetch that just
    failed. A file that is not of that shape is ignored (and replaced); nothing in it is executed."""

    def __init__(self, cache_dir: Path | None, name: str, ttl: float) -> None:
        self.path = None if cache_dir is None else cache_dir / "bases" / name
        self.ttl = ttl

    def _read(self, now: float) -> dict:
        if self.path is None:
            return {}
        from upgrade_checklists.project.cache import open_cache_file

        f = open_cache_file(self.path)
        if f is None:
            return {}
        try:
            with f:
                data = json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, list) and len(v) == 2 and isinstance(v[0], str)
                and isinstance(v[1], (int, float)) and 0 <= now - v[1] < self.ttl}

    def get(self, key: str) -> str | None:
        hit = self._read(time.time()).get(key)
        return None if hit is None else hit[0]

    def put(self, key: str, answer: str) -> None:
        if self.path is None:
            return
        from upgrade_checklists.core.atomic import write_atomic_any

        now = time.time()
        known = self._read(now)
        known[key] = [answer, now]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic_any(self.path, json.dumps(known, sort_keys=True), durable=False)
        except OSError:  # a read-only cache: asked again next time
            pass


FAILED_TTL = 3600  # how long a base's fetch that failed is not tried again, in seconds


def newest_cached(cache_dir: Path | None, dist: str, spec: SpecifierSet, lookup) -> str | None:
    """``lookup()`` (the newest release of ``dist`` that ``spec`` allows), remembered a day in
    ``<cache_dir>/bases/newest.json`` (a warm audit asks no index); none found is remembered an hour."""
    key = f"{canonicalize_name(dist)} {spec}"
    memo, none = Memo(cache_dir, _NEWEST, NEWEST_TTL), Memo(cache_dir, "none.json", FAILED_TTL)
    hit = memo.get(key)
    if hit is not None:
        return hit
    if none.get(key) is not None:
        return None
    found = lookup()
    if found is not None:
        memo.put(key, found)
    else:
        none.put(key, "")
    return found
