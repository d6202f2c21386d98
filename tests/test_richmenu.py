"""The rich menu: its definition, its committed image, ``python -m examples.day15.richmenu`` against the
fake LINE API (install, show, remove, and every failure: nothing half-made), and where each area leads
through the replay path. Bodies are checked against LINE's OpenAPI schema."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Iterator

import pytest
from line_schema import check, check_messages

from examples.day15 import richmenu as cli
from examples.day15.replay import EventResult, ReplayDriver
from local_agent.line.richmenu import (
    AREAS,
    HEIGHT,
    MAX_IMAGE_BYTES,
    NAME,
    WIDTH,
    ImageError,
    check_image,
    definition,
)
from local_agent.replies import navigation as nav
from local_agent.testing.fake_line_api import FakeLineApi

TOKEN = "test-token"
U1 = "U" + "1" * 32


@pytest.fixture
def line() -> Iterator[FakeLineApi]:
    with FakeLineApi(access_token=TOKEN).start() as api:
        yield api


def env_for(api: FakeLineApi, **extra: str) -> dict[str, str]:
    return {"LINE_CHANNEL_ACCESS_TOKEN": TOKEN, "LINE_API_HOST": api.base_url, **extra}


def run(argv: list[str], env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    said: list[str] = []
    code = cli.run(argv, env, said.append)
    return code, "\n".join(said), capsys.readouterr().err


def png(width: int, height: int, padding: int = 0) -> bytes:
    """A PNG header of the given size (what the checks read), padded to a byte count."""
    head = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", width, height)
    return head + b"\x08\x02\x00\x00\x00" + b"\x00" * padding


# -- the definition and the image ------------------------------------------------------------------


def test_the_definition_is_what_lines_schema_allows_and_the_areas_tile_the_image():
    body = definition()
    check("RichMenuRequest", body)
    assert (body["size"], body["chatBarText"], body["selected"]) == (
        {"width": 2500, "height": 1686},
        "選單",
        True,
    )
    assert [a["action"]["label"] for a in body["areas"]] == ["找美食", "找活動", "我的偏好", "使用說明"]
    covered = sum(a["bounds"]["width"] * a["bounds"]["height"] for a in body["areas"])
    assert covered == WIDTH * HEIGHT  # four quarters: every pixel belongs to exactly one area
    assert all(nav.parse(a["action"]["data"]) not in (None, nav.INVALID) for a in body["areas"])


def test_the_committed_image_fits_the_menu_and_lines_limit():
    data = cli.IMAGE.read_bytes()
    assert check_image(data) == "image/png" and len(data) < MAX_IMAGE_BYTES


def test_image_checks_name_what_line_would_refuse():
    with pytest.raises(ImageError, match="1 MB"):
        check_image(png(WIDTH, HEIGHT, padding=MAX_IMAGE_BYTES))
    with pytest.raises(ImageError, match="2500×843; this menu needs exactly 2500×1686"):
        check_image(png(2500, 843))
    with pytest.raises(ImageError, match="not a PNG or JPEG"):
        check_image(b"GIF89a" + b"\x00" * 20)
    jpeg = (
        b"\xff\xd8\xff\xe0"
        + struct.pack(">H", 4)
        + b"\x00\x00"
        + b"\xff\xc0"
        + struct.pack(">HBHH", 11, 8, HEIGHT, WIDTH)
    )
    assert check_image(jpeg + b"\x00" * 8) == "image/jpeg"


# -- install, show, remove ---------------------------------------------------------------------------


def test_install_creates_uploads_and_sets_the_default(line, capsys):
    code, out, err = run(["install"], env_for(line), capsys)
    assert (code, err) == (0, "")
    (menu_id,) = line.rich_menus()
    assert line.default_rich_menu == menu_id and f"installed {NAME} ({menu_id})" in out
    assert line.rich_menu_image(menu_id) == cli.IMAGE.read_bytes()
    created = [r for r in line.requests if r.path == "/v2/bot/richmenu" and r.method == "POST"]
    check("RichMenuRequest", created[0].body)
    assert created[0].body == definition()
    upload = next(r for r in line.requests if r.path.endswith("/content"))
    assert (
        upload.headers["content-type"] == "image/png" and upload.headers["authorization"] == f"Bearer {TOKEN}"
    )


def test_install_again_replaces_the_old_menu_and_show_then_remove(line, capsys):
    assert run(["install"], env_for(line), capsys)[0] == 0
    code, out, _ = run(["install"], env_for(line), capsys)
    assert code == 0 and "deleted 1 older LOCAL menu(s)" in out
    (menu_id,) = line.rich_menus()
    code, out, _ = run(["show"], env_for(line), capsys)
    assert code == 0 and f"{menu_id} (default): 2500×1686" in out
    assert "找美食: postback local:nav:pick:places" in out and "使用說明: postback local:nav:help" in out
    code, out, _ = run(["remove"], env_for(line), capsys)
    assert (code, out) == (0, "unset the default and deleted 1 LOCAL rich menu(s)")
    assert line.rich_menus() == {} and line.default_rich_menu is None
    assert run(["show"], env_for(line), capsys)[1].startswith("default rich menu: none")


def test_a_failed_upload_removes_the_menu_it_created(line, capsys):
    line.fail_next("/content", 500)
    code, out, err = run(["install"], env_for(line), capsys)
    assert code == 1 and "LINE API error 500: Internal server error" in err
    assert "deleted the half-made rich menu" in out
    assert line.rich_menus() == {} and line.default_rich_menu is None


def test_a_refused_create_leaves_nothing_and_says_what_line_answered(line, capsys):
    line.fail_next("/v2/bot/richmenu", 429)
    code, _, err = run(["install"], env_for(line), capsys)
    assert code == 1 and "LINE API error 429: The API rate limit has been exceeded" in err
    assert line.rich_menus() == {}


def test_a_wrong_token_is_lines_401_answer(line, capsys):
    code, _, err = run(["show"], {**env_for(line), "LINE_CHANNEL_ACCESS_TOKEN": "wrong"}, capsys)
    assert code == 1 and "LINE API error 401: Authentication failed" in err


@pytest.mark.parametrize("command", ["install", "show", "remove"])
def test_a_missing_token_sends_nothing(line, capsys, command):
    code, _, err = run([command], {"LINE_API_HOST": line.base_url}, capsys)
    assert code == 2 and "LINE_CHANNEL_ACCESS_TOKEN is not set" in err
    assert line.requests == []


def test_an_image_line_would_refuse_sends_nothing(line, capsys, tmp_path):
    big = tmp_path / "big.png"
    big.write_bytes(png(WIDTH, HEIGHT, padding=MAX_IMAGE_BYTES))
    code, _, err = run(["install", "--image", str(big)], env_for(line), capsys)
    assert code == 2 and "LINE takes at most 1,048,576 (1 MB)" in err
    small = tmp_path / "small.png"
    small.write_bytes(png(2500, 843))
    assert run(["install", "--image", str(small)], env_for(line), capsys)[0] == 2
    code, _, err = run(["install", "--image", str(tmp_path / "none.png")], env_for(line), capsys)
    assert code == 2 and "cannot read the image" in err
    assert line.requests == []


def test_an_unsafe_host_or_an_unreachable_api_is_a_clear_answer(capsys):
    code, _, err = run(
        ["show"], {"LINE_CHANNEL_ACCESS_TOKEN": TOKEN, "LINE_API_HOST": "http://example.com"}, capsys
    )
    assert code == 2 and "LINE_API_HOST must be https://" in err
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before the call: nothing listens there
    code, _, err = run(
        ["show"], {"LINE_CHANNEL_ACCESS_TOKEN": TOKEN, "LINE_API_HOST": f"http://127.0.0.1:{port}"}, capsys
    )
    assert code == 1 and "cannot reach the LINE API" in err


# -- the fake's own refusals --------------------------------------------------------------------------


def test_the_fake_refuses_what_line_refuses(line):
    import httpx

    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=line.base_url, headers=auth) as http:
        bad = {**definition(), "chatBarText": "十五個字的聊天室選單文字太長了"}
        assert http.post("/v2/bot/richmenu", json=bad).status_code == 400
        menu_id = http.post("/v2/bot/richmenu", json=definition()).json()["richMenuId"]
        assert http.post(f"/v2/bot/user/all/richmenu/{menu_id}").status_code == 400  # no image yet
        image = {"Content-Type": "image/png"}
        assert (
            http.post(
                f"/v2/bot/richmenu/{menu_id}/content", content=png(2500, 843), headers=image
            ).status_code
            == 400
        )
        too_big = png(WIDTH, HEIGHT, padding=MAX_IMAGE_BYTES)
        assert (
            http.post(f"/v2/bot/richmenu/{menu_id}/content", content=too_big, headers=image).status_code
            == 413
        )
        gif = {"Content-Type": "image/gif"}
        assert (
            http.post(
                f"/v2/bot/richmenu/{menu_id}/content", content=png(WIDTH, HEIGHT), headers=gif
            ).status_code
            == 415
        )
        assert (
            http.post(
                f"/v2/bot/richmenu/{menu_id}/content", content=png(WIDTH, HEIGHT), headers=image
            ).status_code
            == 200
        )
        assert (
            http.post(
                f"/v2/bot/richmenu/{menu_id}/content", content=png(WIDTH, HEIGHT), headers=image
            ).status_code
            == 400
        )
        got = http.get(f"/v2/bot/richmenu/{menu_id}/content")
        assert got.content == png(WIDTH, HEIGHT) and got.headers["content-type"] == "image/png"
        assert http.get("/v2/bot/richmenu/richmenu-nope").status_code == 404
        assert http.get("/v2/bot/user/all/richmenu").status_code == 404


# -- each area leads somewhere useful (through the replay path) ----------------------------------------


def test_each_area_leads_to_a_useful_next_step():
    async def body() -> dict[str, EventResult]:
        async with ReplayDriver.open(env={}) as d:
            return {a.label: await d.postback(U1, a.data, display_text=a.label) for a in AREAS}

    results = asyncio.run(body())
    for result in results.values():
        check_messages(result.messages)
    food, events, prefs, help_ = (results[a.label] for a in AREAS)
    assert food.outcome.command == "picker" and len(food.quick_replies) <= 13
    assert events.outcome.command == "picker"
    assert prefs.outcome.command == "kept"
    assert [a["label"] for a in prefs.quick_replies][:1] == ["記住我吃素"]
    assert help_.outcome.command == "help" and "花壇有什麼好吃的" in help_.messages[0]["text"]
