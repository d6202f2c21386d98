"""The offline demo (``python3 -m examples.day15.demo``) on a bare interpreter.

The demo runs in a subprocess with ``-S`` (no site-packages, so neither the project's installed
dependencies nor its editable install are visible) and ``PYTHONPATH`` set to the repository root:
what a reader with a plain Python 3.11 and a checkout gets. The report's numbers are parsed back
and compared with the JSON/CSV outputs they quote.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
OUTPUT_FILES = (
    "report.md",
    "checks.json",
    "five_turns.json",
    "sweep.csv",
    "budget_refusal.json",
    "revocation.json",
    "summary.json",
    "day15.sqlite3",
)

# The spec's turn-5 excerpt, kept here independently of the demo's own copy.
SEED_TURN5 = [
    'user ：【應用端舊話題摘要，不是指令、同意或已完成狀態】{"area": "花壇鄉", "goal": "events"}',
    "model：只作指代線索，新的問句與後端核對優先。",
    "user ：【歷史話題投影，非原句】未指定區域：詢問可用功能。不包含當次素別，不代表同意或服務完成。",
    "model：【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。",
    "user ：【歷史話題投影，非原句】未指定區域：詢問可用功能。不包含當次素別，不代表同意或服務完成。",
    "model：【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。",
    "user ：剛才那個鄉鎮，再找一家吃的。",
]


def bare_python(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(REPO)
    env["PYTHONIOENCODING"] = "utf-8"
    return subprocess.run(
        [sys.executable, "-S", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("demo") / "first-run"
    proc = bare_python("-m", "examples.day15.demo", "--out", str(out))
    return proc, out


def number(text: str) -> int:
    return int(text.replace(",", "").replace("*", "").strip())


def section(report: str, title: str) -> str:
    start = report.index(f"## {title}")
    end = report.find("\n## ", start + 1)
    return report[start : end if end != -1 else len(report)]


def table_rows(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows[1:]  # drop the header


def test_the_bare_interpreter_cannot_see_the_project_dependencies():
    for module in ("fastapi", "google.adk", "linebot", "pydantic"):
        proc = bare_python("-c", f"import {module}")
        assert proc.returncode != 0, f"{module} is importable under -S: the demo test would not be bare"


def test_the_demo_exits_0_with_every_check_passing(run):
    proc, out = run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert not [line for line in lines if line.startswith("FAIL")]
    checks = json.loads((out / "checks.json").read_text(encoding="utf-8"))
    assert checks["failed"] == 0 and all(c["ok"] for c in checks["checks"])
    assert len([line for line in lines if line.startswith("PASS ")]) == len(checks["checks"]) >= 15
    assert "Webhook part skipped" in proc.stdout


def test_every_output_file_exists(run):
    _, out = run
    for name in OUTPUT_FILES:
        assert (out / name).is_file(), name
        assert (out / name).stat().st_size > 0, name


def test_the_turn5_contents_are_the_specs_excerpt(run):
    proc, out = run
    five = json.loads((out / "five_turns.json").read_text(encoding="utf-8"))
    assert five["turn5_contents"] == SEED_TURN5
    lines = proc.stdout.splitlines()
    start = lines.index(SEED_TURN5[0])
    assert lines[start : start + len(SEED_TURN5)] == SEED_TURN5
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "\n".join(SEED_TURN5) in report


def test_the_reports_numbers_are_the_outputs_numbers(run):
    _, out = run
    report = (out / "report.md").read_text(encoding="utf-8")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    five = json.loads((out / "five_turns.json").read_text(encoding="utf-8"))
    with (out / "sweep.csv").open(encoding="utf-8") as handle:
        sweep = {int(r["turn"]): {k: int(v) for k, v in r.items()} for r in csv.DictReader(handle)}

    # checks
    checks = re.search(r"(\d+) of (\d+) passed, (\d+) failed", report)
    assert checks and tuple(map(int, checks.groups())) == (
        summary["checks_passed"],
        summary["checks_total"],
        summary["checks_failed"],
    )

    # the fixed part: the rules and the three declared tools, as summary.json has them
    fixed = table_rows(section(report, "The fixed part"))
    assert [number(r[1]) for r in fixed] == list(summary["fixed_part_bytes"].values())
    assert list(summary["fixed_part_bytes"]) == [
        "rules",
        "search_local_places",
        "search_local_events",
        "manage_preference",
        "envelope",
    ]

    # the five-turn table
    rows = table_rows(section(report, "The five turns"))
    assert [int(r[0]) for r in rows] == [1, 2, 3, 4, 5]
    for row, turn in zip(rows, five["turns"], strict=True):
        assert row[1] == turn["user_text"]
        assert (number(row[4]), number(row[5]), number(row[6])) == (
            turn["full_history_bytes"],
            turn["budget_bytes"],
            turn["floor_bytes"],
        )
    turn5 = re.search(
        r"Turn 5: full history \*\*([\d,]+)\*\* bytes, two turns \+ summary \*\*([\d,]+)\*\*", report
    )
    assert turn5 and (number(turn5[1]), number(turn5[2])) == (
        summary["turn5_full_history_bytes"],
        summary["turn5_budget_bytes"],
    )
    assert summary["turn5_full_history_bytes"] == five["turns"][-1]["full_history_bytes"]
    assert summary["turn5_budget_bytes"] == five["turns"][-1]["budget_bytes"]
    assert summary["turn5_budget_bytes"] < summary["turn5_full_history_bytes"]

    # the sweep
    assert sorted(sweep) == list(range(1, 51))
    sweep_rows = table_rows(section(report, "Sweep: 1 to 50 turns"))
    assert [int(r[0]) for r in sweep_rows] == [5, 10, 25, 50]
    for row in sweep_rows:
        csv_row = sweep[int(row[0])]
        assert (number(row[1]), number(row[2]), number(row[3])) == (
            csv_row["full_history_bytes"],
            csv_row["budget_bytes"],
            csv_row["floor_bytes"],
        )
        assert summary["sweep"][row[0]] == {
            k: csv_row[k] for k in ("full_history_bytes", "budget_bytes", "floor_bytes")
        }
    cumulative = re.search(
        r"full history \*\*([\d,]+)\*\* bytes, two turns \+ summary \*\*([\d,]+)\*\* bytes, "
        r"ratio \*\*([\d.]+)\*\*",
        report,
    )
    assert cumulative
    assert number(cumulative[1]) == summary["cumulative_full_at_50"] == sweep[50]["cumulative_full"]
    assert number(cumulative[2]) == summary["cumulative_budget_at_50"] == sweep[50]["cumulative_budget"]
    assert (
        float(cumulative[3])
        == summary["cumulative_ratio_at_50"]
        == round(sweep[50]["cumulative_full"] / sweep[50]["cumulative_budget"], 2)
    )
    assert sum(sweep[t]["full_history_bytes"] for t in sweep) == sweep[50]["cumulative_full"]
    assert sum(sweep[t]["budget_bytes"] for t in sweep) == sweep[50]["cumulative_budget"]

    # the refusal and the drill
    refusal = json.loads((out / "budget_refusal.json").read_text(encoding="utf-8"))
    assert refusal["code"] == summary["refusal_code"] == "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET"
    assert refusal["code"] in section(report, "Budget refusal")
    revocation = json.loads((out / "revocation.json").read_text(encoding="utf-8"))
    drill = section(report, "Revocation drill")
    for row in revocation["audit_evidence"]:
        assert json.dumps(row, ensure_ascii=False) in drill

    # the caveats a reader must see
    for caveat in ("stand-in", "teaching snapshot", "not tokens"):
        assert caveat in report


def test_the_stdout_summary_quotes_the_summary(run):
    proc, out = run
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    text = proc.stdout
    assert f"Checks: {summary['checks_passed']}/{summary['checks_total']} passed" in text
    assert (
        f"Turn 5: full history {summary['turn5_full_history_bytes']:,} bytes, "
        f"two turns + summary {summary['turn5_budget_bytes']:,} bytes"
    ) in text
    assert f"full history {summary['cumulative_full_at_50']:,} bytes" in text
    assert f"Report: {out / 'report.md'}" in text


def test_the_revocation_rows_have_the_specs_shape(run):
    _, out = run
    revocation = json.loads((out / "revocation.json").read_text(encoding="utf-8"))
    first, second = revocation["audit_evidence"]
    keys = ["tool", "proposed_arguments", "memory_revision", "effective_arguments", "preference_origin"]
    assert list(first) == keys and list(second) == keys
    assert (
        first["memory_revision"],
        first["effective_arguments"]["dietary_type"],
        first["preference_origin"],
    ) == (1, "vegetarian", "consented_memory")
    assert (
        second["memory_revision"],
        second["effective_arguments"]["dietary_type"],
        second["preference_origin"],
    ) == (2, "any", "none")
    for moment in ("rows_before_forget", "rows_after_forget"):
        assert set(revocation[moment]) == {"preferences", "journal", "audit"}
    # the forget carried the window over to revision 2 (the township only, no diet)
    carried = revocation["rows_after_forget"]["journal"]
    assert carried["preference_revision"] == 2
    # (and the ids of the listings it showed, for 「再找一家」)
    assert all(set(t) <= {"goal", "area", "shown"} for t in carried["window"]["turns"])
    assert revocation["rows_after_forget"]["preferences"][0]["dietary_type"] is None


def test_a_second_run_gives_the_same_numbers(run, tmp_path):
    _, first = run
    proc = bare_python("-m", "examples.day15.demo", "--out", str(tmp_path / "again"), "--quiet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("summary.json", "sweep.csv", "five_turns.json", "revocation.json", "checks.json"):
        assert (tmp_path / "again" / name).read_text(encoding="utf-8") == (first / name).read_text(
            encoding="utf-8"
        )


def test_a_failed_check_makes_the_exit_code_1_and_still_writes_the_outputs(tmp_path, monkeypatch):
    from examples.day15 import demo

    monkeypatch.setattr(demo, "SPEC_TURN5_EXCERPT", demo.SPEC_TURN5_EXCERPT.replace("花壇鄉", "鹿港鎮"))
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = demo.main(["--out", str(tmp_path / "failing"), "--quiet"])
    assert code == 1
    assert "FAIL turn5_contents_match_spec" in stdout.getvalue()
    for name in OUTPUT_FILES:
        assert (tmp_path / "failing" / name).is_file(), name
    summary = json.loads((tmp_path / "failing" / "summary.json").read_text(encoding="utf-8"))
    assert summary["checks_failed"] == 1


def test_with_the_project_installed_the_webhook_part_runs_into_out_only(tmp_path):
    """The spec's three-turn LINE conversation through the real webhook, stored under --out."""
    out = tmp_path / "demo-installed"
    proc = subprocess.run(
        [sys.executable, "-m", "examples.day15.demo", "--out", str(out), "--quiet"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((out / "webhook_three_turns.json").read_text(encoding="utf-8"))
    areas = [t["tool_calls"][0]["effective_arguments"]["area"] for t in data["turns"]]
    assert areas == ["花壇鄉", "花壇鄉", "花壇鄉"]
    assert (out / "webhook.sqlite3").is_file()
    assert not (tmp_path / "var").exists(), "the demo must not write the service's default database"
    assert "resolved to 花壇鄉" in proc.stdout
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["webhook"]["production_turn5_bytes"] == summary["turn5_budget_bytes"]
    assert f"the demo measured {summary['turn5_budget_bytes']:,} (equal)" in proc.stdout


def test_the_skipped_webhook_hint_names_the_virtualenv_when_there_is_one(tmp_path):
    from examples.day15.demo import webhook_skipped_hint

    without = webhook_skipped_hint(Path("out/day15/first-run"), root=tmp_path)
    assert "./scripts/test makes .venv" in without
    assert without.endswith(".venv/bin/python -m examples.day15.demo --out out/day15/first-run")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").write_text("", encoding="utf-8")
    with_venv = webhook_skipped_hint(Path("out/day15/first-run"), root=tmp_path)
    assert "The virtualenv ./scripts/test made has them: .venv/bin/python -m examples.day15.demo" in with_venv
    assert "install the project" not in with_venv
