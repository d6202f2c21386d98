"""Draw the rich menu's image: ``python -m examples.day15.richmenu_image [--out PATH] [--font FILE]``.

Four large areas (the definition in ``local_agent/line/richmenu.py``: label, a hint line, the
bounds), big CJK type on strong colours with white text (contrast at least 4.5:1), a thin white
gap between areas. Needs Pillow (the dev extra) and a CJK font (Noto Sans CJK: ``apt-get install
fonts-noto-cjk``); the output is committed as ``examples/day15/assets/richmenu.png``, so installing the
menu needs neither. The PNG is written with a small palette to stay well under LINE's 1 MB.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from local_agent.line.richmenu import AREAS, HEIGHT, MAX_IMAGE_BYTES, WIDTH, Area, check_image

OUT = Path(__file__).resolve().parent / "assets" / "richmenu.png"
FONT_CANDIDATES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Bold.ttc",
)
# Background per area, each with white text at 4.5:1 or more.
COLOURS = ("#0B6E4F", "#1F4E9E", "#8A3B12", "#5B3A8C")
GAP = 12


def find_font(explicit: str | None) -> str:
    for candidate in [explicit] if explicit else list(FONT_CANDIDATES):
        if candidate and Path(candidate).is_file():
            return candidate
    raise SystemExit(
        "richmenu_image: no CJK font found; install one (apt-get install -y fonts-noto-cjk) or pass --font FILE"
    )


def draw(font_file: str) -> bytes:
    from io import BytesIO

    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    pen = ImageDraw.Draw(image)
    big = ImageFont.truetype(font_file, 250, index=_tc_index(font_file))
    small = ImageFont.truetype(font_file, 110, index=_tc_index(font_file))
    for area, colour in zip(AREAS, COLOURS, strict=True):
        _draw_area(pen, area, colour, big, small)
    out = BytesIO()
    image.quantize(colors=32).save(out, format="PNG", optimize=True)
    return out.getvalue()


def _tc_index(font_file: str) -> int:
    """The Traditional Chinese face of a Noto CJK collection (JP, KR, SC, TC, HK order)."""
    return 3 if font_file.endswith(".ttc") else 0


def _draw_area(pen: object, area: Area, colour: str, big: object, small: object) -> None:
    x0, y0 = area.x + GAP // 2, area.y + GAP // 2
    x1, y1 = area.x + area.width - GAP // 2, area.y + area.height - GAP // 2
    pen.rounded_rectangle((x0, y0, x1, y1), radius=48, fill=colour)  # type: ignore[attr-defined]
    centre_x = (x0 + x1) // 2
    pen.text((centre_x, (y0 + y1) // 2 - 70), area.label, font=big, fill="white", anchor="mm")  # type: ignore[attr-defined]
    pen.text((centre_x, (y0 + y1) // 2 + 170), area.hint, font=small, fill="white", anchor="mm")  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.richmenu_image", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--out", default=str(OUT), help=f"where to write the PNG (default {OUT.name} in assets/)"
    )
    parser.add_argument("--font", default=None, help="a CJK font file (default: Noto Sans CJK if installed)")
    args = parser.parse_args(argv)
    data = draw(find_font(args.font))
    check_image(data)  # the size LINE wants, under 1 MB
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_bytes(data)
    print(f"wrote {args.out}: {WIDTH}×{HEIGHT}, {len(data):,} bytes (LINE's limit {MAX_IMAGE_BYTES:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
