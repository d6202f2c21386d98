"""The README's result picture, drawn from what the service sends: ``python -m examples.day15.pictures [--out DIR]``.

``result-card.png``: one real turn (「花壇有什麼好吃的？」 in a 1:1 chat) through the real app and the
fake LINE API (``ReplayDriver``); the reply's wire messages — the text, the Flex carousel's first two
bubbles with their texts at their sizes and colours and their footer buttons, the quick replies —
are drawn as LINE lays them out, roughly. Nothing is typed in by hand: change a card and the picture
follows. Needs Pillow and a CJK font (as ``richmenu_image``). The README shows the rich menu as its own
image (``examples/day15/assets/richmenu.png``, what LINE shows), with the areas' actions in a table.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

from examples.day15.richmenu_image import find_font

OUT = Path(__file__).resolve().parents[2] / "docs" / "img"
QUESTION = "花壇有什麼好吃的？"
SIZES = {"xxs": 20, "xs": 22, "sm": 25, "md": 29, "lg": 33, "xl": 38, "xxl": 44}  # points at 2x
GREEN, GREY, INK = "#06C755", "#E8E8E8", "#111111"
BUBBLE_W, PAD = 520, 28


@dataclass(frozen=True)
class Line:
    """A text of a bubble as LINE would set it: size in pixels, bold or not, colour."""

    text: str
    size: int
    bold: bool
    color: str


def bubble_lines(bubble: dict[str, Any]) -> list[Line]:
    """The texts of a bubble's body, in order, from its Flex JSON."""
    out: list[Line] = []
    for part in (bubble.get("body") or {}).get("contents") or []:
        if part.get("type") == "text":
            size = SIZES.get(str(part.get("size", "md")), SIZES["md"])
            out.append(
                Line(str(part["text"]), size, part.get("weight") == "bold", str(part.get("color") or INK))
            )
    return out


def bubble_buttons(bubble: dict[str, Any]) -> list[tuple[str, str]]:
    """``(label, style)`` of a bubble's footer buttons."""
    footer = (bubble.get("footer") or {}).get("contents") or []
    return [
        (str(b["action"]["label"]), str(b.get("style", "link"))) for b in footer if b.get("type") == "button"
    ]


def quick_reply_labels(messages: list[dict[str, Any]]) -> list[str]:
    items = (messages[-1].get("quickReply") or {}).get("items") or [] if messages else []
    return [str(i["action"]["label"]) for i in items]


class Canvas:
    """Pillow drawing with the CJK font at any size (imported only when drawing)."""

    def __init__(self, font_file: str, width: int, height: int) -> None:
        from PIL import Image, ImageDraw

        self.font_file = font_file
        self.image = Image.new("RGB", (width, height), "#8CABD9")  # LINE's chat background blue
        self.pen = ImageDraw.Draw(self.image)

    def font(self, size: int, bold: bool = False) -> Any:
        from PIL import ImageFont

        regular = self.font_file.replace("-Bold", "-Regular")
        chosen = regular.replace("-Regular", "-Bold") if bold else regular
        return ImageFont.truetype(chosen if Path(chosen).is_file() else self.font_file, size, index=3)

    def wrap(self, text: str, size: int, bold: bool, width: int) -> list[str]:
        font, rows = self.font(size, bold), []
        for paragraph in text.split("\n"):
            row = ""
            for ch in paragraph:
                if font.getlength(row + ch) > width and row:
                    rows.append(row)
                    row = ""
                row += ch
            rows.append(row)
        return rows

    def text_block(self, x: int, y: int, line: Line, width: int) -> int:
        for row in self.wrap(line.text, line.size, line.bold, width):
            self.pen.text((x, y), row, font=self.font(line.size, line.bold), fill=line.color)
            y += int(line.size * 1.45)
        return y

    def png(self) -> bytes:
        out = BytesIO()
        self.image.save(out, format="PNG", optimize=True)
        return out.getvalue()


def draw_bubble(c: Canvas, bubble: dict[str, Any], x: int, y: int) -> int:
    lines, buttons = bubble_lines(bubble), bubble_buttons(bubble)
    height = PAD * 2 + sum(
        len(c.wrap(t.text, t.size, t.bold, BUBBLE_W - 2 * PAD)) * int(t.size * 1.45) + 10 for t in lines
    )
    height += len(buttons) * 92 - (10 if lines else 0)
    c.pen.rounded_rectangle((x, y, x + BUBBLE_W, y + height), radius=24, fill="white")
    top = y + PAD
    for line in lines:
        top = c.text_block(x + PAD, top, line, BUBBLE_W - 2 * PAD) + 10
    for label, style in buttons:
        fill, ink = (GREEN, "white") if style == "primary" else (GREY, INK)
        c.pen.rounded_rectangle((x + PAD, top + 8, x + BUBBLE_W - PAD, top + 80), radius=14, fill=fill)
        c.pen.text((x + BUBBLE_W // 2, top + 44), label, font=c.font(30, True), fill=ink, anchor="mm")
        top += 92
    return y + height


def draw_result(messages: list[dict[str, Any]], font_file: str) -> bytes:
    c = Canvas(font_file, 1160, 1500)
    y = 30
    for message in messages:
        if message["type"] == "text":
            rows = c.wrap(message["text"], 29, False, 900)
            c.pen.rounded_rectangle((30, y, 990, y + 40 + len(rows) * 42), radius=24, fill="white")
            c.text_block(54, y + 20, Line(message["text"], 29, False, INK), 900)
            y += 70 + len(rows) * 42
        elif message["type"] == "flex":
            bubbles = message["contents"].get("contents") or [message["contents"]]
            bottom = max(draw_bubble(c, b, 30 + i * (BUBBLE_W + 24), y) for i, b in enumerate(bubbles[:2]))
            y = bottom + 30
    x = 30
    for label in quick_reply_labels(messages):
        width = int(c.font(28).getlength(label)) + 60
        c.pen.rounded_rectangle((x, y, x + width, y + 64), radius=32, fill="white", outline=GREEN, width=3)
        c.pen.text((x + width // 2, y + 32), label, font=c.font(28), fill=GREEN, anchor="mm")
        x += width + 16
    c.image = c.image.crop((0, 0, 1160, y + 94))
    return c.png()


async def real_reply() -> list[dict[str, Any]]:
    from examples.day15.replay import ReplayDriver

    async with ReplayDriver.open(env={}) as driver:
        result = await driver.send_text("U" + "1" * 32, QUESTION)
    return result.messages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.pictures", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", default=str(OUT), help="folder for result-card.png")
    parser.add_argument("--font", default=None, help="a CJK font file (default: Noto Sans CJK if installed)")
    args = parser.parse_args(argv)
    font = find_font(args.font)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "result-card.png").write_bytes(draw_result(asyncio.run(real_reply()), font))
    print(f"wrote {out / 'result-card.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
