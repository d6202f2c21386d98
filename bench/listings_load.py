"""How long do the listings take to load and validate at start, and to search with a date window?

    .venv/bin/python -m bench.listings_load [--quick] [--rows 1000,5000,20000] [--out-dir DIR]

Generates folders of synthetic rows (half places, half events, a third of the events dated) under a
temp dir, loads each with ``load_listings`` (the full validation the service runs before it starts),
and times a one-week windowed event search on every township. The shipped snapshot is the first row.
The largest default size (about 1 MB per file) stays under the 2 MB per-file limit. Figures are medians of ``--repeat`` runs;
the side-by-side ratio is time per row against the shipped snapshot's. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path

from bench._common import fmt, format_table, load_note, median, out_path, pyplot, write_csv
from local_agent.context.townships import TOWNSHIPS
from local_agent.listings.catalogue import search_events
from local_agent.listings.dates import DateWindow
from local_agent.listings.loader import (
    EVENT_COLUMNS,
    PLACE_COLUMNS,
    SHIPPED_DIR,
    Listings,
    load_listings,
)

WINDOW = DateWindow(date(2026, 11, 30), date(2026, 12, 6))


def make_folder(base: Path, rows: int) -> Path:
    folder = base / f"rows-{rows}"
    folder.mkdir()
    places, events = [",".join(PLACE_COLUMNS)], [",".join(EVENT_COLUMNS)]
    for i in range(rows // 2):
        town = TOWNSHIPS[i % len(TOWNSHIPS)]
        places.append(
            f"p{i:05d},測試小館{i},{town},小吃,vegetarian;lacto_ovo,{town}公所附近,家常菜與素食便當"
        )
    for i in range(rows - rows // 2):
        town = TOWNSHIPS[i % len(TOWNSHIPS)]
        if i % 3 == 0:
            start = date(2026, 10, 1) + timedelta(days=i % 120)
            dates = f"{start.isoformat()},{(start + timedelta(days=i % 5)).isoformat()}"
        else:
            dates = ","
        events.append(f"e{i:05d},測試活動{i},{town},{town}活動中心,市集,{dates},每週六上午,在地農產與手作")
    (folder / "places.csv").write_text("\n".join(places) + "\n", encoding="utf-8")
    (folder / "events.csv").write_text("\n".join(events) + "\n", encoding="utf-8")
    return folder


def timed_load(folder: Path, repeat: int) -> tuple[float, Listings]:
    times, listings = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        listings = load_listings(folder)
        times.append(time.perf_counter() - started)
    assert listings is not None
    return median(times), listings


def timed_search(listings: Listings, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        for town in TOWNSHIPS:
            search_events(town, "", events=listings.events_in(town), window=WINDOW)
        times.append((time.perf_counter() - started) / len(TOWNSHIPS))
    return median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.listings_load", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--rows", default="1000,5000,20000", help="comma-separated row counts")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="small sizes, 2 repeats")
    parser.add_argument("--out-dir", default=None)
    args = parser.parse_args(argv)
    sizes = [200, 1000] if args.quick else [int(n) for n in args.rows.split(",")]
    repeat = 2 if args.quick else args.repeat

    headers = ["listings", "rows", "bytes", "load ms", "µs per row", "ratio per row", "search µs"]
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory(prefix="bench-listings-") as tmp:
        folders = [("shipped snapshot", SHIPPED_DIR)] + [
            (f"synthetic {n}", make_folder(Path(tmp), n)) for n in sizes
        ]
        base_per_row = None
        for label, folder in folders:
            seconds, listings = timed_load(folder, repeat)
            count = len(listings.places) + len(listings.events)
            size = sum((folder / f).stat().st_size for f in ("places.csv", "events.csv"))
            per_row = seconds / count * 1e6
            base_per_row = base_per_row or per_row
            search = timed_search(listings, repeat) * 1e6
            rows.append([label, count, size, seconds * 1e3, per_row, per_row / base_per_row, search])
    print(format_table(headers, rows))
    print(load_note())
    csv_path = write_csv(out_path("listings_load.csv", args.out_dir), headers, rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([r[1] for r in rows], [r[3] for r in rows], marker="o")
    ax.set_xlabel("rows (places + events)")
    ax.set_ylabel("load + validate, ms (median)")
    ax.set_title("Listings load time")
    fig.tight_layout()
    fig.savefig(out_path("listings_load.png", args.out_dir))
    print(f"wrote {csv_path}")
    largest = rows[-1]
    print(
        f"KEY listings_load: shipped_rows={rows[0][1]}; shipped_load_ms={fmt(rows[0][3])}; "
        f"largest_rows={largest[1]}; largest_bytes={largest[2]}; largest_load_ms={fmt(largest[3])}; "
        f"per_row_ratio={fmt(largest[5])}; largest_search_us={fmt(largest[6])}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
