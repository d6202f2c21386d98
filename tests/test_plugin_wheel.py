"""The plugin's light distribution (``packages/local-agent-plugin``): built, installed into a fresh
venv that already has ADK, and used there.

The wheel holds ``local_agent.context`` and ``local_agent.plugin`` and nothing else of LOCAL (no
app, no ``examples``); its one requirement is ``google-adk`` in a range. The fresh venv sees this
venv's installed distributions through a path entry (so ADK is already there and the install is
``--no-index``, offline); pip must install the wheel alone and pull nothing, and an ADK app must
run with the plugin imported from the fresh venv, loading no module of LOCAL's app's dependencies.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "packages" / "local-agent-plugin"

USE = textwrap.dedent(
    """
    import asyncio, sys
    from google.adk.agents import LlmAgent
    from google.adk.apps import App
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types
    import local_agent.plugin as plugin

    class Echo(BaseLlm):
        model: str = "echo"
        async def generate_content_async(self, llm_request, stream=False):
            n = sum(1 for c in llm_request.contents if c.parts and c.parts[0].text and c.parts[0].text.startswith("[Earlier"))
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=f"earlier={n}")]))

    async def main():
        bounded = plugin.BoundedContextPlugin(4096)
        app = App(name="light", root_agent=LlmAgent(name="a", model=Echo()), plugins=[bounded])
        runner = Runner(app=app, session_service=InMemorySessionService())
        session = await runner.session_service.create_session(app_name="light", user_id="u")
        said = []
        for text in ("one", "two", "three"):
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
                said += [p.text for p in (event.content.parts if event.content else []) if p.text]
        bounded.forget("u")
        print(plugin.__file__)
        print(" ".join(said))
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in {"linebot", "opencc", "pypinyin", "sxtwl", "examples"})
        print("heavy:", heavy)
        print("app:", sorted(m for m in sys.modules if m.startswith("local_agent.") and m.split(".")[1] not in {"context", "plugin"}))

    asyncio.run(main())
    """
)


def _staged(tmp_path: Path) -> Path:
    """The package folder and the two source folders, copied as they sit in the repository (the
    pyproject reads ``../..``), so the build leaves nothing in the worktree."""
    stage = tmp_path / "stage"
    shutil.copytree(PACKAGE, stage / "packages" / PACKAGE.name, ignore=shutil.ignore_patterns("build"))
    for part in ("context", "plugin"):
        shutil.copytree(
            ROOT / "local_agent" / part,
            stage / "local_agent" / part,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    return stage / "packages" / PACKAGE.name


def _run(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout


@pytest.mark.slow
def test_the_light_wheel_holds_only_the_plugin_and_installs_beside_an_adk_already_there(tmp_path: Path):
    wheels = tmp_path / "wheels"
    _run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
        "-q", "-w", wheels, _staged(tmp_path),
    )  # fmt: skip
    (wheel,) = wheels.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    packages = {n.split("/")[1] for n in names if n.startswith("local_agent/")}
    assert packages == {"context", "plugin"}
    assert not [
        n
        for n in names
        if not n.startswith(("local_agent/context/", "local_agent/plugin/", "local_agent_plugin-"))
    ]
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    requires = [
        line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")
    ]
    assert requires == ["google-adk<3,>=2.9"]

    fresh = tmp_path / "fresh"
    _run(sys.executable, "-m", "venv", "--without-pip", fresh)
    python = fresh / "bin" / "python"
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    (site / "zz_adk_already_here.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    before = {p.name for p in site.iterdir()}
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-index", "-q", wheel)
    added = {p.name for p in site.iterdir()} - before
    assert added == {"local_agent", "local_agent_plugin-0.15.0.dist-info"}  # nothing pulled

    out = _run(python, "-I", "-c", USE, cwd=tmp_path).splitlines()
    assert out[0].startswith(str(site / "local_agent" / "plugin"))
    assert out[1] == "earlier=0 earlier=1 earlier=2"
    assert out[2] == "heavy: []" and out[3] == "app: []"
