"""The consent token: postback data that binds a consent button to a person, a chat, a moment
and a preference revision.

    local:consent:v2:<yes|no>:<diet>:<revision>:<expires>:<mac>

``mac`` is HMAC-SHA-256 (first 16 bytes, base64url) under a key derived from the channel secret
(``fingerprint.derive_key``, purpose ``local/consent-token/v2``) over the answer, the diet, the
revision, the expiry *and the scope it was offered in* (destination, chat and asker's user id).
The user id is not written into the data (anyone who taps sees it): the tap is checked by
recomputing the MAC for the tapper's own scope, so a tap by anyone else, in another chat, with
edited fields or a truncated token fails the MAC. A valid MAC is then refused when the token has
expired or when the preference revision moved since it was offered (a forget, an earlier tap
of the same button, an unfollow): each button works at most once. Stdlib only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import os
import re
from dataclasses import dataclass

from local_agent.context.journal import ScopeKey
from local_agent.fingerprint import derive_key

PREFIX = "local:consent:"
VERSION = "v2"
PURPOSE = "local/consent-token/v2"
TOKEN_TTL_SECONDS = 600.0
_TOKEN = re.compile(
    r"^local:consent:v2:(yes|no):([a-z_]{1,20}):(0|[1-9][0-9]{0,11}):([1-9][0-9]{0,11}):([A-Za-z0-9_-]{22})$"
)

# Why a tap changed nothing (``TapCheck.reason``).
MALFORMED = "malformed"  # not our token shape (truncated, the old unsigned form, garbage)
FORGED = "forged"  # the MAC does not match this tapper's scope: someone else's button, or edited
EXPIRED = "expired"
STALE = "stale"  # the preference revision moved since the button was offered


@dataclass(frozen=True)
class TapCheck:
    agree: bool = False
    dietary_type: str = ""
    reason: str | None = None  # None: valid

    @property
    def ok(self) -> bool:
        return self.reason is None


def is_consent_data(data: str) -> bool:
    """Postback data in our consent namespace (valid or not): ours to answer."""
    return isinstance(data, str) and data.startswith(PREFIX)


class ConsentTokens:
    """Issues and checks consent tokens. ``secret`` is the channel secret; without one each
    instance draws a random key (tokens then die with the process)."""

    def __init__(self, secret: str | bytes | None = None, *, ttl: float = TOKEN_TTL_SECONDS) -> None:
        self._key = derive_key(secret, PURPOSE) if secret else os.urandom(32)
        self.ttl = ttl

    def _mac(self, scope: ScopeKey, answer: str, diet: str, revision: int, expires: int) -> str:
        message = "\x1f".join(
            (
                VERSION,
                answer,
                diet,
                str(revision),
                str(expires),
                scope.destination,
                scope.source_type,
                scope.source_id,
                scope.user_id,
            )
        )
        raw = hmac.new(self._key, message.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")

    def issue(self, scope: ScopeKey, *, agree: bool, dietary_type: str, revision: int, now: float) -> str:
        answer = "yes" if agree else "no"
        expires = math.ceil(now + self.ttl)  # whole seconds; valid while now <= expires
        mac = self._mac(scope, answer, dietary_type, revision, expires)
        return f"{PREFIX}{VERSION}:{answer}:{dietary_type}:{revision}:{expires}:{mac}"

    def check(self, scope: ScopeKey, data: str, *, revision: int, now: float) -> TapCheck:
        """Whether ``data``, tapped by ``scope``'s user in ``scope``, may act at ``revision``."""
        match = _TOKEN.match(data or "")
        if not match:
            return TapCheck(reason=MALFORMED)
        answer, diet, offered, expires, mac = match.groups()
        expected = self._mac(scope, answer, diet, int(offered), int(expires))
        if not hmac.compare_digest(expected, mac):
            return TapCheck(reason=FORGED)
        if now > int(expires):
            return TapCheck(reason=EXPIRED)
        if int(offered) != revision:
            return TapCheck(reason=STALE)
        return TapCheck(agree=answer == "yes", dietary_type=diet)
