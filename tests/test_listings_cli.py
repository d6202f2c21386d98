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
    assert summary["source"] == "shipped teaching snapshot"
    assert summary["townships"]["鹿港鎮"] == {"places": 4, "dated": 3, "standing": 3}


def test_check_names_file_row_and_column_and_fails(tmp_path, capsys):
    for name in ("places.csv", "events.csv"):
        (tmp_path / name).write_text((SHIPPED_DIR / name).read_text(encoding="utf-8"), encoding="utf-8")
    places = tmp_path / "places.csv"
    places.write_text(places.read_text(encoding="utf-8").replace(",花壇鄉,", ",台北市,", 1), encoding="utf-8")
    assert cli.main(["check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("listings check failed: places.csv row 2 column township: ")


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
