"""Which versions the pins and lock files fix, now and at a git ref."""

from __future__ import annotations

import pytest

from conftest import Repo
from upgrade_checklists.versions import Pin, Reader, VersionError, check_version, resolved_versions


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
