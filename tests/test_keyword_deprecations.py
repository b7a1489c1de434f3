"""A deprecation has a scope (issue 24.7): a warning given when one keyword is passed, read in the
function's own body or in an upstream helper it hands the keyword to (``self._h(kw)``, ``_h(kw)``),
up to two calls deep, the parameters mapped call by call."""

from __future__ import annotations

import ast
import textwrap
from types import SimpleNamespace

from upgrade_checklists.audit.deprecation import keyword_warnings


def scoped(source: str, name: str) -> dict[str, str]:
    """``keyword_warnings`` of the function or method ``name`` (``Cls.m``) in ``source``."""
    tree = ast.parse(textwrap.dedent(source))
    owner, _, fn = name.rpartition(".")
    scope = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner).body if owner else tree.body
    node = next(n for n in scope if isinstance(n, ast.FunctionDef) and n.name == fn)
    return keyword_warnings(SimpleNamespace(name=fn, lineno=node.lineno, kind=SimpleNamespace(value="function")), tree)


CLIENT = '''
import warnings


class Client:
    def get(self, url, *, follow=None, legacy=None):
        return self._choose(follow, legacy)

    def post(self, url, *, follow=None, legacy=None):
        return self._choose(follow, None)

    def put(self, url, *, legacy=None):
        return self._one(legacy=legacy)

    def head(self, url, *, legacy=None):
        def later():
            return self._choose(None, legacy)
        return later

    def patch(self, url, *, legacy=None):
        return self._static(legacy)

    def _one(self, legacy=None):
        return self._two(legacy)

    def _two(self, legacy):
        return self._choose(None, legacy)

    def _choose(self, follow, legacy):
        if legacy is not None:
            message = "`legacy` is deprecated; use `follow`"
            warnings.warn(message, DeprecationWarning)
        return follow

    @staticmethod
    def _static(legacy):
        if legacy is not None:
            warnings.warn("static: `legacy` is deprecated", FutureWarning)
'''


def test_a_keyword_handed_to_a_helper_that_warns_is_deprecated() -> None:
    # by position, the helper's parameters mapped past `self`; the message a local holds
    assert scoped(CLIENT, "Client.get") == {"legacy": "`legacy` is deprecated; use `follow`"}
    # a static method takes no `self`: its first parameter gets the first argument
    assert scoped(CLIENT, "Client.patch") == {"legacy": "static: `legacy` is deprecated"}
    # the helper itself warns about its own parameter
    assert scoped(CLIENT, "Client._choose") == {"legacy": "`legacy` is deprecated; use `follow`"}


def test_only_what_the_caller_hands_on_and_only_two_calls_deep() -> None:
    # the helper gets a constant, not the caller's keyword: the caller's calls are not concerned
    assert scoped(CLIENT, "Client.post") == {}
    # put -> _one -> _two -> _choose is three calls deep: not followed; _one -> _two -> _choose is two
    assert scoped(CLIENT, "Client.put") == {}
    assert scoped(CLIENT, "Client._one") == {"legacy": "`legacy` is deprecated; use `follow`"}
    # a nested function calls the helper when it runs, not when `head` does
    assert scoped(CLIENT, "Client.head") == {}


def test_kwargs_handed_on_whole_reach_the_helper_under_their_own_names() -> None:
    source = '''
    import warnings


    def _load(path, **options):
        plan = options.pop("plan", None)
        if plan is not None:
            warnings.warn("`plan` is deprecated", FutureWarning)
        return path


    def load(path, **kwargs):
        return _load(path, **kwargs)


    def load_fixed(path, **kwargs):
        return _load(path)
    '''
    assert scoped(source, "load") == {"plan": "`plan` is deprecated"}
    assert scoped(source, "load_fixed") == {}


def test_a_message_local_assigned_in_each_branch_is_the_one_before_the_warning() -> None:
    # one local name holds a different text in each branch: the warning says the text its own
    # branch assigned just before it, never the local's name
    source = '''
    import warnings


    def make_context(check=True, key=None):
        if isinstance(check, str):
            note = (
                "a path for `check` is deprecated; "
                "pass a context"
            )
            warnings.warn(note, DeprecationWarning)
        if key:
            note = "`key` is deprecated; load it on the context"
            warnings.warn(note, DeprecationWarning)
        return check
    '''
    assert scoped(source, "make_context") == {"key": "`key` is deprecated; load it on the context"}
