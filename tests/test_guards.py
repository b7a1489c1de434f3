"""Version guards: each verdict says whether the guard is still needed or can be removed."""

from __future__ import annotations

import textwrap
from pathlib import Path

from upgrade_checklists.audit.api import UpstreamModel
from upgrade_checklists.audit.guards import check_guard

PATCH = '''\
from up.bridge import Bridge

if not hasattr(Bridge, "save"):
    Bridge.save = save


def save(self, model, path=None):
    return None
'''


def model(tmp_path: Path, body: str) -> UpstreamModel:
    (tmp_path / "up").mkdir()
    (tmp_path / "up/__init__.py").write_text("")
    (tmp_path / "up/bridge.py").write_text(textwrap.dedent(body))
    return UpstreamModel([tmp_path], ["up"])


def verdicts(m: UpstreamModel) -> list[tuple[str, str, str]]:
    return [(r.code, r.severity, r.message) for r in check_guard(PATCH, 3, m, ["up"], "2.0")]


def test_native_method_with_the_patch_parameters_can_be_removed(tmp_path: Path) -> None:
    m = model(tmp_path, "class Bridge:\n    def save(self, model, path=None): ...\n")
    assert verdicts(m) == [("GUARD_DEAD", "warning", "`up.bridge.Bridge` now has `save` with the patch's parameters: "
                            "the `hasattr` guard (and its patch) can be removed")]


def test_native_method_that_differs_names_each_difference(tmp_path: Path) -> None:
    m = model(tmp_path, "class Bridge:\n    def save(self, path, model, *, strict=True): ...\n")
    assert verdicts(m) == [
        ("GUARD_DEAD", "warning", "`up.bridge.Bridge` now has `save`: the `hasattr` guard can be removed, once callers follow the native signature"),
        ("GUARD_MISMATCH", "error", "native `up.bridge.Bridge.save(self, path, model, strict)` differs from the patch `save(self, model, path)` "
                                    "(line 7): only native: `strict`; order differs for `model`, `path`; names and order must match exactly"),
    ]


def test_missing_method_means_still_needed(tmp_path: Path) -> None:
    m = model(tmp_path, "class Bridge:\n    pass\n")
    assert verdicts(m) == [("GUARD_NEEDED", "info", "`up.bridge.Bridge` still lacks `save`: the guard (and its patch) is still needed")]


def test_a_guard_already_dead_at_the_old_version_is_told_apart(tmp_path: Path) -> None:
    """``already_dead``: the GUARD_DEAD verdicts the same guard also had at the old version."""
    from upgrade_checklists.audit.guards import already_dead

    (tmp_path / "had").mkdir()
    (tmp_path / "lacked").mkdir()
    had = model(tmp_path / "had", "class Bridge:\n    def save(self, model, path=None): ...\n")
    lacked = model(tmp_path / "lacked", "class Bridge:\n    pass\n")
    now = check_guard(PATCH, 3, had, ["up"], "2.0")
    assert [r.code for r in now] == ["GUARD_DEAD"]
    assert already_dead(now, check_guard(PATCH, 3, had, ["up"], "1.0")) == now  # upstream had `save` then too
    assert already_dead(now, check_guard(PATCH, 3, lacked, ["up"], "1.0")) == []  # it gains it now: news



DECORATED = '''\
import sys

import pytest
from packaging import version

from up import other_version, up_version


@pytest.mark.skipif(sys.platform == "win32", reason="posix only")
@pytest.mark.parametrize(
    "n",
    [
        pytest.param(1, marks=pytest.mark.skipif(up_version < version.parse("1.5"), reason="old up")),
        pytest.param(2, marks=pytest.mark.skipif(other_version < version.parse("9.0"), reason="old other")),
    ],
)
@pytest.mark.skipif(up_version < version.parse("3.0"), reason="needs up 3")
def test_it(n):
    assert n
'''


def test_a_guard_in_a_decorator_is_judged_at_the_decorator(tmp_path: Path) -> None:
    """A version check in a decorator's arguments (a test skipped on old releases): the checklist
    records the decorated function's first line, before the ``def``, and quotes the comparison;
    that comparison is judged, not the others the decorators hold."""
    m = model(tmp_path, "class Bridge:\n    pass\n")

    def said(line: int, code: str | None = None) -> list[tuple[str, str]]:
        return [(r.code, r.message) for r in check_guard(DECORATED, line, m, ["up"], "2.0", code)]

    dead = ("GUARD_DEAD", "version comparison with 1.5: at or below the new version 2.0, the guard can be removed")
    assert said(9, 'up_version < version.parse("1.5")') == [dead]
    assert said(9, 'up_version < version.parse("3.0")') == [
        ("GUARD_NEEDED", "version comparison with 3.0: above the new version 2.0, the guard is still needed")]
    # nothing quoted (or not found): the decorator at the line, whole
    assert said(10) == [dead, ("GUARD_NEEDED", "version comparison with 9.0: above the new version 2.0, the guard is still needed")]
    assert [c for c, _m in said(9, "no_such < 1")] == ["GUARD_UNKNOWN"]  # line 9: a platform check, no version
