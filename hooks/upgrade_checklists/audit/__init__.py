"""The upgrade audit: the code's uses against upstream at the old and new versions.

    pipeline.py     the orchestration of the stages below
    targets.py      which packages, from which version to which, in which variants
    fetch.py        upstream source at a version: a git clone, or a release from the index
      index.py        a release's sdist on pip's configured indexes
      archives.py     unpacking an sdist or wheel as plain files
    api.py          the upstream model (griffe, nothing imported)
      lazy_model.py   the same answers from only the modules a question needs
      model_cache.py  its answers kept as plain JSON
      aliases.py      compatibility aliases a module keeps importable
      annotations.py  annotations compared as types
      assignable.py   whether a value of one class is one an annotation accepts (class hierarchies)
      deprecation.py  deprecations, read statically
      decorated.py    deprecations by upstream's own decorators (their wrappers' warnings)
      bases.py        bases in other distributions, followed into their own models
      hookspecs.py    upstream's pluggy hook specifications and registered plugins
      selfreads.py    what a constructor sets on ``self`` and its methods read there
      subclasses.py   what an upstream class's subclasses set
    vendored.py     import names another distribution re-exports the package under
    bind.py         each use bound against both versions (the binders, by kind of use)
      signatures.py   a call against a signature; how a signature changed
      bound.py        a bound use, why a use stays unchecked, the model look-ups binders share
      overrides.py    project overrides against the new base and upstream's own calls
      patches.py      project patches and wrappers over upstream functions
      grouping.py     one finding for one break: a line once, the arms of a union, dead branches
    entries.py      what the catalog adds, and where each finding is anchored
    shipped.py      packages the distribution ships that the import names leave out
    guards.py       the version-guarded code against the new upstream
    summary.py      ``upgrade-summary.md``
    ledger.py       ``--ledger``: the first release each finding appears in
    writeback.py    ``audit --fix``: the checklists brought to the post-upgrade state
"""
