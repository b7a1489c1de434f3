"""Two cores for the cold path: independent jobs shared between this process and one
forked child, whose results come back through a pipe as JSON (plain data, never
pickle).

Used where a cold run spends its time (parsing sources, matching catalog snippets).
Without ``os.fork`` (Windows), with one usable CPU, with few jobs, or if the child
fails in any way (an exception, a crash, garbled output), everything is computed here:
the answer never depends on the child. ``UPGRADE_CHECKLISTS_JOBS=1`` turns it off.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_JOBS = 8  # below this, a fork costs more than it saves


def cpus() -> int:
    try:
        n = int(os.environ.get("UPGRADE_CHECKLISTS_JOBS", "0"))
    except ValueError:
        n = 0
    if n > 0:
        return n
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def share(jobs: Sequence[T], work: Callable[[T], R], to_plain: Callable[[R], Any], from_plain: Callable[[Any], R],
          weight: Callable[[T], int] | None = None, min_jobs: int = MIN_JOBS) -> list[R]:
    """``[work(j) for j in jobs]``, about half of them computed in a forked child.

    ``to_plain`` / ``from_plain`` carry a child's result through JSON; ``from_plain``
    raises ``ValueError`` (or ``TypeError``, ``KeyError``) for data it does not accept, and
    that job is then computed here. ``weight`` balances the halves (heaviest first,
    alternating); with fewer than ``min_jobs`` jobs, all run here."""
    if len(jobs) < max(2, min_jobs) or cpus() < 2 or not hasattr(os, "fork"):
        return [work(j) for j in jobs]
    order = sorted(range(len(jobs)), key=lambda i: -weight(jobs[i])) if weight else list(range(len(jobs)))
    theirs = order[1::2]
    mine = order[0::2]
    try:
        read_fd, write_fd = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
    except OSError:
        return [work(j) for j in jobs]
    if pid == 0:  # the child: compute its share, write it, leave without cleanup of the parent's state
        code = 0
        try:
            os.close(read_fd)
            out = [to_plain(work(jobs[i])) for i in theirs]
            data = json.dumps(out, separators=(",", ":")).encode("utf-8", "surrogatepass")
            with os.fdopen(write_fd, "wb") as f:
                f.write(data)
        except BaseException:  # noqa: BLE001 - the parent recomputes whatever is missing
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    results: dict[int, R] = {}
    try:
        for i in mine:
            results[i] = work(jobs[i])
    except BaseException:  # an error here, or ^C: the child's work is not wanted
        os.kill(pid, signal.SIGKILL)
        os.close(read_fd)
        os.waitpid(pid, 0)
        raise
    with os.fdopen(read_fd, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        try:
            plain = json.loads(data.decode("utf-8", "surrogatepass"))
        except (ValueError, UnicodeError, RecursionError):
            plain = None
        if type(plain) is list and len(plain) == len(theirs):
            for i, value in zip(theirs, plain):
                try:
                    results[i] = from_plain(value)
                except (ValueError, TypeError, KeyError):
                    pass
    return [results[i] if i in results else work(jobs[i]) for i in range(len(jobs))]
