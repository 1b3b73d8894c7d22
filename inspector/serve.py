"""``inspector serve``: the inspection TUI in a web browser, through textual-serve.

textual-serve runs one app process per browser tab, started with a shell command. That
command is ``python -m inspector.serve --root FOLDER [FILE]``: the folder the app may read
travels on its command line, and the app process confines itself to it
(:mod:`inspector.tui.confine`) before it opens anything.

Safe by default: the server listens on 127.0.0.1 only; another ``--host`` gets a loud
warning, since there is no login and anyone who reaches the port reads the served folder.
The server also refuses requests whose ``Host`` is not the address it serves (a web page
that points its own domain at 127.0.0.1) and websockets opened from another origin (a web
page the user happens to visit), so a browser tab cannot be turned against the local server.

textual-serve is optional (the ``web`` extra); nothing here imports it or textual until
the command runs.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import shlex
import socket
import sys
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlsplit

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8000
EXIT_ERROR = 2
# Each browser tab is an app process of its own: without bounds one loopback client could
# open sessions until memory runs out, or ask for a terminal of millions of cells.
DEFAULT_SESSIONS = 8
MAX_COLUMNS, MAX_ROWS = 1000, 500
# textual-serve's page leaves the keyboard on the page until the terminal is clicked; this
# gives it to the terminal's input as soon as the terminal is drawn (and when the tab is
# focused again), so the first key already reaches the app.
FOCUS_SCRIPT = """<script>
(function () {
  function focusTerminal() {
    var input = document.querySelector(".textual-terminal .xterm-helper-textarea");
    if (input && document.activeElement !== input) { input.focus({preventScroll: true}); }
    return input !== null;
  }
  var tries = 0;
  var timer = setInterval(function () {
    var drawn = document.body.classList.contains("-first-byte");
    if ((focusTerminal() && drawn) || ++tries > 600) { clearInterval(timer); }
  }, 50);
  window.addEventListener("focus", focusTerminal);
})();
</script>
"""


def with_focus(page: str) -> str:
    """The served page with :data:`FOCUS_SCRIPT` before its closing body tag."""
    at = page.rfind("</body>")
    return page + FOCUS_SCRIPT if at < 0 else page[:at] + FOCUS_SCRIPT + page[at:]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("serve", help="open the TUI in a web browser (needs the 'web' extra)",
                       description="Serve the inspection TUI to a web browser. Only files inside FOLDER "
                                   "(or FILE's folder, or the current one) can be opened; exports are "
                                   "downloads in the browser.")
    p.add_argument("path", nargs="?", metavar="FILE|FOLDER",
                   help="a history to open, or the folder to serve (default: the current folder)")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default: {DEFAULT_HOST}, this machine only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})")
    p.add_argument("--max-sessions", type=int, default=DEFAULT_SESSIONS, metavar="N",
                   help=f"browser tabs served at once; more are refused (default: {DEFAULT_SESSIONS})")
    return p


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def served(path: str | None) -> tuple[Path, Path | None]:
    """The folder to serve and the file to open first (None: the folder's browser). Raises ValueError
    with the sentence to print."""
    if path == "-":
        raise ValueError("standard input (-) cannot be served: the browser's user opens files "
                         "themselves; give a FILE or FOLDER (or nothing for the current folder)")
    target = Path(path or os.getcwd())
    if not target.exists():
        raise ValueError(f"{path}: no such file or folder")
    target = target.resolve()
    if target.is_dir():
        return target, None
    return target.parent, target


def app_command(root: Path, file: Path | None) -> str:
    """The shell command textual-serve runs for each browser tab."""
    args = [sys.executable, "-m", "inspector.serve", "--root", str(root)]
    if file is not None:
        args.append(str(file))
    return shlex.join(args)


def warning(host: str, port: int, root: Path) -> str:
    return (f"WARNING: listening on {host}:{port}, not only on this machine. There is no login: "
            f"anyone who can reach this port can open every history under {root} and read it. "
            f"Use the default --host {DEFAULT_HOST} unless you trust every machine on that network.")


def public_url(host: str, port: int) -> str:
    """The address to print: a wildcard address is not one to type into a browser."""
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def allowed_hosts(host: str, port: int) -> set[str] | None:
    """``Host`` headers the server answers on a loopback address; None (any) otherwise,
    since other names for the machine cannot be known in advance."""
    if not is_loopback(host):
        return None
    return {f"{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]", host)}


def request_refusal(headers: Any, hosts: set[str] | None) -> str | None:
    """Why a request must be refused: a foreign ``Host`` (DNS rebinding) or a foreign
    ``Origin`` (another web site's page opening the websocket); None to serve it."""
    host = headers.get("Host", "")
    if hosts is not None and host.lower() not in hosts:
        return f"unexpected Host header {host!r}"
    origin = headers.get("Origin")
    if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
        return f"cross-origin request from {origin!r}"
    return None


def size_refusal(query: Any) -> str | None:
    """Why a websocket's terminal size (``width`` and ``height`` cells) must be refused."""
    for key, most in (("width", MAX_COLUMNS), ("height", MAX_ROWS)):
        text = query.get(key)
        if text is None:
            continue
        try:
            value = int(text)
        except ValueError:
            return f"terminal {key} {text[:20]!r} is not a whole number"
        if not 0 < value <= most:
            return f"terminal {key} {value} is out of bounds (1 to {most})"
    return None


def bounded(width: Any, height: Any) -> tuple[int, int]:
    """A resize asked for mid-session, brought within the bounds (a window can grow)."""
    def clamp(value: Any, most: int) -> int:
        return min(max(value, 1), most) if isinstance(value, int) and not isinstance(value, bool) else 80
    return clamp(width, MAX_COLUMNS), clamp(height, MAX_ROWS)


def well_formed(text: str) -> bool:
    """Whether a websocket text message is an envelope textual-serve's loop can act on
    (``["stdin", str]``, ``["resize", {width, height}]``, ``["ping", x]``, ...); anything
    else is dropped before it, so a client that speaks no protocol cannot make the server
    log a traceback and end its own session that way."""
    try:
        envelope = json.loads(text)
    except ValueError:
        return False
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        return False
    kind, rest = envelope[0], envelope[1:]
    if kind == "stdin":
        return len(rest) >= 1 and isinstance(rest[0], str)
    if kind == "resize":
        return len(rest) >= 1 and isinstance(rest[0], dict) and {"width", "height"} <= set(rest[0])
    if kind == "ping":
        return len(rest) >= 1
    return True


class _Envelopes:
    """A websocket whose text messages, as the protocol loop iterates them, are well formed."""

    def __init__(self, websocket: Any) -> None:
        self._websocket = websocket

    def __getattr__(self, name: str) -> Any:
        return getattr(self._websocket, name)

    def __aiter__(self) -> Any:
        return self._messages()

    async def _messages(self) -> Any:
        async for message in self._websocket:
            if isinstance(message.data, str) and not well_formed(message.data):
                continue
            yield message


async def _ended(app_service: Any, grace: float = 2.0) -> None:
    """Wait for a session's app process to end (its tab is gone: nothing is left to save);
    one still running after ``grace`` seconds (still starting, stuck, or deaf to the quit)
    is terminated, then killed."""
    import asyncio  # only a running server needs it; every command's parser imports this module

    process = getattr(app_service, "_process", None)
    if process is None:
        return
    for stop in (None, process.terminate, process.kill):
        if stop is not None:
            try:
                stop()
            except ProcessLookupError:
                pass
        try:
            await asyncio.wait_for(process.wait(), grace)
            return
        except asyncio.TimeoutError:
            continue


def make_server(command: str, host: str, port: int) -> Any:
    """A textual-serve Server that also checks ``Host`` and ``Origin`` on every request, and
    bounds the sessions open at once (``max_sessions``, set on it) and their terminal size."""
    import asyncio

    from aiohttp import web
    from textual_serve.server import Server

    hosts = allowed_hosts(host, port)

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        if (reason := request_refusal(request.headers, hosts)) is not None:
            raise web.HTTPForbidden(text=f"inspector serve: {reason}\n")
        return await handler(request)

    class GuardedServer(Server):
        sessions = 0
        max_sessions = DEFAULT_SESSIONS
        apps: dict[Any, Any] = {}      # per websocket's task: its app service (and process)

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
            # Refused before the websocket opens: the client sees the status and the sentence.
            if (reason := size_refusal(request.query)) is not None:
                raise web.HTTPBadRequest(text=f"inspector serve: {reason}\n")
            if self.sessions >= self.max_sessions:
                raise web.HTTPServiceUnavailable(
                    text=f"inspector serve: {self.max_sessions} sessions are open already (--max-sessions); "
                         "close a tab and reload\n")
            self.sessions += 1
            task = asyncio.current_task()
            try:
                return await super().handle_websocket(request)
            finally:
                # The place is free once the app process has ended, not when its output
                # closes (it may still be exiting): the bound counts processes.
                await _ended(self.apps.pop(task, None))
                self.sessions -= 1

        async def _process_messages(self, websocket: Any, app_service: Any) -> None:
            self.apps[asyncio.current_task()] = app_service
            resize = app_service.set_terminal_size

            async def within_bounds(width: Any, height: Any) -> None:
                await resize(*bounded(width, height))

            app_service.set_terminal_size = within_bounds
            await super()._process_messages(_Envelopes(websocket), app_service)

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(guard)
            return app

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            # The page's websocket and download links go back to the address the browser used
            # (checked by the guard), which on a wildcard address is the only one that works.
            self.public_url = f"{request.scheme}://{request.host}"
            response = await super().handle_index(request)
            if isinstance(response, web.Response) and response.text is not None:
                response.text = with_focus(response.text)
            return response

    # ``exec``: the process textual-serve starts, waits for and stops is the app itself, not a
    # shell waiting for it (a shell ended would leave the app running, out of the bound).
    shell = "exec " + command if os.name == "posix" else command
    return GuardedServer(shell, host=host, port=port, title="Inspector", public_url=public_url(host, port))


def run(args: argparse.Namespace) -> int:
    """``inspector serve``: check everything that can be checked, then serve until Ctrl+C."""
    try:
        root, file = served(args.path)
    except ValueError as exc:
        print(f"inspector serve: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if not 0 < args.port < 65536:
        print(f"inspector serve: --port {args.port}: not a port number (1-65535)", file=sys.stderr)
        return EXIT_ERROR
    if args.max_sessions < 1:
        print(f"inspector serve: --max-sessions {args.max_sessions}: must be at least 1", file=sys.stderr)
        return EXIT_ERROR
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        print("inspector serve: needs textual-serve: pip install 'inspector[web]'", file=sys.stderr)
        return EXIT_ERROR
    if not is_loopback(args.host):
        print(warning(args.host, args.port, root), file=sys.stderr)
    url = public_url(args.host, args.port)
    print(f"Inspector: serving {root} at {url}" + (f" (opening {file.name})" if file else ""), flush=True)
    try:
        server = make_server(app_command(root, file), args.host, args.port)
        server.max_sessions = args.max_sessions
        server.serve()
    except OSError as exc:
        print(f"inspector serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_ERROR
    return 0


def app_main(argv: Sequence[str] | None = None) -> int:
    """One browser tab's app process: confined to ``--root`` before it opens anything."""
    parser = argparse.ArgumentParser(prog="inspector.serve", description="(run by inspector serve)")
    parser.add_argument("--root", required=True)
    parser.add_argument("file", nargs="?")
    args = parser.parse_args(argv)
    from .tui import confine
    from .tui.app import make_app

    os.chdir(args.root)  # relative paths typed in the open dialog count from the served folder
    app = make_app(args.file or args.root)   # no file: the folder's browser (its files, each with a verdict)
    confine.attach(app, args.root)
    result = app.run()
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(app_main())
