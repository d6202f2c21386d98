"""What the language layer's places and dates cost: memory and time at start, time per sentence.

    python -m bench.language_cost [--repeat 200] [--quick] [--out-dir DIR]

**At start**, each in a fresh interpreter that has imported the language modules (and nothing of
their data yet): the Python heap allocated (``tracemalloc``, what stays allocated after the step) and the growth of the process's peak
resident set (``ru_maxrss``, the cost the machine sees, including the transient peak) of

- the township vocabulary file and the pronunciation table (``language.townships.warm()`` without the
  reading form's converters), built from pypinyin's
  character dictionary (read once; only the characters that sound like a township syllable are kept);
- the date reader itself (``import local_agent.language.dates``: its patterns compiled, and one
  phrase of the solar calendar read, 「下週六」);
- the lunar calendar (``import sxtwl`` and one festival resolved);
- OpenCC for the reading form: ``text.warm()`` (the ``t2s`` detector, built at start), then with the
  first sentence in simplified characters (``s2twp``, built when first needed);
- for comparison, ``import pypinyin`` as a whole, which also loads its phrase dictionary (the layer does
  not do this).

**Per sentence**, warm, in this interpreter: ``read_places`` and ``read_dates`` over the benchmark
script's twenty voice-typed sentences plus festival, homophone and out-of-county ones, side by side
with the simpler readings beside them — ``find_townships`` (only the names a sentence holds, no
roles, corrections or near misses) — and the ratio (``read_dates`` is the only date reader: no second
one to compare with); ``intents.read`` (what a message asks for),
beside the reading form alone that it starts from; and the reading form with OpenCC beside the reading
form with the vocabulary's table alone (what it was before OpenCC, and still is on a bare ``python3``),
over the same sentences and over the same sentences in simplified characters.

**Simplified agreement**: the phrasing corpus's sentences converted to simplified characters (OpenCC
``t2s``), read by ``intents.read`` with OpenCC and with the table alone: how many read as their
traditional original does. A turn runs each once (a command turn reads its
intent, a search turn places and dates too).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import date

from bench._common import ROOT, SENTENCES, fmt, format_table, median, out_path, percentile, pyplot, write_csv

EXTRA = (
    "端午節二林有什麼活動",
    "過年鹿港有什麼好玩的",
    "原林有什麼好吃的",
    "台中有什麼好吃的",
    "我住田中，後天要去二林",
    "咖啡和美食哪裡有",
    "初一十五花壇有什麼活動",
    "１２月５日員林有市集嗎",
)
TODAY = date(2026, 12, 1)

_MEASURE = """
import json, resource, sys, time, tracemalloc
from datetime import date
from local_agent.language import townships
step, traced = sys.argv[1], sys.argv[2] == "memory"
if step != "date_reader":
    from local_agent.language.dates import read_dates
base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if traced:
    tracemalloc.start()
started = time.perf_counter()
if step == "date_reader":
    from local_agent.language.dates import read_dates
    assert read_dates("下週六", date(2026, 12, 1)).kind == "window"
elif step == "townships":
    townships.vocabulary()
    assert townships.sounds()
elif step == "calendar":
    assert read_dates("端午", date(2026, 12, 1)).kind == "window"
elif step == "opencc":
    from local_agent.language import text
    text.warm()
    assert text.reading_form("幫我記住") == "幫我記住"
elif step == "opencc_s2twp":
    from local_agent.language import text
    text.warm()
    assert text.reading_form("帮我记住") == "幫我記住"
elif step == "pypinyin":
    import pypinyin
    pypinyin.pinyin("員林")
seconds = time.perf_counter() - started
current, peak = tracemalloc.get_traced_memory() if traced else (0, 0)
print(json.dumps({"kib": current / 1024, "peak_kib": peak / 1024, "seconds": seconds,
                  "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss}))
"""
STEPS = (
    ("townships", "township vocabulary + pronunciation table"),
    ("date_reader", "date reader: import + one reading"),
    ("calendar", "lunar calendar (sxtwl) + one festival"),
    ("pypinyin", "comparison: import pypinyin whole"),
    ("opencc", "OpenCC t2s detector (warm(), at start)"),
    ("opencc_s2twp", "… + s2twp (the first simplified sentence)"),
)


def at_start(step: str) -> dict[str, float]:
    """Memory and time of one start step, each in a fresh interpreter (the modules themselves imported
    first): memory with ``tracemalloc`` on, time in another run without it (tracing slows allocation)."""
    runs = []
    for what in ("memory", "time"):
        done = subprocess.run(
            [sys.executable, "-c", _MEASURE, step, what],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {**runs[0], "seconds": runs[1]["seconds"]}


def per_call(fn: Callable[[str], object], texts: Sequence[str], repeat: int) -> list[float]:
    """Seconds per call, one sample per (repeat, text)."""
    samples: list[float] = []
    for _ in range(repeat):
        for text in texts:
            t = time.perf_counter()
            fn(text)
            samples.append(time.perf_counter() - t)
    return samples


def sentence_rows(repeat: int) -> list[list[object]]:
    from local_agent import language
    from local_agent.language import townships
    from local_agent.language.dates import read_dates
    from local_agent.language.intents import read
    from local_agent.language.text import opencc_converters, reading_form, reading_form_with

    townships.warm()
    read_dates("端午", TODAY)  # the calendar imported before timing
    language.read("端午", TODAY)  # (and the rule table checked)
    texts = (*SENTENCES, *EXTRA)
    to_simplified = _converters()[1]
    simplified = tuple(to_simplified(t) for t in texts)
    pairs = (
        ("places", townships.read_places, townships.find_townships, texts),
        ("dates", lambda t: read_dates(t, TODAY), None, texts),
        ("intents", read, reading_form, texts),
        ("reading form: OpenCC vs table", reading_form, lambda t: reading_form_with(t, None), texts),
        ("… same, in simplified", reading_form, lambda t: reading_form_with(t, None), simplified),
        (
            "language.read (one Utterance) vs intents + places + dates apart",
            lambda t: language.read(t, TODAY),
            lambda t: (read(t), townships.read_places(t), read_dates(t, TODAY)),
            texts,
        ),
    )
    assert opencc_converters() is not None
    rows: list[list[object]] = []
    for name, new, old, sample in pairs:
        new_s = per_call(new, sample, repeat)
        old_s = per_call(old, sample, repeat) if old is not None else []
        rows.append(
            [
                name,
                median(new_s) * 1e6,
                percentile(new_s, 99) * 1e6,
                median(old_s) * 1e6 if old_s else "—",
                median(new_s) / median(old_s) if old_s else "—",
            ]
        )
    return rows


def _converters() -> tuple[Callable[[str], str], Callable[[str], str]]:
    from local_agent.language.text import opencc_converters

    converters = opencc_converters()
    if converters is None:
        raise SystemExit("bench.language_cost needs OpenCC (pip install -e .)")
    return converters


_READ_ALL = """
import json, sys
from local_agent.language.intents import read
print(json.dumps([read(t).intent for t in json.load(sys.stdin)]))
"""


def _intents_of(texts: list[str], *, opencc: bool) -> list[str]:
    """``intents.read`` over ``texts`` in a fresh interpreter: with the installed packages, or with
    ``-S`` (no site-packages: the project from its source folder, no OpenCC, as on a bare ``python3``)."""
    flags = [] if opencc else ["-S"]
    done = subprocess.run(
        [sys.executable, *flags, "-c", _READ_ALL],
        cwd=ROOT,
        input=json.dumps(texts, ensure_ascii=False),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    intents: list[str] = json.loads(done.stdout)
    return intents


def simplified_agreement() -> list[list[object]]:
    """The phrasing corpus in simplified characters: how many sentences ``intents.read`` reads as their
    traditional original, with OpenCC and with the vocabulary's table alone."""
    from bench.phrasings import load_corpus

    to_simplified = _converters()[1]
    texts = dict.fromkeys(str(t["text"]) for item in load_corpus() for t in item.turns if "text" in t)
    changed = [(t, to_simplified(t)) for t in texts if to_simplified(t) != t]
    wanted = _intents_of([t for t, _ in changed], opencc=True)
    rows: list[list[object]] = [["corpus sentences t2s changes", len(changed)]]
    for label, opencc in (
        ("read as the original, OpenCC", True),
        ("read as the original, table alone", False),
    ):
        got = _intents_of([s for _, s in changed], opencc=opencc)
        rows.append([label, sum(g == w for g, w in zip(got, wanted, strict=True))])
    return rows


TURN_TEXTS = (
    "員林有什麼好吃的？",
    "記住我吃素",
    "鹿港這週末有什麼活動",
    "把我吃素的資料刪掉，幫我找員林好吃的",
    "謝謝你",
    "同意",
)


def normalisations_per_turn() -> list[list[object]]:
    """How many times one turn puts its message into the reading form (``text.reading_form_with``,
    counted by ``cProfile``: nothing of ours is patched), for a few kinds of message through the whole
    service (the commands, the router, the offline model, the tools and the gate), on SQLite in a
    temporary folder."""
    import asyncio
    import cProfile
    import pstats
    import tempfile
    from pathlib import Path

    from bench._common import bench_settings
    from local_agent.context.journal import ScopeKey
    from local_agent.wiring import build_service

    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        wiring = build_service(bench_settings("http://127.0.0.1:9", Path(tmp) / "n.sqlite3"))
        for i, text in enumerate(TURN_TEXTS):
            scope = ScopeKey.for_user(f"Unormalise{i:023d}")
            profile = cProfile.Profile()
            profile.enable()
            asyncio.run(wiring.service.handle_text(scope, text))
            profile.disable()
            stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
            calls = sum(v[1] for k, v in stats.items() if k[2] == "reading_form_with")
            rows.append([text, calls])
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.language_cost", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--repeat", type=int, default=200, help="passes over the sentences")
    parser.add_argument("--quick", action="store_true", help="10 passes")
    parser.add_argument("--out-dir", default=None)
    args = parser.parse_args(argv)
    repeat = 10 if args.quick else args.repeat

    start_headers = ["at start (fresh interpreter)", "heap KiB kept", "heap KiB peak", "peak RSS +KiB", "ms"]
    start_rows: list[list[object]] = []
    for step, label in STEPS:
        m = at_start(step)
        start_rows.append([label, m["kib"], m["peak_kib"], m["rss_kib"], m["seconds"] * 1e3])
    print(format_table(start_headers, start_rows))
    print()
    call_headers = ["per sentence", "µs median", "µs p99", "simpler reading µs", "ratio"]
    calls = sentence_rows(repeat)
    print(format_table(call_headers, calls))
    print(f"({len(SENTENCES) + len(EXTRA)} sentences × {repeat} passes; a turn reads each sentence once)")
    print()
    counted = normalisations_per_turn()
    print(format_table(["one turn through the service", "reading forms made"], counted))
    print()
    agreement = simplified_agreement()
    print(format_table(["phrasing corpus in simplified characters (intents.read)", "sentences"], agreement))

    csv_path = write_csv(
        out_path("language_cost.csv", args.out_dir),
        ["row", "a", "b", "c", "d"],
        [[r[0], *r[1:]] for r in (*start_rows, *calls, *counted, *agreement)],
    )
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar([r[0] for r in calls], [r[1] for r in calls], label="language layer")
    before = [r[3] if isinstance(r[3], float) else 0.0 for r in calls]
    ax.bar([r[0] for r in calls], before, label="simpler reading", alpha=0.6)
    ax.set_ylabel("µs per sentence (median)")
    ax.set_title("Language layer per sentence")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_path("language_cost.png", args.out_dir))
    print(f"wrote {csv_path}")
    print(
        f"KEY language_cost: townships_heap_kib={fmt(start_rows[0][1])}; townships_rss_kib={fmt(start_rows[0][3])}; "
        f"townships_start_ms={fmt(start_rows[0][4])}; date_reader_heap_kib={fmt(start_rows[1][1])}; "
        f"date_reader_rss_kib={fmt(start_rows[1][3])}; date_reader_start_ms={fmt(start_rows[1][4])}; "
        f"calendar_heap_kib={fmt(start_rows[2][1])}; pypinyin_whole_heap_kib={fmt(start_rows[3][1])}; "
        f"places_us={fmt(calls[0][1])}; places_ratio={fmt(calls[0][4])}; dates_us={fmt(calls[1][1])}; "
        f"dates_p99_us={fmt(calls[1][2])}; "
        f"opencc_start_rss_kib={fmt(start_rows[4][3])}; opencc_start_ms={fmt(start_rows[4][4])}; "
        f"opencc_s2twp_rss_kib={fmt(start_rows[5][3])}; opencc_s2twp_ms={fmt(start_rows[5][4])}; reading_form_us={fmt(calls[3][1])}; "
        f"reading_form_table_us={fmt(calls[3][3])}; simplified_read_alike={agreement[1][1]}/{agreement[0][1]}; "
        f"simplified_read_alike_table={agreement[2][1]}/{agreement[0][1]}; "
        f"utterance_us={fmt(calls[5][1])}; apart_us={fmt(calls[5][3])}; "
        f"reading_forms_per_turn_max={max(int(str(r[1])) for r in counted)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
