"""``python -m upgrade_checklists`` and the console script (``upgrade-checklists``): :func:`entry`.

Importing the command line and what it needs takes some 100 ms; a Ctrl-C in that time
ends the run as one at any later moment does (``crash.run_guarded``): one line on
stderr and exit code 130, never a traceback. So this module imports nothing of the tool
before it is ready for the interrupt (the console script imports only this module and
the package's ``__init__``, which is a docstring and a version).
"""

import os
import sys

INTERRUPTED = "upgrade-checklists: interrupted"  # crash.run_guarded prints the same line


def entry() -> None:
    try:
        from upgrade_checklists.cli import entry as run
    except KeyboardInterrupt:
        _interrupted()
    run()


def _interrupted() -> None:
    try:
        print(INTERRUPTED, file=sys.stderr, flush=True)
    except BaseException:  # noqa: BLE001 -- a second Ctrl-C, a closed stream: the exit code still says it
        pass
    os._exit(130)


if __name__ == "__main__":
    entry()
