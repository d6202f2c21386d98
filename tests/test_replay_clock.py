"""A replay that reproduces: ``--now`` and the script's ``"now"`` fix the service clock; bad instants and
a clock that would go backwards are refused before anything runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from examples.day15 import replay as R

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "examples" / "day15" / "scripts"
NOON = "2026-11-30T12:00:00+08:00"
NOON_EPOCH = 1_796_011_200.0


def script(**top: object) -> str:
    return json.dumps({"events": [{"user": "U1", "text": "花壇這週末有什麼活動？"}], **top})


def test_an_instant_needs_iso_8601_and_its_offset():
    assert R.parse_now(NOON) == NOON_EPOCH
    assert R.parse_now("2026-11-30T04:00:00Z") == NOON_EPOCH
    with pytest.raises(ValueError, match="not an ISO-8601 date and time"):
        R.parse_now("next monday")
    with pytest.raises(ValueError, match="has no UTC offset"):
        R.parse_now("2026-11-30T12:00:00")
    with pytest.raises(ValueError, match="has no UTC offset"):
        R.parse_now("2026-11-30")


def test_the_scripts_now_starts_the_clock_and_bad_ones_are_script_errors():
    assert R.parse_script_with_clock(script(now=NOON)).now == NOON_EPOCH
    assert R.parse_script_with_clock(script()).now is None
    with pytest.raises(R.ScriptError, match='"now" .* has no UTC offset'):
        R.parse_script_with_clock(script(now="2026-11-30T12:00:00"))
    with pytest.raises(R.ScriptError, match='"now" must be a string'):
        R.parse_script_with_clock(script(now=1796011200))


def test_a_now_that_goes_backwards_is_refused_naming_the_event():
    events = [
        {"user": "U1", "text": "花壇有什麼好吃的？"},
        {"advance_seconds": 3600},
        {"now": "2026-11-30T12:30:00+08:00"},  # half an hour after the start, but after an hour's advance
    ]
    with pytest.raises(R.ScriptError) as info:
        R.parse_script_with_clock(json.dumps({"now": NOON, "events": events}))
    assert info.value.index == 2 and "goes backwards" in str(info.value) and "event 2" in str(info.value)
    forward = [*events[:2], {"now": "2026-12-05T09:00:00+08:00"}]
    assert len(R.parse_script_with_clock(json.dumps({"now": NOON, "events": forward})).events) == 3
    # --now moves the start: the same script checked against a later start is refused
    parsed = R.parse_script_with_clock(json.dumps({"events": forward}))
    with pytest.raises(R.ScriptError, match="event 2"):
        parsed.check_clock(R.parse_now("2026-12-06T00:00:00+08:00"))


@pytest.mark.parametrize("path", sorted(SCRIPTS.glob("*.json")), ids=lambda p: p.name)
def test_every_shipped_script_fixes_its_clock(path):
    """Same script, same output on any day: each shipped script says when it happens."""
    assert R.read_script(path).now == NOON_EPOCH


def test_a_fixed_clock_moves_only_when_the_script_moves_it():
    clock = R.ShiftableClock(start=NOON_EPOCH)
    assert clock() == clock() == NOON_EPOCH
    clock.advance(60)
    clock.move_to(NOON_EPOCH + 3600)
    assert clock() == NOON_EPOCH + 3600
    with pytest.raises(ValueError, match="goes backwards"):
        clock.move_to(NOON_EPOCH)


@pytest.mark.parametrize("value", ["yesterday", "2026-11-30T12:00:00", "2026-11-30"])
def test_a_bad_now_option_exits_2_before_anything_starts(value, capsys):
    with pytest.raises(SystemExit) as info:
        R.main([str(SCRIPTS / "five_turns.json"), "--now", value])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--now" in err and ("offset" in err or "ISO-8601" in err) and "Traceback" not in err


def test_a_backwards_now_exits_2_before_any_line(tmp_path, capsys):
    path = tmp_path / "back.json"
    path.write_text(
        json.dumps(
            {"now": NOON, "events": [{"user": "U1", "text": "hi"}, {"now": "2026-11-29T12:00:00+08:00"}]}
        ),
        encoding="utf-8",
    )
    assert R.main([str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "event 1" in captured.err and "goes backwards" in captured.err


def test_help_documents_every_event_shape_and_top_level_key(capsys):
    with pytest.raises(SystemExit):
        R.main(["--help"])
    out = capsys.readouterr().out
    for needle in (
        '"now"',
        '"description"',
        '"events"',
        '"advance_seconds"',
        '"from_reply_of"',
        '"mention": true',
        '"event": "follow"',
        '"event": "join"',
        "Exit status",
        "--now",
    ):
        assert needle in out, needle
    for kind in R.EVENT_KEYS:
        assert f'"{kind}"' in out


def _replay(path: Path, *args: str) -> list[dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LINE_", "LOCAL_", "GOOGLE_"))}
    env.update(LOCAL_STORE="sqlite", LOCAL_MODEL="offline", PYTHONIOENCODING="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "examples.day15.replay", str(path), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.slow
def test_the_same_script_prints_the_same_lines_and_dates_follow_the_fixed_clock(tmp_path):
    events = [
        {"user": "U1", "text": "花壇這週末有什麼活動？"},
        {"now": "2026-12-28T10:00:00+08:00"},
        {"user": "U1", "text": "鹿港這週末有什麼活動？"},
    ]
    with_now = tmp_path / "with_now.json"
    with_now.write_text(json.dumps({"now": NOON, "events": events}, ensure_ascii=False), encoding="utf-8")
    without = tmp_path / "without.json"
    without.write_text(json.dumps({"events": events}, ensure_ascii=False), encoding="utf-8")
    first = _replay(with_now)
    assert _replay(without, "--now", NOON) == first  # the option and the field are the same clock
    window = first[0]["tool_calls"][0]["effective_arguments"]
    assert (window["date_from"], window["date_to"]) == ("2026-12-05", "2026-12-06")
    assert first[1]["clock"] == "2026-12-28T10:00:00+08:00"
    later = first[2]["tool_calls"][0]["effective_arguments"]
    assert (later["date_from"], later["date_to"]) == ("2027-01-02", "2027-01-03")
    # a week later the same script (and --now overriding its field) asks about another weekend
    moved = _replay(with_now, "--now", "2026-12-07T12:00:00+08:00")
    assert moved[0]["tool_calls"][0]["effective_arguments"]["date_from"] == "2026-12-12"


@pytest.mark.slow
def test_readmes_dated_session_is_what_the_chat_prints_with_its_now():
    """The listings guide's dated example runs as shown: its reply lines are the chat's, with the clock fixed."""
    readme = (ROOT / "docs" / "listings.md").read_text(encoding="utf-8")
    block = readme.split("It prints each reply line, the notice, then the cards;", 1)[1].split("```", 2)[1]
    asked = [line[2:] for line in block.splitlines() if line.startswith("> ")]
    replies = [line for line in block.splitlines() if line and not line.startswith((">", " "))]
    assert len(asked) == len(replies) == 3
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LINE_", "LOCAL_", "GOOGLE_"))}
    env.update(PYTHONIOENCODING="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "examples.day15.chat", "--now", NOON],
        input="".join(f"{q}\n" for q in asked),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    printed = [line.removeprefix("LOCAL> ").strip() for line in done.stdout.splitlines()]
    for reply in replies:
        assert reply in printed, (reply, done.stdout[-3000:])
