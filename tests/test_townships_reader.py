"""One township reader: ``language/townships.py``. The core (``context/townships.py``) keeps the table
(full names, short names, ``canonical_township``); which township a sentence names is read once, and the
tools' argument check, the offline model and ``find_townships`` agree on the sentences where a plain
substring match of the table's names (what the core once did) goes wrong."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from local_agent.agent import offline_rules as rules
from local_agent.context import townships as core
from local_agent.language import townships as lang

ROOT = Path(__file__).resolve().parents[1]

# Sentences where the core's substring match and the reader disagree: (sentence, the substring match,
# what the reader says it names).
DISAGREE = [
    ("咖啡和美食哪裡有", ["和美鎮"], []),
    ("有沒有和美味的餐廳", ["和美鎮"], []),
    ("我是會員林先生", ["員林市"], []),
    ("搭員林客運要多久", ["員林市"], []),
    ("大城市的生活好累", ["大城鄉"], []),
    ("桃園的埔心有什麼好吃的", ["埔心鄉"], []),
    ("台中大村有什麼活動", ["大村鄉"], []),
    ("我在花壇種的九層塔長好了", ["花壇鄉"], []),  # a flower bed, not the township
]


@pytest.mark.parametrize("text,substring,named", DISAGREE)
def test_the_reader_leaves_out_what_the_substring_match_took(text, substring, named):
    assert all(name in text or name[:-1] in text for name in substring)  # a plain substring match takes it
    assert lang.find_townships(text) == named
    assert lang.read_places(text).kind != "township"


@pytest.mark.parametrize(
    "area,kind",
    [
        ("和美食", "none"),
        ("員林客運", "none"),
        ("大城市", "none"),
        ("桃園的埔心", "outside"),
        ("台中大村", "outside"),
    ],
)
def test_the_tools_argument_check_reads_the_same_way(area, kind):
    """A model that copies such a phrase into ``area`` gets no township out of it either."""
    assert lang.read_area(area).kind == kind


@pytest.mark.parametrize(
    "text,proposal",
    [
        ("咖啡和美食哪裡有", {"text": rules.ASK_TOWNSHIP}),
        ("搭員林客運要多久", None),  # no search and no 員林市 search
        ("桃園的埔心有什麼好吃的", None),
    ],
)
def test_the_offline_model_never_searches_a_township_the_reader_left_out(text, proposal):
    got = rules.propose([{"role": "user", "parts": [{"text": text}]}])
    if proposal is not None:
        assert got == proposal
    call = got.get("function_call") or {}
    assert call.get("args", {}).get("area") not in ("和美鎮", "員林市", "埔心鄉")


@pytest.mark.parametrize(
    "text,named",
    [
        ("彰化縣員林市有市集嗎", ["員林市"]),  # the county is not 彰化市
        ("彰化市和彰化縣", ["彰化市"]),
        ("花壇花壇鄉", ["花壇鄉"]),  # one township, once
        ("和美國中附近", ["和美鎮"]),  # a school keeps its township
        ("二林和芳苑有什麼活動", ["二林鎮", "芳苑鄉"]),
        ("", []),
    ],
)
def test_find_townships_in_the_reader_names_each_township_once_in_order(text, named):
    assert lang.find_townships(text) == named


def test_the_reader_builds_only_on_the_cores_table():
    full = {name: name for name in core.TOWNSHIPS}
    assert {**full, **core.SHORT_NAMES} == {alias: t for alias, t in lang._aliases()}
    assert all(core.canonical_township(name) == name for name in core.TOWNSHIPS)


def _importers_of_the_core_match() -> list[str]:
    found = []
    for folder in ("local_agent", "examples", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.ImportFrom)
                    and node.module == "local_agent.context.townships"
                    and any(alias.name == "find_townships" for alias in node.names)
                ):
                    found.append(path.relative_to(ROOT).as_posix())
    return found


def test_nothing_new_reads_townships_through_the_core_substring_match():
    """The core keeps only the township table; every module reads sentences through the one reader."""
    assert set(_importers_of_the_core_match()) == set()
