"""Smoke test of the benchmarks: each runs with --quick in its own subprocess and must exit 0,
write its CSV and end its output with its KEY line. No timing assertions: the machine is shared.

The four run concurrently so the whole test stays short (under a minute on a quiet machine); the
per-process timeout only bounds a hang.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ("context_growth", "turn_overhead", "webhook_load", "plugin_tools")
HANG_LIMIT_S = 300


@pytest.mark.slow
def test_benchmarks_quick(tmp_path: Path) -> None:
    procs = {}
    for name in BENCHMARKS:
        out = tmp_path / name
        procs[name] = (
            out,
            subprocess.Popen(
                [sys.executable, "-m", f"bench.{name}", "--quick", "--out-dir", str(out)],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
        )
    results = {}
    try:
        for name, (out, proc) in procs.items():
            stdout, stderr = proc.communicate(timeout=HANG_LIMIT_S)
            results[name] = (out, proc.returncode, stdout, stderr)
    finally:
        for _, proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    for name, (out, code, stdout, stderr) in results.items():
        assert code == 0, f"bench.{name} exited {code}\n{stdout[-2000:]}\n{stderr[-4000:]}"
        assert (out / f"{name}.csv").is_file(), f"bench.{name} wrote no CSV"
        assert (out / f"{name}.csv").stat().st_size > 0
        assert (out / f"{name}.png").is_file(), f"bench.{name} wrote no PNG"
        lines = [line for line in stdout.splitlines() if line.strip()]
        assert lines and lines[-1].startswith(f"KEY {name}: "), f"bench.{name} did not end with its KEY line"


@pytest.mark.slow
def test_listings_load_quick(tmp_path: Path) -> None:
    # Run on its own, after the three above: it adds no CPU to their concurrent start-up.
    done = subprocess.run(
        [sys.executable, "-m", "bench.listings_load", "--quick", "--out-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_LIMIT_S,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "listings_load.csv").stat().st_size > 0
    assert (tmp_path / "listings_load.png").is_file()
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines[-1].startswith("KEY listings_load: ")


@pytest.mark.slow
def test_webhook_load_queue_modes_smoke(tmp_path: Path) -> None:
    """The pubsub target: both queue modes on the emulators, tiny sizes (skipped without them)."""
    from local_agent.testing.pubsub import find_emulator

    missing = find_emulator()
    if isinstance(missing, str):
        pytest.skip(f"no Pub/Sub emulator: {missing}")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.webhook_load",
            "--targets",
            "pubsub",
            "--queue-rates",
            "10",
            "--queue-seconds",
            "1",
            "--out-dir",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_LIMIT_S,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "webhook_load_queues.csv").stat().st_size > 0
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines[-1].startswith("KEY webhook_load: ")
    assert "pubsub10_lost=0" in lines[-1] and "pubsub10_twice=0" in lines[-1]
    assert "inprocess10_lost=0" in lines[-1]


@pytest.mark.slow
def test_language_cost_quick(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.language_cost", "--quick", "--out-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_LIMIT_S,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "language_cost.csv").stat().st_size > 0
    assert (tmp_path / "language_cost.png").is_file()
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines[-1].startswith("KEY language_cost: ")
