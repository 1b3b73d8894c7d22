"""Cline, Roo Code and Kilo Code tasks: ``<globalStorage>/<extension id>/tasks/<taskId>/
api_conversation_history.json``, the Anthropic messages each extension sends again when a task
is resumed, with the extension's own keys (``ts``, ``isSummary``, ``condenseId`` /
``condenseParent``, ``truncationId`` / ``truncationParent``, reasoning blocks and items).
``ui_messages.json`` and ``task_metadata.json`` beside it are not sent and never touched.

What a resume sends is not the file: each extension filters it first, and the importer reads
exactly what that filter lets through, with each flat row's record and block
(``messages[12].content[1]``). Sources (repository @ commit, path):

- **Cline** 3.35-3.89 (cline/cline @ e1bdeeff68e9, v3.89.2; ``apps/vscode/src/...``, ``src/...``
  before 791d2389): ``core/task/index.ts`` ``resumeTaskFromHistory``;
  ``core/context/context-management/ContextManager.ts`` ``getAndAlterTruncatedMessages``:
  messages 0-1 and what follows the truncation range (``conversationHistoryDeletedRange`` of
  the task in ``state/taskHistory.json``, also stamped on ``ui_messages.json``), results
  stripped from the first message after the cut, then ``ensureToolResultsFollowToolUse``: the
  message after a turn with calls gets one result per call in call order (``"result missing"``
  for a missing one, the last of two for one id, none for an id the turn does not declare).
  Cline 4 (db6d18a98a34, ``apps/vscode/src/sdk/legacy-task-handling.ts``) reads the same folder
  once, with its own placeholders, and then keeps the task in its SDK store.
- **Roo Code** 3.43+ (RooCodeInc/Roo-Code @ 67def7214a61, v3.52.1): ``src/core/task/Task.ts``
  ``resumeTaskFromHistory`` (a trailing call is answered "Task was interrupted before this tool
  call could be completed.", the new user message passes ``validateAndFixToolResultIds``) and
  ``attemptApiRequest``; ``src/core/condense/index.ts`` ``getEffectiveApiHistory``: from the
  last summary on, results whose call is not in that part removed, truncated messages hidden;
  ``buildCleanConversationHistory`` and ``src/api/transform/anthropic-filter.ts``: reasoning
  items and blocks Anthropic does not know are not sent.
- **Kilo Code** 5.x (Kilo-Org/kilocode-legacy @ fd53d631dae1, v5.10.4): the same resume; the
  condense summary is an assistant message and the filter only hides tagged messages.

A call the extension answers itself on resume is read with the extension's placeholder result
(import event ``result-placeholder``): the verdict says the agent repairs it, and nothing is
written for it. Export writes the same file with only the records an event touches: a dropped
block leaves its record, a record left empty goes, a synthesized result joins the user message
after its call (or a new one there). Every other record keeps its exact bytes; changed records
are written as the extensions write (``JSON.stringify``, no indentation, no final newline).

Reasoning: Anthropic ``thinking`` / ``redacted_thinking`` blocks (Cline keeps an unsigned
``thinking`` for history and never sends it), Roo Code's ``reasoning`` blocks and records
(``encrypted_content`` when an OpenAI model wrote them) and ``reasoning_details`` are recorded
with their turn and Cline's ``modelInfo.modelId``; ``--reasoning strip`` removes them.
"""

from __future__ import annotations

from ...engine import IMPORT_CLAUSE, Kind, declare
from .. import reasoning, session
from ..base import Imported
from ..base import describe_block as _describe
from ..format import Agent, Format, OnResume, SESSION, SelfRepair, Source
from .. import identity
from ..store.jsontext import element_spans
# The parts, and the names the rest of the project (and the tests) reach through the package.
from .task import (AGENTS, EXTENSION_IDS, HISTORY_FILE, LABEL, NAME, SUMMARY, TaskFile, cline_range, dump, evidence,
                   parse, read_task, sniff, stringify, which_agent)
from .resume import ANTHROPIC_BLOCKS, PLACEHOLDER, VALIDATOR_SOURCE, VALIDATOR_TEXT, Item, Reader, Sent, TaskState
from .importer import RecordLoc, import_
from .export import export_new, export_same, strip_reasoning

# What the extension repairs itself on resume (the import reads its placeholder as sent, event
# ``result-placeholder``): the one claim, read by every verdict (inspector.verdict).
SELF_REPAIRS = (
    SelfRepair("result-placeholder", None, "answers a call left without a result with a placeholder",
               "", f"Cline {PLACEHOLDER['cline'][1]}; Roo Code and Kilo Code {PLACEHOLDER['roo'][1]}; "
               f"Roo Code {VALIDATOR_SOURCE}", lossless=False),
)

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("result-placeholder", IMPORT_CLAUSE, False, "agent's own placeholder",
         "The agent answers this call itself when the task is resumed, with a placeholder instead of the "
         "real result; nothing is written for it.", "note"),
    Kind("block-not-sent", IMPORT_CLAUSE, False, "not sent by the agent",
         "The agent leaves this stored block out of what it sends on resume (a result its filter drops, "
         "reasoning kept for history); it stays in the file.", "note"),
)


def on_resume(im: Imported) -> OnResume:
    """What the extension that owns the task answers itself on resume (no version recorded)."""
    return OnResume.of(AGENTS.get(getattr(im.document, "agent", None), "Cline"), None, SELF_REPAIRS, im.events)


# The agent whose store this is (the doctor's table of agents reads it here).
AGENT = Agent("cline", "Cline / Roo Code / Kilo Code",
              "quit VS Code, keep a copy of the original task folder, put the repaired one in its place, "
              "reopen the task", folder=True,
              # No command line resumes a task: VS Code's history panel reopens it.
              reopen="reopen the task from the extension's history in VS Code",
              versions="Cline 3.35 to 3.89, and 4.x on a legacy task; Roo Code 3.43 on; Kilo Code 5.x",
              built_from=(
                  Source("cline/cline", "e1bdeeff68e9",
                         ("apps/vscode/src/core/task/index.ts",
                          "apps/vscode/src/core/context/context-management/ContextManager.ts"), "v3.89.2"),
                  Source("cline/cline", "db6d18a98a34",
                         ("apps/vscode/src/sdk/legacy-task-handling.ts", "apps/vscode/src/sdk/legacy-state-reader.ts"),
                         "v4.1.12"),
                  Source("RooCodeInc/Roo-Code", "67def7214a61",
                         ("src/core/task/Task.ts", "src/core/condense/index.ts",
                          "src/api/transform/anthropic-filter.ts"), "v3.52.1"),
                  Source("Kilo-Org/kilocode-legacy", "fd53d631dae1", (), "v5.10.4: Roo Code's resume"),
              ))

FORMAT = Format(
    NAME, "a Cline / Roo Code / Kilo Code task", SUMMARY, evidence, import_, export_same, export_new,
    describe_block=lambda block: _describe(block, ("id", "tool_use_id"), ("text", "content", "input", "thinking")),
    sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(HISTORY_FILE,), provider="anthropic",
    kinds=EMITS + session.EMITS + reasoning.EMITS, strip_reasoning=strip_reasoning,
    pairing=identity.ADJACENT,
    agent=AGENT,
    on_resume=on_resume, repairs=SELF_REPAIRS,
)
