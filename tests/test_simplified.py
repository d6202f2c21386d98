"""Simplified → traditional in the reading form: OpenCC's s2twp for a sentence written in simplified
characters, the vocabulary's own table for stray simplified characters in a traditional sentence, and
the same table alone where OpenCC is not installed (the bare-``python3`` demo)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from local_agent.language import intents
from local_agent.language.text import (
    opencc_converters,
    reading_form,
    reading_form_with,
    to_traditional,
    traditional,
)
from local_agent.language.words import SIMPLIFIED_TO_TRADITIONAL

ROOT = Path(__file__).resolve().parents[1]
HAND_MAP = str.maketrans(SIMPLIFIED_TO_TRADITIONAL)


def test_opencc_is_installed_with_the_project():
    assert opencc_converters() is not None


@pytest.mark.parametrize(
    "simplified,expected",
    [
        ("鹿港这周末有什么活动", "鹿港這週末有什麼活動"),
        ("帮我记住我吃素", "幫我記住我吃素"),
        ("删除我的饮食偏好", "刪除我的飲食偏好"),
        ("后天员林有没有市集", "後天員林有沒有市集"),  # characters the table never had (员, 没, 后)
        ("这个软件的信息", "這個軟件的信息"),  # characters only: the words stay as written (no 軟體, 資訊)
        (
            "查看我的偏好",
            "查看我的偏好",
        ),  # shared characters: read as written (s2twp's phrase 檢視 not taken)
    ],
)
def test_a_simplified_sentence_becomes_taiwan_traditional(simplified, expected):
    assert traditional(simplified) == expected


@pytest.mark.parametrize(
    "text",
    [
        "星期五溪州有什麼活動",  # s2twp alone would write 谿州
        "請不要保存我的飲食資料",  # … 儲存
        "我要取消你記錄我飲食的權限",  # … 許可權
        "端午連假鹿港有划龍舟嗎",  # … 劃龍舟
        "台中有什麼好吃的",  # … 臺中
    ],
)
def test_a_traditional_sentence_is_left_as_it_is(text):
    assert traditional(text) == text
    assert reading_form(text) == reading_form_with(text, None)


def test_stray_simplified_characters_in_a_traditional_sentence_use_the_table():
    assert traditional("请忘記我吃素") == "請忘記我吃素"
    assert traditional("请忘記我吃素") == "请忘記我吃素".translate(HAND_MAP)


@pytest.mark.parametrize("text", ["删除我的偏好", "请忘记我吃素", "鹿港这周末有什么活动", "台中", ""])
def test_without_opencc_the_table_is_the_whole_conversion(text):
    assert to_traditional(text, None) == text.translate(HAND_MAP)


@pytest.mark.parametrize(
    "traditional_text,simplified",
    [
        ("把我吃素的資料刪掉", "把我吃素的资料删掉"),
        ("不要再記我吃素了", "不要再记我吃素了"),
        ("員林這禮拜有什麼活動", "员林这礼拜有什么活动"),
        ("你記得我吃什麼嗎", "你记得我吃什么吗"),
        ("不要刪除我的偏好", "不要删除我的偏好"),
    ],
)
def test_a_simplified_sentence_reads_as_its_traditional_one(traditional_text, simplified):
    assert intents.read(simplified).intent == intents.read(traditional_text).intent


def test_what_the_table_alone_missed_opencc_reads():
    sentence = "员林这礼拜有什么活动"  # 员, 礼 and 拜's neighbours are not in the table
    assert reading_form(sentence) == reading_form("員林這禮拜有什麼活動")
    assert reading_form_with(sentence, None) != reading_form("員林這禮拜有什麼活動")


def test_the_reading_form_refuses_what_is_not_text():
    assert reading_form(None) == ""  # type: ignore[arg-type]
    assert reading_form_with(5, None) == ""  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_bare_python3_reads_simplified_with_the_table_alone():
    bare = shutil.which("python3")
    if bare is None:
        pytest.skip("no python3 on PATH")
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('opencc') is not None)"
    if subprocess.run([bare, "-c", probe], cwd=ROOT, timeout=60).returncode != 0:
        pytest.skip("this python3 has OpenCC installed")
    code = (
        "from local_agent.language.text import opencc_converters, reading_form\n"
        "assert opencc_converters() is None\n"
        "print(reading_form('删除我的偏好'))\n"
    )
    done = subprocess.run(
        [bare, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "刪除我的偏好"
