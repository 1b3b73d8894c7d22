"""The doctor finds the four homes of pi v3 sessions (pi's, oh-my-pi's, OpenClaw's JSONL with the
Clawdbot name before it, OpenClaw's agent database) in a fake home, and gives each session the
verdict its resume gets."""

from __future__ import annotations

from sessions import openclaw_builder as ob
from sessions import pi_builder as pb

from inspector.doctor import fix, known_homes, scan


def _home(tmp_path):
    home = tmp_path / "home"
    files = {
        "pi": home / ".pi/agent/sessions/--home-dev-app--/2026-11-03T09-00-00-000Z_7d3c1f0e.jsonl",
        "omp": home / ".omp/agent/sessions/--home-dev-app--/2026-11-04T10-00-00-000Z_8e4d2a1f.jsonl",
        "openclaw": home / ".openclaw/agents/main/sessions/5b1e2c3d.jsonl",
        "clawdbot": home / ".clawdbot/agents/main/sessions/6c2f3d4e.jsonl",
    }
    for key, path in files.items():
        path.parent.mkdir(parents=True)
        path.write_text(pb.scenario("crash" if key in ("pi", "openclaw") else "clean").text())
    db = home / ".openclaw/agents/work/agent/openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    ob.build(db, {"s-crash": pb.scenario("crash")})
    files["db"] = db
    return home, files


def test_the_four_homes_are_found(tmp_path):
    home, files = _home(tmp_path)
    found = {p for h in known_homes({"HOME": str(home)}, tmp_path) if h.agent in ("pi", "openclaw")
             for p in h.files()}
    assert found == set(files.values())


def test_each_session_gets_its_verdict_and_its_agent(tmp_path):
    home, files = _home(tmp_path)
    rows = {r.path: r for r in scan(env={"HOME": str(home)}, cwd=tmp_path).rows}
    got = {key: (rows[str(p)].agent, rows[str(p)].format, rows[str(p)].status) for key, p in files.items()}
    assert got == {"pi": ("pi", "pi-session", "agent-repairs"), "omp": ("pi", "pi-session", "ok"),
                   "openclaw": ("openclaw", "pi-session", "agent-repairs"),
                   "clawdbot": ("openclaw", "pi-session", "ok"),
                   "db": ("openclaw", "openclaw-agent-db", "agent-repairs")}
    assert "0.25.0" in rows[str(files["pi"])].verdict.sentence


def test_pi_coding_agent_dir_moves_pi_s_home(tmp_path):
    env = {"HOME": str(tmp_path / "home"), "PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    roots = {(h.agent, str(h.root), h.via) for h in known_homes(env, tmp_path)}
    assert ("pi", str(tmp_path / "agent" / "sessions"), "PI_CODING_AGENT_DIR") in roots


def test_fix_writes_repaired_copies_and_leaves_the_originals(tmp_path):
    home, files = _home(tmp_path)
    before = {k: p.read_bytes() for k, p in files.items()}
    out = tmp_path / "fixed"
    result = scan(env={"HOME": str(home)}, cwd=tmp_path)
    fix(result.rows, out, result.roots)
    assert {k: p.read_bytes() for k, p in files.items()} == before
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert any(w.startswith("pi/") and w.endswith(".jsonl") for w in written), written
