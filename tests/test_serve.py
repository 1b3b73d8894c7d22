"""`inspector serve` without a browser: the command line, the request guard, and served mode
inside the app (confinement, downloads). tests/browser/ drives the real thing in Chromium."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from inspector import serve
from inspector.bundled import samples_dir
from inspector.cli import main as cli_main
from inspector.pipeline import run_file
from inspector.tui import confine
from inspector.tui.app import make_app
from inspector.tui.screens.error import ErrorDialog
from inspector.tui.screens.export import ExportDialog
from inspector.tui.screens.gallery import list_samples
from inspector.tui.screens.open_file import HistoryTree, OpenFileDialog

from browser.folder import SAMPLE, make_served_folder
from extras import need



@pytest.fixture
def served(tmp_path: Path) -> dict[str, Path]:
    return make_served_folder(tmp_path)


# -- confinement ------------------------------------------------------------------------

def test_confinement_admits_the_folder_and_the_samples_only(served):
    c = confine.Confinement(served["root"])
    root = served["root"]
    assert c.inside(SAMPLE) and c.inside(root / SAMPLE) and c.inside("sub/link-in.json")
    assert c.inside(samples_dir() / SAMPLE)  # shipped with Inspector: nothing private
    for path in (served["secret"], "link.json", "outdir/secret.json", "../outside/secret.json",
                 root / "sub" / ".." / ".." / "outside" / "secret.json", "/etc/passwd"):
        assert not c.inside(path), path
        with pytest.raises(confine.Refused, match="outside the served folder"):
            c.check(path)
    assert c.check("sub/link-in.json") == str(served["sample"].resolve())
    with pytest.raises(confine.Refused, match="standard input"):
        c.check("-")


def test_hooks_do_nothing_outside_served_mode(served):
    terminal_app = SimpleNamespace()
    assert confine.refusal(terminal_app, str(served["secret"])) is None
    assert confine.visible(terminal_app, [served["secret"]]) == [served["secret"]]
    assert confine.deliver(terminal_app, "x.json", b"{}") is None
    assert [s.path for s in confine.gallery(terminal_app, list_samples)] == [s.path for s in list_samples()]
    assert confine.gallery_title(terminal_app) is None


def test_gallery_lists_the_served_folder_without_links_out(served, tmp_path):
    app = SimpleNamespace()
    confine.attach(app, served["root"])
    assert [s.path.name for s in confine.gallery(app, list_samples)] == [SAMPLE]
    assert "the histories in served/" in confine.gallery_title(app).plain
    empty = tmp_path / "empty"
    empty.mkdir()
    confine.attach(app, empty)  # no histories there: the bundled samples
    assert [s.path for s in confine.gallery(app, list_samples)] == [s.path for s in list_samples()]
    assert confine.gallery_title(app) is None


# -- served mode inside the app -----------------------------------------------------------

async def _until(pilot, condition, what: str) -> None:
    for _ in range(300):
        await pilot.pause(0.02)
        if condition():
            await pilot.pause()
            return
    raise AssertionError(f"never happened: {what}")


async def test_served_app_refuses_a_file_outside_and_a_link_out(served):
    for path in (served["secret"], served["root"] / "link.json"):
        app = make_app(path)
        confine.attach(app, served["root"])
        async with app.run_test(size=(120, 40)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, ErrorDialog), "the error dialog")
            assert "outside the served folder" in app.screen.message
            assert app.main.doc is None and app.main.loading_source is None


async def test_open_dialog_lists_no_link_out_of_the_folder(served):
    app = make_app(served["sample"])
    confine.attach(app, served["root"])
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: app.main.doc is not None, "the history")
        app.push_screen(OpenFileDialog(str(served["root"])))
        await pilot.pause()
        tree = app.screen.query_one(HistoryTree)
        shown = {p.name for p in tree.filter_paths(list(served["root"].iterdir()))}
        assert shown == {SAMPLE, "sub"}
        assert {p.name for p in tree.filter_paths(list((served["root"] / "sub").iterdir()))} == {"link-in.json"}


async def test_served_export_is_a_browser_download_of_normalize_bytes(served, monkeypatch):
    app = make_app(served["sample"])
    confine.attach(app, served["root"])
    sent: list[tuple[bytes, dict]] = []
    monkeypatch.setattr(app, "deliver_binary", lambda f, **kw: sent.append((f.read(), kw)), raising=False)
    before = sorted(p.name for p in served["root"].iterdir())
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: app.main.doc is not None, "the history")
        await pilot.press("e")
        assert isinstance(app.screen, ExportDialog)
        await pilot.press("enter")
        await _until(pilot, lambda: sent and not isinstance(app.screen, ExportDialog), "the download")
    data, options = sent[0]
    assert data == run_file(served["sample"]).data
    assert options["save_filename"] == SAMPLE.replace(".json", ".normalized.json")
    assert sorted(p.name for p in served["root"].iterdir()) == before  # nothing written on the server


# -- the command line and the server ------------------------------------------------------

def test_standard_input_is_refused(capsys):
    assert cli_main(["serve", "-"]) == 2
    err = capsys.readouterr().err
    assert "standard input" in err and err.count("\n") == 1


def test_missing_path_and_bad_port_exit_2(tmp_path, capsys):
    assert cli_main(["serve", str(tmp_path / "nope.json")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert cli_main(["serve", str(tmp_path), "--port", "70000"]) == 2
    assert "not a port" in capsys.readouterr().err


def test_without_the_web_extra_it_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "textual_serve", None)  # import fails as if not installed
    assert cli_main(["serve", str(tmp_path)]) == 2
    assert "pip install 'inspector[web]'" in capsys.readouterr().err


class FakeServer:
    calls: list = []

    def __init__(self, command, host, port, fail=None):
        FakeServer.calls.append((command, host, port))
        self.fail = fail

    def serve(self):
        if self.fail:
            raise self.fail


def test_binds_loopback_by_default_and_warns_loudly_otherwise(served, monkeypatch, capsys):
    need("textual_serve", "web")
    FakeServer.calls = []
    monkeypatch.setattr(serve, "make_server", FakeServer)
    assert cli_main(["serve", str(served["sample"]), "--port", "8123"]) == 0
    out, err = capsys.readouterr()
    assert "http://127.0.0.1:8123" in out and "WARNING" not in err
    command, host, port = FakeServer.calls[-1]
    assert (host, port) == ("127.0.0.1", 8123)
    argv = shlex.split(command)
    assert argv[:3] == [sys.executable, "-m", "inspector.serve"]
    assert argv[3:] == ["--root", str(served["root"].resolve()), str(served["sample"].resolve())]

    assert cli_main(["serve", str(served["root"]), "--host", "0.0.0.0", "--port", "8123"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("WARNING") and "anyone" in err and str(served["root"].resolve()) in err
    assert shlex.split(FakeServer.calls[-1][0])[3:] == ["--root", str(served["root"].resolve())]


def test_a_busy_port_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    need("textual_serve", "web")
    monkeypatch.setattr(serve, "make_server",
                        lambda *a: FakeServer(*a, fail=OSError(98, "Address already in use")))
    assert cli_main(["serve", str(tmp_path), "--port", "8124"]) == 2
    assert "Address already in use" in capsys.readouterr().err


def test_command_survives_spaces_and_quotes(tmp_path):
    root = tmp_path / "a folder; 'quoted'"
    assert shlex.split(serve.app_command(root, root / "x y.json"))[3:] == ["--root", str(root), str(root / "x y.json")]


def test_request_guard():
    hosts = serve.allowed_hosts("127.0.0.1", 8000)
    ok = {"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:8000"}
    assert serve.request_refusal(ok, hosts) is None
    assert serve.request_refusal({"Host": "localhost:8000"}, hosts) is None
    assert "Host" in serve.request_refusal({"Host": "evil.example:8000"}, hosts)
    assert "cross-origin" in serve.request_refusal({"Host": "127.0.0.1:8000", "Origin": "http://evil.example"}, hosts)
    assert serve.allowed_hosts("0.0.0.0", 8000) is None  # other names for the machine: only Origin is checked
    assert "cross-origin" in serve.request_refusal({"Host": "box:8000", "Origin": "http://evil.example"}, None)
    assert serve.public_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert "0.0.0.0" not in serve.public_url("0.0.0.0", 8000)
