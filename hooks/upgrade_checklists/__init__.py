"""Keep per-dependency API checklists true to the code, and audit upgrades.

The pipeline, one module a step:

    checklist.py  read a checklist into a model with positions
    scan.py       scan the code for facts (imports, names, strings, with lines)
    compare.py    compare the two into findings
    report.py     format findings (text / json / github)

``cli.py`` is the thin command line over it.
"""

__version__ = "0.1.0"
