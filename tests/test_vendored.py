"""A package another distribution re-exports under its own name (``requests.packages.urllib3``): the
checklist lists that name beside the package's own, and uses written through it are the package's.

Fixture upstream ``fakepkg-core`` (top module ``corepkg``): ``corepkg.contrib.legacy`` is gone at 2.0.0.
The project reaches it as ``hostpkg.packages.corepkg`` (``hostpkg`` stands for a distribution that puts
``corepkg``'s modules into ``sys.modules`` under its own name; it is never read)."""

from __future__ import annotations

from pathlib import Path

from upstream import fixture_checklist, app_findings, tagged_upstream, upgrade_audit

V1 = {
    "corepkg/__init__.py": "",
    "corepkg/fields.py": "def encode(value):\n    return value\n",
    "corepkg/contrib/__init__.py": "",
    "corepkg/contrib/legacy.py": "def fetch(url):\n    return url\n",
}
V2 = {"corepkg/contrib/legacy.py": None}  # removed (``make_repo`` keeps the other files)
# line numbers matter: the assertions name them
APP_PY = '''\
import hostpkg

try:
    from hostpkg.packages.corepkg import fields
except ImportError:
    from corepkg import fields

from hostpkg.packages.corepkg.contrib import legacy

OLD_HOST = hostpkg.__build__ < 0x020300
ENCODED = fields.encode(1), legacy.fetch("u")
'''
CHECKLIST = fixture_checklist("fakepkg-core", "corepkg/", ["corepkg", "hostpkg.packages.corepkg"],
                              {"app/compat.py": "`fields`, `legacy`"})


def test_uses_written_through_a_re_exported_name_are_the_packages(tmp_path: Path, capsys) -> None:
    ups = tagged_upstream(tmp_path / "ups", "fakepkg-core", [("1.0.0", V1), ("2.0.0", V2)])
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-core", ups, {
        "app/__init__.py": "", "app/compat.py": APP_PY, "checklists/fakepkg-core.md": CHECKLIST})
    got = [(where, code, msg) for where, code, msg in app_findings(r) if not msg.startswith("[info]")]
    assert got == [
        ("app/compat.py:11", "REMOVED_API", "`corepkg.contrib.legacy.fetch` was removed at 2.0.0 (written "
         "`hostpkg.packages.corepkg.contrib.legacy.fetch`: `corepkg` re-exported as `hostpkg.packages.corepkg`)"),
        ("app/compat.py:8", "REMOVED_API", "import `corepkg.contrib.legacy` no longer resolves at 2.0.0 (written "
         "`hostpkg.packages.corepkg.contrib.legacy`: `corepkg` re-exported as `hostpkg.packages.corepkg`)"),
    ]
    # `hostpkg.__build__` is the host's, not the package's: no use at all; `fields` resolves both ways
    assert not [f for f in app_findings(r) if f[0] in ("app/compat.py:4", "app/compat.py:6", "app/compat.py:10")]
    assert r.code == 1
