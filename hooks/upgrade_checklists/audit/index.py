"""Find and download a release's sdist on pip's configured package indexes, without pip.

``pip download`` of an sdist always runs the sdist's build backend (``setup.py``) to
prepare its metadata (pypa/pip#1884, #7325), so when a release has no wheel pip cannot
be used to fetch it without running upstream code. This module does only the part we
need: it asks pip for its effective configuration (``pip config list``: configuration
files and ``PIP_*`` environment variables alike), reads the simple repository API
(PEP 503 HTML / PEP 691 JSON) of each index and the ``find-links`` locations, picks the
archive named ``<name>-<version>`` and downloads it, checking the index's hash. Nothing
downloaded is run.
"""

from __future__ import annotations

import ast
import hashlib
import html.parser
import json
import os
import ssl
import subprocess
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename
from packaging.version import InvalidVersion, Version

from upgrade_checklists.core import proc

DEFAULT_INDEX = "https://pypi.org/simple"
MAX_DOWNLOAD = 1024 * 1024 * 1024
_SCHEMES = ("https", "http", "file")
_SDIST_SUFFIXES = (".tar.gz", ".zip")


class IndexLookupError(Exception):
    """No sdist of that release could be found or downloaded."""


@dataclass(frozen=True)
class PipSources:
    index_urls: list[str]
    find_links: list[str]
    cert: str | None = None


def pip_sources(timeout: int = 60) -> PipSources:
    """pip's effective indexes and find-links, as ``pip config list`` reports them
    (environment over the ``download`` section over ``global``)."""
    try:
        r = proc.run(proc.python_command("-m", "pip", "config", "list"), kind=proc.PYTHON, timeout=timeout, text=True)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise IndexLookupError(f"cannot read pip's configuration: {exc}") from None
    values: dict[str, dict[str, str]] = {}
    for line in r.stdout.splitlines():
        key, sep, raw = line.partition("=")
        if not sep or "." not in key:
            continue
        section, _, name = key.rpartition(".")
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str):
            values.setdefault(name, {})[section] = value

    def get(name: str) -> str | None:
        found = values.get(name, {})
        for section in (":env:", "download", "global"):
            if section in found:
                return found[section]
        return None

    def truthy(value: str | None) -> bool:
        return (value or "").strip().lower() in ("1", "true", "yes", "on")

    find_links = (get("find-links") or "").split()
    if truthy(get("no-index")):
        indexes: list[str] = []
    else:
        indexes = [get("index-url") or DEFAULT_INDEX, *(get("extra-index-url") or "").split()]
    return PipSources(indexes, find_links, get("cert"))


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.links.append(href)


def _open(url: str, timeout: int, cert: str | None, accept: str | None = None):
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in _SCHEMES:
        raise IndexLookupError(f"{url}: scheme {scheme!r} is not allowed")
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    ctx = ssl.create_default_context(cafile=cert) if scheme == "https" and cert and os.path.isfile(cert) else None
    return urllib.request.urlopen(req, timeout=timeout, context=ctx)  # noqa: S310 (scheme checked)


def _page_links(url: str, timeout: int, cert: str | None) -> list[str]:
    """Absolute file URLs (with their ``#sha256=`` fragments) listed by an index page."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file" and os.path.isdir(urllib.request.url2pathname(parts.path)):
        url = url.rstrip("/") + "/index.html"  # a local simple index, as pip reads it
    with _open(url, timeout, cert, "application/vnd.pypi.simple.v1+json, text/html;q=0.1") as resp:
        ctype = resp.headers.get("Content-Type", "") if resp.headers else ""
        body = resp.read(64 * 1024 * 1024)
        base = resp.geturl()
    if "json" in ctype:
        doc = json.loads(body)
        out = []
        for f in doc.get("files", []):
            if not isinstance(f, dict) or not isinstance(f.get("url"), str):
                continue
            sha = (f.get("hashes") or {}).get("sha256")
            out.append(urllib.parse.urljoin(base, f["url"]).split("#")[0] + (f"#sha256={sha}" if sha else ""))
        return out
    parser = _Links()
    parser.feed(body.decode("utf-8", errors="replace"))
    return [urllib.parse.urljoin(base, h) for h in parser.links]


def _matches(filename: str, package: str, version: str) -> bool:
    if not filename.lower().endswith(_SDIST_SUFFIXES):
        return False
    try:
        name, ver = parse_sdist_filename(filename)
        return canonicalize_name(name) == canonicalize_name(package) and ver == Version(version)
    except (InvalidSdistFilename, InvalidVersion):
        return False


def find_sdist(package: str, version: str, sources: PipSources, timeout: int) -> list[str]:
    """Candidate URLs (or local paths) of ``package==version``'s sdist, best first."""
    found: list[str] = []
    errors: list[str] = []
    for loc in sources.find_links:
        path = Path(loc[7:] if loc.startswith("file://") else loc)
        try:
            if "://" not in loc or loc.startswith("file://"):
                if path.is_dir():
                    found += [str(p) for p in sorted(path.iterdir()) if p.is_file() and _matches(p.name, package, version)]
                elif path.is_file() and _matches(path.name, package, version):
                    found.append(str(path))
                continue
            found += [u for u in _page_links(loc, timeout, sources.cert) if _matches(_filename(u), package, version)]
        except (OSError, ValueError, IndexLookupError) as exc:
            errors.append(f"{loc}: {exc}")
    for index in sources.index_urls:
        url = index.rstrip("/") + "/" + canonicalize_name(package) + "/"
        try:
            found += [u for u in _page_links(url, timeout, sources.cert) if _matches(_filename(u), package, version)]
        except (OSError, ValueError, IndexLookupError) as exc:
            errors.append(f"{url}: {getattr(exc, 'reason', exc)}")
    if not found:
        where = ", ".join(sources.find_links + sources.index_urls) or "no index (PIP_NO_INDEX) and no find-links"
        detail = f" ({'; '.join(errors)})" if errors else ""
        raise IndexLookupError(f"no sdist of {package}=={version} in {where}{detail}")
    return found


def _filename(url: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])


def download(url_or_path: str, dest_dir: Path, timeout: int, cert: str | None = None) -> Path:
    """Copy the archive into ``dest_dir``, checking a ``#sha256=`` fragment when the index gave one."""
    name = _filename(url_or_path) if "://" in url_or_path else Path(url_or_path).name
    if "/" in name or name in ("", ".", ".."):
        raise IndexLookupError(f"{url_or_path}: not a file name")
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / name
    frag = urllib.parse.urlsplit(url_or_path).fragment if "://" in url_or_path else ""
    want = urllib.parse.parse_qs(frag).get("sha256", [None])[0]
    digest = hashlib.sha256()
    size = 0
    src = _open(url_or_path.split("#")[0], timeout, cert) if "://" in url_or_path else open(url_or_path, "rb")
    with src, open(dest, "wb") as out:
        while True:
            chunk = src.read(1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_DOWNLOAD:
                raise IndexLookupError(f"{name} is larger than {MAX_DOWNLOAD >> 20} MB")
            digest.update(chunk)
            out.write(chunk)
    if want and digest.hexdigest() != want.lower():
        raise IndexLookupError(f"{name}: sha256 {digest.hexdigest()} does not match the index's {want[:64]!r}")
    return dest
