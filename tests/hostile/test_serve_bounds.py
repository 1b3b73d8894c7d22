"""``inspector serve`` on 127.0.0.1 under a client that opens many websockets or asks for a
huge terminal (R2-26): sessions beyond ``--max-sessions`` and sizes beyond the bounds are
refused with a status and a sentence, and a closed session frees its place."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .harness import RUNS

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")

SUITE = "serve sessions and terminal sizes (loopback)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path: Path, request):
    (tmp_path / "a.json").write_text(json.dumps([{"role": "user", "content": "inside"}]))
    port = free_port()
    extra = getattr(request, "param", [])
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "serve", str(tmp_path), "--port", str(port), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        assert proc.poll() is None, proc.stdout.read().decode()
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


async def connect(session, base: str, query: str = "width=100&height=30"):
    """A websocket, or the refusal (status, text)."""
    RUNS[SUITE] += 1
    try:
        return await session.ws_connect(f"{base}/ws?{query}", timeout=aiohttp.ClientWSTimeout(ws_close=5))
    except aiohttp.WSServerHandshakeError as exc:
        return exc.status


async def refusal_text(session, base: str, query: str) -> tuple[int, str]:
    """The refusal's status and sentence, as a plain request to the websocket's address shows it."""
    headers = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    async with session.get(f"{base}/ws?{query}", headers=headers) as response:
        return response.status, await response.text()


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


@pytest.mark.parametrize("server", [["--max-sessions", "2"]], indirect=True)
def test_sessions_beyond_the_bound_are_refused_and_a_closed_one_frees_its_place(server):
    async def attack():
        async with aiohttp.ClientSession() as session:
            first, second = await connect(session, server), await connect(session, server)
            assert not isinstance(first, int) and not isinstance(second, int)
            for _ in range(5):
                assert await connect(session, server) == 503
            status, text = await refusal_text(session, server, "width=80&height=24")
            assert status == 503 and "2 sessions are open already" in text, text
            await first.close()
            for _ in range(150):  # the server notices the close (the app process has ended)
                third = await connect(session, server)
                if not isinstance(third, int):
                    break
                await asyncio.sleep(0.1)
            assert not isinstance(third, int), third
            await second.close()
            await third.close()
    run(attack())


@pytest.mark.parametrize("query", ["width=20000&height=24", "width=80&height=100000", "width=0&height=24",
                                   "width=-5&height=24", "width=abc&height=24"])
def test_a_huge_or_nonsense_terminal_is_refused(server, query):
    async def attack():
        async with aiohttp.ClientSession() as session:
            ws = await connect(session, server, query)
            if not isinstance(ws, int):
                await ws.close()
            assert ws == 400, query
            status, text = await refusal_text(session, server, query)
            assert status == 400 and "terminal" in text, text
    run(attack())


def test_a_resize_beyond_the_bounds_keeps_the_session_alive(server):
    async def attack():
        async with aiohttp.ClientSession() as session:
            ws = await connect(session, server)
            assert not isinstance(ws, int)
            await ws.send_json(["resize", {"width": 20000, "height": 20000}])
            await ws.send_json(["ping", "after"])
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                message = await ws.receive(timeout=20)
                if message.type == aiohttp.WSMsgType.TEXT and json.loads(message.data) == ["pong", "after"]:
                    break
                assert message.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY), message
            else:
                raise AssertionError("no pong")
            await ws.close()
    run(attack())
