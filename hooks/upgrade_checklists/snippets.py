"""Where a catalog snippet occurs in a source file, remembered in the scan cache by file stat."""

from __future__ import annotations

import bisect
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from upgrade_checklists.cache import ScanCache

_ELISION = re.compile(r"^\s*(?:#\s*)?(?:\.\.\.|\u2026)\s*$")


class SquashedText:
    """A file's text with all whitespace removed, mapped back to line numbers."""

    def __init__(self, text: str) -> None:
        parts, starts, pos = [], [], 0
        for line in text.split("\n"):
            s = "".join(line.split())
            starts.append(pos)
            parts.append(s)
            pos += len(s)
        self.text = "".join(parts)
        self.starts = starts
        self.line_count = len(starts) - (1 if text.endswith("\n") else 0)

    def line_at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) if offset < len(self.text) else len(self.starts)

    def find(self, snippet: str) -> list[tuple[int, int]]:
        """(start line, end line) of each place the snippet occurs."""
        chunks, cur = [], []
        for line in snippet.split("\n"):
            if _ELISION.match(line):
                if cur:
                    chunks.append("".join(cur))
                cur = []
            else:
                cur.append("".join(line.split()))
        if cur:
            chunks.append("".join(cur))
        chunks = [c for c in chunks if c]
        if not chunks:
            return []
        out = []
        start = self.text.find(chunks[0])
        while start != -1:
            end = start + len(chunks[0])
            ok = True
            for c in chunks[1:]:
                at = self.text.find(c, end)
                if at == -1:
                    ok = False
                    break
                end = at + len(c)
            if ok:
                out.append((self.line_at(start), self.line_at(end - 1)))
            start = self.text.find(chunks[0], start + 1)
        return out


@dataclass
class _Source:
    rel: str
    st: os.stat_result
    answers: dict  # snippet -> places, None -> line count
    text: SquashedText | None = None  # read only when an answer is not cached


class Snippets:
    """Where snippets occur in source files (and how long the files are), remembered
    in the scan cache by each file's stat, so that a warm run reads no source file."""

    def __init__(self, root: Path, cache: ScanCache) -> None:
        self.root = root
        self.cache = cache
        self.files: dict[str, _Source | None] = {}

    def _answer(self, rel: str, key: str | None, compute):
        if rel not in self.files:
            try:
                st = os.stat(os.path.join(self.root, rel))
            except OSError:
                st = None
            if st is None or not stat.S_ISREG(st.st_mode):
                self.files[rel] = None
            else:
                hit, known = self.cache.get("snippets:" + rel, st)
                self.files[rel] = _Source(rel, st, _answers_from_plain(known) if hit else {})
        src = self.files[rel]
        if src is None:
            return None  # the file does not exist
        if key not in src.answers:
            if src.text is None:
                src.text = SquashedText((self.root / rel).read_text(encoding="utf-8", errors="replace"))
            src.answers[key] = compute(src.text)
        return src.answers[key]

    def places(self, rel: str, snippet: str) -> list[tuple[int, int]] | None:
        """(start, end) lines of each occurrence; None when the file does not exist."""
        return self._answer(rel, snippet, lambda text: text.find(snippet))

    def line_count(self, rel: str) -> int | None:
        return self._answer(rel, None, lambda text: text.line_count)

    def save(self) -> None:
        for src in self.files.values():
            if src is not None and src.text is not None:  # something new was computed
                self.cache.put("snippets:" + src.rel, src.st, [[k, v] for k, v in src.answers.items()])


def _answers_from_plain(data: object) -> dict:
    """Cached answers: ``[[snippet, [[start, end], ...]], [None, line count], ...]``; {} if not that."""
    out: dict = {}
    if type(data) is not list:
        return out
    for item in data:
        if type(item) is not list or len(item) != 2:
            return {}
        key, value = item
        if key is None and type(value) is int:
            out[None] = value
        elif type(key) is str and type(value) is list and all(
                type(p) is list and len(p) == 2 and type(p[0]) is int and type(p[1]) is int for p in value):
            out[key] = [(a, b) for a, b in value]
        else:
            return {}
    return out
