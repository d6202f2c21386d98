"""Shared pieces of the benchmarks: the conversation script, statistics, tables, CSV/PNG output,
the recording stand-in model, the canonical request measure, and server helpers (loopback only).
"""

from __future__ import annotations

import csv
import json
import os
import socket
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "out" / "bench"

# Credentials of the fake world only (FakeLineApi + signed bodies); never real ones.
SECRET = "bench-channel-secret-0123456789ab"
TOKEN = "bench-channel-access-token-0123456789"

# Twenty messages as an elderly resident might voice-type them: greetings, long sentences,
# topic jumps, health asides, and references to an earlier township (剛才那個鄉鎮, 同一個地方...).
# No consent/forget commands: those bypass the model, and every variant must see the same turns.
SENTENCES: tuple[str, ...] = (
    "早安喔，你好，我是住在花壇的阿伯，今年七十五歲了。",
    "請問花壇這附近有什麼好吃的，我想找一家中午可以去吃飯的店。",
    "剛才那個鄉鎮，再找一家吃的。",
    "那鹿港這個禮拜有沒有什麼活動啊，我孫子放假要回來，想帶他去走走。",
    "欸你知道哪裡可以停車嗎 我開車去怕沒位子",
    "同一個地方有沒有賣肉圓的，我很久沒吃肉圓了。",
    "我女兒說員林那邊有素食的餐廳，我平常吃早齋，幫我找看看好不好。",
    "今天有點累，膝蓋不太舒服，醫生說要多走路。",
    "二林鎮最近有沒有市集或是表演，聽說有葡萄節很熱鬧。",
    "剛剛那裡有沒有早餐店，我明天一早要去。",
    "謝謝你喔，你真的很厲害，比我兒子還有耐心。",
    "溪湖有什麼好玩的地方嗎，週末天氣好想出去走走，不要太遠的。",
    "那邊附近有沒有咖啡店可以坐下來休息一下",
    "我想問一下公車要怎麼坐到田中火車站，幾點有車。",
    "田中鎮有沒有好吃的便當，要便宜一點的，退休金不多。",
    "上次那個地方，有沒有什麼廟會或是節慶活動。",
    "我住在芬園鄉，隔壁鄰居說那裡有一家很有名的麵店，我想去吃吃看，你幫我查一下好嗎，我眼睛不好字要大一點。",
    "喂喂 有聽到嗎 我剛剛按錯了",
    "北斗有什麼好吃的小吃，肉圓也可以，我血糖高不能吃太甜。",
    "剛才那個鄉鎮有沒有什麼展覽或是音樂會，我跟老伴想去看看。",
)


def conversation(turns: int, offset: int = 0) -> list[str]:
    """``turns`` messages, cycling through the script (starting at ``offset``)."""
    return [SENTENCES[(offset + i) % len(SENTENCES)] for i in range(turns)]


# -- statistics -------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


# -- output -----------------------------------------------------------------------------------


def fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != value:  # NaN
            return "-"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 100:
            return f"{value:.1f}"
        return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    cells = [[str(h) for h in headers]] + [[fmt(v) for v in row] for row in rows]
    widths = [max(_width(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(_pad(c, widths[i], right=(n > 0 and i > 0)) for i, c in enumerate(row)))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _width(text: str) -> int:
    # CJK characters take two terminal columns.
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in text)


def _pad(text: str, width: int, *, right: bool) -> str:
    gap = " " * (width - _width(text))
    return gap + text if right else text + gap


def out_path(name: str, out_dir: str | Path | None = None) -> Path:
    directory = Path(out_dir) if out_dir else OUT_DIR
    directory.mkdir(parents=True, exist_ok=True)
    return directory / name


def write_csv(path: Path, headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(headers)
        for row in rows:
            writer.writerow(row)
    return path


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# -- the canonical request measure ------------------------------------------------------------


def part_json(part: Any) -> dict[str, Any]:
    """One genai ``Part`` as sent: text, function call or function response as plain JSON."""
    if part.function_call is not None:
        call = part.function_call
        return {"function_call": {"name": call.name, "args": dict(call.args or {})}}
    if part.function_response is not None:
        resp = part.function_response
        return {"function_response": {"name": resp.name, "response": resp.response}}
    if part.text is not None:
        return {"text": part.text}
    return part.model_dump(mode="json", exclude_none=True)


def canonical_request(llm_request: Any) -> dict[str, Any]:
    """System instruction + tool declarations + contents of an ADK ``LlmRequest``, as the
    canonical dict the offline byte measure counts (same envelope code as the production router)."""
    from local_agent.agent.adk_router import request_envelope

    contents = [
        {"role": c.role or "user", "parts": [part_json(p) for p in (c.parts or [])]}
        for c in (llm_request.contents or [])
    ]
    return {**request_envelope(llm_request), "contents": contents}


def request_bytes(request: dict[str, Any]) -> int:
    from local_agent.context.session_budget import ByteMeasure

    return ByteMeasure().sync(request)


def recording_model_class():
    """``OfflineModel`` that snapshots every request it is handed (as canonical dicts).

    Built lazily so importing this module does not import ADK."""
    from pydantic import Field

    from local_agent.agent.offline_model import OfflineModel

    class RecordingOfflineModel(OfflineModel):
        recorded: list[dict[str, Any]] = Field(default_factory=list)

        async def generate_content_async(self, llm_request, stream: bool = False):
            self.recorded.append(canonical_request(llm_request))
            async for response in super().generate_content_async(llm_request, stream):
                yield response

    return RecordingOfflineModel


# -- servers on loopback ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bench_settings(line_url: str, sqlite_path: str | Path, **extra: Any):
    from local_agent.settings import Settings

    return Settings(
        LINE_CHANNEL_SECRET=SECRET,
        LINE_CHANNEL_ACCESS_TOKEN=TOKEN,
        LINE_API_HOST=line_url,
        LOCAL_SQLITE_PATH=str(sqlite_path),
        LOCAL_MODEL="offline",
        LOCAL_STORE="sqlite",
        **extra,
    )


class ThreadedUvicorn:
    """uvicorn serving ``app`` on 127.0.0.1 in a daemon thread (for in-process measurements)."""

    def __init__(self, app: Any, port: int | None = None) -> None:
        import uvicorn

        self.port = port or free_port()
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", access_log=False, lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="bench-uvicorn", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ThreadedUvicorn:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def start_fake_line_api(access_token: str | None = TOKEN, *, nodelay: bool = True, cls: type | None = None):
    """A started ``FakeLineApi`` (or subclass ``cls``) on 127.0.0.1.

    ``nodelay=False`` switches Nagle back on for this instance: a stdlib ``http.server`` writes the
    headers and the body of an answer in two small segments, and with a keep-alive client (aiohttp,
    as the LINE SDK uses) Nagle's algorithm + delayed ACK then stall each answer ~40 ms on Linux
    loopback — the test-fake artefact the fake avoids by default. Only this instance's handler
    class changes (it is looked up per connection)."""
    from local_agent.testing import fake_line_api as fake_api

    api = (cls or fake_api.FakeLineApi)(access_token=access_token).start()
    if not nodelay:
        # The fake disables Nagle itself; switch it back on to show the artefact's size.
        class NagleHandler(fake_api._Handler):
            disable_nagle_algorithm = False

        api._server.RequestHandlerClass = NagleHandler
    return api


def probe_fake_line_api(base_url: str, requests: int = 20) -> float:
    """Median ms of a reply call to the fake over one aiohttp keep-alive session (the SDK's
    transport), after one warm-up call."""
    import uuid

    import aiohttp

    async def run() -> list[float]:
        out = []
        async with aiohttp.ClientSession() as session:
            for _ in range(requests + 1):
                t0 = time.perf_counter()
                async with session.post(
                    f"{base_url}/v2/bot/message/reply",
                    json={"replyToken": uuid.uuid4().hex, "messages": [{"type": "text", "text": "probe"}]},
                    headers={"Authorization": f"Bearer {TOKEN}"},
                ) as response:
                    await response.read()
                out.append((time.perf_counter() - t0) * 1000)
        return out[1:]

    import asyncio

    return median(asyncio.run(run()))


def load_note() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"{os.cpu_count()} CPUs, load average {one:.2f} (1 min) / {five:.2f} (5 min)"


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a (child) process from /proc; NaN where /proc is missing."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks
    except (OSError, ValueError, IndexError):
        return float("nan")


def key_line(name: str, items: dict[str, Any]) -> str:
    return f"KEY {name}: " + "; ".join(f"{k}={v}" for k, v in items.items())


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
