"""Unexpected errors: one line on stderr, the traceback in a log file, exit 2.

Exit 1 means "findings"; a bug must never look like one. Any exception that escapes
a command (including ``RecursionError`` and ``MemoryError``) becomes::

    upgrade-checklists: internal error: <type>: <message> (details in <log path>)

with the full traceback in a new file in the temporary directory.
"""

from __future__ import annotations

import sys
from typing import Callable

EXIT = 2
_MAX_MESSAGE = 300


def run_guarded(command: Callable[[], int]) -> int:
    """``command()``, or exit code 2 with one line if it raises."""
    try:
        return command()
    except KeyboardInterrupt:
        print("upgrade-checklists: interrupted", file=sys.stderr)
        return 130
    except BaseException as exc:  # noqa: BLE001 -- the point of this module
        if isinstance(exc, SystemExit):
            raise
        return report(exc)


def report(exc: BaseException) -> int:
    log = _write_log(exc)
    text = " ".join(str(exc).split())
    if len(text) > _MAX_MESSAGE:
        text = text[: _MAX_MESSAGE - 3] + "..."
    where = f"details in {log}" if log else "no log could be written"
    print(f"upgrade-checklists: internal error: {type(exc).__name__}: {text} ({where})", file=sys.stderr)
    return EXIT


def _write_log(exc: BaseException) -> str | None:
    try:
        import tempfile

        from upgrade_checklists import __version__

        fd, path = tempfile.mkstemp(prefix="upgrade-checklists-crash-", suffix=".log")
        with open(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(f"upgrade-checklists {__version__}, Python {sys.version.split()[0]}\n")
            f.write(f"argv: {sys.argv!r}\n\n")
            import traceback  # only when something went wrong (not on every run's import path)

            traceback.print_exception(type(exc), exc, exc.__traceback__, file=f)
        return path
    except BaseException:  # noqa: BLE001 -- out of memory, full disk: the one line still goes out
        return None
