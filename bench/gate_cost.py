"""What the text gate costs per model-written text, and what it refuses, beside an earlier gate.

    python -m bench.gate_cost [--before REV] [--repeat 300] [--quick] [--out-dir DIR]

Each gate runs in a fresh interpreter: this checkout's, and with ``--before REV`` the gate of that
git revision (its ``local_agent`` exported with ``git archive`` to a temporary folder). Both check the
same texts, in groups: claims of an action, facts (contacts, hours, prices, numbers), diets in a
group and in the person's 1:1 chat, and what may pass (questions back, pointers, small talk). Per
group: the median and p90 microseconds per ``text_gate.check`` and how many texts it refused; at
start, the milliseconds to import the gate (it builds its patterns then) once the language wing is
loaded, as the service has it. An earlier gate that takes only the text is called with the text
alone. (The tail beyond p90 is the scheduler's on a shared machine, a few ms on any call.)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench._common import ROOT, fmt, format_table, out_path, pyplot, write_csv

# (group, text, where it is sent, what the person said)
TEXTS: tuple[tuple[str, str, str, str], ...] = (
    ("claims", "我已經把您的偏好歸零囉", "user", "吃素那件事就算了吧"),
    ("claims", "好的，已經幫您清空了", "user", "飲食的事以後就隨便吧"),
    ("claims", "好的，已經幫您刪除了", "user", "不用記了"),
    ("claims", "素食篩選已為您停用", "user", "先不要素食"),
    ("claims", "好的，我記住了，您吃全素。", "user", "全素是我的習慣"),
    ("claims", "已經幫您存好了", "user", "幫我記一下"),
    ("claims", "已幫您預約明天中午兩位。", "user", "幫我訂位"),
    ("claims", "Done, I have deleted it.", "user", "delete it"),
    ("facts", "彰基的電話是 04-7238595，可以直接打過去問。", "user", "電話幾號"),
    ("facts", "在彰化市中山路二段 160 號，離車站不遠。", "user", "在哪裡"),
    ("facts", "門診時間是早上8點到中午12點。", "user", "幾點開"),
    ("facts", "一碗大約 50 元。", "user", "多少錢"),
    ("facts", "員林有三家素食店", "user", "員林有素食嗎"),
    ("facts", "可以看 https://www.example.com.tw 上的說明。", "user", "有網站嗎"),
    ("diets", "阿明吃全素，阿華吃蛋奶素", "group", "大家吃什麼"),
    ("diets", "您要找全素的店嗎？", "group", "我吃全素"),
    ("diets", "小明和他太太都吃全素喔。", "user", "誰吃素"),
    ("diets", "您吃全素。", "user", "我吃全素"),
    ("diets", "您要找蛋奶素的店嗎？", "user", "我吃全素"),
    ("may pass", "您要找全素的店嗎？請問是哪個鄉鎮？", "user", "我吃全素，想問問看"),
    ("may pass", "請問是哪個鄉鎮？", "user", "有什麼好吃的"),
    ("may pass", "要我幫您刪除嗎？", "user", "那個偏好"),
    ("may pass", "還沒有幫您刪除，要刪除請按「確定忘記」。", "user", "刪了嗎"),
    ("may pass", "不客氣！有需要再找我喔。", "user", "謝謝"),
    ("may pass", "天氣冷，出門記得多穿一點喔。", "user", "今天好冷"),
    ("may pass", "停車的資訊我還查不到。我可以幫您找花壇的店家或活動。", "user", "花壇好停車嗎"),
    ("may pass", "掰掰，路上小心。", "user", "掰掰"),
)
GROUPS = ("claims", "facts", "diets", "may pass")

_MEASURE = """
import inspect, json, sys, time
import local_agent.language.intents  # loaded by the commands in the service before any model turn
started = time.perf_counter()
from local_agent.agent import text_gate
import_ms = (time.perf_counter() - started) * 1e3
texts, repeat = json.loads(sys.stdin.read())
takes_chat = "chat" in inspect.signature(text_gate.check).parameters
def call(text, chat, said):
    return text_gate.check(text, chat=chat, said=said) if takes_chat else text_gate.check(text)
out = []
for group, text, chat, said in texts:
    code = call(text, chat, said).code
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        call(text, chat, said)
        samples.append(time.perf_counter() - t)
    out.append({"group": group, "code": code, "samples": samples})
print(json.dumps({"import_ms": import_ms, "file": text_gate.__file__, "texts": out}))
"""


class BenchError(Exception):
    """A revision that cannot be exported (no git, an unknown revision)."""


def run_gate(root: Path, repeat: int) -> dict[str, object]:
    """The gate under ``root`` (a folder holding ``local_agent``), in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE],
        input=json.dumps([TEXTS, repeat]),
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise BenchError(f"the gate under {root.name} did not run: {done.stderr.strip().splitlines()[-1:]}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def export(rev: str, into: Path) -> Path:
    """``local_agent`` of git revision ``rev``, exported into ``into``."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "local_agent"], cwd=ROOT, capture_output=True, timeout=120
    )
    if archive.returncode != 0:
        raise BenchError(f"cannot export revision {rev!r}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True, timeout=120)
    return into


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def group_rows(result: dict[str, object]) -> dict[str, tuple[float, float, int, int]]:
    """Per group: median µs, p90 µs, refused, texts."""
    rows: dict[str, tuple[float, float, int, int]] = {}
    texts = result["texts"]
    assert isinstance(texts, list)
    for group in GROUPS:
        mine = [t for t in texts if t["group"] == group]
        samples = [s for t in mine for s in t["samples"]]
        refused = sum(1 for t in mine if t["code"] is not None)
        rows[group] = (_percentile(samples, 50) * 1e6, _percentile(samples, 90) * 1e6, refused, len(mine))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gate_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=None, help="a git revision whose gate is measured beside")
    parser.add_argument("--repeat", type=int, default=300, help="calls per text")
    parser.add_argument("--quick", action="store_true", help="20 calls per text")
    parser.add_argument("--out-dir", default=None)
    args = parser.parse_args(argv)
    repeat = 20 if args.quick else args.repeat
    try:
        now = group_rows(after := run_gate(ROOT, repeat))
        before_result = None
        if args.before:
            with tempfile.TemporaryDirectory(prefix="gate-before-") as tmp:
                before_result = run_gate(export(args.before, Path(tmp)), repeat)
    except BenchError as exc:
        print(f"bench.gate_cost: {exc}", file=sys.stderr)
        return 2
    then = group_rows(before_result) if before_result else None
    headers = ["texts", "µs median", "µs p90", "refused"]
    if then:
        headers += [f"before µs median ({args.before})", "before µs p90", "before refused"]
    rows: list[list[object]] = []
    for group in GROUPS:
        med, p90, refused, n = now[group]
        row: list[object] = [f"{group} ({n})", med, p90, f"{refused}/{n}"]
        if then:
            b_med, b_p90, b_refused, _ = then[group]
            row += [b_med, b_p90, f"{b_refused}/{n}"]
        rows.append(row)
    print(format_table(headers, rows))
    imports = f"import ms: {fmt(after['import_ms'])}"
    if before_result:
        imports += f" (before: {fmt(before_result['import_ms'])})"
    print(f"{imports}; {len(TEXTS)} texts × {repeat} calls, each gate in a fresh interpreter")

    csv_path = write_csv(out_path("gate_cost.csv", args.out_dir), headers, rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar([g for g in GROUPS], [now[g][0] for g in GROUPS], label="this gate")
    if then:
        ax.bar([g for g in GROUPS], [then[g][0] for g in GROUPS], label=f"before ({args.before})", alpha=0.6)
    ax.set_ylabel("µs per text (median)")
    ax.set_title("Text gate per model-written text")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_path("gate_cost.png", args.out_dir))
    print(f"wrote {csv_path}")
    key = "; ".join(f"{g.replace(' ', '_')}_us={fmt(now[g][0])}" for g in GROUPS)
    refused = sum(now[g][2] for g in GROUPS if g != "may pass")
    print(f"KEY gate_cost: {key}; refused={refused}/{sum(now[g][3] for g in GROUPS if g != 'may pass')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
