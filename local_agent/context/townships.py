"""The 26 townships (鄉鎮市) of Changhua County, by full and short name: the table, nothing more.

Projection and the offline model accept an area only when it is one of these, so a model
that puts a user's words into ``area`` cannot smuggle them into the journal. Which township a
sentence names (aliases, sound-alikes, words that contain a name) is read in one place,
``local_agent.language.townships``, from its data file.
"""

from __future__ import annotations

COUNTY = "彰化縣"

# Full names in the county's official order: 2 cities, 6 urban townships, 18 rural townships.
TOWNSHIPS: tuple[str, ...] = (
    "彰化市",
    "員林市",
    "和美鎮",
    "鹿港鎮",
    "溪湖鎮",
    "二林鎮",
    "田中鎮",
    "北斗鎮",
    "花壇鄉",
    "芬園鄉",
    "大村鄉",
    "永靖鄉",
    "伸港鄉",
    "線西鄉",
    "福興鄉",
    "秀水鄉",
    "埔心鄉",
    "埔鹽鄉",
    "大城鄉",
    "芳苑鄉",
    "竹塘鄉",
    "社頭鄉",
    "二水鄉",
    "田尾鄉",
    "埤頭鄉",
    "溪州鄉",
)

SHORT_NAMES: dict[str, str] = {name[:-1]: name for name in TOWNSHIPS}

_ALIASES: dict[str, str] = {**{name: name for name in TOWNSHIPS}, **SHORT_NAMES}
# Longest first, so 彰化市 wins over 彰化 and a full name over its short form.
_BY_LENGTH: tuple[str, ...] = tuple(sorted(_ALIASES, key=len, reverse=True))


def canonical_township(name: object) -> str | None:
    """Return the full township name for a full or short name, else ``None``.

    Only an exact name (after trimming spaces and a leading 彰化縣) is accepted.
    """
    if not isinstance(name, str):
        return None
    text = name.strip()
    if text.startswith(COUNTY) and text != COUNTY:
        text = text[len(COUNTY) :].strip()
    return _ALIASES.get(text)


def find_townships(text: str) -> list[str]:
    """Township full names in ``text`` by exact substring, in order of first appearance.

    Not the township reader: the one reader is ``local_agent.language.townships`` (``read_places``,
    ``read_area``, and ``find_townships`` with this signature), which also leaves out the longer words
    that contain a name (「咖啡和美食」, 「員林客運」) and a name after a place outside the county
    (「桃園的埔心」). This substring match remains only for ``language/intents.py``'s import until it
    reads through that reader; ``tests/test_townships_reader.py`` keeps every other module off it.
    """
    found: list[tuple[int, str]] = []
    taken = [False] * len(text)
    for alias in _BY_LENGTH:
        start = text.find(alias)
        while start != -1:
            end = start + len(alias)
            county_word = alias == "彰化" and text.startswith(COUNTY, start)
            if not county_word and not any(taken[start:end]):
                taken[start:end] = [True] * (end - start)
                found.append((start, _ALIASES[alias]))
            start = text.find(alias, start + 1)
    return list(dict.fromkeys(name for _, name in sorted(found)))
