"""The structure check: the checklists against the code's real imports and call sites.

    compare.py       the pipeline: read -> scan -> compare -> result
    rows.py          Affected Files rows: MISSING / STALE / MOVED / CHANGED / TIER
    catalog.py       catalog references and version guards: SNIPPET / LINE / GUARD
    status.py        the status file's table: STATUS
    matrix.py        the Package Impact Matrix against the manifests: MATRIX
    uncatalogued.py  APIs used but not catalogued (off by default)
    runcache.py      the last run's outcome, reused while nothing it read changed
    cutoff.py        ... or while the files that changed read the same to the check
    fix.py           rewrite checklists from findings (``--fix``, ``--diff``)
    new.py           write a first checklist from a scan of the code
"""
