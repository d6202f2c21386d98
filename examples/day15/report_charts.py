"""The usage report's pictures (matplotlib, Traditional Chinese labels in a CJK font).

Three PNGs: ``turns.png`` (turns per day, one colour per outcome), ``townships.png`` (searches per
township, food and events side by side), ``found_nothing.png`` (searches that found nothing, by
township and kind: the listings to add). A masked cell (fewer than five people) is drawn as no bar
with 「<5」 written beside it. matplotlib is imported here only, when the pictures are drawn; a missing
glyph is an error (``MissingGlyph``), never a picture with boxes in it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from examples.day15.report_counts import (
    DAY_MEASURES,
    KIND_LABELS,
    Cell,
    Report,
    township_label,
)

FONT_CANDIDATES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/System/Library/Fonts/PingFang.ttc",
    "C:/Windows/Fonts/msjh.ttc",
)
# Outcome colours of turns.png (colour-blind safe, Okabe–Ito), in stacking order.
OUTCOME_COLOURS: dict[str, str] = {
    "answered": "#009E73",
    "found_nothing": "#E69F00",
    "asked_back": "#56B4E9",
    "not_understood": "#F0E442",
    "refused": "#CC79A7",
    "failed": "#D55E00",
    "other": "#BBBBBB",
}
OUTCOME_LABELS = {
    "answered": "有結果",
    "found_nothing": "查無結果",
    "asked_back": "反問",
    "not_understood": "看不懂",
    "refused": "拒答",
    "failed": "出錯",
    "other": "其他（說明、偏好、閒聊）",
}
KIND_COLOURS = {"places": "#0072B2", "events": "#E69F00"}


class ChartError(Exception):
    """The pictures cannot be drawn: matplotlib or a CJK font is missing (the message says what to do)."""


class MissingGlyph(ChartError):
    pass


def find_font(explicit: str | None = None) -> str:
    for candidate in [explicit] if explicit else list(FONT_CANDIDATES):
        if candidate and Path(candidate).is_file():
            return candidate
    raise ChartError(
        "no CJK font found for the charts' Chinese labels: install one (apt-get install fonts-noto-cjk) "
        "or pass --font FILE; or --no-charts for the text and the CSV only"
    )


def _pyplot(font_file: str) -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import font_manager
        from matplotlib import pyplot as plt
    except ImportError:
        raise ChartError(
            "the charts need matplotlib: pip install matplotlib (it comes with the dev extra: "
            "pip install -e '.[dev]'); or --no-charts for the text and the CSV only"
        ) from None
    font_manager.fontManager.addfont(font_file)
    names = {f.name for f in font_manager.fontManager.ttflist if f.fname == font_file}
    family = next((n for n in sorted(names) if n.endswith(" TC")), None)
    plt.rcParams["font.family"] = family or font_manager.FontProperties(fname=font_file).get_name()
    plt.rcParams["axes.unicode_minus"] = False
    return plt


@contextmanager
def _no_missing_glyphs() -> Iterator[None]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield
    missing = [str(w.message) for w in seen if "missing from font" in str(w.message)]
    if missing:
        raise MissingGlyph(f"the font lacks a glyph the labels use: {missing[0]} (pass --font FILE)")


def _value(cell: Cell) -> int:
    shown = cell.shown
    return shown if isinstance(shown, int) else 0


def _outcome_groups(report: Report, day: Any) -> dict[str, Cell]:
    """The day's turns split by outcome group (each turn in one group)."""
    groups = {key: Cell() for key in OUTCOME_COLOURS}
    turns = report.cell(day, "turns")
    for key in ("answered", "found_nothing", "asked_back", "not_understood", "failed"):
        groups[key] = report.cell(day, key)
    refused = [report.cell(day, "refused_budget"), report.cell(day, "refused_gate")]
    groups["refused"] = Cell(sum(c.count for c in refused), set().union(*(c.people for c in refused)))
    counted = sum(g.count for k, g in groups.items() if k != "other")
    groups["other"] = Cell(max(0, turns.count - counted), turns.people)
    return groups


def _day_heights(report: Report, day: Any) -> dict[str, int]:
    """Bar segments of one day: each outcome group shown; the groups masked (fewer than five people)
    together as one hatched segment, so the bar still adds up to the day's turns. A masked day: nothing."""
    if not isinstance(report.cell(day, "turns").shown, int):
        return {}
    heights: dict[str, int] = {"masked": 0}
    for key, cell in _outcome_groups(report, day).items():
        shown = cell.shown
        heights[key] = shown if isinstance(shown, int) else 0
        heights["masked"] += 0 if isinstance(shown, int) else cell.count
    return heights


def draw_turns(plt: Any, report: Report, path: Path) -> None:
    days = report.day_list()
    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(days) + 3), 4.8), dpi=120)
    bottoms = [0] * len(days)
    x = list(range(len(days)))
    per_day = [_day_heights(report, d) for d in days]
    for key, colour in [*OUTCOME_COLOURS.items(), ("masked", "#FFFFFF")]:
        heights = [h.get(key, 0) for h in per_day]
        label = OUTCOME_LABELS.get(key, "人數少於 5 的項目（合計）")
        hatch = "///" if key == "masked" else None
        ax.bar(
            x,
            heights,
            bottom=bottoms,
            color=colour,
            label=label,
            width=0.7,
            hatch=hatch,
            edgecolor="#777777" if hatch else colour,
        )
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
    for i, day in enumerate(days):
        shown = report.cell(day, "turns").shown
        ax.text(i, bottoms[i], f"{shown}", ha="center", va="bottom", fontsize=9)
    ax.set_xticks(x, [f"{d.month}/{d.day}" for d in days])
    ax.set_ylabel(DAY_MEASURES["turns"])
    ax.set_title(f"每日對話則數與結果（{report.since.isoformat()} ～ {report.until.isoformat()}）")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    ax.margins(y=0.15)
    fig.text(0.01, 0.01, "「<5」：少於 5 人，不顯示數字", fontsize=8, color="#555555")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _bars_by_township(
    plt: Any, cells: dict[tuple[str, str], Cell], title: str, xlabel: str, path: Path
) -> None:
    def shown_total(town: str) -> int:  # by what is shown: a masked cell's size must not set the order
        return sum(_value(c) for (u, _), c in cells.items() if u == town)

    towns = sorted({t for t, _ in cells}, key=lambda t: (-shown_total(t), t))
    fig, ax = plt.subplots(figsize=(8.0, max(2.5, 0.45 * len(towns) + 1.5)), dpi=120)
    height = 0.38
    for j, kind in enumerate(KIND_LABELS):
        ys = [i + (j - 0.5) * height for i in range(len(towns))]
        kind_cells = [cells.get((t, kind), Cell()) for t in towns]
        ax.barh(
            ys,
            [_value(c) for c in kind_cells],
            height=height,
            color=KIND_COLOURS[kind],
            label=KIND_LABELS[kind],
        )
        for y, cell in zip(ys, kind_cells, strict=True):
            if cell.count:
                ax.text(_value(cell), y, f" {cell.shown}", va="center", fontsize=8)
    ax.set_yticks(range(len(towns)), [township_label(t) for t in towns])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=9)
    ax.margins(x=0.15)
    if not towns:
        ax.text(0.5, 0.5, "這段期間沒有資料", ha="center", va="center", transform=ax.transAxes)
    fig.text(0.01, 0.01, "「<5」：少於 5 人，不顯示數字", fontsize=8, color="#555555")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def draw_all(report: Report, folder: Path, font_file: str) -> list[Path]:
    """Draw the three PNGs into ``folder``; returns their paths. ``ChartError`` when they cannot be."""
    plt = _pyplot(font_file)
    nothing: dict[tuple[str, str], Cell] = {}
    for (township, kind, _, _), cell in report.nothing.items():
        merged = nothing.setdefault((township, kind), Cell())
        merged.count += cell.count
        merged.people |= cell.people
    period = f"{report.since.isoformat()} ～ {report.until.isoformat()}"
    paths = [folder / "turns.png", folder / "townships.png", folder / "found_nothing.png"]
    with _no_missing_glyphs():
        draw_turns(plt, report, paths[0])
        _bars_by_township(plt, dict(report.townships), f"各鄉鎮查詢次數（{period}）", "查詢次數", paths[1])
        title = f"查無結果的查詢：可補充的店家與活動（{period}）"
        _bars_by_township(plt, nothing, title, "查無結果次數", paths[2])
    return paths
