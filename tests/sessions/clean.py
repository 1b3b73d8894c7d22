"""One clean document per session format, in the shape of the shared format fixtures (a
weather bot calling get_weather for Paris and Rome in parallel), as parsed documents."""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import orjson

from inspector.formats import agents_sqlite, claude_code, cline, codex_rollout
from inspector.formats import opencode as opencode_format

from . import agents_builder, cline_builder
from .claude_builder import Session, text
from .codex_builder import Rollout


def _weather(tool_id: str, city: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "get_weather", "input": {"city": city}}


def claude() -> Any:
    s = Session()
    s.user("What's the weather in Paris and Rome?")
    s.assistant("msg_01W", text("I'll check both."), _weather("toolu_01A", "Paris"), _weather("toolu_01B", "Rome"))
    s.result("toolu_01A", "18C")
    s.result("toolu_01B", "24C")
    s.assistant("msg_02W", text("Paris 18C, Rome 24C."))
    return claude_code.parse(s.data(), "clean.jsonl")


def codex() -> Any:
    r = Rollout()
    r.user("Weather in Paris and Rome?")
    for cid, city in (("call_A", "Paris"), ("call_B", "Rome")):
        r._line("response_item", {"type": "function_call", "name": "get_weather",
                                  "arguments": orjson.dumps({"city": city}).decode(), "call_id": cid})
    r._line("response_item", {"type": "function_call_output", "call_id": "call_A", "output": "18C"})
    r._line("response_item", {"type": "function_call_output", "call_id": "call_B", "output": "24C"})
    r.say("Paris 18C, Rome 24C.")
    return codex_rollout.parse(r.data(), "rollout.jsonl")


def gemini_cli() -> Any:
    def call(cid: str, city: str, out: str) -> dict[str, Any]:
        return {"id": cid, "name": "get_weather", "args": {"city": city}, "status": "success",
                "timestamp": "2025-10-12T09:20:00.000Z",
                "result": [{"functionResponse": {"id": cid, "name": "get_weather", "response": {"output": out}}}]}

    return {"sessionId": "8e1f5c2a", "projectHash": "c0ffee", "startTime": "2025-10-12T09:10:00.000Z",
            "lastUpdated": "2025-10-12T09:40:00.000Z", "messages": [
                {"id": "m1", "timestamp": "2025-10-12T09:10:00.000Z", "type": "user",
                 "content": "Weather in Paris and Rome?"},
                {"id": "m2", "timestamp": "2025-10-12T09:11:00.000Z", "type": "gemini", "content": "",
                 "toolCalls": [call("get_weather-1", "Paris", "18C"), call("get_weather-2", "Rome", "24C")]},
                {"id": "m3", "timestamp": "2025-10-12T09:12:00.000Z", "type": "gemini",
                 "content": "Paris 18C, Rome 24C."}]}


def agents() -> Any:
    items = [
        {"content": "Weather in Paris and Rome?", "role": "user"},
        {"arguments": "{\"city\":\"Paris\"}", "call_id": "call_A", "name": "get_weather", "type": "function_call"},
        {"arguments": "{\"city\":\"Rome\"}", "call_id": "call_B", "name": "get_weather", "type": "function_call"},
        {"call_id": "call_A", "output": "18C", "type": "function_call_output"},
        {"call_id": "call_B", "output": "24C", "type": "function_call_output"},
        {"content": [{"text": "Paris 18C, Rome 24C.", "type": "output_text", "annotations": []}],
         "role": "assistant", "type": "message"},
    ]
    with TemporaryDirectory() as tmp:
        path = agents_builder.make(Path(tmp) / "s.db", {"weather": items})
        return agents_sqlite.parse(path.read_bytes(), "s.db")


def cline_task() -> Any:
    t = cline_builder.Task("roo")
    t.user(cline_builder.text("Weather in Paris and Rome?"))
    t.assistant(_weather("toolu_A", "Paris"), _weather("toolu_B", "Rome"))
    t.user(cline_builder.result("toolu_A", "18C"), cline_builder.result("toolu_B", "24C"))
    t.assistant(cline_builder.text("Paris 18C, Rome 24C."))
    return cline.parse(t.api_bytes(), "tasks/1760260800000/api_conversation_history.json")


def opencode_session() -> Any:
    from . import opencode_builder as ob

    s = ob.Session(title="Weather")
    s.user("What's the weather in Paris and Rome?")
    s.assistant(ob.text("I'll check both."), ob.tool("toolu_01A", "get_weather", {"city": "Paris"}, "18C"),
                ob.tool("toolu_01B", "get_weather", {"city": "Rome"}, "24C"), finish="tool-calls")
    s.assistant(ob.text("Paris 18C, Rome 24C."))
    return s


def opencode() -> Any:
    from . import opencode_builder as ob

    with TemporaryDirectory() as tmp:
        path = ob.write_db(Path(tmp) / "opencode.db", opencode_session())
        return opencode_format.parse(path.read_bytes(), "opencode.db")


def gemini_cli_log() -> Any:
    """The same session as a log, as Gemini CLI writes one when it resumes a .json record:
    its metadata line, then each record on a line of its own."""
    import orjson

    from inspector.formats import gemini_cli as gemini_format

    record = gemini_cli()
    meta = {k: v for k, v in record.items() if k != "messages"}
    return gemini_format.parse(b"".join(orjson.dumps(e) + b"\n" for e in [meta, *record["messages"]]), "s.jsonl")


def crush_db() -> Any:
    from inspector.formats import crush

    from . import crush_builder as cb

    t = 1764600000
    rows = [("w-u1", "user", [cb.text("What's the weather in Paris and Rome?"), cb.finish()], t),
            ("w-a1", "assistant", [cb.text("I'll check both."), cb.call("toolu_01A", "get_weather", '{"city":"Paris"}'),
                                   cb.call("toolu_01B", "get_weather", '{"city":"Rome"}'), cb.finish("tool_use")], t + 1),
            ("w-t1", "tool", [cb.result("toolu_01A", "get_weather", "18C"), cb.finish()], t + 2),
            ("w-t2", "tool", [cb.result("toolu_01B", "get_weather", "24C"), cb.finish()], t + 2),
            ("w-a2", "assistant", [cb.text("Paris 18C, Rome 24C."), cb.finish("end_turn")], t + 3)]
    with TemporaryDirectory() as tmp:
        path = cb.write_db(Path(tmp) / "crush.db", {"ses-weather": ("Weather", rows, None)})
        return crush.parse(path.read_bytes(), "crush.db")


def goose_stores() -> dict[str, Any]:
    from inspector.formats import goose

    from . import goose_builder as gb

    t, seen = 1764600000, gb.VISIBLE
    messages = [("user", [gb.text("What's the weather in Paris and Rome?")], t, seen),
                ("assistant", [gb.text("I'll check both."), gb.request("toolu_01A", "get_weather", {"city": "Paris"}),
                               gb.request("toolu_01B", "get_weather", {"city": "Rome"})], t + 1, seen),
                ("user", [gb.response("toolu_01A", "18C"), gb.response("toolu_01B", "24C")], t + 2, seen),
                ("assistant", [gb.text("Paris 18C, Rome 24C.")], t + 3, seen)]
    with TemporaryDirectory() as tmp:
        db = gb.write_db(Path(tmp) / "sessions.db", {"20261201_1": messages})
        lines = gb.write_jsonl(Path(tmp) / "20250601_1.jsonl", messages)
        return {"goose": goose.parse(db.read_bytes(), "sessions.db"),
                "goose-jsonl": goose.parse_jsonl(lines.read_bytes(), "20250601_1.jsonl")}


def copilot_cli() -> Any:
    from inspector.formats import copilot

    from . import copilot_builder as cb

    log = cb.Log()
    log.user("What's the weather in Paris and Rome?")
    log.assistant("I'll check both.", ("toolu_01A", "get_weather", {"city": "Paris"}),
                  ("toolu_01B", "get_weather", {"city": "Rome"}))
    log.done("toolu_01A", "18C")
    log.done("toolu_01B", "24C")
    log.assistant("Paris 18C, Rome 24C.")
    return copilot.parse(log.bytes(), "events.jsonl")
def pi_stores() -> dict[str, Any]:
    from inspector.formats import pi

    from . import openclaw_builder, pi_builder as pb

    s = pb.Session()
    s.user("What's the weather in Paris and Rome?")
    s.assistant([{"type": "text", "text": "I'll check both."}, pb.call("toolu_01A", "get_weather", {"city": "Paris"}),
                 pb.call("toolu_01B", "get_weather", {"city": "Rome"})], stop="toolUse")
    s.result("toolu_01A", "get_weather", "18C")
    s.result("toolu_01B", "get_weather", "24C")
    s.assistant([{"type": "text", "text": "Paris 18C, Rome 24C."}])
    with TemporaryDirectory() as tmp:
        db = openclaw_builder.build(Path(tmp) / "openclaw-agent.sqlite", {"s-weather": s})
        return {"pi-session": pi.parse(s.text().encode(), "s.jsonl"),
                "openclaw-agent-db": pi.agent_db.parse(db.read_bytes(), "openclaw-agent.sqlite")}


def clean_sessions() -> dict[str, Any]:
    return {"claude-code": claude(), "codex-rollout": codex(), "gemini-cli": gemini_cli(),
            "gemini-cli-log": gemini_cli_log(),
            "agents-sqlite": agents(), "opencode": opencode(),
            "opencode-export": opencode_format.parse_export(opencode_session().export(), "session.json"),
            "cline": cline_task(), "crush": crush_db(), **goose_stores(),
            "copilot-cli": copilot_cli(), **pi_stores()}
