"""``listings.toml``: who publishes a listings folder, the line every reply ends with, and the data's date.

A folder of listings may carry a small metadata file beside its CSVs::

    office = "彰化縣某某鄉公所"                       # who keeps these listings (shown in the help text)
    notice = "店家與活動以現場公告為準，出發前請再確認。"   # the line every search reply ends with
    as_of = 2026-11-20                                # the day the data was last checked

Every key is optional; any other key, a value of the wrong type, a line break or an HTML tag, or a file
that is not TOML is refused (a :class:`~local_agent.listings.problems.Problem` naming the key). Without
the file (or without ``notice``) replies end with a neutral line built from ``as_of`` — never with the
shipped snapshot's 「教學快照」 notice, which only the snapshot's own ``listings.toml`` says.

Standard library only (``tomllib``).
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from local_agent.listings.dates import parse_iso_date
from local_agent.listings.problems import Problems

META_FILE = "listings.toml"
MAX_META_BYTES = 16 * 1024
# key -> (longest value in characters, what is allowed)
META_KEYS: dict[str, tuple[int, str]] = {
    "office": (40, "text, one line, at most 40 characters: who keeps these listings"),
    "notice": (120, "text, one line, at most 120 characters: the line every search reply ends with"),
    "as_of": (10, 'a date: as_of = 2026-11-20 (or the string "2026-11-20")'),
}
NO_DATE_LINE = "資料未標示更新日期，出發前請再確認。"
_HTML_TAG = re.compile(r"<\s*/?\s*[A-Za-z!?][^>]*>")
_TOML_LINE = re.compile(r"at line (\d+)")


@dataclass(frozen=True)
class ListingsMeta:
    """What ``listings.toml`` says (all empty when the folder has none)."""

    office: str = ""
    notice: str = ""
    as_of: date | None = None
    present: bool = False

    @property
    def notice_line(self) -> str:
        """The line a search reply ends with: the folder's notice, else a neutral as-of line."""
        if self.notice:
            return self.notice
        if self.as_of is not None:
            return f"資料更新至 {self.as_of.isoformat()}，出發前請再確認。"
        return NO_DATE_LINE

    @property
    def help_line(self) -> str:
        """The help text's last line: who keeps the data and when it was checked, then the notice line
        (which carries the date itself when there is no notice)."""
        dated = f"，{self.as_of.isoformat()} 更新" if self.as_of is not None and self.notice else ""
        if self.office:
            return f"資料：{self.office}{dated}。{self.notice_line}"
        if dated:
            return f"資料 {dated[1:]}。{self.notice_line}"
        return self.notice_line

    def as_dict(self) -> dict[str, object]:
        return {
            "file": META_FILE if self.present else None,
            "office": self.office,
            "notice": self.notice,
            "as_of": self.as_of.isoformat() if self.as_of else None,
            "notice_line": self.notice_line,
        }


def _line_of(text: str, key: str) -> int | None:
    """The line where ``key`` is set (``key = ...`` or a ``[key]`` table), for the problem's row."""
    pattern = re.compile(rf"^\s*(?:{re.escape(key)}\s*=|\[\s*{re.escape(key)}\s*\])")
    return next((n for n, line in enumerate(text.splitlines(), 1) if pattern.match(line)), None)


def _text(key: str, value: object, problems: Problems) -> str:
    limit, allowed = META_KEYS[key]
    if not isinstance(value, str):
        problems.add(
            META_FILE, f"{type(value).__name__} value; write a quoted string", column=key, allowed=allowed
        )
        return ""
    text = value.strip()
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        problems.add(
            META_FILE, "a control character (a line break?) in the value", column=key, allowed=allowed
        )
    elif _HTML_TAG.search(text):
        problems.add(META_FILE, "an HTML tag in the value; write plain text", column=key, allowed=allowed)
    elif len(text) > limit:
        problems.add(META_FILE, f"{len(text)} characters; at most {limit}", column=key, allowed=allowed)
    else:
        return text
    return ""


def _as_of(value: object, problems: Problems) -> date | None:
    allowed = META_KEYS["as_of"][1]
    if isinstance(value, date) and not hasattr(value, "hour"):
        return value
    if isinstance(value, str):
        try:
            return parse_iso_date(value.strip())
        except ValueError:
            pass
    problems.add(META_FILE, f"{str(value)[:40]!r} is not a date", column="as_of", allowed=allowed)
    return None


def read_meta(folder: Path, problems: Problems) -> ListingsMeta:
    """The folder's ``listings.toml``, or an empty :class:`ListingsMeta` when there is none. Every problem
    is added to ``problems`` (the returned record then holds only the values that passed)."""
    path = folder / META_FILE
    if not path.is_file():
        return ListingsMeta()
    size = path.stat().st_size
    if size > MAX_META_BYTES:
        problems.add(META_FILE, f"file is {size:,} bytes; the limit is {MAX_META_BYTES:,} (not read)")
        return ListingsMeta(present=True)
    try:
        text = path.read_bytes().decode("utf-8-sig")  # a byte-order mark (Notepad, Excel) is dropped
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        problems.add(META_FILE, "bytes that are not UTF-8", allowed="save the file as UTF-8")
        return ListingsMeta(present=True)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        problems.add(
            META_FILE,
            f"not valid TOML ({exc})",
            row=int(found.group(1)) if found else None,
            allowed='key = "value" lines, e.g. office = "彰化縣某某鄉公所"',
        )
        return ListingsMeta(present=True)
    keys = Problems()
    for key in data:
        if key not in META_KEYS:
            keys.add(META_FILE, "unknown key", column=key, allowed="the keys " + ", ".join(META_KEYS))
    meta = ListingsMeta(
        office=_text("office", data["office"], keys) if "office" in data else "",
        notice=_text("notice", data["notice"], keys) if "notice" in data else "",
        as_of=_as_of(data["as_of"], keys) if "as_of" in data else None,
        present=True,
    )
    located = (replace(p, row=_line_of(text, p.column or "")) for p in keys.items)
    problems.items.extend(sorted(located, key=lambda p: p.row or 0))
    return meta


__all__ = ["META_FILE", "META_KEYS", "NO_DATE_LINE", "ListingsMeta", "read_meta"]
