"""Rebuild the peers' date cases from the peers' own test files (a maintainer's tool, not run by tests).

    python -m bench.date_peers_build --duckling DIR --jionlp FILE

``DIR`` is a checkout's ``Duckling/Time/ZH`` folder (``Corpus.hs`` and ``TW/Corpus.hs``); ``FILE`` is
JioNLP's ``test/test_time_parser.py``. The selection rules (``bench/README.md`` states them too):

- **Duckling, read at day level**: every example of the two corpora, each value taken as the whole days
  it touches (a time of day is its day, an interval the days from its start to the moment before its
  end), except years on their own and holidays not kept in Taiwan (:data:`NOT_KEPT`), and except the
  texts ``bench/data/duckling_zh_dates.jsonl`` already holds. A value that ends before the reference day
  expects the past-day answer.
- **JioNLP, day level**: every case of the parser's main list and of its future-preference list whose
  expected value is a ``time_point`` or ``time_span`` of whole days (from 00:00:00 to 23:59:59, both
  finite), at most 366 days long, with a time base between 1901 and 2100. A value that ends before the
  time base's day expects the past-day answer.

Each case is converted to Traditional characters with OpenCC ``s2tw`` and written with the reference day
it assumes. Where Taiwan's reading differs from the peer's, :data:`TAIWAN` gives the expectation and the
note written beside the case; the peer's own value stays in ``peer``.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Iterator, Sequence
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from bench._common import ROOT

DATA = ROOT / "bench" / "data"
DUCKLING_OUT = DATA / "duckling_zh_day_level.jsonl"
JIONLP_OUT = DATA / "jionlp_dates.jsonl"
CHINA = timezone(timedelta(hours=8))  # JioNLP's timestamps are read in UTC+8, as Taiwan's clock

# Duckling holidays nobody in Changhua keeps (religious calendars not observed here, other regions' days).
NOT_KEPT = (
    "赎罪日 大斋首日 阿舒拉节 克哈特普迦节 基督圣体节 排灯节 复活节星期一 古尔邦节 开斋节 耶稣受难日 侯丽节 圣周六 "
    "伊斯兰新年 登霄节 印度丰收节 篝火节 法令之夜 拉撒路圣周六 神圣星期四 圣纪节 东正教 棕枝主日 五旬节 印度兄妹节 "
    "圣会节 忏悔节 西赫托拉节 欧南节 圣殿被毁日 圣三一主日 十胜节 犹太植树节 卫塞节 以色列独立日 圣灵节庆日 老板节 "
    "全球青年服务日 四旬节 光明节 大斋期 九夜节 逾越节 斋月 犹太新年 七七节 住棚节 澳门回归纪念日 建军节 "
    "国际消费者权益日 护士节 青年节 植树节 记者节 地球日 地球一小时 世界"
).split()

# text (Traditional) → (expect, from, to, note): Taiwan's reading where it differs from the peer's.
_NEXT_YEAR = (
    "said in June with no year, Taiwan's reading is the next one (JioNLP by default: this year's, past)"
)
TAIWAN: dict[str, tuple[str, str | None, str | None, str]] = {
    "1月3": ("window", "2022-01-03", "2022-01-03", f"a day {_NEXT_YEAR}"),
    "4月前4天": ("window", "2022-04-01", "2022-04-04", f"April's first four days {_NEXT_YEAR}"),
    "2月份第二週": (
        "window",
        "2022-02-14",
        "2022-02-20",
        f"the week {_NEXT_YEAR}; weeks from the first Monday",
    ),
    "3月第三週": (
        "window",
        "2022-03-21",
        "2022-03-27",
        f"the week {_NEXT_YEAR}; weeks from the first Monday",
    ),
    "四月第4周": (
        "window",
        "2022-04-25",
        "2022-05-01",
        f"the week {_NEXT_YEAR}; weeks from the first Monday",
    ),
    "1月3至2月10": ("window", "2022-01-03", "2022-02-10", f"the span {_NEXT_YEAR}"),
    "二月十五": (
        "window",
        "2022-02-15",
        "2022-02-15",
        "without 農曆 or 初, Taiwan's 二月十五 is February the 15th, the next one (JioNLP: lunar 2/15 of 2021, past)",
    ),
    "10月8號": (
        "window",
        "2021-10-08",
        "2021-10-08",
        "said on 2021-09-01, the coming October the 8th (JioNLP's future preference: 2022's)",
    ),
    "2023年大年三十": (
        "window",
        "2023-01-21",
        "2023-01-21",
        "Taiwan's 2023年除夕 is the one that falls in 2023 (JioNLP: the last day of lunar year 2023, 2024-02-09)",
    ),
    "大年初十": ("window", "2022-02-10", "2022-02-10", f"the new year's tenth day {_NEXT_YEAR}"),
    "一季度": ("window", "2022-01-01", "2022-03-31", f"the first quarter {_NEXT_YEAR}"),
    "1季度中國經營狀況": ("window", "2022-01-01", "2022-03-31", f"the first quarter {_NEXT_YEAR}"),
    "Q1季度": ("window", "2022-01-01", "2022-03-31", f"the first quarter {_NEXT_YEAR}"),
}
_US_DATE = re.compile(r"\d+/\d+/\d+")  # month/day/year: a form Taiwan does not write

_BLOCK = re.compile(
    r"examples\s*\((datetime|datetimeInterval|datetimeHoliday|datetimeIntervalHoliday)\s*(.*?)\)\s*\n?\s*\[(.*?)\]",
    re.S,
)
_TUPLE = re.compile(r"\((\d+), (\d+), (\d+), (\d+), (\d+), (\d+)\)")
_GRAIN = re.compile(r"\)\s*(Second|Minute|Hour|Day|Week|Month|Quarter|Year)")


def _convert() -> Any:
    import opencc

    return opencc.OpenCC("s2tw").convert


def _moment(parts: Sequence[str]) -> datetime:
    y, mo, d, h, mi, s = (int(p) for p in parts)
    return datetime(y, max(mo, 1), max(d, 1), h, mi, s)


def _grain_end(start: datetime, grain: str) -> date:
    """The last day a point of ``grain`` starting at ``start`` touches."""
    if grain == "Week":
        return start.date() + timedelta(days=6)
    if grain == "Month":
        nxt = date(start.year + start.month // 12, start.month % 12 + 1, 1)
        return nxt - timedelta(days=1)
    if grain == "Quarter":
        month = start.month + 3
        return date(start.year + (month - 1) // 12, (month - 1) % 12 + 1, 1) - timedelta(days=1)
    return start.date()


def _interval_end(end: datetime, grain: str) -> date:
    """Duckling's intervals end before ``end`` (one unit of their grain, read as its last day)."""
    if grain in ("Day", "Week"):
        return end.date() - timedelta(days=1)
    if grain == "Month":
        return date(end.year, max(end.month, 1), 1) - timedelta(days=1)
    return (end - timedelta(seconds=1)).date()


def duckling_cases(folder: Path, convert: Any) -> Iterator[dict[str, Any]]:
    held = {json.loads(line)["text"] for line in (DATA / "duckling_zh_dates.jsonl").read_text().splitlines()}
    reference = date(2013, 2, 12)
    for source in ("Corpus.hs", "TW/Corpus.hs"):
        text = (folder / source).read_text(encoding="utf-8")
        for kind, head, body in _BLOCK.findall(text):
            grain = _GRAIN.search(head + ")")
            moments = [_moment(t) for t in _TUPLE.findall(head)]
            if grain is None or not moments or grain.group(1) == "Year":
                continue  # years on their own
            if "Interval" not in kind and grain.group(1) in ("Second", "Minute", "Hour"):
                continue  # a clock time, now, N minutes ago: a moment, not a date
            name = re.search(r'"([^"]+)"', head)
            if name and any(word in name.group(1) for word in NOT_KEPT):
                continue
            start = moments[0].date()
            end = (
                _interval_end(moments[1], grain.group(1))
                if "Interval" in kind
                else _grain_end(moments[0], grain.group(1))
            )
            for said in re.findall(r'"([^"]+)"', body):
                yield from _case(
                    said,
                    convert,
                    held,
                    reference,
                    start,
                    end,
                    f"{kind} {head.strip()}",
                    f"Duckling/Time/ZH/{source}",
                )


def _case(
    said: str, convert: Any, held: set[str], reference: date, start: date, end: date, peer: str, source: str
) -> Iterator[dict[str, Any]]:
    text = convert(said)
    if text in held or _US_DATE.search(text):
        return
    held.add(text)
    row: dict[str, Any] = {"text": text, "today": reference.isoformat(), "peer": peer, "source": source}
    if text != said:
        row["simplified"] = said
    if end < reference:
        row.update(expect="past", **{"from": start.isoformat(), "to": end.isoformat()})
    else:
        row.update(expect="window", **{"from": start.isoformat(), "to": end.isoformat()})
    if text in TAIWAN:
        expect, first, last, note = TAIWAN[text]
        row.update(expect=expect, note=note)
        row.pop("from"), row.pop("to")
        if first and last:
            row.update(**{"from": first, "to": last})
    yield row


def _base_day(node: ast.expr, names: dict[str, float]) -> date | None:
    if isinstance(node, ast.Name) and node.id in names:
        return datetime.fromtimestamp(names[node.id], CHINA).date()
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return datetime.fromtimestamp(node.value, CHINA).date()
    if isinstance(node, ast.List) and len(node.elts) >= 3:
        y, m, d = (ast.literal_eval(e) for e in node.elts[:3])
        return date(y, m, d)
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "datetime.datetime":
        return date(*(ast.literal_eval(a) for a in node.args[:3]))
    return None


def jionlp_cases(path: Path, convert: Any) -> Iterator[dict[str, Any]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {"_ts_1": 1623604000.0, "_ts_2": 1630480532.0}
    held = {json.loads(line)["text"] for line in (DATA / "duckling_zh_dates.jsonl").read_text().splitlines()}
    lists = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "time_string_list"
    ]
    for block, listing in enumerate(lists[:2]):  # the main list and the future-preference list
        assert isinstance(listing, ast.List)
        for item in listing.elts:
            assert isinstance(item, ast.List)
            said, base = ast.literal_eval(item.elts[0]), _base_day(item.elts[1], names)
            expected = ast.literal_eval(item.elts[-1])
            if (
                base is None
                or not 1901 <= base.year <= 2100
                or expected["type"] not in ("time_point", "time_span")
            ):
                continue
            first, last = expected["time"]
            if not (str(first).endswith(" 00:00:00") and str(last).endswith(" 23:59:59")):
                continue
            start, end = date.fromisoformat(first[:10]), date.fromisoformat(last[:10])
            if (end - start).days >= 366 or (start.month, start.day, end.month, end.day) == (1, 1, 12, 31):
                continue  # years on their own, and longer
            peer = f"{expected['type']} {first}..{last}" + (" (ret_future)" if block else "")
            yield from _case(said, convert, held, base, start, end, peer, "test/test_time_parser.py")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.date_peers_build", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--duckling", type=Path, required=True, help="Duckling's Duckling/Time/ZH folder")
    parser.add_argument("--jionlp", type=Path, required=True, help="JioNLP's test/test_time_parser.py")
    args = parser.parse_args(argv)
    convert = _convert()
    for out, rows in (
        (DUCKLING_OUT, duckling_cases(args.duckling, convert)),
        (JIONLP_OUT, jionlp_cases(args.jionlp, convert)),
    ):
        lines = [json.dumps(r, ensure_ascii=False) for r in rows]
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {out.relative_to(ROOT)}: {len(lines)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
