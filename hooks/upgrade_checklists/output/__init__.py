"""Which findings are reported, and how.

    selection.py  the findings that concern the files a run was given
    suppress.py   ``--select`` / ``--ignore``, configuration, inline comments
    baseline.py   findings known at adoption, no longer reported
    report.py     the formats: text, concise, json, github, sarif, ...
"""
