"""Deprecations given by upstream's own decorators (issue 25.4): a decorator of the upstream is
followed to its definition (factory -> decorator -> wrapper, through helpers), and its wrapper's
warning decides: on every call (the API is deprecated), only when a keyword the decorator names
is passed (that keyword is), or on a value (nothing). A warning category that is an upstream
class deriving from a deprecation category counts. The fixture upstream ``deco`` is written for
these tests, after the shapes large libraries use."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings as findings, audited_project, project_pyproject, tagged_upstream
from test_api import tree as write
from upgrade_checklists.audit.api import UpstreamModel

WARNINGS = '''
    class LibDeprecationWarning(DeprecationWarning):
        """the library's own deprecation category"""


    class RemovedInNextWarning(LibDeprecationWarning):
        """two bases away from DeprecationWarning"""


    class LibWarning(UserWarning):
        """not a deprecation"""


    class RoundA(RoundB):
        """bases in a cycle: never a deprecation, and no endless walk"""


    class RoundB(RoundA):
        pass
    '''

UTIL = '''
    import functools
    import warnings

    from deco._warnings import LibDeprecationWarning, LibWarning, RemovedInNextWarning, RoundA


    def _issue(msg, category, stacklevel=2):
        # the category is handed down: an instance, warned without a category (its class is one)
        warning = category(msg)
        _emit(warning, stacklevel=stacklevel + 1)


    def _emit(message, category=None, stacklevel=2):
        if category is not None:
            warnings.warn(message, category, stacklevel=stacklevel)
        else:
            warnings.warn(message, stacklevel=stacklevel)


    def _wrap(fn, category, message, enabled=True):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            skip = not enabled or kwargs.pop("_skip_warning", False)
            if not skip:
                _issue(message, category)
            return fn(*args, **kwargs)

        return wrapper


    def retired(version, message=None, category=None, enabled=True):
        if category is None:
            category = LibDeprecationWarning
        if message is None:
            message = "Call to a retired function"

        def decorate(fn):
            return _wrap(fn, category, message, enabled=enabled)

        return decorate


    def moved(message, **kw):
        return retired("2.0", message=message, category=RemovedInNextWarning, **kw)


    def renamed_kwarg(old, new=None):
        def decorate(fn):
            @functools.wraps(fn)
            def inner(*args, **kwargs):
                value = kwargs.pop(old, None)
                if value is not None:
                    if new is None:
                        msg = f"the {old!r} keyword is going away"
                    else:
                        msg = f"the {old!r} keyword is now {new!r}"
                        kwargs[new] = value
                    warnings.warn(msg, FutureWarning, stacklevel=2)
                return fn(*args, **kwargs)

            return inner

        return decorate


    def params_retired(**specs):
        texts = {}
        for name, text in specs.items():
            texts[name] = text

        def decorate(fn):
            def checked(*args, **kwargs):
                for m in set(texts):
                    if m in kwargs:
                        _issue(texts[m], LibDeprecationWarning)
                return fn(*args, **kwargs)

            return checked

        return decorate


    def flagged(old, new):
        def decorate(fn):
            def inner(*args, **kwargs):
                action = 0
                message = None
                if old in kwargs and new in kwargs:
                    action = 2
                    message = f"both `{old}` and `{new}` given"
                elif old in kwargs:
                    action = 1
                    message = f"`{old}` is deprecated, use `{new}`"
                if message is not None and action == 2:
                    message = f"{message}!"
                if action == 2:
                    raise ValueError(message)
                elif action == 1:
                    warnings.warn(message, FutureWarning)
                return fn(*args, **kwargs)

            return inner

        return decorate


    def retired_class(message):
        def decorate(cls):
            _install(cls, message)
            return cls

        return decorate


    def _install(cls, message):
        cls.__init__ = _wrap(cls.__init__, LibDeprecationWarning, message)


    def _unrelated_setup():
        # a wrapper that warns, made by a function the decorator neither returns nor hands the function to
        def hook(*args, **kwargs):
            warnings.warn("hook is deprecated", DeprecationWarning)

        return hook


    def registering(fn):
        _unrelated_setup()
        return fn


    def keyword_only_after(version, allowed=None):
        def decorate(fn):
            if allowed is not None:
                names = allowed
            else:
                names = [p for p in fn.__code__.co_varnames]
            limit = len(names)
            msg = f"from {version} on, all arguments of {fn.__qualname__}{{rest}} will be keyword-only"

            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                if len(args) > limit:
                    warnings.warn(msg.format(rest=""), FutureWarning, stacklevel=2)
                return fn(*args, **kwargs)

            return wrapper

        return decorate


    class _Retire:
        def __init__(self, message):
            self.message = message

        def __call__(self, fn):
            message = self.message

            def newfunc(*args, **kwds):
                warnings.warn(message, DeprecationWarning, stacklevel=2)
                return fn(*args, **kwds)

            return newfunc


    def retire(*args, **kwargs):
        return _Retire(*args, **kwargs)


    # -- decorators that are not deprecations ---------------------------------------------------

    def timed(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            return fn(*args, **kwargs)

        return inner


    def noisy(fn):
        def inner(*args, **kwargs):
            warnings.warn("this is slow", LibWarning)
            warnings.warn("round", RoundA)
            return fn(*args, **kwargs)

        return inner


    def checks_value(fn):
        def inner(*args, **kwargs):
            if kwargs.get("mode") == "old":
                warnings.warn("mode='old' is deprecated", DeprecationWarning)
            if len(args) > 2:
                warnings.warn("pass the rest by keyword", FutureWarning)
            return fn(*args, **kwargs)

        return inner


    def _ping(msg):
        _pong(msg)


    def _pong(msg):
        _ping(msg)


    def looping(fn):
        looping(fn)

        def inner(*args, **kwargs):
            _ping("never warns")
            return fn(*args, **kwargs)

        return inner
    '''

API = '''
    import warnings

    from deco import _util
    from deco._util import (checks_value, flagged, keyword_only_after, looping, noisy, params_retired, registering,
                            renamed_kwarg, retire, retired_class, timed)
    from deco._warnings import LibWarning, RemovedInNextWarning


    @_util.moved("moved_away() is now deco.api.new_home()")
    def moved_away(x):
        return x


    @_util.retired("1.5")
    def retired_default(x):
        return x


    @_util.retired("1.5", message="quiet is retired", enabled=False)
    def quiet(x):
        return x


    @renamed_kwarg("colour", new="color")
    def paint(color=None):
        return color


    @renamed_kwarg(old="tint")
    def shade(**kwargs):
        return kwargs


    @params_retired(legacy="the legacy parameter is deprecated and does nothing")
    def connect(url, **kwargs):
        return url


    @flagged("size_old", "size")
    def resize(size=None, **kwargs):
        return size


    @retire("stale() is deprecated, use fresh()")
    def stale():
        return None


    @registering
    @timed
    @noisy
    @checks_value
    @looping
    def plain(a, b, mode="new"):
        return a


    @keyword_only_after("3.0", allowed=["path"])
    def save(path, fmt="csv", mode="w"):
        return path


    @keyword_only_after("3.0")
    def guessed(path, fmt="csv"):
        return path


    @retired_class("OldThing is retired; use NewThing")
    class OldThing:
        def __init__(self, x):
            self.x = x


    def old_api():
        warnings.warn("old_api() is going away", RemovedInNextWarning)


    def careful():
        warnings.warn("careful", LibWarning)


    class Engine:
        @params_retired(echo_pool="echo_pool is deprecated")
        def __init__(self, url, **kwargs):
            self.url = url

        @_util.moved("Engine.run() is now Connection.run()")
        def run(self):
            return None

        @keyword_only_after("3.0", allowed=["self", "table"])
        def drop(self, table, cascade=False):
            return None
    '''


def load(root: Path) -> UpstreamModel:
    write(root, {"deco/__init__.py": "", "deco/_warnings.py": WARNINGS, "deco/_util.py": UTIL, "deco/api.py": API})
    return UpstreamModel([root], ["deco"])


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> UpstreamModel:
    return load(tmp_path_factory.mktemp("deco"))


def said(model: UpstreamModel, path: str) -> tuple[str | None, dict[str, str]]:
    api = model.lookup(path)
    assert api is not None, path
    return model.declared_deprecation(api), model.keyword_deprecations(api)


def test_a_decorator_whose_wrapper_always_warns_deprecates_the_api(model: UpstreamModel) -> None:
    # factory -> factory -> decorator -> wrapper -> helper -> helper -> warnings.warn(instance): the
    # category is an upstream class two bases from DeprecationWarning, handed down as a value; the
    # opt-out (`if not skip:`) is not a condition on the call
    assert said(model, "deco.api.moved_away") == ("moved_away() is now deco.api.new_home()", {})
    assert said(model, "deco.api.Engine.run") == ("Engine.run() is now Connection.run()", {})
    # no sentence among the decorator's arguments: the warning's own text (the factory's default)
    assert said(model, "deco.api.retired_default") == ("Call to a retired function", {})
    # a decorator object (a class whose __call__ makes the wrapper), its argument kept on self
    assert said(model, "deco.api.stale") == ("stale() is deprecated, use fresh()", {})
    # a class decorator that hands the class to a helper wrapping its __init__ in place
    assert said(model, "deco.api.OldThing") == ("OldThing is retired; use NewThing", {})


def test_a_wrapper_warning_when_a_named_keyword_is_passed_deprecates_that_keyword(model: UpstreamModel) -> None:
    # kwargs.pop(<the decorator's literal>) tested against None; the message of the branch the
    # decorator's other literal decides (new is given here, None there)
    assert said(model, "deco.api.paint") == (None, {"colour": "the 'colour' keyword is now 'color'"})
    assert said(model, "deco.api.shade") == (None, {"tint": "the 'tint' keyword is going away"})
    # the keywords are the decorator's own keyword names (`for m in set(texts): if m in kwargs`),
    # each with its sentence; on a class, its __init__'s decorator
    assert said(model, "deco.api.connect") == (None, {"legacy": "the legacy parameter is deprecated and does nothing"})
    assert said(model, "deco.api.Engine") == (None, {"echo_pool": "echo_pool is deprecated"})
    # a flag and a message set only where the old keyword is tested (the new one alone warns nothing);
    # the message of the branch where the old keyword alone is passed
    assert said(model, "deco.api.resize") == (None, {"size_old": "`size_old` is deprecated, use `size`"})


def test_a_wrapper_warning_past_a_positional_count_deprecates_passing_more(model: UpstreamModel) -> None:
    # `len(args) > len(<a literal list the decorator was given>)`: `*N`, N as the wrapper counts (self included)
    text = "from 3.0 on, all arguments of {fn.__qualname__}{rest} will be keyword-only"
    assert said(model, "deco.api.save") == (None, {"*1": text})
    assert said(model, "deco.api.Engine.drop") == (None, {"*2": text})
    # the count derived from the function's own signature at run time: not known, nothing said
    assert said(model, "deco.api.guessed") == (None, {})


def test_an_upstream_subclass_of_a_deprecation_category_counts_in_a_body(model: UpstreamModel) -> None:
    assert said(model, "deco.api.old_api") == ("old_api() is going away", {})
    assert said(model, "deco.api.careful") == (None, {})


def test_decorators_that_are_not_deprecations_say_nothing(model: UpstreamModel) -> None:
    # a plain wrapper; a wrapper warning a UserWarning subclass and a class in a cycle of bases; a
    # warning on a passed value (`mode == "old"`); a decorator and helpers that recurse; a warning
    # wrapper made by a call whose result the decorator drops: only the positional count
    # (`len(args) > 2`, a literal) is said
    assert said(model, "deco.api.plain") == (None, {"*2": "pass the rest by keyword"})
    # a closure value the decorator's literals decide: enabled=False never warns
    assert said(model, "deco.api.quiet") == (None, {})


def test_a_walk_stops_at_its_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from upgrade_checklists.audit import decorated

    monkeypatch.setattr(decorated, "BUDGET", 1)
    assert said(load(tmp_path), "deco.api.moved_away") == (None, {})


# -- through the audit: the findings at the calls, and the model cache -----------------------------

V1 = {"deco/__init__.py": "", "deco/_warnings.py": WARNINGS, "deco/_util.py": UTIL, "deco/api.py": '''
    def moved_away(x):
        return x


    def paint(color=None):
        return color


    def plain(a, b, mode="new"):
        return a


    def save(path, fmt="csv", mode="w"):
        return path


    class Engine:
        def drop(self, table, cascade=False):
            return None
    '''}
V2 = {**V1, "deco/api.py": API}

APP = '''\
from deco.api import Engine, moved_away, paint, plain, save


def f(x):
    a = moved_away(x)
    b = paint(colour="red")
    c = paint(color="red")
    d = plain(1, 2, mode="old")
    save("p", "json")
    save("p", fmt="json")
    e = Engine()
    e.drop("t", True)
    e.drop("t", cascade=True)
    Engine.drop(e, "t")
    return a, b, c, d
'''

CHECKLIST = (
    "---\npackage: deco\ngithub: example/deco\nbranch_template: v${VERSION}\nimport_names:\n  - deco\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/use.py` | `moved_away`, `paint`, `plain`, `save`, `Engine` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n"
    "### 1. `deco.api.paint`\n\nCalled in `app/use.py` (line 6):\n\n```python\nb = paint(colour=\"red\")\n```\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)

EXPECTED = sorted([
    ("app/use.py:5", "DEPRECATED", "[warning] `deco.api.moved_away` is deprecated at 2.0.0: \"moved_away() is now deco.api.new_home()\""),
    ("app/use.py:6", "DEPRECATED", "[warning] `deco.api.paint`: passing `colour` is deprecated at 2.0.0: \"the 'colour' keyword is now 'color'\""),
    # more arguments by position than the decorator allows (a method's `self` counted by the wrapper, not by the call)
    ("app/use.py:9", "DEPRECATED", "[warning] `deco.api.save`: passing more than 1 argument(s) by position is deprecated at 2.0.0: "
     "\"from 3.0 on, all arguments of {fn.__qualname__}{rest} will be keyword-only\""),
    ("app/use.py:12", "DEPRECATED", "[warning] `deco.api.Engine.drop`: passing more than 1 argument(s) by position is deprecated at "
     "2.0.0: \"from 3.0 on, all arguments of {fn.__qualname__}{rest} will be keyword-only\" (called on the result of `deco.api.Engine`)"),
])


@pytest.fixture
def project(tmp_path: Path, capsys, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Repo:
    (tmp_path / "nothing").mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "nothing"))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    upstream = tagged_upstream(tmp_path_factory.mktemp("deco-up"), "deco", [("1.0.0", V1), ("2.0.0", V2)])
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/use.py": APP,
        "checklists/deco.md": CHECKLIST, "pyproject.toml": project_pyproject("deco", upstream, "1.0.0", primary=None)})


def test_the_audit_says_them_at_the_calls_and_keeps_them_in_the_model_cache(project: Repo) -> None:
    r = project.run("audit", "deco==2.0.0", "--from", "1.0.0", "--cache-dir", str(project.cache))
    assert "Traceback" not in r.err
    assert [f for f in findings(r) if f[1] == "DEPRECATED"] == EXPECTED
    again = project.run("audit", "deco==2.0.0", "--from", "1.0.0", "--cache-dir", str(project.cache))
    assert [f for f in findings(again) if f[1] == "DEPRECATED"] == EXPECTED
