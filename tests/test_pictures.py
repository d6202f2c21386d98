"""The README's pictures are drawn from real replies: what the drawing reads from a wire body, and
that the committed pictures are there and shown (drawing itself needs a CJK font; these tests do not)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

from examples.day15 import pictures
from local_agent.agent.tools import TurnTools
from local_agent.line.messages import to_wire
from local_agent.replies.render import render_tool_result
from local_agent.stores.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[1]


def test_the_drawing_reads_texts_sizes_buttons_and_quick_replies_from_the_wire_body():
    store = SqliteStore(":memory:")
    tools = TurnTools(preferences=store, audit=store, clock=lambda: 0.0, user_id="U1", scope_id="s")
    wire = to_wire(render_tool_result(tools.search_local_places("花壇鄉")))
    bubble = wire[-1]["contents"]["contents"][0]
    lines = pictures.bubble_lines(bubble)
    assert lines[0].text == "花壇和米素食" and lines[0].bold and lines[0].size == pictures.SIZES["xl"]
    assert all(line.size >= pictures.SIZES["md"] for line in lines)
    assert pictures.bubble_buttons(bubble) == [("地圖", "primary")]
    assert pictures.quick_reply_labels(wire) == ["這裡的活動", "換個鄉鎮", "記住我吃素"]


def test_the_committed_pictures_are_pngs_the_readme_shows():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "conversations.md").read_text(encoding="utf-8")
    shown = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", readme)
    shown += [p.replace("../", "") for p in re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", guide)]
    # the rich menu is shown as its own image: what LINE shows, with no developer strings drawn over it
    assert shown == ["docs/img/result-card.png", "examples/day15/assets/richmenu.png"]
    for path in shown:
        head = (ROOT / path).read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", head[16:24])
        assert width >= 1000 and height >= 600


def test_the_readme_s_menu_table_gives_each_area_s_label_and_what_the_chat_shows_in_order():
    from local_agent.line.richmenu import AREAS, definition

    readme = (ROOT / "docs" / "conversations.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\S+)（(\S+)） \| (\S+) \|", readme, flags=re.MULTILINE)
    shown = [a["action"]["displayText"] for a in definition()["areas"]]
    assert rows == [(a.label, a.hint, text) for a, text in zip(AREAS, shown, strict=True)]
