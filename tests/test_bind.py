"""Binding one call against old and new signatures (no upstream needed)."""

from __future__ import annotations

import ast

from upgrade_checklists.audit.api import Param, Signature, normalize_annotation
from upgrade_checklists.audit.signatures import bind_call, signature_changes
from upgrade_checklists.project.calls import find_calls

PK, KW, VA, VK = "positional or keyword", "keyword-only", "variadic positional", "variadic keyword"


def sig(*params: tuple, returns: str | None = None) -> Signature:
    return Signature([Param(n, k, d) for n, k, d in params], returns)


def call(src: str):
    source = f"from pkg import f\n{src}\n"
    (c,) = find_calls(source, ast.parse(source), ["pkg"])
    return c


def codes(problems) -> list[tuple[str, str, str]]:
    return sorted((code, sev, param) for code, sev, param, _ in problems)


OLD = sig(("a", PK, None), ("b", PK, "1"), ("c", KW, "None"))


def test_unchanged_signature_binds_cleanly() -> None:
    assert bind_call(call("f(1, b=2, c=3)"), "pkg.f", OLD, OLD, "2") == []


def test_star_args_and_kwargs_in_the_call_skip_required_checks() -> None:
    new = sig(("a", PK, None), ("b", PK, "1"), ("d", KW, None))
    assert codes(bind_call(call("f(*args, **kw)"), "pkg.f", OLD, new, "2")) == []
    assert codes(bind_call(call("f(1)"), "pkg.f", OLD, new, "2")) == [("NEW_REQUIRED_PARAM", "error", "d")]


def test_var_positional_absorbs_extra_positionals() -> None:
    new = sig(("a", PK, None), ("rest", VA, None))
    assert codes(bind_call(call("f(1, 2, 3)"), "pkg.f", None, new, "2")) == []
    # one finding for the call, naming every argument without a parameter (not one per argument)
    (problem,) = bind_call(call("f(1, 2, 3)"), "pkg.f", None, sig(("a", PK, None)), "2")
    assert problem == ("REMOVED_PARAM", "error", "#2", "`pkg.f`: positional arguments 2, 3 have no parameter at 2 (1 positional parameters)")


def test_a_call_that_did_not_bind_at_the_old_version_is_no_error() -> None:
    """Issue 24.8: already broken (a dead branch, say) is not this upgrade's break: info, saying why."""
    one = sig(("mark", PK, None), ("_private", KW, "False"))
    # three positional arguments for one positional parameter, at both versions
    (problem,) = bind_call(call("f(a, b, c)"), "pkg.f", one, one, "8")
    assert problem == ("REMOVED_PARAM", "info", "#2", "`pkg.f`: positional arguments 2, 3 have no parameter at 8 (1 positional parameters) "
                       "(the call did not bind at the old version either: 3 positional arguments for 1 positional parameters; "
                       "not a change of this upgrade)")
    # a keyword the old signature had no parameter for; a required parameter not passed
    new = sig(("a", PK, None), ("d", KW, None))
    assert codes(bind_call(call("f(1, zz=2)"), "pkg.f", OLD, new, "2")) == [("NEW_REQUIRED_PARAM", "info", "d")]
    assert codes(bind_call(call("f(b=2)"), "pkg.f", OLD, new, "2")) == [
        ("NEW_REQUIRED_PARAM", "info", "d"), ("REMOVED_PARAM", "info", "b")]


def test_a_call_that_bound_at_the_old_version_keeps_its_errors() -> None:
    new = sig(("a", PK, None), ("d", KW, None))
    assert codes(bind_call(call("f(1, b=2)"), "pkg.f", OLD, new, "2")) == [
        ("NEW_REQUIRED_PARAM", "error", "d"), ("REMOVED_PARAM", "error", "b")]
    # what the call hides behind * / ** cannot be told: it may have bound, so the error stays
    assert codes(bind_call(call("f(*xs, b=2)"), "pkg.f", OLD, sig(("a", PK, None)), "2")) == [("REMOVED_PARAM", "error", "b")]
    # the old **kwargs took any keyword: it bound then, and the new signature has nowhere to put it
    old_kw = sig(("a", PK, None), ("kw", VK, None))
    (problem,) = bind_call(call("f(1, zz=2)"), "pkg.f", old_kw, sig(("a", PK, None)), "2")
    assert problem == ("REMOVED_PARAM", "error", "zz", "`pkg.f`: `zz` is not a parameter at 2 (the old `**kw` took it)")


def test_kwargs_in_new_signature_swallow_a_removed_keyword() -> None:
    new = sig(("a", PK, None), ("b", PK, "1"), ("kw", VK, None))
    (problem,) = bind_call(call("f(1, c=3)"), "pkg.f", OLD, new, "2")
    assert problem == ("REMOVED_PARAM", "error", "c", "`pkg.f`: `c` was removed; `**kw` now swallows it silently")


def test_rename_needs_the_same_position_and_kind() -> None:
    renamed = sig(("a", PK, None), ("beta", PK, "1"), ("c", KW, "None"))
    assert codes(bind_call(call("f(1, b=2)"), "pkg.f", OLD, renamed, "2")) == [("RENAMED_PARAM", "error", "b")]
    other_kind = sig(("a", PK, None), ("beta", KW, "1"), ("c", KW, "None"))
    assert codes(bind_call(call("f(1, b=2)"), "pkg.f", OLD, other_kind, "2")) == [("REMOVED_PARAM", "error", "b")]


def test_positional_rename_still_binds() -> None:
    renamed = sig(("alpha", PK, None), ("b", PK, "1"), ("c", KW, "None"))
    assert codes(bind_call(call("f(1)"), "pkg.f", OLD, renamed, "2")) == [("RENAMED_PARAM", "info", "a")]


def test_return_change_matters_only_when_the_result_is_used() -> None:
    old, new = sig(("a", PK, None), returns="int"), sig(("a", PK, None), returns="str")
    assert codes(bind_call(call("f(1)"), "pkg.f", old, new, "2")) == []
    assert codes(bind_call(call("x = f(1)"), "pkg.f", old, new, "2")) == [("RETURN_CHANGED", "error", "return")]


def test_binding_only_mode_without_old_version() -> None:
    new = sig(("a", PK, None))
    assert codes(bind_call(call("f(1, z=2)"), "pkg.f", None, new, "2")) == [("REMOVED_PARAM", "error", "z")]
    assert bind_call(call("f(1, z=2)"), "pkg.f", None, new, "2")[0][3] == "`pkg.f`: `z` is not a parameter at 2"


def test_signature_changes_are_informational() -> None:
    new = sig(("a", PK, None), ("b", PK, None), ("e", PK, "0"), returns="str")
    assert codes(signature_changes("pkg.f", Signature(OLD.params, "int"), new)) == [
        ("NEW_OPTIONAL_PARAM", "info", "e"),
        ("NEW_REQUIRED_PARAM", "info", "b"),
        ("REMOVED_PARAM", "info", "c"),
        ("RETURN_CHANGED", "info", "return"),
    ]
    # same position, same kind: a rename, not a removal and an addition
    renamed = sig(("a", PK, None), ("b", PK, "1"), ("e", KW, "None"))
    assert codes(signature_changes("pkg.f", OLD, renamed)) == [("RENAMED_PARAM", "info", "c")]


def test_equal_annotations_compare_equal() -> None:
    assert normalize_annotation("typing.List[Token]") == normalize_annotation("list[Token]")
    assert normalize_annotation("Optional[Dict[str, int]]") == "dict[str, int] | None"
    assert normalize_annotation("Union[int, str]") == "int | str"
    assert normalize_annotation("'AutoBridge'") == "AutoBridge"


def test_new_optional_parameters_are_one_finding_per_api() -> None:
    few = sig(("a", PK, None), ("b", PK, "1"), ("c", KW, "None"), ("d", KW, "True"), ("e", KW, "0"))
    assert [(c, p, m) for c, _s, p, m in signature_changes("pkg.f", OLD, few)] == [
        ("NEW_OPTIONAL_PARAM", "d,e", "`pkg.f`: 2 new optional parameters: `d=True`, `e=0`")]
    many = sig(("a", PK, None), ("b", PK, "1"), ("c", KW, "None"), *((n, KW, "None") for n in "vwxyz"))
    assert [m for _c, _s, _p, m in signature_changes("pkg.f", OLD, many)] == [
        "`pkg.f`: 5 new optional parameters: `v`, `w`, `x`, `y`, `z`"]


def test_a_parameter_the_old_kwargs_took_is_not_new() -> None:
    VK_ = "variadic keyword"
    old = sig(("a", PK, None), ("attrs", VK_, None))
    # `b` was accepted through **attrs before: not a new optional parameter for any caller
    assert signature_changes("pkg.C", old, sig(("a", PK, None), ("b", PK, "1"), ("attrs", VK_, None))) == []
    # without the old **attrs it is new; made required, it is reported either way
    assert codes(signature_changes("pkg.C", sig(("a", PK, None)), sig(("a", PK, None), ("b", PK, "1")))) == [
        ("NEW_OPTIONAL_PARAM", "info", "b")]
    assert codes(signature_changes("pkg.C", old, sig(("a", PK, None), ("b", KW, None), ("attrs", VK_, None)))) == [
        ("NEW_REQUIRED_PARAM", "info", "b")]


def test_a_keyword_the_old_kwargs_took_and_nothing_takes_now() -> None:
    old = sig(("url", PK, None), ("kwargs", VK, None))  # requests' Session.get(url, **kwargs)
    new = sig(("url", PK, None), ("params", KW, "None"))  # a get that names what it takes, without **kwargs
    (problem,) = bind_call(call("f('/', stream=True, params={})"), "pkg.f", old, new, "2")
    assert problem == ("REMOVED_PARAM", "error", "stream", "`pkg.f`: `stream` is not a parameter at 2 (the old `**kwargs` took it)")
    # the new version keeps a **kwargs: it still takes it; the old one lacked it and had none: already broken, not said
    assert bind_call(call("f('/', stream=True)"), "pkg.f", old, sig(("url", PK, None), ("kw", VK, None)), "2") == []
    assert bind_call(call("f('/', stream=True)"), "pkg.f", sig(("url", PK, None)), new, "2") == []


def test_return_types_that_print_alike_are_shown_whole() -> None:
    old, new = sig(returns="requests.models.Response"), sig(returns="httpx._models.Response")
    (problem,) = bind_call(call("r = f()"), "pkg.f", old, new, "2")
    assert problem[0] == "RETURN_CHANGED" and "returns `httpx._models.Response` (was `requests.models.Response`)" in problem[3]
    (problem,) = bind_call(call("r = f()"), "pkg.f", sig(returns="a.List"), sig(returns="b.Tuple"), "2")
    assert "returns `Tuple` (was `List`)" in problem[3]


def test_a_class_return_change_used_only_through_members_is_info() -> None:
    """``httpx.Response`` for ``requests.models.Response``: where the result is only read through its
    attributes, each read is checked against the new class (a typed receiver), not the call."""
    old, new = sig(("a", PK, None), returns="requests.models.Response"), sig(("a", PK, None), returns="httpx.Response")
    for src in ("def t():\n    r = f(1)\n    assert r.status_code == 200\n    r.json()\n", "def t():\n    return f(1).status_code\n",
                "def t():\n    r = f(1)\n    a = r.x\n    r = f(2)\n    return r.x == a\n"):  # bound again, read the same way
        source = f"from pkg import f\n{src}\n"
        first = find_calls(source, ast.parse(source), ["pkg"])[0]
        problems = bind_call(first, "pkg.f", old, new, "2")
        assert codes(problems) == [("RETURN_CHANGED", "info", "return")], src
        assert "each checked against the new class" in problems[0][3]
    for src in ("def t():\n    r = f(1)\n    keep(r)\n",  # passed on: what it is used for is not known
                "def t():\n    r = f(1)\n    r += 1\n",  # read whole
                "def t():\n    r = f(1)\n    return r\n"):  # handed on
        assert codes(bind_call(call(src), "pkg.f", old, new, "2")) == [("RETURN_CHANGED", "error", "return")], src
    builtin = sig(("a", PK, None), returns="list[int]"), sig(("a", PK, None), returns="tuple[int, int]")
    assert codes(bind_call(call("def t():\n    r = f(1)\n    r.append(2)\n"), "pkg.f", *builtin, "2")) == [
        ("RETURN_CHANGED", "error", "return")]  # a list method on what is now a tuple


def _model(root, files: dict[str, str]):
    """An upstream model of package ``lib`` from ``files``, written below ``root``."""
    import textwrap

    from upgrade_checklists.audit.api import UpstreamModel

    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return UpstreamModel([root], ["lib"])


def test_a_module_function_that_is_gone_did_not_move_into_a_method_of_that_name(tmp_path) -> None:
    from upgrade_checklists.audit.bound import gone

    def model(name: str, files: dict[str, str]):
        return _model(tmp_path / name, files)

    old = model("old", {"lib/__init__.py": "", "lib/app.py": "def abspath(p):\n    return p\n\n\ndef norm(p):\n    return p\n",
                        "lib/paths.py": "class path(str):\n    def abspath(self):\n        return self\n"})
    new = model("new", {"lib/__init__.py": "", "lib/app.py": "",
                        "lib/paths.py": "class path(str):\n    def abspath(self):\n        return self\n",
                        "lib/util.py": "def norm(p):\n    return p\n"})
    # sphinx.application.abspath went; sphinx.testing.path.path.abspath (a method) is no place it went to
    assert gone("lib.app.abspath", old.lookup("lib.app.abspath"), new, "2") == (
        "REMOVED_API", "`lib.app.abspath` was removed at 2")
    # a module function found as another module's function moved
    assert gone("lib.app.norm", old.lookup("lib.app.norm"), new, "2") == (
        "MOVED_API", "`lib.app.norm` is gone from `lib.app.norm` at 2; found at `lib.util.norm`")


def test_a_name_dropped_for_an_object_that_stayed_says_so(tmp_path) -> None:
    from upgrade_checklists.audit.bound import gone

    def model(name: str, files: dict[str, str]):
        return _model(tmp_path / name, files)

    old = model("old", {"lib/__init__.py": "", "lib/conn.py": "class HTTPS:\n    pass\n\n\nVerified = HTTPS\n",
                        "lib/pool.py": "from lib.conn import HTTPS, Verified\n"})
    new = model("new", {"lib/__init__.py": "", "lib/conn.py": "class HTTPS:\n    pass\n", "lib/pool.py": "from lib.conn import HTTPS\n"})
    # urllib3 2.0 dropped connectionpool.VerifiedHTTPSConnection (an alias of connection.HTTPSConnection, which stayed)
    assert gone("lib.pool.Verified", old.lookup("lib.pool.Verified"), new, "2") == (
        "MOVED_API", "`lib.pool.Verified` no longer resolves at 2: the name is gone, the object it named is still `lib.conn.HTTPS`")
