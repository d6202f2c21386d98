"""ADK's own tools load LOCAL: ``examples/day15/agents/local_day15`` exposes ``root_agent`` (the production
agent: budget gate, tools, offline model, its own SQLite file); ``adk run`` answers offline, ``adk web``
lists it, and the evalset converted from the replay scripts passes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from examples.day15 import evalset as E

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "examples" / "day15" / "agents"
AGENT = AGENTS / "local_day15"
ADK = Path(sys.executable).parent / "adk"

pytestmark = pytest.mark.slow


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LINE_", "LOCAL_", "GOOGLE_"))}
    env.update(PYTHONIOENCODING="utf-8", HOME=str(tmp_path), **extra)
    return env


def test_the_converter_makes_one_case_per_user_and_clock_segment():
    cases = {c.eval_id: c for s in sorted(E.SCRIPTS.glob("*.json")) for c in E.cases_of(s)}
    assert cases["five_turns-U1"].texts[-1] == "剛才那個鄉鎮，再找一家吃的。"
    assert len(cases["five_turns-U1"].texts) == 5
    # the TTL script: the texts after the 901 s advance are a new case (a new user, an empty journal)
    assert "ttl_expiry-U1-2" in cases and cases["ttl_expiry-U1"].user_id != cases["ttl_expiry-U1-2"].user_id
    # group messages are left out: ADK's chat is one user's 1:1 chat
    assert cases["group_and_users-U1"].texts == ("花壇有什麼店推薦吃吃看？", "剛才那個鄉鎮，再找一家吃的。")


def test_the_shipped_evalset_holds_the_production_answers():
    data = json.loads(E.EVALSET.read_text(encoding="utf-8"))
    cases = {c["eval_id"]: c["conversation"] for c in data["eval_cases"]}
    five = cases["five_turns-U1"]
    # turn 5 resolves 「剛才那個鄉鎮」 to 花壇鄉 through the summary, as the replay shows
    (resolved,) = five[4]["intermediate_data"]["tool_uses"]
    assert (resolved["name"], resolved["args"]["area"]) == ("search_local_places", "花壇鄉")
    weekly = five[1]["intermediate_data"]["tool_uses"][0]
    assert weekly["name"] == "search_local_events" and weekly["args"]["date_from"] == "2026-11-30"
    assert five[4]["final_response"]["parts"][0]["text"].startswith("花壇鄉")
    assert json.loads(E.TEST_CONFIG.read_text(encoding="utf-8")) == E.CRITERIA


def test_the_evalset_passes_adk_s_trajectory_evaluator_on_a_fresh_run():
    done = subprocess.run(
        [sys.executable, "-m", "examples.day15.evalset", "--check"],
        cwd=ROOT,
        env=_env(ROOT),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    cases = len(json.loads(E.EVALSET.read_text(encoding="utf-8"))["eval_cases"])
    assert f"{cases}/{cases} cases passed" in done.stdout


def test_adk_run_answers_offline_from_the_agent_package(tmp_path):
    done = subprocess.run(
        [str(ADK), "run", "--in_memory", str(AGENT), "花壇有什麼素食"],
        cwd=tmp_path,
        env=_env(tmp_path, LOCAL_DAY15_NOW="2026-11-30T12:00:00+08:00"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "[local_day15]: 花壇鄉（素食）找到 2 家店家：" in done.stdout
    assert "・花壇和米素食｜花壇鄉・素食" in done.stdout and "教學快照" in done.stdout


def test_adk_web_lists_the_agent():
    code = (
        "from google.adk.cli.utils.agent_loader import AgentLoader;"
        f"loader = AgentLoader({str(AGENTS)!r});"
        "print(loader.list_agents());"
        "print(type(loader.load_agent('local_day15')).__name__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=_env(ROOT, LOCAL_DAY15_NOW="2026-11-30T12:00:00+08:00"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-2:] == ["['local_day15']", "LlmAgent"]


def _adk_eval(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ADK), "eval", str(AGENT), str(E.EVALSET)],
        cwd=tmp_path,
        env=_env(tmp_path),  # no LOCAL_DAY15_NOW: each case's session carries its clock
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_adk_eval_passes_every_case_twice_in_a_row_after_adk_run_with_no_variable_set(tmp_path):
    # an adk run on the agent's own context file, at the real time, in the township the cases ask about
    done = subprocess.run(
        [str(ADK), "run", str(AGENT), "花壇有什麼好吃的"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "花壇鄉" in done.stdout
    cases = len(json.loads(E.EVALSET.read_text(encoding="utf-8"))["eval_cases"])
    for _ in range(2):
        done = _adk_eval(tmp_path)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert f"Tests passed: {cases}" in done.stdout and "Tests failed: 0" in done.stdout


def test_the_standalone_agent_is_the_routers_model_rules_and_tools():
    os.environ.setdefault("LOCAL_DAY15_NOW", E.NOW)
    agent = E.load_agent()
    names = sorted(t.name for t in agent.tools)  # type: ignore[union-attr]
    assert {"search_local_places", "search_local_events"} <= set(names)
    assert agent.before_model_callback is not None and agent.before_agent_callback is not None
    invocations = asyncio.run(E.run_case(agent, E.Case("t", "eval-t", ("花壇有什麼素食",))))
    assert invocations[0].final_response is not None


def test_adk_web_lists_the_agent_and_its_trace_shows_the_budgeted_request(tmp_path):
    import socket
    import time

    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(ADK), "web", "--port", str(port), str(AGENTS)],
        cwd=tmp_path,
        # ADK 2.13 traces with the GenAI semantic conventions: message content goes on the span only
        # when asked for with OpenTelemetry's own switch (without it the trace holds no text at all)
        env=_env(tmp_path, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="SPAN_ONLY"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                listed = httpx.get(f"{base}/list-apps", timeout=5).json()
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "adk web did not start"
                time.sleep(0.5)
        assert listed == ["local_day15"]

        def run(session: str, text: str) -> list[dict]:
            message = {"role": "user", "parts": [{"text": text}]}
            body = {"appName": "local_day15", "userId": "u1", "sessionId": session, "newMessage": message}
            return list(httpx.post(f"{base}/run", json=body, timeout=120).json())

        def new_session() -> str:  # the session's clock in its state, as the evalset's cases carry it
            state = {"state": {E.NOW_STATE: E.NOW}}
            return str(
                httpx.post(f"{base}/apps/local_day15/users/u1/sessions", json=state, timeout=60).json()["id"]
            )

        session = new_session()
        run(session, "花壇有什麼素食")
        events = run(session, "剛才那個鄉鎮，再找一家吃的。")
        call = next(
            e for e in events if any("functionCall" in p for p in (e.get("content") or {}).get("parts", []))
        )
        trace = httpx.get(f"{base}/dev/apps/local_day15/debug/trace/{call['id']}", timeout=30).json()
        # "New Session": the same person, a chat of its own; 剛才那個鄉鎮 has nothing to refer to
        fresh = run(new_session(), "剛才那個鄉鎮，再找一家吃的。")
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    messages = json.loads(trace["gen_ai.input.messages"])
    texts = ["".join(p.get("content", "") for p in m["parts"] if p.get("type") == "text") for m in messages]
    # the second turn's request: the first turn as a projection, the app's marker, the question; never
    # the first question's words (ADK's own session history is not what the model saw)
    assert texts[-1] == "剛才那個鄉鎮，再找一家吃的。"
    assert any("花壇鄉：找店家" in t for t in texts[:-1])
    assert not any("花壇有什麼素食" in t for t in texts)
    said = ["".join(p.get("text", "") for p in (e.get("content") or {}).get("parts", [])) for e in fresh]
    assert said[-1] and not any("花壇" in t for t in said)
    calls = [
        p["functionCall"]
        for e in fresh
        for p in (e.get("content") or {}).get("parts", [])
        if "functionCall" in p
    ]
    assert not any("花壇" in json.dumps(c.get("args") or {}, ensure_ascii=False) for c in calls)
