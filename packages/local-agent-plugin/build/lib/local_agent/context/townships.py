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
