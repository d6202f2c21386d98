"""Keyed fingerprints of user text: what snapshots and audit rows keep instead of the words.

An unsalted SHA-256 of a short message (a phone number, 「我吃素」) can be reversed by trying
candidates, so fingerprints are HMAC-SHA-256 under a secret key. The service derives the key
from the channel secret (``configure_key``); otherwise each process draws a random one, so a
fingerprint can still be compared within a run but never reversed from the stored row alone.
Stdlib only.
"""

from __future__ import annotations

import hashlib
import hmac
import os

_key = os.urandom(32)


def derive_key(secret: str | bytes, purpose: str) -> bytes:
    """A 32-byte key for one ``purpose``, derived from a deployment secret (never stored).
    Different purposes give unrelated keys (the consent token uses its own)."""
    raw = secret.encode("utf-8") if isinstance(secret, str) else secret
    return hmac.new(raw, purpose.encode("utf-8"), hashlib.sha256).digest()


def configure_key(secret: str | bytes, *, purpose: str = "local/fingerprint/v1") -> None:
    """Derive the fingerprint key from a deployment secret (never stored)."""
    global _key
    _key = derive_key(secret, purpose)


def digest(text: str, length: int = 64) -> str:
    return hmac.new(_key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:length]


def text_fingerprint(text: str) -> dict[str, object]:
    return {"hmac_sha256": digest(text), "length": len(text)}


def keyword_token(keyword: str) -> str:
    return f"#hmac:{digest(keyword, 16)}/len={len(keyword)}"
