"""OpenCode sessions, in the three shapes OpenCode keeps them:

- **the database** ``~/.local/share/opencode/opencode.db`` (``$XDG_DATA_HOME/opencode``; another
  file with ``OPENCODE_DB``), SQLite in WAL mode: ``session``, ``message(id, session_id,
  time_created, data)`` and ``part(id, message_id, session_id, data)``, ``data`` being the object
  as JSON text without the ids held in columns (anomalyco/opencode
  ``packages/opencode/src/session/session.sql.ts`` @ 063e8306d9895af9bdd175306cfa4fa3291fd83a);
- **the legacy tree** ``storage/session/<project>/<id>.json``, ``storage/message/<session>/<id>.json``,
  ``storage/part/<message>/<id>.json`` of builds before the database (``storage/json-migration.ts``
  @ 0a8a0ed8bb798343e09cf7fb1bad0a08ee573b98), read from a session file;
- **``opencode export``** output, ``{"info", "messages": [{"info", "parts"}]}`` printed by
  ``JSON.stringify(_, null, 2)`` (``cli/cmd/export.ts`` @ cfa809bf335301036f4a320b38260445daa8f390).

A call and its result are one ``tool`` part (``state.status`` ``pending``, ``running``,
``completed`` or ``error``), so a result cannot be orphaned; what breaks a resume is a call id
declared twice or unusable. Import reads what OpenCode sends on resume, step by step after its
code (``session/message-v2.ts`` @ 007a9409bafea06d6b9084ff1f6d1fe9f5e3a803: ``filterCompacted``,
``toModelMessages``; ``provider/transform.ts`` @ 000f6280d904296fe8628344b98bef096ae26fb4; the AI
SDK's ``convertToModelMessages``, vercel/ai ``packages/ai/src/ui/convert-to-model-messages.ts`` @
004d06cd58a91a509a4d6e2413844dcba6b1e87c, and ``@ai-sdk/anthropic``,
``packages/anthropic/src/convert-to-anthropic-messages-prompt.ts`` @
01ab106e549d9bd8f582a2b42480235bac2e0d4a), into the Anthropic request it builds, and reads that with the Anthropic importer. What OpenCode repairs itself is an import
note, not a change: a ``pending``/``running`` call is sent with the error result "[Tool
execution was interrupted]" (the real result is lost; the tool may have run), text streamed
after a call is moved before it (since PR #22646), unsigned or foreign reasoning is left out.

OpenCode 2.x keeps a session as typed rows of ``session_message`` (``v2.py``: what it sends on
resume, after its own source; ``v2export.py``: the repair, by rows). A database may hold V1
sessions, 2.x sessions or both; every one is listed, and a session OpenCode 2 copied over from
the V1 tables is read from ``session_message``, where it continues.

The database is read through ``store.sqlite.read_live`` (its ``-wal`` or hot ``-journal``
applied in a private copy, as OpenCode's next open sees it), and a repaired copy keeps the
file's journal mode.

Export is a repaired copy OpenCode resumes: for the database, the same database with the
dropped parts' rows deleted and rewritten parts' ``data`` updated, every other row as it was
(run it with ``OPENCODE_DB=<copy> opencode -s <session>``); for an export or a tree session, an
export document whose untouched parts keep their bytes (``OPENCODE_DB=<new.db> opencode import
<file>``: importing into the database that already holds the session keeps its old rows, as
``opencode import`` inserts with ``onConflictDoNothing``, ``cli/cmd/import.ts`` @
020ac73edc13a96d368fbebd5239b6650a5874dc).

Reasoning parts (``type: "reasoning"``, a provider's signature or encrypted payload in
``metadata``, the model on the message's ``providerID``/``modelID``) are recorded whether
OpenCode sends them (as ``thinking``, signed, to the model that wrote them) or leaves them out;
``--reasoning strip`` removes their rows or their place in the export.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...engine import IMPORT_CLAUSE, Kind, declare
from .. import anthropic, session
from ..base import Imported, kind_of
from ..format import Agent, Format, OnResume, SESSION, SelfRepair, Source
from .. import identity
# The parts, and the names the rest of the project (and the tests) reach through the package.
from .store import (EXPORT, HEADER, NAME, OpenCodeDB, OpenCodeExport, Row, chosen, compact, dump, listing, parse,
                    parse_export, pretty, replace, select, sniff, sniff_export, _is_export, _is_tree_session)
from .resume import CLAUDE_ID, DEFAULT_MODEL, INTERRUPTED, request, resumed_model
from .importer import SIGNED_KEYS, OpenCodeState, import_
from . import v2cli
from .export import NEW_SCHEMA, NO_RESULT, export_new, export_new_document, export_same, strip_reasoning

# What OpenCode repairs itself on resume: a tool part still pending or running is sent with an
# error result of its own (import event ``agent-placeholder``); the one claim every verdict reads.
SELF_REPAIRS = (
    SelfRepair("agent-placeholder", None,
               f"answers a call still pending or running with the error \"{INTERRUPTED}\"", "",
               "anomalyco/opencode packages/opencode/src/session/message-v2.ts @ "
               "007a9409bafea06d6b9084ff1f6d1fe9f5e3a803 (toModelMessages)", lossless=False),
    # OpenCode 2.x writes the failure into the session before it builds the request: every 2.x
    # build read (the first release that does it is not pinned; the session row's version says
    # which build wrote the session).
    SelfRepair("agent-settled", None,
               "fails a tool still streaming or running with the error \"Tool execution interrupted: NAME\"", "",
               "anomalyco/opencode packages/core/src/session/runner/llm.ts @ "
               "008d57153952804fea8d6eef1cf3baf4402248cb (settleStaleToolCalls)", lossless=False),
)

EMITS = declare(
    Kind("agent-placeholder", IMPORT_CLAUSE, False, "agent's own result",
         "The agent sends this call with an error result of its own (the call was interrupted); the real "
         "result is lost and the tool may have run.", "note", "call"),
    Kind("agent-settled", IMPORT_CLAUSE, False, "agent's own result",
         "OpenCode 2 fails this interrupted call itself before its next request and sends that error as the "
         "result; the real result is lost and the tool may have run.", "note", "call"),
    Kind("unsigned-thinking", IMPORT_CLAUSE, False, "unsigned thinking",
         "OpenCode 2 sends this reasoning as a thinking block without a signature, which Anthropic refuses; "
         "--reasoning strip removes it.", "note"),
    session.NOT_SENT,
    Kind("agent-reordered", IMPORT_CLAUSE, False, "reordered by the agent",
         "The agent moves this text ahead of the calls it followed before sending (older builds send "
         "it as stored, which the provider refuses).", "note"),
)


def evidence(document: Any) -> list[str]:
    if not isinstance(document, OpenCodeDB):
        return []
    return ["an SQLite database with OpenCode 2's session_message table" if document.v2 else
            "an SQLite database with OpenCode's message and part tables"]


def evidence_export(document: Any) -> list[str]:
    if isinstance(document, OpenCodeExport) or _is_export(document):
        return ['an "info" session and "messages" of {info, parts} (opencode export)']
    if _is_tree_session(document):
        return ["an OpenCode session file of the legacy storage tree (ses_ id, projectID, title)"]
    return []


def describe_part(block: Any) -> str:
    """A part (or a whole message) by its type, tool and call id, or state."""
    if isinstance(block, Mapping) and isinstance(block.get("parts"), list) and "info" in block:
        info = block["info"] if isinstance(block["info"], Mapping) else {}
        return f"{info.get('role') or info.get('type') or 'message'} {info.get('id', '')}".rstrip()
    if not isinstance(block, Mapping):
        return kind_of(block)
    kind = str(block.get("type", kind_of(block)))
    if kind == "tool":
        st = block.get("state") if isinstance(block.get("state"), Mapping) else {}
        call, tool = block.get("callID", block.get("id", "")), block.get("tool", block.get("name", ""))
        return f"tool {call} {tool} {st.get('status', '')}".replace("  ", " ").strip()
    if kind in ("text", "reasoning") and isinstance(block.get("text"), str):
        return f"{kind} {block['text'][:80]}"
    return kind


# -- registration --------------------------------------------------------------------------------

def _by_version(im: Imported) -> Agent | None:
    """A session OpenCode 2 wrote resumes through its background server (``v2cli``)."""
    return AGENT_V2 if v2cli.is_v2(im) else None


# The agent whose store this is (the doctor's table of agents reads it here): V1's command line
# (``tui/thread.ts``, see ``v2cli``), and 2.x's where a session is OpenCode 2's (``AGENT_V2``).
AGENT = Agent("opencode", "OpenCode",
              "`OPENCODE_DB=<repaired .db> opencode -s <session id>`; or quit OpenCode, move opencode.db and "
              "its -wal and -shm aside (keep them: they are the original), put the repaired database in its "
              "place with no -wal or -shm beside it (the copy already holds the -wal's commits; a stale one "
              "would undo the repair), then `opencode -s <session id>`",
              command="opencode --session {session}", command_on_copy="OPENCODE_DB={path} opencode --session {session}",
              database=True, by_version=_by_version,
              # Read from the stored index, which mixes versions and forks: each file at the commit
              # whose code agrees with the others (docs/stores/opencode.md).
              versions="V1 (database, storage/ tree, export) and 2.x (session_message); no release pinned",
              built_from=(
                  Source("anomalyco/opencode", "063e8306d989", ("packages/opencode/src/session/session.sql.ts",),
                         "V1: the tables"),
                  Source("anomalyco/opencode", "007a9409bafe", ("packages/opencode/src/session/message-v2.ts",),
                         "V1: what a resume sends"),
                  Source("anomalyco/opencode", "000f6280d904", ("packages/opencode/src/provider/transform.ts",),
                         "V1: the provider's lowering"),
                  Source("anomalyco/opencode", "0a8a0ed8bb79", ("packages/opencode/src/storage/json-migration.ts",),
                         "the legacy storage/ tree"),
                  Source("anomalyco/opencode", "cfa809bf3353", ("packages/opencode/src/cli/cmd/export.ts",),
                         "opencode export"),
                  Source("anomalyco/opencode", "020ac73edc13", ("packages/opencode/src/cli/cmd/import.ts",),
                         "opencode import"),
                  Source("anomalyco/opencode", "02ce4a330f33",
                         ("packages/core/src/session/sql.ts", "packages/core/src/database/schema.gen.ts"),
                         "2.x: the tables"),
                  Source("anomalyco/opencode", "03130971e20a", ("packages/core/src/session/message-updater.ts",),
                         "2.x: the rows"),
                  Source("anomalyco/opencode", "08e3e1f96710",
                         ("packages/core/src/session/message.ts", "packages/llm/src/protocols/anthropic-messages.ts",
                          "packages/llm/src/protocols/shared.ts"), "2.x: messages, the Anthropic lowering"),
                  Source("anomalyco/opencode", "008d57153952",
                         ("packages/core/src/session/history.ts", "packages/core/src/session/runner/llm.ts"),
                         "2.x: the history sent, OpenCode's own repair"),
                  Source("anomalyco/opencode", "0010d84ddd33",
                         ("packages/core/src/session/runner/to-llm-message.ts",), "2.x: the request"),
                  Source("anomalyco/opencode", "054d7458cac7", ("packages/core/src/session/runner/model.ts",),
                         "2.x: the model resumed"),
                  Source("anomalyco/opencode", "0456edfee95f", ("packages/core/src/session/context.ts",),
                         "2.x: the model resumed"),
                  *v2cli.SOURCES,
                  Source("vercel/ai", "004d06cd58a9", ("packages/ai/src/ui/convert-to-model-messages.ts",),
                         "V1: the AI SDK's conversion"),
                  Source("vercel/ai", "01ab106e549d",
                         ("packages/anthropic/src/convert-to-anthropic-messages-prompt.ts",),
                         "V1: @ai-sdk/anthropic"),
              ))

AGENT_V2 = v2cli.record(AGENT)


def ran_on(im: Imported) -> list[tuple[str | None, str | None]]:
    """The provider and model of each assistant message (``providerID``/``modelID``), then the
    one the resume talks to when the last user message records it (``resumed_model``)."""
    out: list[tuple[str | None, str | None]] = []
    if getattr(im.state, "v2", False):
        return _ran_on_v2(im)
    for msg in im.history if isinstance(im.history, list) else ():
        info = msg.get("info") if isinstance(msg, Mapping) else None
        if not isinstance(info, Mapping):
            continue
        if info.get("role") == "assistant" and isinstance(info.get("providerID"), str):
            out.append((info["providerID"], info.get("modelID") if isinstance(info.get("modelID"), str) else None))
    for msg in reversed(im.history if isinstance(im.history, list) else ()):
        info = msg.get("info") if isinstance(msg, Mapping) else None
        model = info.get("model") if isinstance(info, Mapping) and info.get("role") == "user" else None
        if isinstance(model, Mapping) and isinstance(model.get("providerID"), str):
            out.append((model["providerID"], model.get("modelID") if isinstance(model.get("modelID"), str) else None))
            break
    return out


def _ran_on_v2(im: Imported) -> list[tuple[str | None, str | None]]:
    """OpenCode 2.x: each assistant message's ``model {id, providerID}``, then the model the
    resume talks to (the session row's, else the newest switch)."""
    out: list[tuple[str | None, str | None]] = []
    for msg in im.history:
        info = msg["info"]
        model = info.get("model") if info.get("type") == "assistant" else None
        if isinstance(model, Mapping) and isinstance(model.get("providerID"), str):
            out.append((model["providerID"], model.get("id") if isinstance(model.get("id"), str) else None))
    if im.state.model is not None:
        out.append((im.state.model["providerID"], im.state.model["modelID"]))
    return out


def on_resume(im: Imported) -> OnResume:
    """What OpenCode answers itself on resume; for a 2.x session, the version of the build that
    wrote it (its session row's ``version``)."""
    version = None
    doc = im.document
    if getattr(im.state, "v2", False) and isinstance(doc, OpenCodeDB):
        found = doc.v2info.get(doc.session or "", {}).get("version")
        version = found if isinstance(found, str) and found else None
    return OnResume.of("OpenCode", version, SELF_REPAIRS, im.events)


FORMAT = Format(
    NAME, "an OpenCode database", "OpenCode's session database (opencode.db; --session ID picks a session)",
    evidence, import_, export_same, export_new, describe_block=describe_part, sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(".db",), provider="anthropic", whole_file=True,
    sessions=listing, select=select, chosen=chosen, kinds=EMITS + session.EMITS + anthropic.FORMAT.kinds,
    strip_reasoning=strip_reasoning, replace=replace,
    pairing=identity.ADJACENT,
    agent=AGENT,
    on_resume=on_resume, repairs=SELF_REPAIRS,
    ran_on=ran_on,
)

EXPORT_FORMAT = Format(
    EXPORT, "an OpenCode export or session file",
    "an `opencode export` document, or a session file of OpenCode's legacy storage/ tree",
    evidence_export, import_, export_same, export_new_document, describe_block=describe_part, sniff=sniff_export,
    parse=parse_export, dump=dump, kind=SESSION, suffixes=(".json",), provider="anthropic",
    kinds=EMITS + session.EMITS + anthropic.FORMAT.kinds, strip_reasoning=strip_reasoning,
    pairing=identity.ADJACENT,
    ran_on=ran_on,
)
