"""Links a card's buttons open: a Google Maps search and a phone call.

The map link is a Maps URL as Google documents it ("Maps URLs", the search action):
``https://www.google.com/maps/search/?api=1&query=<URL-encoded text>``; it opens the Maps app or
the browser on any phone, needs no API key and carries no coordinates we do not have. The query is
the listing's name, then its address (or venue), then the county and township, so a short address
hint such as 「花壇火車站附近」 still finds the right town. Every character is percent-encoded
(``&``, ``#``, ``?``, ``%`` and spaces included), so no listing text can end the query early or add
a parameter. LINE refuses a URI action over 1000 characters: parts are dropped from the end until
the link fits (a CJK character is 9 characters once encoded).

A call link is ``tel:`` with the number's digits (and a leading ``+``), from a phone number the
listings loader has already checked; anything else gives no link (no button).
"""

from __future__ import annotations

import re
from urllib.parse import quote

from local_agent.context.townships import COUNTY

MAPS_SEARCH = "https://www.google.com/maps/search/?api=1&query="
MAX_URI = 1000  # LINE's limit for a URI action's uri
_TEL = re.compile(r"^\+?[0-9]{8,15}$")


def maps_search_url(*parts: str) -> str | None:
    """A Google Maps search for the non-empty ``parts`` joined by spaces, within ``MAX_URI``;
    None when not even the first part fits (or there is none)."""
    words = [p.strip() for p in parts if p and p.strip()]
    while words:
        url = MAPS_SEARCH + quote(" ".join(words), safe="")
        if len(url) <= MAX_URI:
            return url
        words.pop()
    return None


def place_map_url(name: str, address: str, township: str) -> str | None:
    """The map link of a place or an event venue: name, address, then 彰化縣 and the township."""
    area = f"{COUNTY}{township}" if township else ""
    if address and township and township in address:
        area = ""  # 「花壇鄉茉莉花田一帶」 names its township already
    return maps_search_url(name, address, area)


def tel_uri(phone: str) -> str | None:
    """``tel:`` + the digits of ``phone`` (keeping a leading ``+``), or None if it is no number."""
    text = (phone or "").strip()
    if text.lstrip("+").strip("0123456789-() "):
        return None  # anything but digits, - ( ) and spaces after a leading +
    digits = ("+" if text.startswith("+") else "") + "".join(ch for ch in text if ch.isdigit())
    return f"tel:{digits}" if _TEL.match(digits) else None


__all__ = ["MAPS_SEARCH", "MAX_URI", "maps_search_url", "place_map_url", "tel_uri"]
