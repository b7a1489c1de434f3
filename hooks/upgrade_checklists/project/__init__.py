"""Reading the user's repository, shared by the check and the audit.

    sources.py        the facts of every file that may import a package (cache, second core, fresh)
    scan.py           each source file's facts: imports, bound names, attribute uses
      scan_cst.py       the libcst path, for files the running ``ast`` cannot parse
      cache.py          the facts kept as plain JSON per repository (the scan cache)
      parallel.py       a second core for the cold path
    checklists.py     the repository's checklists, parsed (cache, second core, fresh)
    result.py         the project as read: checklists, facts, tiers, import names
    import_names.py   which import paths a checklist's package is used through
    reexports.py      names another distribution may re-export a package under, read from the imports
    tiers.py          which tier a file's location maps to
    status_tables.py  the status file's tables, read by their headers
    snippets.py       where a snippet's statements are in the code (on ``ast``)
    history.py        which paths git's history ever held
    versions.py       which versions the manifests and lock files fix
      staged.py         which state of them the run sees (pre-commit's stash)
    calls.py          call sites of a package's APIs in one file
    use.py            a use of a package, as plain data (its kinds)
    uses.py           every use of a package in the code (calls, imports, subclasses, patches)
      receivers.py      local names typed from upstream inside one function
      callsites.py      parameters typed by what the project's callers pass
      flags.py          the project's version flags, read (never run)
      forwarding.py     keywords handed on through ``**kwargs`` to an upstream call
      values.py         what a name can hold statically
      testpatches.py    patches written through test helpers (``mock.patch``, ``monkeypatch``)
      patchbody.py      what a patch's code says: its guard, the original it wraps, what it does with its result
      usecache.py       the uses kept as plain JSON
"""
