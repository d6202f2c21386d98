"""ADK's per-turn retry of its optional A2A import is answered from ``sys.modules`` once LOCAL
marks the module missing, and only when the ``a2a`` package really is absent. Each case runs in a
fresh interpreter, so what one marks cannot hide what another checks."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TURNS = textwrap.dedent(
    """
    import asyncio, json, sys, warnings
    warnings.filterwarnings("ignore")
    from bench.adk_floor import BareAdk
    from local_agent.agent.adk_imports import A2A_AGENT_MODULE, skip_missing_a2a

    loads = []
    def executed(event, args):  # the module's code run again (its bytecode loaded and executed)
        code = args[0] if event == "exec" and args else None
        if getattr(code, "co_filename", "").endswith("remote_a2a_agent.py"):
            loads.append(1)

    sys.addaudithook(executed)

    async def turns(agent, n):
        return [await agent.turn("花壇有什麼好吃的") for _ in range(n)]

    agent = BareAdk()
    before = asyncio.run(turns(agent, 3))
    loaded_before = len(loads)
    marked = skip_missing_a2a()
    after = asyncio.run(turns(agent, 3))
    try:
        __import__(A2A_AGENT_MODULE)
        refused = False
    except ImportError:
        refused = True
    print(json.dumps({"before": before, "after": after, "loaded_before": loaded_before,
                      "loaded_after": len(loads) - loaded_before, "marked": marked,
                      "again": skip_missing_a2a(), "refused": refused}))
    """
)


def run(code: str, *, extra_path: Path | None = None) -> dict:
    path = [str(ROOT)] + ([str(extra_path)] if extra_path else [])
    env_code = f"import sys; sys.path[:0] = {path!r}\n" + code
    done = subprocess.run(
        [sys.executable, "-c", env_code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_without_a2a_each_turn_retried_the_import_and_after_marking_none_does() -> None:
    out = run(TURNS)
    assert out["before"] == out["after"] == [1, 1, 1]  # the tool ran every turn, before and after
    assert out["loaded_before"] >= 3  # ADK ran the module again on each turn
    assert out["marked"] is True and out["again"] is True
    assert out["loaded_after"] == 0 and out["refused"] is True


def test_an_installed_a2a_package_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "a2a").mkdir()
    (tmp_path / "a2a" / "__init__.py").write_text("")
    code = textwrap.dedent(
        """
        import json, sys
        from local_agent.agent.adk_imports import A2A_AGENT_MODULE, skip_missing_a2a
        print(json.dumps({"marked": skip_missing_a2a(), "entry": A2A_AGENT_MODULE in sys.modules}))
        """
    )
    assert run(code, extra_path=tmp_path) == {"marked": False, "entry": False}
