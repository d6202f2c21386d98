"""``python -m examples.day15.listings check DIR``: the start-up validation as a command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from examples.day15 import listings as cli
from local_agent.listings.loader import SHIPPED_DIR

ROOT = Path(__file__).resolve().parents[1]


def test_check_prints_counts_per_township_and_dated_against_standing(capsys):
    assert cli.main(["check", str(SHIPPED_DIR)]) == 0
    out = capsys.readouterr().out
    assert "places: 44  events: 40 (dated 14, standing 26)" in out
    assert "townships: 15 of 26" in out
    assert any(line.startswith("花壇鄉") and line.split()[1:] == ["4", "4", "3"] for line in out.splitlines())
    assert out.rstrip().endswith("OK: the service would start with these listings.")


def test_check_json_is_the_loaders_summary(capsys):
    assert cli.main(["check", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] is True and summary["meta"]["as_of"] == "2026-11-30"
    assert summary["source"] == "shipped teaching snapshot"
    assert summary["townships"]["鹿港鎮"] == {"places": 4, "dated": 3, "standing": 3}


def copy_snapshot(folder: Path) -> Path:
    for name in ("places.csv", "events.csv"):
        (folder / name).write_text((SHIPPED_DIR / name).read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= count
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def test_check_names_file_row_and_column_and_fails(tmp_path, capsys):
    copy_snapshot(tmp_path)
    edit(tmp_path / "places.csv", ",花壇鄉,", ",台北市,")
    assert cli.main(["check", str(tmp_path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "listings check failed: 1 problem"
    assert err[1].startswith("  places.csv row 2 column township: '台北市' is not one of")
    assert "; allowed: a township's full or short name" in err[1]


def test_one_run_reports_every_problem_in_every_file(tmp_path, capsys):
    """A bad township, a bad date, a bad diet code, a duplicate id and an unknown metadata key:
    one run names them all, in file and row order."""
    copy_snapshot(tmp_path)
    edit(tmp_path / "places.csv", ",花壇鄉,", ",台北市,")
    edit(tmp_path / "places.csv", "lacto_ovo;vegetarian", "lacto_ovo;meat")
    edit(tmp_path / "places.csv", "p002,", "p001,")
    edit(tmp_path / "events.csv", ",2026-12-05,", ",2026-02-30,")
    (tmp_path / "listings.toml").write_text('office = "公所"\ncolour = "blue"\n', encoding="utf-8")
    assert cli.main(["check", str(tmp_path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["problem_count"] == 5 and report["not_shown"] == 0
    found = [(p["file"], p["row"], p["column"]) for p in report["problems"]]
    assert found[0] == ("listings.toml", 2, "colour")
    assert found[1:4] == [
        ("places.csv", 2, "township"),
        ("places.csv", 2, "dietary"),
        ("places.csv", 3, "id"),
    ]
    assert found[4][0::2] == ("events.csv", "start_date")
    assert all(p["problem"] and p["allowed"] for p in report["problems"])


def test_printing_is_bounded_with_a_count_of_the_rest(tmp_path, capsys):
    copy_snapshot(tmp_path)
    edit(tmp_path / "places.csv", ",花壇鄉,", ",台北市,", count=4)
    assert cli.main(["check", str(tmp_path), "--max-problems", "3"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "listings check failed: 4 problems" and len(err) == 5
    assert err[-1] == "  ... and 1 more (--max-problems 0 prints them all)"
    assert cli.main(["check", str(tmp_path), "--max-problems", "0"]) == 1
    assert len(capsys.readouterr().err.splitlines()) == 5
    assert cli.main(["check", str(tmp_path), "--json", "--max-problems", "1"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["problem_count"], len(report["problems"]), report["not_shown"]) == (4, 1, 3)


def test_json_on_a_missing_folder_is_json_too(tmp_path, capsys):
    assert cli.main(["check", str(tmp_path / "nope"), "--json"]) == 1
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["ok"] is False and report["problems"][0]["problem"] == "not a folder"
    assert captured.err == ""


def test_a_structural_problem_ends_its_file_but_the_other_file_is_still_checked(tmp_path, capsys):
    copy_snapshot(tmp_path)
    text = (tmp_path / "places.csv").read_text(encoding="utf-8")
    (tmp_path / "places.csv").write_bytes(text.encode("cp950"))  # Excel's plain "CSV"
    edit(tmp_path / "events.csv", ",2026-12-05,", ",2026-02-30,")
    assert cli.main(["check", str(tmp_path), "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert [p["file"] for p in problems] == ["places.csv", "events.csv"]
    assert "CP950/Big5" in problems[0]["problem"] and "2026-02-30" in problems[1]["problem"]


def test_a_bom_and_crlf_in_one_file_hide_no_problem_of_either(tmp_path, capsys):
    copy_snapshot(tmp_path)
    edit(tmp_path / "places.csv", ",花壇鄉,", ",台北市,")
    edit(tmp_path / "places.csv", "\np002,", "\np001,")
    text = (tmp_path / "places.csv").read_text(encoding="utf-8").replace("\n", "\r\n")
    (tmp_path / "places.csv").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    edit(tmp_path / "events.csv", ",2026-12-05,", ",2026-02-30,")
    assert cli.main(["check", str(tmp_path), "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert [(p["file"], p["column"]) for p in problems] == [
        ("places.csv", "township"),
        ("places.csv", "id"),
        ("events.csv", "start_date"),
    ]


def test_check_prints_the_folders_notice(tmp_path, capsys):
    copy_snapshot(tmp_path)
    assert cli.main(["check", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "office: (not given)  as of: (not given)  (no listings.toml)" in out
    assert "notice: 資料未標示更新日期，出發前請再確認。" in out and "教學快照" not in out
    assert cli.main(["check"]) == 0
    out = capsys.readouterr().out
    assert "office: LOCAL 教學範例（虛構資料）  as of: 2026-11-30" in out


def test_the_command_runs_as_a_module_on_the_standard_library_alone(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-S", "-m", "examples.day15.listings", "check"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "dated 14, standing 26" in done.stdout
