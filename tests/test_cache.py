"""The scan cache: warm runs stat instead of parse, and never serve stale facts."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import time
from pathlib import Path

from conftest import Repo, git, settle


def age(repo: Repo, seconds: int = 3600) -> None:
    old = time.time() - seconds
    for p in repo.path.rglob("*"):
        if ".git" not in p.parts:
            os.utime(p, (old, old))
    settle()


def without_run_record(repo: Repo) -> None:
    """Drop the last run's outcome (runcache.py, cutoff.py), so that the next run shows the scan cache at work."""
    for name in ("run.json", "cutoff.json"):
        (repo.path / ".upgrade-checklists-cache/v3" / name).unlink(missing_ok=True)


def test_warm_run_uses_cache_and_sees_edits(repo: Repo) -> None:
    age(repo)
    first = repo.run("check", "-v")
    assert first.code == 0 and "; 0 from the cache" in first.err
    without_run_record(repo)
    second = repo.run("check", "-v")
    # 8 sources + 1 checklist + the snippet answers for app/engine/core.py, all unchanged
    assert second.code == 0 and "; 10 from the cache" in second.err
    # same size, new content: mtime differs, so the file is read again
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=4")
    assert repo.run("check").codes == ["SNIPPET"]


def test_racy_files_are_not_cached(repo: Repo) -> None:
    # files written just now may change again within the timestamp granularity
    repo.run("check")
    r = repo.run("check", "-v")
    assert "; 0 from the cache" in r.err


def test_no_cache_writes_nothing(repo: Repo) -> None:
    age(repo)
    assert repo.run("check", "--no-cache").code == 0
    assert not (repo.path / ".upgrade-checklists-cache").exists()


def test_corrupt_cache_is_ignored(repo: Repo) -> None:
    age(repo)
    repo.run("check")
    cache = repo.path / ".upgrade-checklists-cache"
    assert (cache / ".gitignore").read_text().endswith("*\n")
    (cache / "v3/check.json").write_bytes(b"not json")
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    assert repo.run("check").codes == ["MISSING"]


def test_cache_dir_is_configurable(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\ncache_dir = "build/uc-cache"')
    age(repo)
    repo.run("check")
    assert (repo.path / "build/uc-cache/v3/check.json").is_file()


class _Pwn:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _clone(repo: Repo, dest: Path) -> Repo:
    git(repo.path.parent, "clone", "-q", str(repo.path), str(dest))
    return Repo(dest, repo._capsys)


def test_committed_pickle_cache_runs_nothing(repo: Repo, tmp_path: Path) -> None:
    # the reproducer of the old format: a crafted pickle where the cache used to be
    marker = tmp_path / "PWNED"
    cache = repo.path / ".upgrade-checklists-cache"
    cache.mkdir()
    (cache / "scan-v1.pickle").write_bytes(pickle.dumps(_Pwn(marker)))
    (cache / "v3").mkdir()
    (cache / "v3/check.json").write_bytes(pickle.dumps(_Pwn(marker)))
    git(repo.path, "add", "-f", ".upgrade-checklists-cache")
    repo.commit("a poisoned cache")
    clone = _clone(repo, tmp_path / "clone")
    age(clone)
    assert clone.run("check").code == 0
    assert not marker.exists()
    assert clone.run("check").code == 0 and not marker.exists()


def test_committed_json_cache_never_matches_a_checkout(repo: Repo, tmp_path: Path) -> None:
    # a cache written for these very files, then edited to say a file imports nothing,
    # and committed: a fresh checkout has other inodes and ctimes, so no entry is used
    repo.write("app/engine/new.py", "import fakepkg.core\n")
    repo.edit("checklists/fakepkg-core.md", "| `app/engine/core.py` |", "| `app/engine/new.py` | `fakepkg.core` |\n| `app/engine/core.py` |")
    age(repo)
    first = repo.run("check", "-v")
    assert "; 0 from the cache" in first.err
    store = repo.path / ".upgrade-checklists-cache/v3/check.json"
    header, entries = store.read_text().split("\n", 1)
    entries = json.loads(entries)
    assert entries["app/engine/new.py"][4]["facts"]["imports"]  # what is about to be forged
    entries["app/engine/new.py"][4] = {"facts": {"path": "app/engine/new.py", "imports": [], "full": True}}
    store.write_text(header + "\n" + json.dumps(entries))
    mtimes = {p.relative_to(repo.path): p.stat().st_mtime_ns for p in repo.path.rglob("*") if ".git" not in p.parts}
    git(repo.path, "add", "-f", ".upgrade-checklists-cache")
    repo.commit("a forged cache")
    clone = _clone(repo, tmp_path / "clone")
    for rel, ns in mtimes.items():  # same sizes and mtimes as where the cache was written
        if (clone.path / rel).exists():
            os.utime(clone.path / rel, ns=(ns, ns))
    r = clone.run("check", "-v")
    assert "; 0 from the cache" in r.err
    assert clone.run("check").code == 0  # the row is not STALE: the file's imports were read


def test_cache_of_another_format_or_build_is_ignored(repo: Repo) -> None:
    age(repo)
    repo.run("check")
    store = repo.path / ".upgrade-checklists-cache/v3/check.json"
    header, entries = store.read_text().split("\n", 1)
    fields = json.loads(header)
    assert set(fields) == {"format", "build", "machine", "key"}
    for key, value in (("format", 1), ("build", "0.0.0+other"), ("machine", "elsewhere"), ("key", "/elsewhere")):
        store.write_text(json.dumps({**fields, key: value}) + "\n" + entries)
        without_run_record(repo)
        r = repo.run("check", "-v")
        assert r.code == 0 and "; 0 from the cache" in r.err, key
    store.write_text(header + "\n" + entries)
    without_run_record(repo)
    assert "; 10 from the cache" in repo.run("check", "-v").err


def test_malformed_entries_are_misses(repo: Repo) -> None:
    age(repo)
    repo.run("check")
    store = repo.path / ".upgrade-checklists-cache/v3/check.json"
    header, entries = store.read_text().split("\n", 1)
    entries = json.loads(entries)
    bad = [None, 3, "x", [], {"facts": {"path": 1}}, {"facts": {"path": "p", "imports": [["a"]]}},
           {"finding": {"code": "PARSE"}}, {"skip": 7}, {"facts": {}, "skip": "x"}]
    for i, (key, entry) in enumerate(sorted(entries.items())):
        entry[4] = bad[i % len(bad)]
    store.write_text(header + "\n" + json.dumps(entries))
    r = repo.run("check", "-v")
    assert (r.code, r.out) == (0, "All checks passed (1 checklist, 8 files scanned).\n")
    # a cache directory that is a symlink, or a FIFO where the file was, is not followed or opened
    shutil.rmtree(repo.path / ".upgrade-checklists-cache/v3")
    (repo.path / ".upgrade-checklists-cache/v3").mkdir()
    os.mkfifo(store)
    assert repo.run("check").code == 0


def test_facts_go_to_plain_data_and_back() -> None:
    """A file's facts as the cache keeps them and the second core sends them (written out
    by hand): an import is a list [qualname, bound, original, line, target], ``bound``
    empty when it is the original name, ``target`` empty when it is the qualname, ``true``
    appended for a dynamic import. Read back, every value's type is checked."""
    from upgrade_checklists.core.plain import PlainError
    from upgrade_checklists.project.scan import Facts, Import, facts_from_plain, facts_to_plain

    facts = Facts("app/a.py", [Import("pkg.x", "x", "x", 1, "pkg.x"), Import("pkg.y", "z", "y", 2, "pkg.y"),
                               Import("a.b", "a", "a.b", 3, "a"), Import("pkg", "pkg", "pkg", 4, "pkg", True)],
                  {"b", "a"}, {"pkg.x": 3}, {"s"}, True)
    plain = {"path": "app/a.py", "imports": [["pkg.x", "", "x", 1, ""], ["pkg.y", "z", "y", 2, ""], ["a.b", "a", "a.b", 3, "a"],
                                             ["pkg", "", "pkg", 4, "", True]],
             "names": ["a", "b"], "attributes": {"pkg.x": 3}, "strings": ["s"], "full": True}
    assert facts_to_plain(facts) == plain
    assert facts_from_plain(json.loads(json.dumps(plain))) == facts
    assert facts_from_plain({"path": "p"}) == Facts("p")
    imp = ["pkg.x", "", "x", 1, ""]
    bad = [None, [], {}, {"path": 1}, {"path": "p", "imports": 3}, {"path": "p", "imports": [["a"]]},
           {"path": "p", "imports": [imp[:4]]}, {"path": "p", "imports": [[*imp[:3], "1", ""]]},
           {"path": "p", "imports": [[*imp, 1]]}, {"path": "p", "imports": [[*imp, True, True]]},
           {"path": "p", "imports": [[None, *imp[1:]]]}, {"path": "p", "imports": [["pkg.x", 1, "x", 1, ""]]},
           {"path": "p", "imports": [{"qualname": "pkg.x", "bound": "x", "original": "x", "line": 1, "target": "pkg.x"}]},
           {"path": "p", "names": "ab"}, {"path": "p", "names": [1]}, {"path": "p", "strings": {}},
           {"path": "p", "attributes": {"x": "1"}}, {"path": "p", "full": 1}]
    for data in bad:
        try:
            facts_from_plain(data)
        except PlainError:
            continue
        raise AssertionError(f"accepted {data!r}")


def test_an_unchanged_entry_is_written_back_as_it_was_read(repo: Repo, monkeypatch) -> None:
    """A run that reads one file again encodes that file's entry only; every other entry
    goes back to the cache file as the line it was read from."""
    from upgrade_checklists.project import cache as cache_module

    age(repo)
    assert repo.run("check").code == 0
    path = repo.path / ".upgrade-checklists-cache/v3/check.json"
    before = path.read_text().split("\n")
    assert before[1] == "{" and before[-1] == "}" and all(l.startswith(',"') for l in before[3:-1])  # an entry a line
    repo.edit("app/utils/other.py", "import os\n", "import os  # the standard library\n")
    old = time.time() - 3600  # not racily clean; every other file keeps its stat
    os.utime(repo.path / "app/utils/other.py", (old, old))
    settle()
    without_run_record(repo)
    encoded: list[object] = []
    real = cache_module.json.dumps

    def dumps(obj, **kwargs):
        encoded.append(obj)
        return real(obj, **kwargs)

    monkeypatch.setattr(cache_module.json, "dumps", dumps)
    assert repo.run("check").code == 0
    after = path.read_text().split("\n")
    changed = [l for l in after if l not in before]
    assert len(after) == len(before) and len(changed) == 1 and changed[0].startswith(',"app/utils/other.py":[')
    entries = [e for e in encoded if type(e) is list and len(e) == 5]  # [size, mtime, ctime, inode, value]
    assert len(entries) == 1 and entries[0][0] == (repo.path / "app/utils/other.py").stat().st_size


def test_a_cache_body_not_laid_out_an_entry_a_line_is_read_whole() -> None:
    from upgrade_checklists.project.cache import _entries_by_line

    body = '{\n"a":[1,2]\n,"b":{"x":"y\\\\n"}\n}'
    entries, spans = _entries_by_line(body)
    assert entries == {"a": [1, 2], "b": {"x": "y\\n"}}
    assert {k: body[i:j] for k, (i, j) in spans.items()} == {"a": "[1,2]", "b": '{"x":"y\\\\n"}'}
    assert _entries_by_line("{\n}") == ({}, {})
    assert _entries_by_line('{"a":[1,2],"b":3}') is None  # one line (how 0.x wrote it): json.loads reads it
    assert _entries_by_line('{\n"a":[1,2],"b":3\n}') is None  # two entries on a line
    assert _entries_by_line('{\n"a":[1,2] \n}') is None  # anything after the value
    assert _entries_by_line('{\n"a":[1,2\n}') is None  # not JSON
    assert _entries_by_line('{\n"a":1\n"b":2\n}') is None  # no comma
    assert _entries_by_line('{\n"a":1\n,"b":2,\n}') is None  # a comma after the last
    assert _entries_by_line('{\n"a":1\n,') is None  # cut short


def test_peek_reads_the_entries_asked_for_as_a_full_load_does(repo: Repo) -> None:
    from upgrade_checklists.project.cache import ScanCache, peek

    age(repo)
    assert repo.run("check").code == 0
    root = repo.path / ".upgrade-checklists-cache"
    key = str(repo.path.resolve())
    whole = ScanCache(root, key).entries
    names = list(whole)
    assert len(names) > 3
    asked = [names[0], names[len(names) // 2], names[-1], "snippets:app/engine/core.py", "no/such/file.py"]
    got = peek(root, key, asked)
    assert got == {n: whole[n] for n in asked if n in whole}
    assert "snippets:app/engine/core.py" in got and names[0] in got
    assert peek(root, "/another/root", asked) == {}  # not this repository's cache
    path = root / "v3" / "check.json"
    head, body = path.read_text().split("\n", 1)
    path.write_text(head + "\n" + body.replace("\n,", ","))  # one JSON value, not an entry a line
    assert peek(root, key, asked) == {}


def test_peek_finds_keys_with_quotes_colons_and_backslashes(tmp_path) -> None:
    from upgrade_checklists.project.cache import ScanCache, peek

    odd = ['x":y.py', 'back\\slash.py', 'naïve "quoted".py', 'tail\\', 'a.py', '":']
    c = ScanCache(tmp_path, "/the/root")
    for i, key in enumerate(odd):
        c.put_stamped(key, "s", [i, key])
    c.save()
    assert peek(tmp_path, "/the/root", [*odd, "a", "x"]) == {k: ["stamped", "s", [i, k]] for i, k in enumerate(odd)}
    assert peek(tmp_path, "/the/root", ['x"']) == {}  # a key's start is not the key


def test_a_released_cache_forgets_and_writes_nothing(repo: Repo) -> None:
    from upgrade_checklists.project.cache import ScanCache

    age(repo)
    assert repo.run("check").code == 0
    root = repo.path / ".upgrade-checklists-cache"
    path = root / "v3" / "check.json"
    before = path.read_bytes()
    cache = ScanCache(root, str(repo.path.resolve()))
    st = (repo.path / "app/engine/core.py").stat()
    assert cache.get("app/engine/core.py", st)[0]
    cache.release()
    assert cache.get("app/engine/core.py", st) == (False, None)
    cache.put("app/engine/core.py", st, {"skip": "x"})
    cache.save()
    assert path.read_bytes() == before


def test_the_build_id_changes_with_any_source_file_of_the_package(tmp_path, monkeypatch) -> None:
    """A cache written by another build is never read: an edit to any module (not only the
    scan cache's own folder) makes another build id; a file's stat is enough to tell."""
    import os

    from upgrade_checklists.project import cache

    pkg = tmp_path / "pkg"
    for rel in ("project/cache.py", "audit/api.py", "core/x.py"):
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text("X = 1\n")
    (pkg / "audit/__pycache__").mkdir()
    monkeypatch.setattr(cache, "__file__", str(pkg / "project/cache.py"))

    def build() -> str:
        monkeypatch.setattr(cache, "_build_id", None)
        return cache.build_id()

    first = build()
    assert build() == first
    (pkg / "audit/__pycache__/api.cpython-311.pyc").write_bytes(b"compiled")  # not a source
    assert build() == first
    api = pkg / "audit/api.py"
    api.write_text("X = 2\n")  # same size
    os.utime(api, ns=(api.stat().st_atime_ns, api.stat().st_mtime_ns + 1_000_000_000))
    second = build()
    assert second != first
    (pkg / "audit/new.py").write_text("")
    assert build() not in (first, second)
