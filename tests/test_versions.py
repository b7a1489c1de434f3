"""Which versions the pins and lock files fix, now and at a git ref."""

from __future__ import annotations

import json
import os

import pytest

from conftest import Repo
from upgrade_checklists.project import versions
from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.project.versions import Pin, Reader, VersionError, check_version, resolved_versions


def test_pins_from_every_source(repo: Repo) -> None:
    repo.write("pyproject.toml", '''
[project]
name = "x"
dependencies = ["alpha==1.0", "beta>=2", "gamma[extra]==3.1 ; python_version >= '3.10'"]
[project.optional-dependencies]
gpu = ["delta==4.0"]
[tool.uv]
override-dependencies = ["epsilon==5.0"]
[dependency-groups]
dev = ["zeta==6.0", {include-group = "other"}]
''')
    repo.write("requirements-extra.txt", "# comment\n-r base.txt\neta==7.0 \\\n    --hash=sha256:abc\ntheta==8.0  # pinned\n")
    repo.write("uv.lock", '[[package]]\nname = "Alpha"\nversion = "1.0.post1"\n[[package]]\nname = "iota"\nversion = "9"\n')
    got = resolved_versions(Reader(repo.path), ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"])
    assert got == {
        "alpha": Pin("1.0.post1", "uv.lock"),  # the lock wins over the pin
        "gamma": Pin("3.1", "pyproject.toml"),
        "delta": Pin("4.0", "pyproject.toml"),
        "epsilon": Pin("5.0", "pyproject.toml"),
        "zeta": Pin("6.0", "pyproject.toml"),
        "eta": Pin("7.0", "requirements-extra.txt"),
        "theta": Pin("8.0", "requirements-extra.txt"),
        "iota": Pin("9", "uv.lock"),  # a transitive dependency, known from the lock only
    }


def test_pins_at_a_git_ref(repo: Repo) -> None:
    repo.write("requirements.txt", "alpha==1.0\n")
    repo.commit("pin")
    repo.write("requirements.txt", "alpha==2.0\n")
    assert resolved_versions(Reader(repo.path, "HEAD"), ["alpha"]) == {"alpha": Pin("1.0", "requirements.txt")}
    assert resolved_versions(Reader(repo.path), ["alpha"]) == {"alpha": Pin("2.0", "requirements.txt")}


def test_broken_pin_files_pin_nothing(repo: Repo) -> None:
    repo.write("pyproject.toml", "[project\n")
    repo.write("uv.lock", "not toml = = \n")
    assert resolved_versions(Reader(repo.path), ["alpha"]) == {}


@pytest.mark.parametrize("bad", ["", "-1.0", "1.0;ls", "1.0 2", "../1", "1\n0", "$(x)", "v1..2"])
def test_check_version_refuses(bad: str) -> None:
    with pytest.raises(VersionError):
        check_version(bad)


@pytest.mark.parametrize("good", ["1.0", "0.17.0rc1", "core_r0.16.0", "release/2.0", "v1.2.3-beta_4"])
def test_check_version_accepts(good: str) -> None:
    assert check_version(good) == good


# --- variants: manifests and locks paired by name ----------------------------------------

from upgrade_checklists.project.versions import Variant, git_pin, resolve, variants  # noqa: E402


def test_variants_pair_each_lock_with_its_manifest() -> None:
    got = variants(["pyproject.toml", "pyproject.vllm.toml", "requirements-dev.txt", "requirements.vllm.txt",
                    "uv.lock", "uv.vllm.lock", "uv.orphan.lock"])
    assert got == [
        Variant("default", ("pyproject.toml", "requirements-dev.txt"), "uv.lock"),
        Variant("orphan", (), "uv.orphan.lock"),
        Variant("vllm", ("pyproject.vllm.toml", "requirements.vllm.txt"), "uv.vllm.lock"),
    ]
    assert variants(["sub/pyproject.toml", "sub/uv.lock"]) == [Variant("sub/default", ("sub/pyproject.toml",), "sub/uv.lock")]
    assert variants([]) == []


@pytest.mark.parametrize(("url", "want"), [
    ("git+https://github.com/org/repo.git@310e8fb", ("https://github.com/org/repo.git", "310e8fb")),
    ("git+https://github.com/org/repo.git@v1.2#egg=repo", ("https://github.com/org/repo.git", "v1.2")),
    ("git+ssh://git@github.com/org/repo.git@abc1234", ("ssh://git@github.com/org/repo.git", "abc1234")),
    ("git+https://github.com/org/repo.git", None),  # no ref: not a version
    ("https://example.com/pkg-1.0.tar.gz", None),  # a plain URL: not a git pin
])
def test_git_pins(url: str, want) -> None:
    assert git_pin(url) == want


LOCK = '[[package]]\nname = "{}"\nversion = "{}"\nsource = {{ registry = "https://pypi.org/simple" }}\n'


def test_two_variants_resolve_separately(repo: Repo) -> None:
    repo.write("pyproject.toml", '[project]\nname = "x"\ndependencies = ["shared==1.0", "torchao==0.15.0"]\n'
               '[project.optional-dependencies]\nmeg = ["gitpkg @ git+https://github.com/org/gitpkg.git@310e8fb ; sys_platform == \'linux\'"]\n')
    repo.write("pyproject.vllm.toml", '[project]\nname = "x"\ndependencies = ["shared==1.0", "torchao==0.16.0", "only-vllm==3.0"]\n')
    repo.write("uv.lock", LOCK.format("shared", "1.0") + LOCK.format("torchao", "0.15.0")
               + '[[package]]\nname = "gitpkg"\nversion = "0.15.1"\nsource = { git = "https://github.com/org/gitpkg.git?rev=310e8fb#310e8fb35ccf4fcd4419d32973e563a6d43ee5fb" }\n')
    # one package resolved differently per platform in the lock: the declared pin's entry
    repo.write("uv.vllm.lock", LOCK.format("shared", "1.0") + LOCK.format("torchao", "0.16.0")
               + LOCK.format("only-vllm", "3.0") + LOCK.format("torchao", "0.9.0"))
    got = resolve(Reader(repo.path), ["shared", "torchao", "only-vllm", "gitpkg", "absent"])
    assert list(got) == ["default", "vllm"]
    assert got["default"].resolved == {
        "shared": Pin("1.0", "uv.lock"),
        "torchao": Pin("0.15.0", "uv.lock"),
        "gitpkg": Pin("310e8fb35ccf4fcd4419d32973e563a6d43ee5fb", "uv.lock", "https://github.com/org/gitpkg.git"),
    }
    assert got["default"].declared["gitpkg"] == Pin("310e8fb", "pyproject.toml", "https://github.com/org/gitpkg.git")
    assert got["default"].declared["gitpkg"].same(got["default"].resolved["gitpkg"])  # the abbreviated commit
    assert got["vllm"].resolved == {
        "shared": Pin("1.0", "uv.vllm.lock"),
        "torchao": Pin("0.16.0", "uv.vllm.lock"),
        "only-vllm": Pin("3.0", "uv.vllm.lock"),
    }
    # the manifests key narrows what is read
    only = resolve(Reader(repo.path), ["torchao"], ["pyproject.vllm.toml"])
    assert {v: p.resolved for v, p in only.items()} == {"vllm": {"torchao": Pin("0.16.0", "pyproject.vllm.toml")}}


def test_variants_at_a_git_ref(repo: Repo) -> None:
    repo.write("pyproject.vllm.toml", '[project]\nname = "x"\ndependencies = ["vllm==0.17.0"]\n')
    repo.commit("vllm")
    repo.write("pyproject.vllm.toml", '[project]\nname = "x"\ndependencies = ["vllm==0.18.0"]\n')
    repo.write("pyproject.new.toml", '[project]\nname = "x"\ndependencies = ["vllm==1.0"]\n')
    before = resolve(Reader(repo.path, "HEAD"), ["vllm"])
    # (the fixture's pyproject.toml pins nothing: the default variant is empty)
    assert {v: p.resolved for v, p in before.items()} == {"default": {}, "vllm": {"vllm": Pin("0.17.0", "pyproject.vllm.toml")}}
    now = resolve(Reader(repo.path), ["vllm"])
    assert {v: p.resolved.get("vllm") for v, p in now.items()} == {
        "default": None, "new": Pin("1.0", "pyproject.new.toml"), "vllm": Pin("0.18.0", "pyproject.vllm.toml")}


def test_pin_sameness() -> None:
    url = "https://github.com/org/r.git"
    assert Pin("abc1234", "a", url).same(Pin("abc1234def", "b", "https://github.com/org/r"))
    assert not Pin("abc12", "a", url).same(Pin("abc12ff", "b", url))  # too short to be an abbreviation
    assert not Pin("abc1234", "a", url).same(Pin("abc1234", "b", "https://github.com/other/r.git"))
    assert not Pin("1.0", "a").same(Pin("1.0", "b", url))
    assert Pin("1.0", "a").same(Pin("1.0", "b")) and not Pin("1.0", "a").same(None)


@pytest.mark.parametrize("bad", ["ext::sh -c touch% /tmp/x", "-uhttps://x/y", "https://x/a b", "ftp://x/y.git", "https:///nohost", "https://x/../y"])
def test_check_git_url_refuses(bad: str) -> None:
    from upgrade_checklists.project.versions import check_git_url

    with pytest.raises(VersionError):
        check_git_url(bad)


# -- what a file pins, kept by its stat ------------------------------------------------------

_LOCK = '[[package]]\nname = "Alpha"\nversion = "1.0.post1"\n[[package]]\nname = "beta"\nversion = "2.0"\nsource = { git = "https://h/o/beta.git?rev=x#abc1234" }\n'


def _age(repo: Repo, *rels: str) -> None:
    """Written an hour ago: older than the racy window, so a cache keeps it."""
    for rel in rels:
        st = os.stat(repo.path / rel)
        os.utime(repo.path / rel, ns=(st.st_atime_ns, st.st_mtime_ns - 3600 * 10**9))


def _cache(repo: Repo) -> ScanCache:
    return ScanCache(repo.path / ".c", "root", name="audit.json")


def _no_toml(text: str) -> dict:
    raise AssertionError("parsed again")


def test_pins_are_kept_as_plain_json_by_stat_and_reused(repo: Repo, monkeypatch) -> None:
    monkeypatch.setattr(versions, "_EXTRACTED", {})
    repo.write("pyproject.toml", '[project]\nname = "x"\ndependencies = ["alpha==1.0", "gamma==3"]\n')
    repo.write("uv.lock", _LOCK)
    _age(repo, "pyproject.toml", "uv.lock")
    cache = _cache(repo)
    want = {"alpha": Pin("1.0.post1", "uv.lock"), "beta": Pin("abc1234", "uv.lock", "https://h/o/beta.git"),
            "gamma": Pin("3", "pyproject.toml")}
    assert resolved_versions(Reader(repo.path, cache=cache), ["alpha", "beta", "gamma"]) == want
    cache.save()
    entries = json.loads((repo.path / ".c" / "v3" / "audit.json").read_text().split("\n", 1)[1])  # after the header
    st = os.stat(repo.path / "uv.lock")
    assert entries["pins:lock:uv.lock"] == [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
                                            [["alpha", "1.0.post1", None], ["beta", "abc1234", "https://h/o/beta.git"]]]
    assert entries["pins:manifest:pyproject.toml"][4] == [["alpha", "1.0", None], ["gamma", "3", None]]
    # another run (nothing in memory): answered from the file, nothing parsed
    monkeypatch.setattr(versions, "_EXTRACTED", {})
    monkeypatch.setattr(versions, "_toml", _no_toml)
    assert resolved_versions(Reader(repo.path, cache=_cache(repo)), ["alpha", "beta", "gamma"]) == want
    # and within one run, a second resolve parses nothing either (no cache given)
    assert resolved_versions(Reader(repo.path), ["alpha"]) == {"alpha": Pin("1.0.post1", "uv.lock")}


def test_an_edited_lock_is_read_again(repo: Repo, monkeypatch) -> None:
    monkeypatch.setattr(versions, "_EXTRACTED", {})
    repo.write("uv.lock", _LOCK)
    _age(repo, "uv.lock")
    cache = _cache(repo)
    assert resolved_versions(Reader(repo.path, cache=cache), ["alpha"]) == {"alpha": Pin("1.0.post1", "uv.lock")}
    cache.save()
    repo.write("uv.lock", _LOCK.replace("1.0.post1", "1.0.post2"))  # the same size; fresh: read, not kept
    assert resolved_versions(Reader(repo.path, cache=_cache(repo)), ["alpha"]) == {"alpha": Pin("1.0.post2", "uv.lock")}
    _age(repo, "uv.lock")  # another mtime and ctime than the stored entry's
    assert resolved_versions(Reader(repo.path, cache=_cache(repo)), ["alpha"]) == {"alpha": Pin("1.0.post2", "uv.lock")}


@pytest.mark.parametrize("value", [[["alpha", 9, None]], [["alpha", "9"]], "alpha==9", [["alpha", "9", ["git"]]], {"alpha": "9"}])
def test_a_forged_extraction_is_ignored(repo: Repo, monkeypatch, value) -> None:
    monkeypatch.setattr(versions, "_EXTRACTED", {})
    repo.write("uv.lock", _LOCK)
    _age(repo, "uv.lock")
    cache = _cache(repo)
    cache.put("pins:lock:uv.lock", os.stat(repo.path / "uv.lock"), value)  # the right stat, the wrong shape
    assert resolved_versions(Reader(repo.path, cache=cache), ["alpha"]) == {"alpha": Pin("1.0.post1", "uv.lock")}


@pytest.mark.parametrize("garbage", [b"not json\n{", b"", b'{"format": 99}\n{}', b"\xff\xfe"])
def test_a_garbled_pins_file_is_ignored(repo: Repo, monkeypatch, garbage: bytes) -> None:
    monkeypatch.setattr(versions, "_EXTRACTED", {})
    repo.write("uv.lock", _LOCK)
    _age(repo, "uv.lock")
    repo.write(".c/v3/audit.json", garbage)
    assert resolved_versions(Reader(repo.path, cache=_cache(repo)), ["alpha"]) == {"alpha": Pin("1.0.post1", "uv.lock")}
