"""The terminal chat, driven through piped stdin in a subprocess (one session, several checks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def run_chat(lines: list[str], *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    for key in (
        "LOCAL_SQLITE_PATH",
        "LOCAL_INPUT_BUDGET",
        "LINE_CHANNEL_SECRET",
        "LINE_CHANNEL_ACCESS_TOKEN",
        "LINE_API_HOST",
    ):
        env.pop(key, None)
    env.update(LOCAL_STORE="sqlite", LOCAL_MODEL="offline", PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "examples.day15.chat", *args],
        cwd=ROOT,
        env=env,
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def session() -> str:
    proc = run_chat(
        [
            "花壇有什麼店推薦吃吃看？",
            "記住我吃素",
            "1",
            "/debug",
            "花壇有什麼好吃的？",
            "/quit",
            "這一行在 /quit 之後，不會送出",
        ]
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_food_in_huatan_shows_readable_cards(session: str) -> None:
    first = session.split("你> 記住我吃素")[0]
    assert "花壇鄉找到 4 家店家" in first
    assert "[卡片 4 張]" in first
    assert "┌ 花壇和米素食" in first  # title
    assert "│ 花壇鄉・素食" in first  # subtitle
    assert "│ 花壇火車站附近" in first  # a line
    assert '"type"' not in first  # no Flex JSON


def test_numbered_quick_reply_taps_it(session: str) -> None:
    assert "選項：1) 同意  2) 不同意" in session
    assert "（點選「同意」）你> 同意" in session
    assert "已記住「素食」" in session
    # the consented preference applies to the next search
    after_consent = session.split("已記住「素食」")[1]
    assert "已套用您同意記住的偏好" in after_consent
    assert "找到 2 家店家" in after_consent


def test_debug_shows_model_request_and_tool_calls(session: str) -> None:
    after = session.split("[debug] 開")[1]
    assert "[debug]   user: 花壇有什麼好吃的？" in after
    assert '"preference_origin": "consented_memory"' in after
    assert '"memory_revision": 1' in after


def test_quit_stops_reading(session: str) -> None:
    assert "不會送出" not in session
    assert session.rstrip().endswith("再見！")


def test_the_rich_menu_can_be_tapped_in_the_chat() -> None:
    proc = run_chat(["/menu", "/menu 1", "/menu 9", "/menu 4", "/menu", "3", "3"])
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "選單：1) 找美食  2) 找活動  3) 我的偏好  4) 使用說明" in out
    # a bare number right after the list taps that area; the next bare number is a message again
    assert out.count("（點選選單「我的偏好」）你> 我的偏好") == 1
    assert "（點選選單「找美食」）你> 找美食" in out and "請先選區域" in out and "彰化市周邊（" in out
    assert "用法：/menu 1 到 4" in out
    assert "（點選選單「使用說明」）你> 使用說明" in out and "花壇有什麼好吃的" in out


def test_a_card_shows_its_buttons_as_lines(session: str) -> None:
    assert "［地圖］ https://www.google.com/maps/search/?api=1&query=" in session


def test_in_a_group_only_lines_that_mention_the_bot_are_answered() -> None:
    proc = run_chat(["員林有什麼好吃的？", "@LOCAL 員林有什麼好吃的？"], "--user", "U9", "--group", "G7")
    assert proc.returncode == 0, proc.stderr
    assert "群組 G7（U9" in proc.stdout
    assert proc.stdout.count("機器人不回") == 1
    assert proc.stdout.count("員林市找到") == 1
    assert proc.stdout.rstrip().endswith("再見！")
