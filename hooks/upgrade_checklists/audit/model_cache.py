"""The resolved API model kept on disk, so that a second audit of the same versions loads
nothing with griffe.

:class:`CachedModel` stands in front of an :class:`~upgrade_checklists.audit.api.UpstreamModel`
and answers the questions the audit's stages ask of a model (``lookup``, ``member``,
``resolve_heading``, ``by_name``, ``returned_class``, ...). Each answer is recorded as
plain data (an ``Api`` as its path, kind, signature and parameters; an ``Unresolved`` as its
message) together with what the question taught the model on the way (the names a module
serves through a compatibility alias, which ``via`` and ``deprecation`` read later). A
question asked before is answered from the record; griffe loads the source only for a
question the record does not hold, and that answer extends it.

The record is one JSON file per model, under ``<cache>/models/v<FORMAT>/``, named by a hash
of its key: the tool's build (its version and a hash of its own source), griffe's
version, the modules loaded, and per source tree its package, version and a hash of its
files' contents. A file whose key differs from ours, that is not JSON, or not of the
expected shape is ignored (and replaced on the next write); nothing in it is executed.
Answers of a model depend on the model of the other version (old annotations are compared
by their new paths), so they are kept per peer.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
from dataclasses import replace
from pathlib import Path

from upgrade_checklists.audit.aliases import Served
from upgrade_checklists.project.cache import open_cache_file, racy
from upgrade_checklists.audit.api import Api, ServedNames, Unresolved, UpstreamModel
from upgrade_checklists.audit.lazy_model import LazyModel, NeedFull
from upgrade_checklists.core.plain import PlainError, from_plain, to_plain

#: the layout of a cache file; another format's directory is never read
FORMAT = 2  # 2: the subclass index (``subclass_index``)
TREES = "trees"  # in the format's folder, beside the records: the source trees' hashes by their files' stats (JSON; tree_hash)
_MISSING = object()


def tree_hash(root: Path, memo: Path | None = None) -> str:
    """A hash of every Python file below ``root`` (what griffe reads): relative path and contents.

    With ``memo`` (a JSON file of hashes made before), a tree whose files all have the stat
    (size, modification and change times, inode) they had when it was hashed is not read
    again, as git trusts the stat its index recorded: a warm audit read both versions' every
    file to find the hash it had. A tree with a file changed in the last seconds is not
    remembered (a second change within the clock's step could leave the same stat)."""
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith((".py", ".pyi")):
                continue
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):  # neither a symlink nor anything but a file
                files.append((os.path.relpath(path, root).replace(os.sep, "/"), path, st))
    stats = hashlib.blake2b(digest_size=16)
    for rel, _, st in files:
        stats.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\0".encode("utf-8", "surrogateescape"))
    seen = stats.hexdigest()
    where = str(root.resolve())
    known = _read_memo(memo) if memo is not None else {}
    if known.get(where, [None])[0] == seen:
        return known[where][1]
    h = hashlib.blake2b(digest_size=16)
    for rel, path, _ in files:
        with open(path, "rb") as f:
            data = f.read()
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0" + data)
    out = h.hexdigest()
    if memo is not None and not any(racy(st) for _, _, st in files):
        known.pop(where, None)
        known[where] = [seen, out]
        _write_memo(memo, dict(list(known.items())[-_MEMO_TREES:]))
    return out


_MEMO_TREES = 256  # the trees a memo remembers, the latest


def _read_json(path: Path) -> object:
    """A cache file's JSON, None when it is absent, not a regular file (never a FIFO to
    wait on, nor a symlink) or not JSON."""
    f = open_cache_file(path)
    if f is None:
        return None
    try:
        with f:
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        return None


def _read_memo(path: Path) -> dict[str, list[str]]:
    data = _read_json(path)
    if type(data) is not dict or data.get("format") != FORMAT or type(data.get("trees")) is not dict:
        return {}
    return {k: v for k, v in data["trees"].items()
            if type(v) is list and len(v) == 2 and all(type(x) is str for x in v)}


def _write_memo(path: Path, trees: dict[str, list[str]]) -> None:
    from upgrade_checklists.core.atomic import write_atomic_any

    try:
        write_atomic_any(path, json.dumps({"format": FORMAT, "trees": trees}), durable=False)
    except OSError:  # a read-only cache: the hash is made again next time
        pass


def model_key(trees: list[tuple[str, str, Path]], modules: list[str], memo: Path | None = None) -> dict:
    """The key of a model: our build, griffe's version, the modules, and each (package, version, tree hash)."""
    from importlib.metadata import version

    from upgrade_checklists.project.cache import build_id

    return {"format": FORMAT, "build": build_id(), "griffe": version("griffe"), "modules": list(modules),
            "trees": [[package, ver, tree_hash(root, memo)] for package, ver, root in trees]}


def _digest(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]


# -- plain data <-> JSON (``plain.py`` checks every value's type on the way back) ----------------

def _api_out(api: Api | None):
    return None if api is None else to_plain(replace(api, obj=None))


def _api_in(data) -> Api | None:
    if data is None:
        return None
    if not isinstance(data, dict) or data.get("obj") is not None:
        raise PlainError("not an API")
    return from_plain(Api, data)


def _typed(tp: type):
    def check(v):
        if type(v) is not tp:
            raise PlainError(f"expected {tp.__name__}")
        return v
    return check


def _opt_str(v) -> str | None:
    return None if v is None else _typed(str)(v)


def _paths(v) -> list[str]:
    if type(v) is not list:
        raise PlainError("expected a list")
    return [_typed(str)(x) for x in v]


def _served_in(data) -> dict[str, Served]:
    if type(data) is not dict:
        raise PlainError("expected a dict")
    return {_typed(str)(k): from_plain(Served, v) for k, v in data.items()}


# How each question's answer is written and read: (to JSON, from JSON).
def _calls_out(v: list[dict]) -> list[dict]:
    return [dict(c) for c in v]


_CALL_FIELDS = {"file": str, "line": int, "caller": str, "positional": int, "keywords": list, "star_args": bool, "star_kwargs": bool,
                "unpacked": int, "through_class": bool}


def _records(v, fields: dict[str, type], what: str) -> list[dict]:
    """A list of records read back: each exactly ``fields``, each value of its type (else ``what`` is refused)."""
    if type(v) is not list:
        raise PlainError("expected a list")
    for c in v:
        if type(c) is not dict or set(c) != set(fields) or any(type(c[k]) is not t for k, t in fields.items()):
            raise PlainError(f"not {what}")
    return v


def _calls_in(v) -> list[dict]:
    """Upstream calls (``api.self_calls_in``) read back: exactly their fields, each of its type."""
    out = []
    for c in _records(v, _CALL_FIELDS, "an upstream call"):
        _paths(c["keywords"])
        out.append(dict(c))
    return out


_FORWARD_FIELDS = {"how": str, "member": str, "line": int, "map": dict, "whole": bool, "own": list, "target": str, "foreign": list}


def _forwards_in(v) -> list[dict]:
    """Methods' forwarded calls (``api.forwards``) read back: exactly their fields, each of its type."""
    out = []
    for c in _records(v, _FORWARD_FIELDS, "a forwarded call"):
        if not all(type(k) is str and type(x) is str for k, x in c["map"].items()):
            raise PlainError("not a forwarded call")
        out.append({**c, "map": dict(c["map"]), "own": _paths(c["own"]), "foreign": _paths(c["foreign"])})
    return out


def _stop_in(v) -> dict | None:
    """Where a receiver leaves the loaded source (``api.receiver_foreign``) read back: exactly its fields."""
    if v is None:
        return None
    if type(v) is not dict or set(v) != {"at", "paths", "roots"} or type(v["at"]) is not int:
        raise PlainError("not a receiver's stop")
    return {"at": v["at"], "paths": _paths(v["paths"]), "roots": _paths(v["roots"])}


def _body_returns_in(v) -> dict:
    """``api.body_returns`` read back."""
    if type(v) is not dict or set(v) != {"classes", "decorators"}:
        raise PlainError("not body returns")
    return {"classes": _paths(v["classes"]), "decorators": _paths(v["decorators"])}


def _init_facts_in(v) -> dict | None:
    """``api.init_facts`` read back: exactly its shape, each value of its type."""
    if v is None:
        return None
    if type(v) is not dict or set(v) != {"sets", "class_names", "getattr", "methods", "complete"}:
        raise PlainError("not init facts")
    if type(v["getattr"]) is not bool or type(v["complete"]) is not bool or type(v["methods"]) is not dict:
        raise PlainError("not init facts")
    _paths(v["class_names"])
    _rows(v["sets"], (str, str, str))
    for name, m in v["methods"].items():
        if (type(name) is not str or type(m) is not dict or set(m) != {"caller", "file", "line", "reads", "calls", "stores"}
                or type(m["caller"]) is not str or type(m["file"]) is not str or type(m["line"]) is not int):
            raise PlainError("not a method's reads")
        _rows(m["reads"], (str, int, bool))
        _rows(m["calls"], (str, int, bool))
        _paths(m["stores"])
    return v


_SUBS_FIELDS = {"classes", "parents", "sets", "dynamic", "table", "base_keys", "base_dynamic", "base_defs"}


def _subs_in(v) -> dict | None:
    """``api.subclass_index`` read back: exactly its shape, each value of its type, every index in range."""
    if v is None:
        return None
    if type(v) is not dict or set(v) != _SUBS_FIELDS or type(v["table"]) is not str or type(v["base_dynamic"]) is not str:
        raise PlainError("not a subclass index")
    n = len(_paths(v["classes"]))
    _paths(v["base_keys"])

    def indices(xs) -> list[int]:
        if type(xs) is not list or any(type(i) is not int or not 0 <= i < n for i in xs):
            raise PlainError("not a subclass index")
        return xs

    if type(v["parents"]) is not list or len(v["parents"]) != n or type(v["sets"]) is not dict or type(v["base_defs"]) is not dict:
        raise PlainError("not a subclass index")
    for p in v["parents"]:
        indices(p)
    indices(v["dynamic"])
    for k, xs in v["sets"].items():
        _typed(str)(k)
        indices(xs)
    if any(type(k) is not str or x not in ("property", "method") for k, x in v["base_defs"].items()):
        raise PlainError("not a subclass index")
    return v


def _rows(v, types: tuple) -> None:
    if type(v) is not list or any(type(r) is not list or len(r) != len(types) or any(type(x) is not t for x, t in zip(r, types))
                                  for r in v):
        raise PlainError("expected rows")


_CODECS = {
    "stop": (lambda v: None if v is None else dict(v), _stop_in),
    "forwards": (lambda v: [dict(c) for c in v], _forwards_in),
    "init": (lambda v: v, _init_facts_in),
    "returns": (lambda v: v, _body_returns_in),
    "subs": (lambda v: v, _subs_in),
    "calls": (_calls_out, _calls_in),
    "api": (_api_out, _api_in),
    "bool": (bool, _typed(bool)),
    "str?": (lambda v: v, _opt_str),
    "paths": (list, _paths),
    "texts": (dict, lambda v: {_typed(str)(k): _typed(str)(x) for k, x in (v.items() if type(v) is dict else _bad())}),
}


def _bad():
    raise PlainError("expected a dict")


class CachedModel(ServedNames):
    """The answers of the model of ``trees`` (its source roots) loading ``modules``, from the
    record under ``cache_dir`` where it has them, else from griffe (loaded on the first miss)."""

    def __init__(self, trees: list[tuple[str, str, Path]], modules: list[str], cache_dir: Path | None) -> None:
        self.roots = [root for _p, _v, root in trees]
        self.modules = list(modules)
        folder = None if cache_dir is None else cache_dir / "models" / f"v{FORMAT}"
        self.key = model_key(trees, modules, None if folder is None else folder / TREES)
        self.digest = _digest(self.key)
        self.file = None if folder is None else folder / f"{self.digest}.json"
        self._tables: dict[str, dict] = self._read()
        self._dirty = False
        self._peer: CachedModel | None = None
        self._answers = self._tables.setdefault("", {})
        self._real: UpstreamModel | None = None
        #: why the lazy model gave way to the whole package (None: it did not)
        self.gave_up: str | None = None
        #: dotted path -> how a module serves it (compatibility alias or __getattr__), as the questions so far found
        self.served: dict[str, Served] = {}
        #: id of a recorded answer -> (it, and what it decodes to): see _replay
        self._replayed: dict[int, tuple] = {}

    # -- the record on disk ---------------------------------------------------------------

    def _read(self) -> dict[str, dict]:
        if self.file is None:
            return {}
        data = _read_json(self.file)
        if not isinstance(data, dict) or data.get("key") != self.key or not isinstance(data.get("tables"), dict):
            return {}
        tables = data["tables"]
        if not all(isinstance(t, dict) for t in tables.values()):
            return {}
        return tables

    def save(self) -> None:
        """Write the record when a question added to it (atomically: a reader sees the old or the new whole)."""
        if self.file is None or not self._dirty:
            return
        from upgrade_checklists.core.atomic import write_atomic_any

        try:
            write_atomic_any(self.file, json.dumps({"key": self.key, "tables": self._tables}, sort_keys=True), durable=False)
        except OSError:  # a read-only cache: the answers are only not kept
            return
        self._dirty = False

    # -- the model of the other version ---------------------------------------------------------

    @property
    def peer(self) -> CachedModel | None:
        return self._peer

    @peer.setter
    def peer(self, other: CachedModel | None) -> None:
        self._peer = other
        self._answers = self._tables.setdefault("" if other is None else other.digest, {})
        if self._real is not None:
            self._real.peer = other

    def real(self) -> UpstreamModel:
        """The griffe model, loaded on first use: lazily (only the modules questions reach), or
        the whole package where the lazy model cannot be exact (``lazy_model.NeedFull``)."""
        if self._real is None:
            try:
                self._real = LazyModel(self.roots, self.modules)
            except NeedFull as why:
                self.gave_up = str(why)
                logging.getLogger(__name__).debug("%s: the whole package is loaded: %s", self.modules, why)
                self._real = UpstreamModel(self.roots, self.modules)
            self._real.peer = self._peer
        return self._real

    def _whole(self, why: NeedFull) -> UpstreamModel:
        """Give up the lazy model for the whole package (what it learnt of served names is kept)."""
        self.gave_up = str(why)
        logging.getLogger(__name__).debug("%s: the whole package is loaded: %s", self.modules, why)
        served = self._real.served if self._real is not None else {}
        self._real = UpstreamModel(self.roots, self.modules)
        self._real.served = dict(served)
        self._real.peer = self._peer
        return self._real

    @property
    def loaded(self) -> bool:
        return self._real is not None

    # -- answering --------------------------------------------------------------------------------

    def _ask(self, question: list, codec: str, compute):
        """The recorded answer to ``question``, else ``compute(real model)``'s, recorded."""
        to_json, from_json = _CODECS[codec]
        key = json.dumps(question)
        entry = self._answers.get(key, _MISSING)
        if entry is not _MISSING:
            try:
                return self._replay(entry, from_json)
            except (KeyError, TypeError, ValueError, AttributeError):  # a garbled entry (PlainError too): ask again
                pass
        real = self.real()
        served_before, real.served = real.served, {}
        peer_before = dict(self._peer.served) if self._peer is not None else {}
        try:
            try:
                value = compute(real)
            except NeedFull as why:  # the lazy model cannot tell exactly: ask the whole package
                real.served = served_before
                real = self._whole(why)
                served_before, real.served = real.served, {}
                value = compute(real)
            entry = {"ok": to_json(value)}
        except Unresolved as exc:
            value, entry = exc, {"raise": str(exc)}
        learnt, real.served = real.served, {**served_before, **real.served}
        self.served.update(learnt)
        entry["served"] = to_plain(learnt)
        if self._peer is not None:
            entry["peer_served"] = to_plain({k: v for k, v in self._peer.served.items() if peer_before.get(k) != v})
        self._answers[key] = entry
        self._dirty = True
        if isinstance(value, Unresolved):
            raise value
        return value

    def _replay(self, entry, from_json):
        """A recorded answer, decoded once (an audit asks the same question again and again:
        megatron-core's, 1,388 questions, 391 of them different)."""
        done = self._replayed.get(id(entry))
        if done is None or done[0] is not entry:
            if not isinstance(entry, dict):
                raise ValueError(entry)
            served = _served_in(entry["served"])
            peer_served = _served_in(entry.get("peer_served", {}))
            if "raise" in entry:
                message = _typed(str)(entry["raise"])
                value = None
            else:
                value = from_json(entry["ok"])
                message = None
            done = self._replayed[id(entry)] = (entry, served, peer_served, value, message)
        _entry, served, peer_served, value, message = done
        self.served.update(served)
        if self._peer is not None:
            self._peer.served.update(peer_served)
        if message is not None:
            raise Unresolved(message)
        return value

    # -- the questions the audit asks ---------------------------------------------------------------

    def lookup(self, dotted: str) -> Api | None:
        return self._ask(["lookup", dotted], "api", lambda m: m.lookup(dotted))

    def exists(self, dotted: str) -> bool:
        return self._ask(["exists", dotted], "bool", lambda m: m.exists(dotted))

    def resolves(self, dotted: str) -> bool:
        return self._ask(["resolves", dotted], "bool", lambda m: m.resolves(dotted))

    def status(self, dotted: str) -> str:
        return self._ask(["status", dotted], "str?", lambda m: m.status(dotted))

    def canonical(self, path: str) -> str | None:
        return self._ask(["canonical", path], "str?", lambda m: m.canonical(path))

    def file_of(self, dotted: str) -> str | None:
        return self._ask(["file_of", dotted], "str?", lambda m: m.file_of(dotted))

    def by_name(self, name: str, kinds: tuple[str, ...] = ("class", "function")) -> list[str]:
        return self._ask(["by_name", name, list(kinds)], "paths", lambda m: m.by_name(name, kinds))

    def resolve_heading(self, heading: str, source: str | None, import_names: list[str]) -> Api:
        return self._ask(["resolve_heading", heading, source, list(import_names)], "api",
                         lambda m: m.resolve_heading(heading, source, import_names))

    def member(self, cls: Api, name: str) -> Api | None:
        return self._ask(["member", cls.path, cls.kind, name], "api", lambda m: m.member(cls, name))

    def foreign_bases(self, cls: Api) -> list[str]:
        return self._ask(["foreign_bases", cls.path, cls.kind], "paths", lambda m: m.foreign_bases(cls))

    def named_calls(self, cls: Api, name: str) -> list[dict]:
        return self._ask(["named_calls", cls.path, cls.kind, name], "calls", lambda m: m.named_calls(cls, name))

    def body_returns(self, api: Api) -> dict:
        return self._ask(["body_returns", api.path, api.kind], "returns", lambda m: m.body_returns(api))

    def ancestors(self, dotted: str) -> list[str]:
        return self._ask(["ancestors", dotted], "paths", lambda m: m.ancestors(dotted))

    def returned_class(self, api: Api) -> Api | None:
        return self._ask(["returned_class", api.path, api.kind], "api", lambda m: m.returned_class(api))

    def keyword_deprecations(self, api: Api) -> dict[str, str]:
        return self._ask(["keyword_deprecations", api.path, api.kind], "texts", lambda m: m.keyword_deprecations(api))

    def declared_deprecation(self, api: Api) -> str | None:
        return self._ask(["declared_deprecation", api.path, api.kind], "str?", lambda m: m.declared_deprecation(api))

    def self_calls(self, cls: Api, name: str) -> list[dict]:
        return self._ask(["self_calls", cls.path, cls.kind, name], "calls", lambda m: m.self_calls(cls, name))

    def module_calls(self, module: Api, name: str) -> list[dict]:
        return self._ask(["module_calls", module.path, module.kind, name], "calls", lambda m: m.module_calls(module, name))

    def receiver_class(self, start: str, steps: tuple[str, ...]) -> Api | None:
        return self._ask(["receiver_class", start, *steps], "api", lambda m: m.receiver_class(start, tuple(steps)))

    def hook_specs(self) -> dict[str, str]:
        """One answer for every hook spec (a project asks about each of its functions' names: one
        question each would fill the record with "no")."""
        return self._ask(["hook_specs"], "texts", lambda m: m.hook_specs())

    def hook_spec(self, name: str) -> str | None:
        return self.hook_specs().get(name) or None

    def receiver_foreign(self, start: str, steps: tuple[str, ...]) -> dict | None:
        return self._ask(["receiver_foreign", start, *steps], "stop", lambda m: m.receiver_foreign(start, tuple(steps)))

    def forwards(self, api: Api) -> list[dict]:
        return self._ask(["forwards", api.path, api.kind], "forwards", lambda m: m.forwards(api))

    def defined_at(self, dotted: str) -> str | None:
        return self._ask(["defined_at", dotted], "str?", lambda m: m.defined_at(dotted))

    def attribute_class(self, cls: Api, name: str) -> Api | None:
        return self._ask(["attribute_class", cls.path, cls.kind, name], "api", lambda m: m.attribute_class(cls, name))

    def init_facts(self, cls: Api) -> dict | None:
        return self._ask(["init_facts", cls.path, cls.kind], "init", lambda m: m.init_facts(cls))

    def subclass_index(self, cls: Api) -> dict | None:
        return self._ask(["subclass_index", cls.path, cls.kind], "subs", lambda m: m.subclass_index(cls))
