"""One LINE webhook event as LOCAL acts on it: the kinds, the scope, the ids (no SDK types).

``line/events.py`` makes an ``InboundEvent`` from the SDK's event; everything after the webhook
(the inbox, the queue, the turn) takes this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from local_agent.context.journal import ScopeKey

# The webhook events LOCAL acts on (everything else is acknowledged and ignored); ``events.py``
# makes them from the SDK's events.
EventKind = Literal["text", "postback", "follow", "unfollow", "join", "media"]
# A non-text message in a 1:1 chat (``media`` events carry it in ``data``).
MediaKind = Literal["audio", "sticker", "image", "video", "file", "location"]
MEDIA_KINDS: tuple[MediaKind, ...] = get_args(MediaKind)
# The user id of a group/room scope whose event carried no ``userId``. LINE user ids are
# ``U`` + 32 hex digits, so this can never be a person's id.
ANONYMOUS_USER = "-"
SHARED_SOURCES = ("group", "room")


@dataclass(frozen=True)
class InboundEvent:
    """What the dispatcher needs of one webhook event (no SDK types past this point)."""

    kind: EventKind
    scope: ScopeKey
    reply_to: str  # user, group or room id to push to
    event_id: str | None
    reply_token: str | None
    received_at: float
    text: str = ""
    data: str = ""
    quote_token: str | None = None  # a text message's ``quoteToken``: a late answer quotes it

    @property
    def anonymous(self) -> bool:
        return self.scope.user_id == ANONYMOUS_USER

    @property
    def shared(self) -> bool:
        """A group or room: other people read the replies."""
        return self.scope.source_type in SHARED_SOURCES


__all__ = ["ANONYMOUS_USER", "MEDIA_KINDS", "SHARED_SOURCES", "EventKind", "InboundEvent", "MediaKind"]
