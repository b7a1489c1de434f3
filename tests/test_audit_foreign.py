"""A test client built on an HTTP toolkit in another distribution (issue 25, items 2 and 3 across
distributions): a receiver typed from the audited package's annotations that lead into the
toolkit (``-> toolkit.Response``, a property, ``__iter__``'s ``Iterator[T]``), a read a builtin
does not have, and a keyword the client hands on (``super().get(url, cookies=cookies)``) to a
toolkit method that warns when it is passed. Everything comes from local wheels written by hand
(no network, nothing built): ``web-dist`` (import ``webkit``, audited) has
``TestClient(toolkit.client.Client)``; ``tool-dist`` (import ``toolkit``) the client, its response
and cookie jar; ``other-dist`` (import ``other``) a class no base reaches."""

from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

import pytest

from test_audit_bases import wheel
from upstream import app_findings as findings, audited_project

from upgrade_checklists.audit.deprecation import forwarded_calls

TOOL_V1 = {
    "toolkit/__init__.py": "",
    "toolkit/models.py": '''
        from typing import Iterator


        class Cookie:
            name: str = ""


        class Jar:
            def __iter__(self) -> Iterator[Cookie]:
                return iter([])


        class Response:
            status: int = 200

            @property
            def jar(self) -> Jar:
                return Jar()

            def text(self) -> str:
                return ""
        ''',
    "toolkit/client.py": '''
        from toolkit.models import Response


        class Client:
            def request(self, method, url, cookies=None, verify=True) -> Response:
                return Response()

            def get(self, url, cookies=None) -> Response:
                return self.request("GET", url, cookies=cookies)

            def fetch(self, url, **kwargs) -> Response:
                return self.request("GET", url, **kwargs)
        ''',
}
TOOL_V2 = {  # the jar now gives names; passing cookies (and verify) per request warns
    "toolkit/__init__.py": "",
    "toolkit/models.py": '''
        from typing import Iterator


        class Jar:
            def __iter__(self) -> Iterator[str]:
                return iter([])


        class Response:
            status: int = 200

            @property
            def jar(self) -> Jar:
                return Jar()

            def text(self) -> str:
                return ""
        ''',
    "toolkit/client.py": '''
        import warnings

        from toolkit.models import Response


        class Client:
            def request(self, method, url, cookies=None, verify=True) -> Response:
                if cookies is not None:
                    message = "per-request cookies are deprecated: set them on the client"
                    warnings.warn(message, DeprecationWarning)
                if verify is not True:
                    warnings.warn("verify= per request is deprecated", DeprecationWarning)
                return Response()

            def get(self, url, cookies=None) -> Response:
                return self.request("GET", url, cookies=cookies)

            def fetch(self, url, **kwargs) -> Response:
                return self.request("GET", url, **kwargs)
        ''',
}
OTHER = {
    "other/__init__.py": "",
    "other/things.py": '''
        from typing import Iterator


        class Things:
            def __iter__(self) -> Iterator[str]:
                return iter([])
        ''',
}
WEB = {  # the same at both versions of web-dist
    "webkit/__init__.py": "",
    "webkit/testing.py": '''
        import other.things
        import toolkit.client
        import toolkit.models


        class TestClient(toolkit.client.Client):
            def get(self, url, *, cookies=None, timeout=None) -> toolkit.models.Response:
                return super().get(url, cookies=cookies)

            def post(self, url, cookies=None) -> toolkit.models.Response:
                return self.request("POST", url, cookies=None)

            def head(self, url, cookies=None, **kwargs) -> toolkit.models.Response:
                return super().fetch(url, **kwargs)

            def things(self) -> other.things.Things:
                return other.things.Things()

            def bag(self) -> "CookieBag":
                return CookieBag()


        class CookieBag(toolkit.models.Jar):
            """Iterated as its base in the other distribution says."""
        ''',
}

APP = '''\
from webkit.testing import TestClient


def test_cookies():
    client = TestClient()
    response = client.get("/", cookies={"a": "1"})
    for cookie in response.jar:
        cookie.name
    response.status.bit_length()
    response.text().shout()
    client.post("/", cookies={"a": "1"})
    client.head("/", cookies={"a": "1"})
    client.head("/", verify=False)
    for thing in client.things():
        thing.name
    for kept in client.bag():
        kept.name
'''

CHECKLIST = (
    "---\npackage: web-dist\nimport_names:\n  - webkit\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n| `app/test_web.py` | `TestClient` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n"
    "### 1. `webkit.testing.TestClient`\n\nUsed in `app/test_web.py`.\n\n## Version-Guarded Code\n\n_None._\n"
)


def pyproject(*pins: str) -> str:
    deps = ", ".join(f'"{p}"' for p in pins)
    return f'[project]\nname = "app"\nversion = "0"\ndependencies = [{deps}]\n\n[tool.upgrade-checklists]\nroots = ["app"]\n'


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The only index pip (and the release listing) sees: a folder of wheels."""
    dist = tmp_path / "dist"
    dist.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(dist))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for version in ("1.0.0", "2.0.0"):
        wheel(dist, "web-dist", version, WEB)  # requires nothing: the toolkit is followed at the project's pins
    wheel(dist, "tool-dist", "1.0.0", TOOL_V1)
    wheel(dist, "tool-dist", "2.0.0", TOOL_V2)
    wheel(dist, "other", "1.0.0", OTHER)
    return dist


def upgraded(tmp_path: Path, capsys):
    p = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/test_web.py": APP, "checklists/web-dist.md": CHECKLIST,
        "pyproject.toml": pyproject("web-dist==1.0.0", "tool-dist==1.0.0")})
    p.write("pyproject.toml", pyproject("web-dist==2.0.0", "tool-dist==2.0.0") +
            '\n[tool.upgrade-checklists.distributions]\ntoolkit = "tool-dist"\n')
    return p


COOKIES = "per-request cookies are deprecated: set them on the client"


def test_a_test_client_on_a_toolkit_in_another_distribution(tmp_path: Path, capsys, index: Path) -> None:
    p = upgraded(tmp_path, capsys)
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    got = findings(r)
    # reasoned line by line of APP, from WEB (the same at both versions) and TOOL_V1 -> TOOL_V2:
    expected = [
        # 6: TestClient.get hands `cookies` to toolkit's Client.get (super().get), which hands it to
        # self.request, which warns at 2.0.0 when it is passed
        ("app/test_web.py:6", "DEPRECATED", f"[warning] `webkit.testing.TestClient.get`: passing `cookies` is deprecated at 2.0.0: "
                                            f"\"{COOKIES}\" (warned by `toolkit.client.Client.request`, which it hands `cookies` on to) "
                                            "(called on the result of `webkit.testing.TestClient`)"),
        # 8: the jar's elements were Cookie objects (TOOL_V1), they are names (str) at 2.0.0: a str has no `name`
        ("app/test_web.py:8", "REMOVED_API", "`name`: a `str` has no attribute `name` (`cookie` is an element of "
                                             "`webkit.testing.TestClient().get().jar` in `test_cookies`: a `str` at 2.0.0; "
                                             "a `toolkit.models.Cookie` at the old version)"),
        # 10: `text()` gave a str at both versions: already broken, said as info
        ("app/test_web.py:10", "REMOVED_API", "[info] `shout`(): a `str` has no attribute `shout` (`response.text()` is "
                                              "`webkit.testing.TestClient().get().text()` in `test_cookies`: a `str` at 2.0.0; "
                                              "a `str` at the old version: already broken, not a change of this upgrade)"),
        # 17: a CookieBag iterates as its base toolkit.models.Jar (followed) says: Cookie, then str
        ("app/test_web.py:17", "REMOVED_API", "`name`: a `str` has no attribute `name` (`kept` is an element of "
                                              "`webkit.testing.TestClient().bag()` in `test_cookies`: a `str` at 2.0.0; "
                                              "a `toolkit.models.Cookie` at the old version)"),
        # 13: `verify` reaches Client.request through TestClient.head's **kwargs and Client.fetch's
        ("app/test_web.py:13", "DEPRECATED", "[warning] `webkit.testing.TestClient.head`: passing `verify` is deprecated at 2.0.0: "
                                             "\"verify= per request is deprecated\" (warned by `toolkit.client.Client.request`, which "
                                             "it hands `verify` on to) (called on the result of `webkit.testing.TestClient`)"),
    ]
    assert [f for f in got if not f[2].startswith("[info] ") or f[1] == "REMOVED_API"] == sorted(expected), got
    # 9 (`bit_length` of an int), 11 (post passes None, not the caller's cookies), 12 (head keeps `cookies`
    # as its own parameter), 15 (other: no class on the way inherits from it, so not fetched) say nothing
    assert not any(f[0] in ("app/test_web.py:9", "app/test_web.py:11", "app/test_web.py:12", "app/test_web.py:15") for f in got)
    assert (p.cache / "index" / "tool-dist").is_dir() and not (p.cache / "index" / "other").exists()
    assert r.code == 1
    # warm: the same verdicts, from the caches (receiver_foreign, forwards)
    again = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    assert findings(again) == got and again.code == 1


def test_the_old_side_not_annotated_is_not_known_and_still_an_error(tmp_path: Path, capsys, index: Path) -> None:
    old = dict(TOOL_V1)
    old["toolkit/models.py"] = old["toolkit/models.py"].replace("def __iter__(self) -> Iterator[Cookie]:", "def __iter__(self):")
    for f in index.glob("tool_dist-1.0.0-*.whl"):
        f.unlink()
    wheel(index, "tool-dist", "1.0.0", old)
    p = upgraded(tmp_path, capsys)
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache))
    line8 = [f for f in findings(r) if f[0] == "app/test_web.py:8"]
    # the new annotation says str, which has no `name`: it fails at 2.0.0 whatever the old element was
    assert line8 == [("app/test_web.py:8", "REMOVED_API", "`name`: a `str` has no attribute `name` (`cookie` is an element of "
                      "`webkit.testing.TestClient().get().jar` in `test_cookies`: a `str` at 2.0.0; the old version's "
                      "annotations do not say what it was)")]
    assert r.code == 1


def test_a_base_not_followed_leaves_the_receiver_unknown(tmp_path: Path, capsys, index: Path) -> None:
    for f in index.glob("tool_dist-2.0.0-*.whl"):
        f.unlink()  # the new toolkit is on no index: its classes are not known, nothing is guessed
    p = upgraded(tmp_path, capsys)
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    assert r.code == 0, r.out + r.err
    assert "Traceback" not in r.err
    got = findings(r)
    assert not any(f[1] in ("REMOVED_API", "DEPRECATED") for f in got), got
    cov = next(line for line in r.lines if "uses found" in line)
    assert "the class of a receiver reached from upstream is not known" in cov


# -- the pieces ------------------------------------------------------------------------------


def _method(src: str) -> ast.FunctionDef:
    return ast.parse(src).body[0]


def test_forwarded_calls_map_what_the_caller_passed() -> None:
    fn = _method("def get(self, url, *, cookies=None, **kw):\n"
                 "    t = kw.pop('trace', None)\n"
                 "    super().get(url, cookies=cookies, trace=t, other=1)\n"
                 "    super(Client, self).send(**kw)\n"
                 "    self.log(url)\n"
                 "    self.get(url)\n"  # itself: not a forward
                 "    helper(cookies=cookies)\n"  # not a method: the helper rules of keyword_warnings
                 "    def inner():\n        self.put(cookies=cookies)\n")  # runs when called, not now
    got = forwarded_calls(fn)
    own = ["cookies", "trace", "url"]
    assert got == [
        {"how": "super", "member": "get", "line": 3, "map": {"@0": "url", "cookies": "cookies", "trace": "trace"}, "whole": False, "own": own},
        {"how": "super", "member": "send", "line": 4, "map": {}, "whole": True, "own": own},
        {"how": "self", "member": "log", "line": 5, "map": {"@0": "url"}, "whole": False, "own": own},
    ]
    # nothing of the caller's handed on: no forward
    assert forwarded_calls(_method("def f(self, a=None):\n    super().f(a=None)\n    self.g(1, b=2)\n")) == []


@pytest.mark.parametrize("bad", [
    [{"how": "super"}],  # fields missing
    [{"how": "super", "member": "get", "line": "3", "map": {}, "whole": False, "own": [], "target": "", "foreign": []}],  # a line as text
    [{"how": "super", "member": "get", "line": 3, "map": {"a": 1}, "whole": False, "own": [], "target": "", "foreign": []}],
    [{"how": "super", "member": "get", "line": 3, "map": {}, "whole": False, "own": [], "target": "", "foreign": [], "x": 1}],
    {"not": "a list"},
])
def test_a_garbled_forwards_record_is_not_read_back(bad) -> None:
    from upgrade_checklists.audit.model_cache import _CODECS
    from upgrade_checklists.core.plain import PlainError

    with pytest.raises(PlainError):
        _CODECS["forwards"][1](bad)


def test_forwards_and_stops_survive_the_record() -> None:
    from upgrade_checklists.audit.model_cache import _CODECS
    from upgrade_checklists.core.plain import PlainError

    calls = [{"how": "self", "member": "send", "line": 7, "map": {"@0": "url"}, "whole": True, "own": ["url"],
              "target": "", "foreign": ["httpx.Client"]}]
    to_json, from_json = _CODECS["forwards"]
    assert from_json(to_json(calls)) == calls
    stop = {"at": 2, "paths": ["httpx.Response"], "roots": ["httpx"]}
    to_json, from_json = _CODECS["stop"]
    assert from_json(to_json(stop)) == stop and from_json(to_json(None)) is None
    for bad in ({"at": "2", "paths": [], "roots": []}, {"at": 2, "paths": [1], "roots": []}, {"at": 2}, [2]):
        with pytest.raises(PlainError):
            from_json(bad)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def test_where_a_receiver_leaves_the_source(tmp_path: Path) -> None:
    from upgrade_checklists.audit.api import UpstreamModel

    tool = UpstreamModel([_tree(tmp_path / "tool", TOOL_V1)], ["toolkit"])
    # in one source: a property read is its return annotation, iterating it is __iter__'s Iterator[T]
    assert tool.receiver_class("toolkit.client.Client", ("call", "m:get", "a:jar", "iter")).path == "toolkit.models.Cookie"
    assert tool.receiver_class("toolkit.client.Client", ("call", "m:get", "a:jar")).path == "toolkit.models.Jar"
    assert tool.receiver_class("toolkit.client.Client", ("call", "m:get", "m:jar")) is None  # a property is read, not called
    assert tool.receiver_foreign("toolkit.client.Client", ("call", "m:get", "a:jar", "iter")) is None  # never left
    web = UpstreamModel([_tree(tmp_path / "web", WEB)], ["webkit"])
    # the annotation names a class of another distribution: the steps after it are asked there
    assert web.receiver_class("webkit.testing.TestClient", ("call", "m:get", "a:jar")) is None
    assert web.receiver_foreign("webkit.testing.TestClient", ("call", "m:get", "a:jar")) == {
        "at": 2, "paths": ["toolkit.models.Response"], "roots": ["toolkit"]}
    # a member the class inherits from a base there: the same step is asked of that base
    assert web.receiver_foreign("webkit.testing.TestClient", ("call", "m:fetch", "a:jar")) == {
        "at": 1, "paths": ["toolkit.client.Client"], "roots": ["toolkit"]}
    assert web.receiver_foreign("webkit.testing.TestClient", ("call", "m:things", "iter")) == {
        "at": 2, "paths": ["other.things.Things"], "roots": ["toolkit"]}  # `other`: no base on the way
    # a member missing from a class with no base elsewhere, a builtin's: not left, only not known
    assert tool.receiver_foreign("toolkit.client.Client", ("call", "m:nothing")) is None
    assert tool.receiver_foreign("toolkit.client.Client", ("call", "m:get", "m:text", "a:upper")) is None


def test_a_catalog_entry_for_a_method_inherited_from_another_distribution_resolves(tmp_path: Path, capsys, index: Path) -> None:
    p = upgraded(tmp_path, capsys)
    # `TestClient.request` is not in web-dist's source: TestClient inherits it from toolkit's Client (followed)
    p.write("checklists/web-dist.md", CHECKLIST.replace(
        "## Version-Guarded Code", "### 2. `webkit.testing.TestClient.request`\n\nUsed in `app/test_web.py`.\n\n"
        "### 3. `webkit.testing.TestClient.nowhere`\n\nUsed in `app/test_web.py`.\n\n## Version-Guarded Code"))
    r = p.run("audit", "--source", "index", "--cache-dir", str(p.cache), "-v")
    said = [line.split(": ", 1)[1] for line in r.lines if line.startswith("checklists/web-dist.md:")]
    # entry 2 resolves (through the base in tool-dist): nothing to say; a name no class on the way has stays unresolved
    assert not any("entry 2" in s for s in said)
    assert "UNRESOLVED [info] entry 3: `webkit.testing.TestClient.nowhere` not found in the upstream source (checklists/web-dist.md:33)" in said
    assert "| 2   | `webkit.testing.TestClient.request` | OK" in p.read("upgrade-summary.md")
