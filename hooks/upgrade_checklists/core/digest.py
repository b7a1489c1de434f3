"""blake2b, the digest of the check's cache keys, without importing :mod:`hashlib`:
hashlib loads OpenSSL's bindings first (3-5 ms of a 100 ms warm run) for algorithms the
check never uses. ``_blake2`` is the module hashlib itself takes blake2b from."""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # an interpreter without it (not CPython)
    from hashlib import blake2b

__all__ = ["blake2b"]
