"""The ADK evalset of ``examples/day15/agents/local_day15``, converted from the replay scripts.

    python -m examples.day15.evalset            # write day15.evalset.json and test_config.json
    python -m examples.day15.evalset --check    # run the agent and score it against the evalset

Each replay script in ``examples/day15/scripts/`` becomes eval cases: per user, the texts of that user's
1:1 chat, in order (ADK's chat has one user and no groups, so group messages, button taps and
follow/join events are left out); a clock event (``advance_seconds``, ``now``) ends a case and the texts
after it start a new one under a new user id, since an evalset cannot move the clock (a new session starts
with an empty journal, as the journal is after 900 s). Each case carries its clock: its session starts
with ``local_day15_now`` = the scripts' ``now`` in its state, which the agent reads at each invocation
(``LOCAL_DAY15_NOW``, when set, overrides it), so ``adk eval`` needs no variable. The agent runs each case
through ADK's own ``Runner`` in a session of its own (its own journal scope) on a fresh context file;
ADK's own ``EvaluationGenerator.convert_events_to_eval_invocations`` turns the events into the expected
invocations (the tool calls the model proposed and the reply the code rendered).

``test_config.json`` asks ``adk eval`` for ``tool_trajectory_avg_score`` 1.0: it runs offline and
needs no judge model. (ADK's ``response_match_score`` is a ROUGE score over ASCII words: on Chinese
replies it measures nothing, so it is not used.) ``--check`` scores a fresh run with ADK's own
``TrajectoryEvaluator``, the evaluator ``adk eval`` uses for that metric.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from examples.day15.replay import read_script

if TYPE_CHECKING:
    from google.adk.agents import BaseAgent
    from google.adk.evaluation.eval_case import Invocation

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "examples" / "day15" / "scripts"
AGENT_DIR = ROOT / "examples" / "day15" / "agents" / "local_day15"
EVALSET = AGENT_DIR / "day15.evalset.json"
TEST_CONFIG = AGENT_DIR / "test_config.json"
APP_NAME = "local_day15"
NOW = "2026-11-30T12:00:00+08:00"  # every shipped script's "now"
CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0}}
NOW_STATE = "local_day15_now"  # the session state key the agent reads its clock from


@dataclass(frozen=True)
class Case:
    eval_id: str
    user_id: str
    texts: tuple[str, ...]
    state: tuple[tuple[str, str], ...] = ((NOW_STATE, NOW),)  # the session's initial state


def cases_of(script: Path) -> list[Case]:
    """The eval cases of one replay script (see the module docstring)."""
    parsed = read_script(script)
    if parsed.now is not None and parsed.now != _epoch(NOW):
        raise ValueError(f"{script.name}: its now differs from {NOW}; the evalset has one clock")
    segments: dict[str, list[list[str]]] = {}
    for event in parsed.events:
        if "advance_seconds" in event or "now" in event:
            for parts in segments.values():
                parts.append([])
        elif "text" in event and "group" not in event and "user" in event:
            segments.setdefault(event["user"], [[]])[-1].append(event["text"])
    cases = []
    for user, parts in segments.items():
        for n, texts in enumerate(p for p in parts if p):
            eval_id = f"{script.stem}-{user}" + (f"-{n + 1}" if n else "")
            cases.append(Case(eval_id, f"eval-{eval_id}", tuple(texts)))
    return cases


def _epoch(value: str) -> float:
    from examples.day15.replay import parse_now

    return parse_now(value)


def load_agent() -> BaseAgent:
    """The agent of ``agents/local_day15`` on a fresh context file of this process (the clock comes
    from each case's session state)."""
    import atexit
    import tempfile

    from examples.day15.agents.local_day15.agent import build_root_agent

    folder = tempfile.TemporaryDirectory(prefix="adk-local-day15-eval-")
    atexit.register(folder.cleanup)
    return build_root_agent(database=Path(folder.name) / "context.sqlite3")


async def run_case(agent: BaseAgent, case: Case) -> list[Invocation]:
    """The case through ADK's ``Runner``; its invocations as ``adk eval`` sees them."""
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    sessions = InMemorySessionService()
    runner = Runner(app_name=APP_NAME, agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name=APP_NAME, user_id=case.user_id, state=dict(case.state))
    for text in case.texts:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id=case.user_id, session_id=session.id, new_message=message):
            pass
    done = await sessions.get_session(app_name=APP_NAME, user_id=case.user_id, session_id=session.id)
    assert done is not None
    return EvaluationGenerator.convert_events_to_eval_invocations(done.events)


def _expected(case: Case, n: int, invocation: Invocation) -> dict[str, Any]:
    """One invocation as the evalset keeps it: stable ids, the proposed tool calls without their
    random ids, the rendered reply."""
    from google.adk.evaluation.eval_case import get_all_tool_calls

    tool_uses = [
        {"name": call.name, "args": call.args or {}}
        for call in get_all_tool_calls(invocation.intermediate_data)
    ]
    final = invocation.final_response
    return {
        "invocation_id": f"{case.eval_id}-{n}",
        "user_content": {"role": "user", "parts": [{"text": case.texts[n - 1]}]},
        "final_response": {
            "role": "model",
            "parts": [{"text": p.text} for p in (final.parts or []) if p.text],
        }
        if final
        else None,
        "intermediate_data": {"tool_uses": tool_uses},
    }


async def build_evalset() -> dict[str, Any]:
    agent = load_agent()
    cases = []
    for script in sorted(SCRIPTS.glob("*.json")):
        for case in cases_of(script):
            invocations = await run_case(agent, case)
            cases.append(
                {
                    "eval_id": case.eval_id,
                    "conversation": [_expected(case, n, inv) for n, inv in enumerate(invocations, 1)],
                    "session_input": {
                        "app_name": APP_NAME,
                        "user_id": case.user_id,
                        "state": dict(case.state),
                    },
                }
            )
    return {
        "eval_set_id": "day15",
        "name": "LOCAL Day 15, from the replay scripts",
        "description": f"Converted by python -m examples.day15.evalset; each case's clock is its state's {NOW_STATE}.",
        "eval_cases": cases,
    }


async def check(path: Path = EVALSET) -> list[tuple[str, float]]:
    """Each case of the evalset run afresh and scored by ADK's ``TrajectoryEvaluator``."""
    from google.adk.evaluation.eval_set import EvalSet
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

    evalset = EvalSet.model_validate_json(path.read_text(encoding="utf-8"))
    agent = load_agent()
    scores = []
    for eval_case in evalset.eval_cases:
        expected = eval_case.conversation or []
        assert eval_case.session_input is not None
        texts = tuple("".join(p.text or "" for p in inv.user_content.parts or []) for inv in expected)
        state = tuple((k, str(v)) for k, v in (eval_case.session_input.state or {}).items())
        case = Case(eval_case.eval_id, eval_case.session_input.user_id, texts, state)
        actual = await run_case(agent, case)
        result = TrajectoryEvaluator(threshold=1.0).evaluate_invocations(actual, expected)
        scores.append((eval_case.eval_id, float(result.overall_score or 0.0)))
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.evalset", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--check", action="store_true", help="run the agent and score it against the evalset")
    args = parser.parse_args(argv)
    if args.check:
        scores = asyncio.run(check())
        for eval_id, score in scores:
            print(f"{eval_id}: tool_trajectory_avg_score {score:.2f}")
        passed = sum(score == 1.0 for _, score in scores)
        print(f"{passed}/{len(scores)} cases passed")
        return 0 if passed == len(scores) else 1
    evalset = asyncio.run(build_evalset())
    EVALSET.write_text(json.dumps(evalset, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    TEST_CONFIG.write_text(json.dumps(CRITERIA, indent=2) + "\n", encoding="utf-8")
    turns = sum(len(c["conversation"]) for c in evalset["eval_cases"])
    print(f"{EVALSET.relative_to(ROOT)}: {len(evalset['eval_cases'])} cases, {turns} invocations")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
