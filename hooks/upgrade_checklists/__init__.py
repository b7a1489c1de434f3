"""Keep per-dependency API checklists true to the code, and audit upgrades.

The package is layered; a layer imports only the layers below it (import-linter checks
this, see ``[tool.importlinter]`` in ``pyproject.toml``):

    cli.py     the command line: argument parsing, output streams, exit codes
    output/    which findings are reported and how: selection, suppression, baseline, formats
    check/     the structure check (checklists against the code)   } independent:
    audit/     the upgrade audit (the code against upstream)       } neither imports the other
    project/   reading the user's repository, shared by both: sources and their scan,
               uses and calls of a package, manifests and lock files, history, tiers
    core/      configuration, the checklist model, findings, files, atomic writes, plain data

Each folder's ``__init__.py`` lists its modules, one concept a module.
"""

__version__ = "0.1.0"
