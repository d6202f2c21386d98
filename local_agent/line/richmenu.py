"""LOCAL's rich menu: the definition LINE gets, and the checks its image must pass.

Four big areas on a 2500×1686 image (2×2, each 1250×843), each a postback the service answers
without typing (``replies/navigation.py``):

    找美食    → the township picker for places      找活動   → the township picker for events
    我的偏好  → what is kept, with its buttons       使用說明 → the help text

The image is ``examples/day15/assets/richmenu.png`` (made by ``python -m examples.day15.richmenu_image``).
LINE accepts a JPEG or PNG of exactly the menu's size, at most 1 MB (:data:`MAX_IMAGE_BYTES`).
Standard library only: the definition is plain JSON, as the Messaging API takes it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from local_agent.replies import navigation as nav

NAME = "LOCAL 主選單"
CHAT_BAR_TEXT = "選單"  # at most 14 characters
WIDTH, HEIGHT = 2500, 1686  # LINE's large size (2500×843 is the small one)
MAX_IMAGE_BYTES = 1024 * 1024  # LINE: at most 1 MB
IMAGE_TYPES = {"image/png", "image/jpeg"}


@dataclass(frozen=True)
class Area:
    """One tappable area: its label on the image, what the chat shows when tapped, the postback."""

    label: str
    hint: str  # the smaller line under the label on the image
    data: str
    x: int
    y: int
    width: int = WIDTH // 2
    height: int = HEIGHT // 2


AREAS: tuple[Area, ...] = (
    Area("找美食", "選鄉鎮找店家", nav.pick("places"), 0, 0),
    Area("找活動", "選鄉鎮查活動", nav.pick("events"), WIDTH // 2, 0),
    Area("我的偏好", "看我記住了什麼", nav.PREFERENCE, 0, HEIGHT // 2),
    Area("使用說明", "怎麼問、能做什麼", nav.HELP, WIDTH // 2, HEIGHT // 2),
)


def definition() -> dict[str, Any]:
    """The rich menu object the Messaging API creates (``POST /v2/bot/richmenu``)."""
    return {
        "size": {"width": WIDTH, "height": HEIGHT},
        "selected": True,
        "name": NAME,
        "chatBarText": CHAT_BAR_TEXT,
        "areas": [
            {
                "bounds": {"x": a.x, "y": a.y, "width": a.width, "height": a.height},
                "action": {"type": "postback", "label": a.label, "data": a.data, "displayText": a.label},
            }
            for a in AREAS
        ],
    }


class ImageError(ValueError):
    """An image LINE would refuse for this menu."""


def image_type_and_size(data: bytes) -> tuple[str, int, int]:
    """``(content type, width, height)`` of a PNG or JPEG, read from its header; ImageError else."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return "image/png", width, height
    if data[:2] == b"\xff\xd8":
        return "image/jpeg", *_jpeg_size(data)
    raise ImageError("not a PNG or JPEG image")


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            break
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):  # start of frame: height, width
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    raise ImageError("a JPEG without a readable size")


def check_image(data: bytes, width: int = WIDTH, height: int = HEIGHT) -> str:
    """The image's content type when LINE would take it for this menu; ImageError saying why not."""
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(f"the image is {len(data):,} bytes; LINE takes at most {MAX_IMAGE_BYTES:,} (1 MB)")
    kind, w, h = image_type_and_size(data)
    if (w, h) != (width, height):
        raise ImageError(f"the image is {w}×{h}; this menu needs exactly {width}×{height}")
    return kind


__all__ = [
    "AREAS",
    "CHAT_BAR_TEXT",
    "HEIGHT",
    "MAX_IMAGE_BYTES",
    "NAME",
    "WIDTH",
    "Area",
    "ImageError",
    "check_image",
    "definition",
    "image_type_and_size",
]
