"""Two cores for the cold path: independent jobs shared between this process and one
forked child, each taking the next job when it is free, the child's results coming
back through a pipe as JSON (plain data, never pickle).

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


#: the most tickets (job ranges) put in the pipe up front: 4 bytes each, well within any
#: pipe's buffer, so that filling it never blocks
MAX_TICKETS = 2048


def share(jobs: Sequence[T], work: Callable[[T], R], to_plain: Callable[[R], Any], from_plain: Callable[[Any], R],
          weight: Callable[[T], int] | None = None, min_jobs: int = MIN_JOBS) -> list[R]:
    """``[work(j) for j in jobs]``, part of them computed in a forked child.

    ``to_plain`` / ``from_plain`` carry a child's result through JSON; ``from_plain``
    raises ``ValueError`` (or ``TypeError``, ``KeyError``) for data it does not accept, and
    that job is then computed here. Jobs go heaviest first by ``weight``: this process
    takes the first, the child the second, and each then takes the next from a shared
    pipe of tickets as soon as it is free (a weight is a guess: whoever finishes early
    does more). With fewer than ``min_jobs`` jobs, all run here."""
    if len(jobs) < max(2, min_jobs) or cpus() < 2 or not hasattr(os, "fork"):
        return [work(j) for j in jobs]
    order = sorted(range(len(jobs)), key=lambda i: -weight(jobs[i])) if weight else list(range(len(jobs)))
    rest = order[2:]
    size = max(1, -(-len(rest) // MAX_TICKETS))  # jobs per ticket: one each, unless there are very many
    tickets = [rest[k : k + size] for k in range(0, len(rest), size)]
    try:
        tickets_r, tickets_w = os.pipe()
        try:
            os.write(tickets_w, b"".join(k.to_bytes(4, "little") for k in range(len(tickets))))
        finally:
            os.close(tickets_w)  # drained, the pipe reads as empty: no more work
        read_fd, write_fd = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
    except OSError:
        return [work(j) for j in jobs]

    def mine(first: int):
        """The indices this process computes: ``first``, then a ticket at a time."""
        yield first
        while True:
            raw = os.read(tickets_r, 4)
            if len(raw) != 4:
                return
            yield from tickets[int.from_bytes(raw, "little")]

    if pid == 0:  # the child: compute its share, write it, leave without cleanup of the parent's state
        code = 0
        try:
            os.close(read_fd)
            out = [[i, to_plain(work(jobs[i]))] for i in mine(order[1])]
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
        for i in mine(order[0]):
            results[i] = work(jobs[i])
    except BaseException:  # an error here, or ^C: the child's work is not wanted
        os.kill(pid, signal.SIGKILL)
        os.close(read_fd)
        os.close(tickets_r)
        os.waitpid(pid, 0)
        raise
    os.close(tickets_r)
    with os.fdopen(read_fd, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        try:
            plain = json.loads(data.decode("utf-8", "surrogatepass"))
        except (ValueError, UnicodeError, RecursionError):
            plain = None
        for item in plain if type(plain) is list else []:
            if type(item) is not list or len(item) != 2 or type(item[0]) is not int or not 0 <= item[0] < len(jobs):
                continue
            i, value = item
            if i in results:
                continue  # never both: a ticket is read once
            try:
                results[i] = from_plain(value)
            except (ValueError, TypeError, KeyError):
                pass
    return [results[i] if i in results else work(jobs[i]) for i in range(len(jobs))]
