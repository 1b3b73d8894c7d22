"""``inspector serve`` (loopback) with several clients at once (issue 25): each session opens
a history (a large one, still loading when a client goes away), one client disconnects
mid-load and one sends messages that are not the protocol; the server stays up, the other
sessions keep answering, no more app processes run than ``--max-sessions``, a session past
the bound is refused with its sentence, and a closed session's process ends and frees its
place."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .harness import RUNS
from .test_serve_bounds import free_port

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")

SUITE = "serve: concurrent sessions (loopback)"
BOUND = 3


def big_history(path: Path, turns: int = 20_000) -> None:
    rows = []
    for i in range(turns):
        rows += [{"role": "user", "content": f"question {i}"},
                 {"role": "assistant", "content": "", "tool_calls": [
                     {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]
        if i % 4:
            rows.append({"role": "tool", "tool_call_id": f"c{i}", "content": "ok"})
    path.write_text(json.dumps(rows))


def app_processes(server: int) -> list[int]:
    """The app processes the server started (its children running ``inspector.serve``)."""
    found: list[int] = []
    shells: list[int] = []
    for entry in sorted(Path("/proc").iterdir(), key=lambda e: int(e.name) if e.name.isdigit() else 0):
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if b"inspector.serve" in cmdline and parent in (server, *found, *shells):
            shell = os.path.basename(cmdline.split(b"\0")[0]) in (b"sh", b"bash", b"dash")
            (shells if shell else found).append(int(entry.name))   # textual-serve starts each through a shell
    return found


@pytest.fixture
def served(tmp_path: Path):
    big_history(tmp_path / "big.json")
    (tmp_path / "small.json").write_text(json.dumps([{"role": "user", "content": "[bold]inside[/]"}]))
    port = free_port()
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "serve", str(tmp_path / "big.json"), "--port",
                             str(port), "--max-sessions", str(BOUND)], stdout=log, stderr=subprocess.STDOUT)
    proc.log = tmp_path / "server.log"
    try:
        deadline = time.monotonic() + 20
        import socket
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        assert proc.poll() is None, proc.log.read_text()
        yield proc, f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


async def open_session(session, base: str):
    RUNS[SUITE] += 1
    try:
        return await session.ws_connect(f"{base}/ws?width=100&height=30", timeout=aiohttp.ClientWSTimeout(ws_close=5))
    except aiohttp.WSServerHandshakeError as exc:
        return exc.status


async def drawn(ws, seconds: float = 40) -> int:
    """Bytes of screen the session's app sent before it went quiet for a moment (it is up)."""
    total = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            message = await ws.receive(timeout=1.5 if total else seconds)
        except asyncio.TimeoutError:
            return total
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            raise AssertionError(f"the session closed: {message}")
        total += len(message.data) if message.data else 0
    return total


async def answers(ws, token: str, seconds: float = 20) -> bool:
    """Whether the session still answers a ping (the server side of it is alive)."""
    RUNS[SUITE] += 1
    await ws.send_json(["ping", token])
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        message = await ws.receive(timeout=seconds)
        if message.type == aiohttp.WSMsgType.TEXT and json.loads(message.data) == ["pong", token]:
            return True
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            return False
    return False


def test_several_clients_at_once_one_leaving_mid_load(served):
    proc, base = served
    peak = []

    async def watch(stop: asyncio.Event):
        while not stop.is_set():
            peak.append(len(app_processes(proc.pid)))
            await asyncio.sleep(0.1)

    async def scenario():
        stop = asyncio.Event()
        watcher = asyncio.create_task(watch(stop))
        async with aiohttp.ClientSession() as session:
            # Three clients at once, each loading the large history.
            first = await asyncio.gather(*(open_session(session, base) for _ in range(BOUND)))
            assert not any(isinstance(ws, int) for ws in first), first
            leaving = first[0]
            await leaving.receive(timeout=40)          # its app is up and loading the file
            await leaving.close()                      # ... and the client goes away mid-load
            staying = first[1:]
            assert all(await asyncio.gather(*(drawn(ws) for ws in staying)))
            # Past the bound: refused with a status until the closed one's place is free.
            extra = None
            for _ in range(100):
                extra = await open_session(session, base)
                if not isinstance(extra, int):
                    break
                assert extra == 503, extra
                await asyncio.sleep(0.1)
            assert not isinstance(extra, int), "the closed session's place was never freed"
            assert await open_session(session, base) == 503
            # A client that speaks no protocol: its own session may end, no one else's.
            for bad in ("not json", "[]", '["resize", "wide"]', '["stdin", 5]', '{"a": 1}'):
                await extra.send_str(bad)
            for n, ws in enumerate(staying):
                assert await answers(ws, f"after-{n}"), "another session stopped answering"
            for ws in (*staying, extra):
                await ws.close()
            # Every app process ends once its session is closed.
            for _ in range(150):
                if not app_processes(proc.pid):
                    break
                await asyncio.sleep(0.1)
            assert app_processes(proc.pid) == [], "app processes left after every session closed"
            again = await open_session(session, base)
            assert not isinstance(again, int) and await answers(again, "fresh")
            await again.close()
        stop.set()
        await watcher

    asyncio.run(asyncio.wait_for(scenario(), 150))
    assert proc.poll() is None, "the server went down"
    assert "Traceback" not in proc.log.read_text(), proc.log.read_text()[-3000:]
    assert max(peak) <= BOUND, f"{max(peak)} app processes at once, bound {BOUND}"
