"""Smoke test of ``bench.gate_cost``: it runs with --quick in its own interpreter, writes its CSV and
ends with its KEY line, and every text of its claims, facts and diets groups is refused by this gate
and none of its may-pass group (no timing assertions: the machine is shared). An unknown revision
for ``--before`` is a clear error, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.gate_cost import TEXTS
from local_agent.agent import text_gate

ROOT = Path(__file__).resolve().parents[1]


def test_the_benchmark_texts_are_refused_or_passed_as_their_group_says() -> None:
    for group, text, chat, said in TEXTS:
        verdict = text_gate.check(text, chat=chat, said=said)
        assert verdict.ok == (group == "may pass"), (group, text, verdict)


@pytest.mark.slow
def test_gate_cost_quick(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.gate_cost", "--quick", "--out-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "gate_cost.csv").stat().st_size > 0
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines[-1].startswith("KEY gate_cost: ") and lines[-1].endswith("refused=19/19")


@pytest.mark.slow
def test_an_unknown_revision_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.gate_cost",
            "--quick",
            "--before",
            "no-such-rev",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert "cannot export revision 'no-such-rev'" in done.stderr and "Traceback" not in done.stderr
