"""Keep per-dependency API checklists true to the code, and audit upgrades.

The pipeline, one module a step:

    checklist.py  read a checklist into a model with positions
    scan.py       scan the code for facts (imports, names, strings, with lines)
    compare.py    run the check: read -> scan -> compare, over the modules below
      import_names.py  which import paths a checklist's package is used through
      tiers.py         which tier a file's location maps to
      tokens.py        row tokens against a file's facts
      rows.py          Affected Files rows: MISSING / STALE / MOVED / CHANGED / TIER
      folders.py       folders (and globs) of like users: one row for many files (new, MISSING hints)
      refs.py          catalog call-site references, read as people write them
      snippets.py      where a snippet's statements are in the code (ast, not text)
      catalog.py       catalog references and version guards: SNIPPET / LINE / GUARD
      status.py        the status file's table: STATUS
      status_tables.py the status file's other tables, read by header (Focused Packages, Upgrade Families, Package Impact Matrix)
      matrix.py        the Package Impact Matrix against the manifests: MATRIX
    result.py     the check's result (findings, facts) shared with fix and audit
    runcache.py   the last run's outcome, reused while nothing the check reads changed
    parallel.py   a second core for the cold path (scan, catalogs)
    fix.py        rewrite checklists from findings (--fix)
    report.py     format findings (text / json / github)

The upgrade audit (``audit.py`` orchestrates), one module a stage:

    uses.py       every use of a package in the code (calls, imports, subclasses, patches)
      values.py     what a name can hold statically (patches reached through strings)
      usecache.py   the uses kept as plain JSON (a warm audit of an unchanged project parses nothing)
    api.py        the upstream symbols at each version (griffe, nothing imported)
      lazy_model.py   the same answers from only the modules a question reaches (else the whole package)
      model_cache.py  its answers kept on disk as plain JSON (a second audit loads nothing)
    bind.py       each use bound against both versions
    entries.py    what the catalog adds, and where each finding is anchored
    guards.py     the version guards

``cli.py`` is the thin command line over it.
"""

__version__ = "0.1.0"
