"""Forwarded keywords: a project function or method that hands its ``**kwargs`` (or ``*args``) on to
an upstream call is a way of calling upstream. A keyword a test passes to such a helper is bound
against the upstream signature at the test's line, through up to three project callables.

The fixture upstream ``fakepkg-web`` is a small HTTP toolkit (a local git repository with two
tagged releases); between them ``Client.__init__`` loses ``follow_redirects``, ``Session.request``
loses ``verify``, and ``connect``'s ``port`` becomes keyword-only."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.project.uses import CALL, find_uses

WEB_V1 = {
    "fakepkg/web/__init__.py": "from fakepkg.web.client import Client, Session, connect\n",
    "fakepkg/web/client.py": '''
        class Client:
            def __init__(self, app, base_url="/", follow_redirects=False, cookies=None):
                self.app = app


        class Session:
            def request(self, method, url, timeout=None, verify=True):
                return None


        def connect(host, port=80, secure=False):
            return None
        ''',
}

WEB_V2 = {
    **WEB_V1,
    "fakepkg/web/client.py": '''
        class Client:
            def __init__(self, app, base_url="/", cookies=None):
                self.app = app


        class Session:
            def request(self, method, url, timeout=None):
                return None


        def connect(host, *, port=80, secure=False):
            return None
        ''',
}

# the project's own helpers (line numbers matter: the findings are at the callers' lines)
HELPERS_PY = '''\
from fakepkg.web import Client, Session, connect


def make_client(app, **kw):
    return Client(app, **kw)


def make_client_quietly(app, **options):
    options.pop("follow_redirects", None)
    return Client(app, **options)


def build(app, timeout=3, **kw):
    return make_client(app, **kw)


def connect_to(*args, **kw):
    return connect(*args, **kw)


class Api:
    def client(self, app, **kw):
        return Client(app, **kw)

    def default(self, app, **kw):
        return self.client(app, **kw)


class MySession(Session):
    def request(self, method, url, **kw):
        return super().request(method, url, **kw)
'''

CALLERS_PY = '''\
from app.helpers import Api, MySession, build, connect_to, make_client, make_client_quietly


def test_clients(app):
    make_client(app, follow_redirects=True)
    make_client(app, base_url="/x")
    make_client_quietly(app, follow_redirects=True)
    build(app, timeout=1, follow_redirects=False)
    api = Api()
    api.client(app, follow_redirects=True)
    api.default(app, cookies={})
    s = MySession()
    s.request("GET", "/", verify=False)
    connect_to("h", 8080)
    connect_to("h", port=8080)
'''

CHECKLIST = (
    "---\npackage: fakepkg-web\ngithub: example/fakepkg-web\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/web/\nimport_names:\n  - fakepkg.web\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/helpers.py` | `Client`, `Session`, `connect` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def pyproject(upstreams: Path, version: str) -> str:
    return project_pyproject("fakepkg-web", upstreams, version, roots=("app", "tests"))


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("web-upstream"), "fakepkg-web", [("1.0.0", WEB_V1), ("2.0.0", WEB_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/helpers.py": HELPERS_PY, "tests/test_client.py": CALLERS_PY,
        "checklists/fakepkg-web.md": CHECKLIST, "pyproject.toml": pyproject(upstreams, "1.0.0")})


def at_callers(run) -> list[tuple[str, str]]:
    """(file:line, code and message) of the findings in the callers' file."""
    got = [(line.split(": ", 1)[0], line.split(": ", 1)[1].rsplit(" (checklists/", 1)[0])
           for line in run.lines if line.startswith("tests/test_client.py:")]
    return sorted(got, key=lambda f: (int(f[0].split(":")[1]), f[1]))


def test_forwarded_keywords_are_bound_at_the_callers_line(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    assert at_callers(r) == [
        # a function handing **kw to the upstream constructor
        ("tests/test_client.py:5:1", "REMOVED_PARAM `fakepkg.web.client.Client`: keyword `follow_redirects` was removed "
                                     "(forwarded by `make_client` (`**kw`))"),
        # line 6 passes base_url, still there; line 7's keyword is popped by the helper: nothing
        # two levels: build takes timeout itself and hands the rest to make_client
        ("tests/test_client.py:8:1", "REMOVED_PARAM `fakepkg.web.client.Client`: keyword `follow_redirects` was removed "
                                     "(forwarded by `build` (`**kw`), then `make_client` (`**kw`))"),
        # a method of a project class, called on an instance
        ("tests/test_client.py:10:1", "REMOVED_PARAM `fakepkg.web.client.Client`: keyword `follow_redirects` was removed "
                                      "(forwarded by `Api.client` (`**kw`))"),
        # line 11: cookies is still a parameter, through Api.default -> Api.client
        # a subclass of an upstream class whose method hands **kw to super()'s
        ("tests/test_client.py:13:1", "REMOVED_PARAM `fakepkg.web.client.Session.request`: keyword `verify` was removed "
                                      "(forwarded by `MySession.request` (`**kw`))"),
        # *args handed on as the only positional arguments: positions map one to one
        ("tests/test_client.py:14:1", "POSITION_CHANGED `fakepkg.web.client.connect`: `port` is now keyword-only, and this "
                                      "call passes it by position (forwarded by `connect_to` (`*args`))"),
    ]


def test_an_unchanged_upstream_gives_no_forwarded_finding(project: Repo) -> None:
    r = project.run("audit", "--cache-dir", str(project.cache))
    assert r.code == 0
    assert at_callers(r) == []


def forwarded(files: dict[str, str]) -> list[tuple[str, int, str, tuple[str, ...], int, str]]:
    src = {rel: (textwrap.dedent(t), ast.parse(textwrap.dedent(t))) for rel, t in files.items()}
    return sorted((u.file, u.line, u.target, tuple(u.call.keywords), u.call.positional, u.via)
                  for u in find_uses(src, ["pkg"]) if u.kind == CALL and u.via.startswith("forwarded"))


def test_what_is_not_forwarded_is_left_out() -> None:
    got = forwarded({
        "app/h.py": '''
            import pkg


            def own(a, x=None, **kw):
                del kw["gone"]
                return pkg.f(a, **kw)


            def rebuilt(**kw):
                kw = {"y": 1}
                return pkg.f(**kw)


            def unknown(obj, **kw):
                return obj.session.send(**kw)


            def lead(a, *args):
                return pkg.f(a, *args)


            def d1(**kw):
                return d2(**kw)


            def d2(**kw):
                return d3(**kw)


            def d3(**kw):
                return d4(**kw)


            def d4(**kw):
                return pkg.f(**kw)


            def d0(**kw):
                return d3(**kw)
            ''',
        "app/use.py": '''
            from app.h import d0, d1, lead, own, rebuilt, unknown


            def go(o):
                own(1, x=2, gone=3)      # both taken by `own`: nothing reaches pkg.f
                own(1, y=2)
                rebuilt(z=1)             # **kw is rebuilt: not the caller's keywords
                unknown(o, z=1)          # the receiver's class is not known: not guessed
                lead(1, 2, 3)            # *args after a positional: positions not mapped
                d1(z=1)                  # four levels: beyond the depth followed
                d0(z=1)                  # three levels
            ''',
    })
    assert got == [
        ("app/use.py", 7, "pkg.f", ("y",), 0, "forwarded by `own` (`**kw`)"),
        ("app/use.py", 12, "pkg.f", ("z",), 0, "forwarded by `d0` (`**kw`), then `d3` (`**kw`), then `d4` (`**kw`)"),
    ]


# v2 removes ``Field.fail``: the project's override hands ``**kw`` on to the base's, through super()
FIELD_V1 = {
    "fakepkg/web/__init__.py": "from fakepkg.web.fields import Field\n",
    "fakepkg/web/fields.py": '''
        class Field:
            def fail(self, key, **kw):
                raise ValueError(key)
        ''',
}
FIELD_V2 = {**FIELD_V1, "fakepkg/web/fields.py": "class Field:\n    pass\n"}

FIELD_PY = '''\
from fakepkg.web import Field


class Choice(Field):
    def fail(self, key, **kw):
        kw["choices"] = "a, b"
        return super().fail(key, **kw)

    def load(self, value):
        if value not in "ab":
            self.fail("invalid", input=value)
        return value


def check(value):
    Choice().fail("invalid", input=value)
'''


def test_a_forward_into_a_removed_method_is_said_once_at_the_forwarding_call(tmp_path: Path, capsys) -> None:
    ups = tagged_upstream(tmp_path / "ups", "fakepkg-web", [("1.0.0", FIELD_V1), ("2.0.0", FIELD_V2)])
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/fields.py": FIELD_PY, "checklists/fakepkg-web.md": CHECKLIST.replace(
            "`app/helpers.py` | `Client`, `Session`, `connect`", "`app/fields.py` | `Field`"),
        "pyproject.toml": project_pyproject("fakepkg-web", ups, "1.0.0", roots=("app",))})
    project.write("pyproject.toml", project_pyproject("fakepkg-web", ups, "2.0.0", roots=("app",)))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    errors = [line.split(" (checklists/", 1)[0] for line in r.lines
              if line.startswith("app/") and "[warning]" not in line and "[info]" not in line]
    # the calls at lines 11 and 16 pass keywords that `Choice.fail` hands on to a method that is gone: the break
    # is the project's own call of it (line 7), not theirs
    assert len(errors) == 1 and errors[0].startswith("app/fields.py:7:1: REMOVED_API "), r.lines
    assert "`fakepkg.web.fields.Field` has no `fail` at 2.0.0" in errors[0]


# a project subclass with no constructor of its own: calling it calls the upstream base's
INHERITS_PY = '''\
import dataclasses

from fakepkg.web import Client


class Plain(Client):
    prefix = "/api"


class Greeter:
    def hello(self):
        return "hi"


class Mixed(Greeter, Plain):
    pass


class Own(Client):
    def __init__(self, app, follow_redirects=False):
        super().__init__(app)


@dataclasses.dataclass
class Data(Client):
    app: object = None
    follow_redirects: bool = False
'''

INHERITS_CALLERS_PY = '''\
from app.helpers import Data, Mixed, Own, Plain


def test_subclasses(app):
    Plain(app, follow_redirects=True)
    Mixed(app, follow_redirects=True)
    Own(app, follow_redirects=True)
    Data(app, follow_redirects=True)
    Plain(app, cookies={})
    client = Plain(app, "/", True, None)
'''


def test_a_subclass_without_a_constructor_is_called_with_its_upstream_bases(tmp_path: Path, capsys, upstreams: Path) -> None:
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/helpers.py": INHERITS_PY, "tests/test_client.py": INHERITS_CALLERS_PY,
        "checklists/fakepkg-web.md": CHECKLIST.replace("`Client`, `Session`, `connect`", "`Client`"),
        "pyproject.toml": pyproject(upstreams, "1.0.0")})
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache))
    assert r.code == 1, r.out
    assert at_callers(r) == [
        ("tests/test_client.py:5:1", "REMOVED_PARAM `fakepkg.web.client.Client`: keyword `follow_redirects` was removed "
                                     "(`Plain(...)`: the constructor it inherits)"),
        # a project mixin of no base and no constructor before it changes nothing
        ("tests/test_client.py:6:1", "REMOVED_PARAM `fakepkg.web.client.Client`: keyword `follow_redirects` was removed "
                                     "(`Mixed(...)`: the constructor it inherits)"),
        # line 7: its own __init__ takes the keyword; line 8: @dataclass writes one; line 9: cookies is still there
        # four positional arguments where 2.0.0 takes three
        ("tests/test_client.py:10:1", "POSITION_CHANGED `fakepkg.web.client.Client`: `cookies` is now keyword-only, and this "
                                      "call passes it by position (`Plain(...)`: the constructor it inherits)"),
    ]
