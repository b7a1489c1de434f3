"""An override of a method upstream deprecates: upstream is on its way to no longer calling it (pydantic
2.12 deprecated ``FieldInfo.merge_field_infos`` and stopped calling it; a subclass overriding it lost
its say), so the override is a DEPRECATED warning at its ``def``; ``info`` when the old base method was
deprecated already, and nothing for an override of a method that is not deprecated.

The fixture upstream ``fakepkg-slots`` is a small field library: between its releases ``Slot.combine``
starts warning, ``Slot.legacy_name`` warned in both, ``Slot.label`` never does."""

from __future__ import annotations

from pathlib import Path

import pytest

from upstream import app_findings, fixture_checklist, tagged_upstream, upgrade_audit

V1 = {
    "fakepkg/slots/__init__.py": "from fakepkg.slots.core import Slot\n",
    "fakepkg/slots/core.py": '''
        import warnings


        class Slot:
            @staticmethod
            def combine(*slots):
                return slots[-1]

            def legacy_name(self):
                warnings.warn("legacy_name() is deprecated", DeprecationWarning)
                return "slot"

            def label(self):
                return "slot"
        ''',
}

V2 = {
    "fakepkg/slots/__init__.py": "from fakepkg.slots.core import Slot\n",
    "fakepkg/slots/core.py": '''
        import warnings


        class Slot:
            @staticmethod
            def combine(*slots):
                message = "combine() is deprecated; nothing calls it any more"
                warnings.warn(message, DeprecationWarning)
                return slots[-1]

            def legacy_name(self):
                warnings.warn("legacy_name() is deprecated", DeprecationWarning)
                return "slot"

            def label(self):
                return "slot"
        ''',
}

APP = '''\
from fakepkg.slots import Slot


class Tagged(Slot):
    @staticmethod
    def combine(*slots):
        return slots[0]

    def legacy_name(self):
        return "tagged"

    def label(self):
        return "tagged"
'''


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("slots-upstream"), "fakepkg-slots", [("1.0.0", V1), ("2.0.0", V2)])


def test_an_override_of_a_method_deprecated_at_the_new_version_is_a_warning(tmp_path: Path, capsys, upstreams: Path) -> None:
    checklist = fixture_checklist("fakepkg-slots", "fakepkg/slots/", ["fakepkg.slots"], {"app/tagged.py": "`Slot`"})
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-slots", upstreams,
                      {"app/__init__.py": "", "app/tagged.py": APP, "checklists/fakepkg-slots.md": checklist})
    got = [f for f in app_findings(r) if f[1] == "DEPRECATED"]
    assert got == [
        ("app/tagged.py:6", "DEPRECATED", "[warning] `fakepkg.slots.core.Slot.combine` is deprecated at 2.0.0: \"combine() is "
         "deprecated; nothing calls it any more\" (`Tagged.combine(*slots)` overrides it: upstream is on its way to "
         "no longer calling it)"),
        ("app/tagged.py:9", "DEPRECATED", "[info] `fakepkg.slots.core.Slot.legacy_name` is deprecated at 2.0.0: "
         "\"legacy_name() is deprecated\" (`Tagged.legacy_name()` overrides it: upstream is on its way to no longer "
         "calling it) (deprecated at the old version too: not news of this upgrade)"),
    ]
    assert r.code == 0  # a warning, not a break
