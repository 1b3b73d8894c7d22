"""``inspector share``: the copy holds none of the planted secrets, addresses or home paths,
keeps the ids, and gives the same verdict and the same repair as the original."""

from __future__ import annotations

import random
import string
from collections import Counter
from pathlib import Path

import orjson
import pytest

from inspector import share
from inspector.cli import main
from inspector.pipeline import run_file
from inspector.targets import TARGETS, check

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
ALL_SAMPLES = sorted(SAMPLES.glob("[0-9]*"))


def _repair(path: Path) -> tuple:
    """What a person compares: the events of the repair (with and without --strict) and every
    provider's verdict on it, without positions (the copy has fewer entries)."""
    out = []
    for strict in (False, True):
        o = run_file(path, strict=strict)
        out.append((o.changed, sorted((e.clause, e.kind, e.drop) for e in o.events),
                    sorted((t, p.rule, p.severity, p.tool_call_id) for t in TARGETS for p in check(o, t))))
    return tuple(out)


@pytest.mark.parametrize("sample", ALL_SAMPLES, ids=lambda p: p.name)
def test_a_sample_shared_gives_the_same_verdict_and_repair(sample, tmp_path):
    case = tmp_path / f"case{sample.suffix}"
    assert main(["share", str(sample), "-o", str(case)]) == 0
    assert _repair(case) == _repair(sample)


def _rand(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def planted(rng: random.Random) -> dict[str, str]:
    """One secret of each kind, and private facts, made fresh for each session."""
    upper = string.ascii_uppercase + string.digits
    return {
        "anthropic": "sk-ant-api03-" + _rand(rng, 48, string.ascii_letters + string.digits + "_-"),
        "openai": "sk-proj-" + _rand(rng, 48),
        "openai-old": "sk-" + _rand(rng, 48),
        "aws-id": "AKIA" + _rand(rng, 16, upper),
        "aws-secret": _rand(rng, 40, string.ascii_letters + string.digits + "/+"),
        "github": "ghp_" + _rand(rng, 36),
        "github-pat": "github_pat_" + _rand(rng, 30) + "_" + _rand(rng, 40),
        "key-body": _rand(rng, 64),
        "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI" + _rand(rng, 20) + "." + _rand(rng, 43, string.ascii_letters + "_-"),
        "user": "u" + _rand(rng, 7, string.ascii_lowercase),
        "email": _rand(rng, 6, string.ascii_lowercase) + "@corp-" + _rand(rng, 5, string.ascii_lowercase) + ".com",
    }


def session(rng: random.Random, secrets: dict[str, str], calls: int) -> list[dict]:
    """An OpenAI Chat history with the secrets in user text, call arguments and tool output,
    a broken pair or two, and long text."""
    home = f"/home/{secrets['user']}/project"
    messages: list[dict] = [{"role": "system", "content": f"cwd {home}, contact {secrets['email']}"}]
    for n in range(calls):
        cid = f"call_{_rand(rng, 24)}"
        messages.append({"role": "user", "content": f"use {secrets['anthropic']} and {secrets['openai']} "
                                                    + "lorem ipsum " * rng.randint(0, 60)})
        args = orjson.dumps({"path": f"{home}/a.env", "token": secrets["github"]}).decode()
        messages.append({"role": "assistant", "content": None,
                         "tool_calls": [{"id": cid, "type": "function", "function": {"name": "read", "arguments": args}}]})
        if rng.random() < 0.7:
            messages.append({"role": "tool", "tool_call_id": cid, "content":
                             f"AWS_ACCESS_KEY_ID={secrets['aws-id']}\naws_secret_access_key = {secrets['aws-secret']}\n"
                             f"-----BEGIN RSA PRIVATE KEY-----\n{secrets['key-body']}\n-----END RSA PRIVATE KEY-----\n"
                             f"{secrets['github-pat']} {secrets['jwt']} {secrets['openai-old']} "
                             f"/Users/{secrets['user']}/x C:\\Users\\{secrets['user']}\\y"})
        if rng.random() < 0.3:
            messages.append({"role": "tool", "tool_call_id": f"call_{_rand(rng, 24)}", "content": "stray"})
    messages.append({"role": "assistant", "content": "done"})
    return messages


@pytest.mark.parametrize("detect_secrets", [True, False], ids=["detect-secrets", "built-in-only"])
@pytest.mark.parametrize("seed", range(6))
def test_generated_sessions_with_planted_keys(seed, detect_secrets, tmp_path, monkeypatch):
    if detect_secrets:
        pytest.importorskip("detect_secrets")
    else:
        monkeypatch.setattr(share, "detector", lambda: None)
    rng = random.Random(seed)
    secrets = planted(rng)
    source = tmp_path / "session.json"
    source.write_bytes(orjson.dumps({"model": "gpt-4.1", "messages": session(rng, secrets, rng.randint(2, 8))}))
    case = tmp_path / "case.json"
    page = tmp_path / "case.html"
    assert main(["share", str(source), "-o", str(case), "--html", str(page)]) == 0
    for written in (case, page):
        text = written.read_text()
        for kind, value in secrets.items():
            assert value not in text, (written.name, kind)
    # Ids are kept: every call id of the copy was in the original.
    original = orjson.loads(source.read_bytes())["messages"]
    copy = orjson.loads(case.read_bytes())["messages"]
    ids = {m.get("tool_call_id") for m in original} | {c["id"] for m in original for c in m.get("tool_calls") or ()}
    assert {m.get("tool_call_id") for m in copy} | {c["id"] for m in copy for c in m.get("tool_calls") or ()} <= ids
    assert _repair(case) == _repair(source)


def test_long_text_is_cut_with_its_length_kept():
    value = "word " * 400
    out = share.cut(value)
    assert len(out) < 200 and str(len(value)) in out
    assert share.cut('{"a": "' + "x " * 300 + '"}').startswith('{"a"')        # a JSON payload is kept whole
    assert share.cut("A" * 1000) == "A" * 1000                                   # a signature or blob too


def test_the_same_secret_gets_the_same_token():
    r = share.Redactor()
    key = "sk-ant-api03-" + "a" * 40
    assert r.text(f"{key} and {key}").split(" and ")[0] == r.text(key)


def test_the_page_is_self_contained_and_escapes_message_text(tmp_path):
    source = tmp_path / "h.json"
    source.write_bytes(orjson.dumps([{"role": "user", "content": "<script>alert(1)</script><img src=x>"},
                                     {"role": "tool", "tool_call_id": "c1", "content": "orphan"}]))
    page = tmp_path / "h.html"
    assert main(["share", str(source), "-o", str(tmp_path / "c.json"), "--html", str(page)]) == 0
    text = page.read_text()
    assert "<script" not in text and "<img" not in text and "&lt;script&gt;" in text
    assert "http://" not in text and "https://" not in text and " src=" not in text.replace("src=x", "")
    assert "drop" in text.lower()        # the stage that drops the orphan is shown


def test_the_page_does_not_name_the_user_in_the_file_path(tmp_path):
    folder = tmp_path / "home" / "alicesmith"
    folder.mkdir(parents=True)
    source = folder / "h.json"
    source.write_bytes(orjson.dumps([{"role": "user", "content": "x"}]))
    page = tmp_path / "h.html"
    assert main(["share", str(source), "-o", str(tmp_path / "c.json"), "--html", str(page)]) == 0
    assert "alicesmith" not in page.read_text()


def test_the_input_is_never_written_over(tmp_path):
    source = tmp_path / "h.json"
    source.write_bytes(orjson.dumps([{"role": "user", "content": "x"}]))
    before = source.read_bytes()
    assert main(["share", str(source), "-o", str(source)]) == 2
    assert source.read_bytes() == before


def test_a_store_is_redacted_cell_by_cell_and_keeps_no_old_page(tmp_path):
    """A SQLite store: the planted key is gone from every page of the copy (vacuumed), not
    only from the rows a reader sees; the verdict is the same."""
    import sqlite3

    rng = random.Random(7)
    secrets = planted(rng)
    source = tmp_path / "store.db"
    source.write_bytes((SAMPLES / "24-agents-sdk-session.db").read_bytes())
    db = sqlite3.connect(source)
    db.execute("UPDATE agent_messages SET message_data = ? WHERE id = 1",
               (orjson.dumps({"role": "user", "content": f"key {secrets['anthropic']} mail {secrets['email']} "
                                                         f"at /home/{secrets['user']}/x"}).decode(),))
    db.commit()
    db.close()
    case = tmp_path / "case.db"
    assert main(["share", str(source), "-o", str(case)]) == 0
    raw = case.read_bytes()
    for kind in ("anthropic", "email", "user"):
        assert secrets[kind].encode() not in raw, kind
    assert _repair(case) == _repair(source)


def test_the_page_opens_in_chromium_and_asks_for_nothing_else(tmp_path):
    """The page in Debian's Chromium (Playwright): it renders the verdict, and loading it
    requests nothing but itself. A screenshot is left beside it for a person to look at."""
    import os

    from extras import need

    need("playwright", "webtest")
    chromium_path = os.environ.get("INSPECTOR_CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium_path, os.X_OK):
        pytest.skip(f"no browser at {chromium_path}")
    from playwright.sync_api import sync_playwright

    rng = random.Random(11)
    source = tmp_path / "s.json"
    source.write_bytes(orjson.dumps({"messages": session(rng, planted(rng), 3)}))
    page_path = tmp_path / "case.html"
    assert main(["share", str(source), "-o", str(tmp_path / "c.json"), "--html", str(page_path)]) == 0
    requests: list[str] = []
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, args=args, timeout=15000)
        try:
            page = browser.new_page()
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_path.as_uri())
            assert "Inspector case" in page.title()
            assert page.locator("table").count() == 2
            assert "Verdict per provider" in page.inner_text("body")
            page.screenshot(path=str(tmp_path / "case.png"), full_page=True)
        finally:
            browser.close()
    assert requests == [page_path.as_uri()]
