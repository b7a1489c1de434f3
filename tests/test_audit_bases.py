"""Bases in other distributions (issue 24, item 5): a class of the audited distribution whose
base comes from another distribution has that base's members, followed into that
distribution at the version the project pins, else the newest the audited release's own
requirements allow. Everything comes from local wheels written by hand (no network, nothing
built): ``a-dist`` (import ``apkg``, audited) has ``Client(base_pkg.session.Session)``;
``base-pkg`` (import ``base_pkg``) has ``Session``."""

from __future__ import annotations

import os
import textwrap
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from conftest import Repo
from upstream import app_findings as findings, audited_project

from upgrade_checklists.audit.archives import kept, unpack
from upgrade_checklists.audit.bases import allowed, newest, provides, requirements

A_CLIENT = '''
    from base_pkg.session import Session


    class Client(Session):
        def __init__(self, base):
            self.base = base


    class Plain(Session):
        """Constructed as its base in the other distribution says."""
    '''

B_V1 = {
    "base_pkg/__init__.py": "",
    "base_pkg/session.py": '''
        class Session:
            def __init__(self, timeout=None, retries=0):
                self.timeout = timeout

            def get(self, url, params=None, verify=True):
                return None

            def mount(self, prefix, adapter):
                return None

            def close(self):
                return None
        ''',
}
B_V2 = {  # `verify` removed from get, `mount` removed, `close` and `__init__` (without `retries`) moved to a base of Session
    "base_pkg/__init__.py": "",
    "base_pkg/session.py": '''
        class BaseSession:
            def __init__(self, timeout=None):
                self.timeout = timeout

            def close(self):
                return None


        class Session(BaseSession):
            def get(self, url, params=None):
                return None
        ''',
}
B_V3 = {  # a release no requirement of the fixtures allows: had the audit taken it, `get` would be gone
    "base_pkg/__init__.py": "",
    "base_pkg/session.py": '''
        class Session:
            def fetch(self, url):
                return None
        ''',
}


def wheel(dist: Path, project: str, version: str, files: dict[str, str], requires: list[str] = ()) -> Path:
    """A pure-Python wheel of ``files``, its METADATA listing ``requires``, written by hand."""
    name = project.replace("-", "_")
    info = f"{name}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires)
    data = {rel: textwrap.dedent(text).lstrip("\n") for rel, text in files.items()}
    data[f"{info}/METADATA"] = meta
    data[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    data[f"{info}/RECORD"] = "".join(f"{rel},,\n" for rel in sorted(data)) + f"{info}/RECORD,,\n"
    dist.mkdir(parents=True, exist_ok=True)
    path = dist / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for rel, text in sorted(data.items()):
            z.writestr(rel, text)
    return path


def a_release(dist: Path, version: str, requires: list[str]) -> None:
    wheel(dist, "a-dist", version, {"apkg/__init__.py": "", "apkg/client.py": A_CLIENT}, requires)


APP = '''\
from apkg.client import Client, Plain

c = Client("http://x")
c.get("/a", params={})
c.get("/b", verify=False)
c.mount("x", None)
c.close()
c.get("/c", colour=1)


class Mine(Client):
    def fetch(self):
        return self.get("/d", verify=True)


p = Plain(timeout=1, retries=2)


def annotated(client: Client):
    client.mount("y", None)
'''


CHECKLIST = (
    "---\npackage: a-dist\nimport_names:\n  - apkg\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n| `app/use.py` | `Client` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n"
    "### 1. `apkg.client.Client`\n\nUsed in `app/use.py`.\n\n## Version-Guarded Code\n\n_None._\n"
)


def pyproject(*pins: str, extra: str = "") -> str:
    deps = ", ".join(f'"{p}"' for p in pins)
    return (f'[project]\nname = "app"\nversion = "0"\ndependencies = [{deps}]\n\n'
            f'[tool.upgrade-checklists]\nroots = ["app"]\n{extra}')


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The only index pip (and the release listing) sees: a folder of wheels."""
    dist = tmp_path / "dist"
    dist.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(dist))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    return dist


def project(tmp_path: Path, capsys, pyproject_text: str) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/use.py": APP, "checklists/a-dist.md": CHECKLIST, "pyproject.toml": pyproject_text})


#: reasoned from B_V1 -> B_V2 (a-dist's own Client is the same at both versions), line by line of APP
UPGRADE = sorted([
    # a keyword the new base's method no longer has: error at the call line
    ("app/use.py:5", "METHOD_CHANGED", "on the result of `apkg.client.Client`: REMOVED_PARAM: `apkg.client.Client.get`: keyword `verify` was removed"),
    # a method the new base no longer has (the project's class inherited it from the base at the old version)
    ("app/use.py:6", "METHOD_CHANGED", "`apkg.client.Client.mount` (called on the result of `apkg.client.Client`) was removed at 2.0.0 "
                                       "(at the old version inherited from `base_pkg.session.Session`)"),
    # the same method on a parameter annotated with the project's upstream class (a typed receiver); where the
    # old version defined it is said in the other distribution's tree (B_V1's session.py, line 8)
    ("app/use.py:20", "REMOVED_API", "`apkg.client.Client.mount` (defined at base_pkg/session.py:8) was removed at 2.0.0 (`client` annotated `apkg.client.Client` in `annotated`)"),
    # a class constructed by its base's __init__, which lost `retries`
    ("app/use.py:16", "REMOVED_PARAM", "`apkg.client.Plain`: keyword `retries` was removed"),
    # through a project subclass: the same keyword, at its line
    ("app/use.py:13", "REMOVED_PARAM", "`apkg.client.Client.get`: keyword `verify` was removed (subclass `Mine`)"),
])
# line 4 (get with params), line 7 (close, now inherited from BaseSession): bound, nothing to say;
# line 8 (`colour`, taken by neither version): already broken, not a change of this upgrade


def test_base_followed_at_the_versions_the_project_pins(tmp_path: Path, capsys, index: Path) -> None:
    a_release(index, "1.0.0", ["base-pkg>=1"])
    a_release(index, "2.0.0", ["base-pkg>=1"])
    wheel(index, "base-pkg", "1.0.0", B_V1)
    wheel(index, "base-pkg", "2.0.0", B_V2)
    wheel(index, "base-pkg", "3.0.0", B_V3)  # allowed by the requirement, but not what the project pins
    p = project(tmp_path, capsys, pyproject("a-dist==1.0.0", "base-pkg==1.0.0"))
    p.edit("pyproject.toml", '"a-dist==1.0.0", "base-pkg==1.0.0"', '"a-dist==2.0.0", "base-pkg==2.0.0"')
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    got = findings(r)
    assert [f for f in got if "[info]" not in f[2]] == UPGRADE, got
    assert r.code == 1
    # the old version's pin was read at the base ref (HEAD), the new one's in the working tree
    assert "note: a-dist 1.0.0: bases from `base_pkg` followed into base-pkg 1.0.0 (the distribution by its import name, which the project pins; pinned by the project)" in r.err
    assert "note: a-dist 2.0.0: bases from `base_pkg` followed into base-pkg 2.0.0 (the distribution by its import name, which the project pins; pinned by the project)" in r.err
    # the same audit warm: the same verdicts, from the caches
    again = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    assert [f for f in findings(again) if "[info]" not in f[2]] == UPGRADE


def test_base_version_from_the_releases_own_requirements(tmp_path: Path, capsys, index: Path) -> None:
    a_release(index, "1.0.0", ["base-pkg<2,>=1"])
    a_release(index, "2.0.0", ["base-pkg<3,>=2; extra == 'full'"])  # an extra's requirement counts
    for version, files in (("1.0.0", B_V1), ("2.0.0", B_V2), ("3.0.0", B_V3)):
        wheel(index, "base-pkg", version, files)
    p = project(tmp_path, capsys, pyproject("a-dist==1.0.0"))
    p.edit("pyproject.toml", "a-dist==1.0.0", "a-dist==2.0.0")
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    assert [f for f in findings(r) if "[info]" not in f[2]] == UPGRADE
    assert "followed into base-pkg 1.0.0 (the distribution by its requirement; the newest release a-dist 1.0.0 allows `<2,>=1`)" in r.err
    assert "followed into base-pkg 2.0.0 (the distribution by its requirement; the newest release a-dist 2.0.0 allows `<3,>=2`)" in r.err


def test_binding_only_a_wrong_keyword_on_an_inherited_method_is_an_error(tmp_path: Path, capsys, index: Path) -> None:
    a_release(index, "2.0.0", ["base-pkg>=2"])
    wheel(index, "base-pkg", "2.0.0", B_V2)
    p = project(tmp_path, capsys, pyproject("a-dist==2.0.0", "base-pkg==2.0.0"))
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache))  # nothing moved: every use bound at the pin
    got = findings(r)
    assert ("app/use.py:8", "METHOD_CHANGED",
            "on the result of `apkg.client.Client`: REMOVED_PARAM: `apkg.client.Client.get`: `colour` is not a parameter at 2.0.0") in got
    assert ("app/use.py:5", "METHOD_CHANGED",
            "on the result of `apkg.client.Client`: REMOVED_PARAM: `apkg.client.Client.get`: `verify` is not a parameter at 2.0.0") in got
    assert not any(f[0] in ("app/use.py:4", "app/use.py:7") for f in got)  # get(params=...) and close() bind
    assert r.code == 1


def test_an_unfetchable_base_stays_unknown_and_says_why(tmp_path: Path, capsys, index: Path) -> None:
    a_release(index, "1.0.0", ["base-pkg>=1"])
    a_release(index, "2.0.0", ["base-pkg>=1"])
    wheel(index, "base-pkg", "1.0.0", B_V1)  # the old pin is there; the new one (2.0.0) is on no index
    p = project(tmp_path, capsys, pyproject("a-dist==1.0.0", "base-pkg==1.0.0"))
    p.edit("pyproject.toml", '"a-dist==1.0.0", "base-pkg==1.0.0"', '"a-dist==2.0.0", "base-pkg==2.0.0"')
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    assert r.code == 0, r.out + r.err  # nothing breaking: inherited members are unknown, never removed
    assert "Traceback" not in r.err
    got = findings(r)
    # every use of a member the old base had: info, naming the base and why it was not followed
    assert [f[0] for f in got] == ["app/use.py:13", "app/use.py:20", "app/use.py:4", "app/use.py:5", "app/use.py:6", "app/use.py:7",
                                   "app/use.py:8"]  # 20: the typed receiver's inherited member, unknown the same way
    for _where, code, msg in got:
        assert code == "UNRESOLVED" and msg.startswith("[info] ")
        assert "inherits from `base_pkg.session.Session` (cannot fetch base-pkg 2.0.0: index: " in msg
        assert msg.rstrip(")").endswith("not followed: its members are unknown") or "not followed: its members are unknown (" in msg
    assert "note: a-dist 2.0.0: bases from `base_pkg` not followed: cannot fetch base-pkg 2.0.0" in r.err
    # without -v, the info findings are counted, not listed
    quiet = p.run("audit", "--source", "index", "--cache-dir", str(p.cache))
    assert quiet.code == 0 and not findings(quiet)
    # a fetch that failed is not tried again within the hour (a warm audit does not wait for it) ...
    again = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    assert "(failed within the last hour: not tried again before then)" in again.err and again.code == 0
    # ... unless the cache forgets it: then the release now on the index is followed, and the breaks are found
    wheel(index, "base-pkg", "2.0.0", B_V2)
    (p.cache / "bases" / "failed.json").unlink()
    fixed = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    assert [f for f in findings(fixed) if "[info]" not in f[2]] == UPGRADE and fixed.code == 1


def test_a_distribution_mapped_in_the_configuration_must_hold_the_module(tmp_path: Path, capsys, index: Path) -> None:
    a_release(index, "2.0.0", [])
    wheel(index, "base-pkg", "2.0.0", B_V2)
    wheel(index, "other-dist", "1.0.0", {"other/__init__.py": ""})
    mapping = '\n[tool.upgrade-checklists.distributions]\nbase_pkg = "other-dist"\n'
    p = project(tmp_path, capsys, pyproject("a-dist==2.0.0", extra=mapping))
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")  # nothing moved: binding only
    assert r.code == 0, r.out + r.err
    assert ("note: a-dist 2.0.0: bases from `base_pkg` not followed: other-dist 1.0.0 holds no module `base_pkg` "
            "(name its distribution under [tool.upgrade-checklists] distributions)") in r.err
    # the members it would have given (lines 4-8, 13 and 20) are counted as unknown, by that reason, and
    # the constructor of `Plain` (line 16: its `__init__` is its base's) has no signature known
    assert "8 unknown (7 a member of a base in another distribution that could not be followed, 1 no signature known statically)" in r.out
    # mapped right, the base is followed (at the newest release: a-dist requires nothing), and the
    # wrong keyword is found
    p.edit("pyproject.toml", '"other-dist"', '"base-pkg"')
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    assert ("followed into base-pkg 2.0.0 (the distribution by its configuration; the newest release "
            "(a-dist 2.0.0 says nothing of its requirements))") in r.err
    assert r.code == 1 and any(f[0] == "app/use.py:8" and "`colour` is not a parameter" in f[2] for f in findings(r))


@pytest.mark.parametrize("value", ['1', '"has space"', '["a"]'])
def test_distributions_configuration_is_checked(tmp_path: Path, capsys, value: str) -> None:
    p = project(tmp_path, capsys, pyproject("a-dist==1.0.0", extra=f"\n[tool.upgrade-checklists.distributions]\nbase_pkg = {value}\n"))
    r = p.run("audit", "--cache-dir", str(p.cache))
    assert r.code == 2
    assert "distributions" in r.err and "Traceback" not in r.err


# -- the pieces ------------------------------------------------------------------------------


def test_requirements_are_read_from_metadata_without_building(tmp_path: Path) -> None:
    w = wheel(tmp_path / "d", "a-dist", "1.0.0", {"apkg/__init__.py": ""},
              ["base-pkg<3,>=2", "colour; python_version < '3'", "httpx>=0.22; extra == 'full'", "not a requirement !"])
    unpack(w, tmp_path / "w")
    reqs = requirements(tmp_path / "w")
    assert [str(r) for r in reqs] == ["base-pkg<3,>=2", 'colour; python_version < "3"', 'httpx>=0.22; extra == "full"']
    assert allowed(reqs, "Base_Pkg") == SpecifierSet("<3,>=2")
    assert allowed(reqs, "httpx") == SpecifierSet(">=0.22")  # an extra's requirement
    assert allowed(reqs, "colour") is None  # a marker this Python does not meet
    assert allowed(reqs, "numpy") is None
    assert provides(tmp_path / "w", "apkg") and not provides(tmp_path / "w", "base_pkg")
    # a source tree: its pyproject.toml (dependencies and optional ones); none at all: None
    src = tmp_path / "src"
    src.mkdir()
    (src / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["a>=1"]\n[project.optional-dependencies]\nt = ["b==2"]\n')
    assert [str(r) for r in requirements(src)] == ["a>=1", "b==2"]
    (src / "pyproject.toml").write_text("not toml [")
    assert requirements(src) is None
    assert requirements(tmp_path / "nowhere") is None


def test_newest_allowed_release() -> None:
    releases = ["1.0", "2.0", "2.5", "3.0rc1", "3.0", "junk"]
    assert newest(releases, SpecifierSet("<3,>=2")) == "2.5"
    assert newest(releases, SpecifierSet()) == "3.0"
    assert newest(["3.0rc1"], SpecifierSet(">=3.0rc1")) == "3.0rc1"  # only a pre-release: that one
    assert newest(releases, SpecifierSet(">9")) is None
    assert newest([], SpecifierSet()) is None
    assert Requirement("x>=1").name == "x"


def test_archive_keeps_metadata_text_only_at_the_top() -> None:
    assert kept("pkg/mod.py") and kept("pkg/mod.pyi")
    assert kept("a_dist-1.0.dist-info/METADATA") and kept("a_dist-1.0.dist-info/top_level.txt")
    assert kept("a-1.0/PKG-INFO") and kept("a-1.0/pyproject.toml") and kept("a-1.0/a.egg-info/requires.txt")
    assert not kept("a-1.0/sub/pyproject.toml") and not kept("a-1.0/deep/x.egg-info/requires.txt")
    assert not kept("pkg/data.bin") and not kept("METADATA") and not kept("pkg/METADATA")
