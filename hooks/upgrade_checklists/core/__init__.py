"""The shared core: what every layer above needs, and nothing about how it is used.

    config.py     ``[tool.upgrade-checklists]``: discovery, validation, defaults
    checklist.py  a checklist read into a model with positions (markdown-it-py, PyYAML)
      refs.py       call-site references in catalog prose
      tokens.py     the row-token grammar of Imports / Usage cells
      inline.py     inline ``ignore[CODE]`` comments in a checklist
    findings.py   findings as plain data (codes, descriptions, levels)
    files.py      reading repository files without trusting them
    gitfiles.py   what git lists in the work tree
    atomic.py     atomic writes, and the clean-up of what a killed write left
    plain.py      dataclasses to plain JSON data and back
    digest.py     the cache keys' digest
    astwalk.py    walking Python syntax trees quickly
      reaching.py   which reads of a name an assignment may reach (one function body)
    proc.py       every subprocess, started one way (argument list, isolated environment)
    crash.py      an unexpected error: one line, a log file, exit 2
"""
