"""Claude Code session files: ``~/.claude/projects/<project>/<session-id>.jsonl``.

Each line is one entry. Conversation entries (``type`` ``user`` / ``assistant``) carry a
``uuid`` and the ``parentUuid`` of the entry before them; a resume walks that chain back
from the last conversation entry, so lines that are not on it (old branches, results the
writer hung off the wrong parent) are not sent. A ``system`` entry with subtype
``compact_boundary`` starts the chain afresh after a compaction (``parentUuid`` null) and
names the entry before it in ``logicalParentUuid``; only what follows the last boundary on
the chain is sent to the API. One API assistant message is written as several lines, one
content block each, sharing ``message.id``: the importer merges them back into one turn.

A damaged chain reads as Claude Code's loader reads it (anthropics/claude-code 2.1.88,
``src/utils/sessionStorage.ts``: ``loadTranscriptFile`` fills a map by uuid line by line,
``buildConversationChain`` walks it): a parent that no line holds ends the walk; a uuid that
two lines hold names the later; a line without a uuid is on no chain, and only its
``message.id`` brings it back into its turn. A newest leaf whose whole chain is tool results
(no call before them) sends nothing on resume: the import reads the next leaf's chain, the
one a resume of the repaired file starts from, and the repair puts those results back after
their calls or removes them (``leaf-passed-over``).

Import reads exactly what a resume would send and records for every flat row its line and
block (``line 214, content[0]``). A ``tool_result`` that exists in the file but hangs off
the chain, for a call on the chain that has no result there, is put back by an import
event (``result-recovered``) before the engine runs, so a lost parallel result is not
mistaken for an interrupted call.

Export writes the same file with only what the events change: a dropped block leaves its
line; a line left with nothing is removed, with the earlier lines under its uuid (Claude
Code never read them, and would read one in its place: ``remove_uncovered``), and whatever
named it as parent is re-linked to its own parent; an interrupted result is a new ``user``
line after its call's turn; the chain is re-linked through recovered and new lines, never
through a line no parent can name (one without a uuid, or whose uuid a later, different
line holds), nor through a recovered line that lines off the chain hang from (re-linked,
it would bring them onto the chain: ``_carrying``); each keeps its own parent. Every other
line is byte-identical and in its place. Sidechains (sub-agent lines) and non-conversation
lines are never touched, unless a removed line's uuid hid them.

Reasoning: a ``thinking`` block (signed by its ``signature``) or ``redacted_thinking`` block
sits on an assistant line of its own in 2.1.x streaming (anthropics/claude-code #21726 and
#66204 quote such lines, and the ``Invalid `signature` in `thinking` block`` a resume then
gets); each is recorded with its turn, the calls after it and the line's ``message.model``.
Its line is never rewritten by a repair; ``--reasoning strip`` removes it and re-links the
lines that hung off it.
"""

from __future__ import annotations

import uuid as uuidlib
from pathlib import PurePath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..engine import EXPORT_CLAUSE, IMPORT_CLAUSE, Kind, Result, declare
from . import session, surrogates
from . import reasoning as thoughts
from .anthropic import SPEC as ANTHROPIC
from .anthropic import result_text
from .base import Decisions, Exported, Imported, Reasoning, args_object, as_text, call_args, call_name, join_text
from .base import describe_block as _describe
from .format import Agent, Format, OnResume, SESSION, SelfRepair, Source
from . import identity
from .jsonl import LineFormat, LineLoc, Lines, dump_line

# The kinds of event this module emits, declared to the engine's kind table.
EMITS = declare(
    Kind("result-recovered", IMPORT_CLAUSE, False, "result recovered",
         "A result that is in the session file but off the chain a resume reads was put back right after "
         "its call's turn, before MEM-5 ran.", "restore"),
    Kind("sibling-recovered", IMPORT_CLAUSE, False, "sibling recovered",
         "A line of an API message on the chain (the same message.id) hangs off the chain, as when a new "
         "prompt cut its turn; Claude Code puts it back in its message on resume, and so does the import.",
         "restore"),
    Kind("result-unpaired", IMPORT_CLAUSE, False, "result put back (Claude Code would not)",
         "A result that is in the session file but off the chain a resume reads was put back right after "
         "its call's turn, before MEM-5 ran. Claude Code's own recovery puts it after the last line of its "
         "call's API message on the chain, which another prompt separates from the call, so Claude Code "
         "sends a placeholder for the call and drops the result.", "restore"),
    Kind("chain-broken", IMPORT_CLAUSE, False, "chain broken",
         "The parent chain stops at an entry whose parent is not in the file; a resume sends only what "
         "follows it.", "note"),
    Kind("leaf-passed-over", IMPORT_CLAUSE, False, "leaf passed over",
         "The newest line no line names, where a resume starts, begins a chain of tool results for no call "
         "before them: a resume from it sends nothing (Claude Code 2.1.69 leaves such results out). The "
         "chain read is that of the next leaf, where a resume starts once the repair has put those lines "
         "back after their calls or removed them.", "note"),
    Kind("entry-relinked", EXPORT_CLAUSE, False, "entry re-linked",
         "A line now names another parent, so that the chain a resume walks stays whole.", "change"),
)


# What Claude Code repairs by itself when it resumes a session: the cases the import finds
# that a resume does not send to the API as they are in the file, and the provider refusals
# its CHANGELOG.md (anthropics/claude-code @ 5cfc0a1905ce) says it now avoids. The
# one statement of these claims: the doctor and ``check`` both read them here.
CHANGELOG = "anthropics/claude-code @ 5cfc0a1905ce, CHANGELOG "
# Claude Code 2.1.88's own TypeScript, as its published source map gave it (March 2026).
LEAKED = "Claude Code 2.1.88's source (DroxKiwi/claude-code-leak-packaged @ fb1320d1baf5) "
SELF_REPAIRS = (
    SelfRepair("result-recovered", "2.1.80",
               "puts back a result that hangs off its own tool_use line (2.1.x's parallel-call layout)",
               "sends a \"[Tool result missing]\" placeholder in its place (no API error)",
               CHANGELOG + "2.1.80, \"Fixed --resume dropping parallel tool results\" "
               "(recoverOrphanedParallelToolResults in its session loader)", rule="tool-use-without-result",
               lost_before=True),
    # Where 2.1.88's recovery puts a result back (recoverOrphanedParallelToolResults: after the
    # last on-chain line of the message.id of the line the result hangs off) and what its
    # request builder then sends (normalizeMessagesForAPI merges one message.id back only
    # across tool results; ensureToolResultPairing gives a call whose results are not in the
    # next message a placeholder and strips a result that answers no call of the message
    # before it): a result that lands away from its call is lost, in every version.
    SelfRepair("result-unpaired", None,
               "sends a \"[Tool result missing due to internal error]\" placeholder in place of a result its "
               "recovery puts away from the call (after a later line of the call's API message)",
               "", LEAKED + "src/utils/sessionStorage.ts (recoverOrphanedParallelToolResults), "
               "src/utils/messages.ts (normalizeMessagesForAPI, ensureToolResultPairing)",
               rule="tool-use-without-result", lossless=False, drops=True),
    SelfRepair("sibling-recovered", None,
               "sends an assistant line off the chain with its API message (same message.id)",
               "", "Claude Code's transcript loader merges the lines of one API message by message.id "
               "(issue 21: two real sessions, a model of 2.1.88's reader)"),
    # 2.1.69: the changelog's own words, over issue 21's model of 2.1.88's chain reader
    # (which models the walk of the chain, not the request Claude Code sends from it).
    SelfRepair(None, "2.1.69", "leaves out the orphaned tool result a conversation starts with",
               "sends it, and the provider refuses it (\"unexpected tool_use_id found in tool_result blocks\")",
               CHANGELOG + "2.1.69", rule="result-without-tool-use", leading=True),
    SelfRepair(None, "2.1.132", "sanitizes the half of a split emoji on load",
               "sends it, and the request fails (\"no low surrogate in string\")", CHANGELOG + "2.1.132",
               rule="lone-surrogate"),
    SelfRepair(None, "2.1.152", "strips thinking-block signatures left by another model or login",
               "sends them, and the session gets stuck", CHANGELOG + "2.1.152", rule="signature-other-model"),
    # A line Inspector cannot read at all: said on the doctor's unreadable row.
    SelfRepair(None, "2.1.121", "skips a line an unclean shutdown corrupted", "", CHANGELOG + "2.1.121",
               case="a line cut by an unclean shutdown"),
)

NAME = "claude-code"
SUMMARY = "a Claude Code session file (JSON Lines under ~/.claude/projects/)"
CONVERSATION = ("user", "assistant")
CHAINED = ("user", "assistant", "system", "progress", "attachment")
# Fields a new line copies from the line before it, in the order Claude Code writes them.
HEADER = ("parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch")
NAMESPACE = uuidlib.UUID("6f1d1d59-5b51-4c5e-9d3c-3a3f6cbf6c21")

def claims(entry: Mapping) -> bool:
    kind = entry.get("type")
    if not isinstance(kind, str) or "payload" in entry:
        return False
    if kind in CHAINED:
        return "uuid" in entry and "parentUuid" in entry
    if kind == "summary":
        return "leafUuid" in entry
    return kind == "file-history-snapshot" and "messageId" in entry


HOOKS = LineFormat(NAME, claims, "JSON Lines with uuid/parentUuid conversation entries (a Claude Code session)")
sniff, parse, dump, evidence = HOOKS.sniff, HOOKS.parse, HOOKS.dump, HOOKS.evidence




# -- the chain a resume walks ------------------------------------------------------------

def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def is_boundary(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") == "system" and entry.get("subtype") == "compact_boundary"


def is_conversation(entry: Any, side: bool = False) -> bool:
    """A user/assistant line of the chain being read: the main chain, or (``side``) the
    sidechain lines of a sub-agent transcript."""
    return isinstance(entry, dict) and entry.get("type") in CONVERSATION and bool(entry.get("isSidechain")) == side


def is_subagent(entries: list[Any]) -> bool:
    """A sub-agent transcript (``<session>/subagents/agent-<id>.jsonl``): every conversation
    line is a sidechain line. The Agent tool resumes it by id, so it is a session of its own."""
    side = False
    for e in entries:
        if isinstance(e, dict) and e.get("type") in CONVERSATION:
            if not e.get("isSidechain"):
                return False
            side = True
    return side


def message_id(entry: Mapping) -> str | None:
    msg = entry.get("message")
    return _str(msg.get("id")) if isinstance(msg, dict) else None


def blocks_of(entry: Any) -> Any:
    msg = entry.get("message") if isinstance(entry, dict) else None
    return msg.get("content") if isinstance(msg, dict) else None


@dataclass(slots=True)
class Chain:
    """The lines a resume reads: ``lines`` root first, ``start`` the index in it of the last
    compact boundary (what is sent starts there), ``why`` the reason a walk stopped early."""

    by_uuid: dict[str, int]
    lines: list[int] = field(default_factory=list)
    start: int = 0
    why: str | None = None
    broken_at: int | None = None
    side: bool = False           # a sub-agent transcript: the chain is its sidechain lines
    passed: list[int] = field(default_factory=list)   # leaves of results only, passed over (``walk``)

    @property
    def sent(self) -> list[int]:
        return self.lines[self.start:]


@dataclass(slots=True)
class ClaudeState:
    """What export needs of a Claude Code import: the chain a resume walks, and the off-chain
    result lines the import put back (line -> the last line of its call's turn)."""

    chain: Chain
    recovered: dict[int, int] = field(default_factory=dict)
    siblings: set[int] = field(default_factory=set)      # off-chain lines put back by message.id


def _stamp(entry: Mapping) -> datetime | None:
    value = entry.get("timestamp")
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=timezone.utc)


def pick_leaf(entries: list[Any], by_uuid: dict[str, int], side: bool = False,
              skip: set[int] | frozenset[int] = frozenset()) -> int | None:
    """The line a resume starts from, as Claude Code picks it (anthropics/claude-code #62301):
    of the main-chain lines no other main-chain line names as parent (lines of a type it does
    not chain, such as ``file-history-delta``, make no child), the one with the newest
    ``timestamp``; a line without one never beats one with it, and among equals the later
    line wins. In a file without any timestamp the last conversation line is the leaf.
    ``skip``: lines read as gone (they are no leaf and name no parent)."""
    parents: set[str] = set()
    for i, e in enumerate(entries):
        if i not in skip and isinstance(e, dict) and bool(e.get("isSidechain")) == side and e.get("type") in CHAINED \
                and not shadowed(entries, by_uuid, i):
            # A line a later one hides is not in Claude Code's map, so it makes no child
            # (2.1.88, sessionStorage.ts, loadTranscriptFile: parentUuids of messages.values()).
            p = _str(e.get("parentUuid"))
            if p is not None:
                parents.add(p)
            if is_boundary(e):
                lp = _str(e.get("logicalParentUuid"))
                if lp is not None:
                    parents.add(lp)
    best: int | None = None
    best_key: tuple = ()
    memo: dict[int, bool] = {}
    if not any(isinstance(e, dict) and isinstance(e.get("timestamp"), str) for e in entries):
        # No line says when it was written: the last conversation line is the leaf, as a
        # resume read such files before timestamps picked it (and as written, it is the last).
        for i in range(len(entries) - 1, -1, -1):
            if i not in skip and is_conversation(entries[i], side) and _str(entries[i].get("uuid")) is not None \
                    and not shadowed(entries, by_uuid, i):
                return i
        return None
    for i, e in enumerate(entries):
        if i in skip or not isinstance(e, dict) or bool(e.get("isSidechain")) != side or e.get("type") not in CHAINED:
            continue
        u = _str(e.get("uuid"))
        if u is None or u in parents or by_uuid.get(u) != i:
            continue
        if not is_conversation(e, side) and not _reaches_conversation(entries, by_uuid, i, memo, side):
            continue
        stamp = _stamp(e)
        key = (stamp is not None, stamp or _EPOCH, i)
        if best is None or key > best_key:
            best, best_key = i, key
    return best


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _reaches_conversation(entries: list[Any], by_uuid: dict[str, int], i: int, memo: dict[int, bool],
                          side: bool) -> bool:
    """Whether a non-conversation leaf (a progress or system line) hangs, through parents,
    from a conversation line: only such a leaf is a place a resume starts from. ``memo``
    keeps every line's answer, so all the leaves of a file cost one walk of it."""
    path: list[int] = []
    on_path: set[int] = set()
    j: int | None = i
    found = False
    while j is not None:
        if j in memo:
            found = memo[j]
            break
        if j in on_path:
            break
        if is_conversation(entries[j], side):
            found = True
            break
        path.append(j)
        on_path.add(j)
        p = _str(entries[j].get("parentUuid"))
        j = by_uuid.get(p) if p is not None else None
    for k in path:
        memo[k] = found
    return found


def walk(entries: list[Any]) -> Chain:
    side = is_subagent(entries)
    # A uuid two lines hold names the later one: Claude Code reads the file into a map by
    # uuid, line after line, so the last line written under a uuid is the one its walk finds
    # (anthropics/claude-code 2.1.88, src/utils/sessionStorage.ts, loadTranscriptFile:
    # ``messages.set(entry.uuid, entry)``).
    by_uuid: dict[str, int] = {}
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            continue
        u = _str(e.get("uuid"))
        if u is not None:
            by_uuid[u] = i
    leaf = pick_leaf(entries, by_uuid, side)
    passed: list[int] = []
    while leaf is not None:
        # A leaf whose whole chain is results of no call is passed over: a resume from it
        # sends nothing (Claude Code 2.1.69 leaves out the orphaned results a conversation
        # starts with), and the repair puts those lines back on the next leaf's chain or
        # removes them, so the next leaf is where a resume of the repaired file starts.
        dead = _results_only_chain(entries, by_uuid, leaf, side)
        if not dead:
            break
        after = pick_leaf(entries, by_uuid, side, skip={*passed, *dead})
        if after is None:
            break
        passed += dead
        leaf = after
    chain = Chain(by_uuid, side=side)
    seen: set[int] = set()
    i = leaf
    while i is not None and i not in seen:
        seen.add(i)
        chain.lines.append(i)
        e = entries[i]
        parent = _str(e.get("parentUuid"))
        if parent is None and is_boundary(e):
            parent = _str(e.get("logicalParentUuid"))
            if parent is not None and parent not in by_uuid:
                break                     # compacted from another file: nothing before it is sent
        if parent is None:
            break
        if parent not in by_uuid:
            chain.why = f"line {i + 1} names parent {parent}, which no line of the file has"
            chain.broken_at = i
            break
        i = by_uuid[parent]
    if i is not None and i in seen and chain.why is None and len(chain.lines) > 1 and chain.lines[-1] != i:
        chain.why = f"the parent chain loops back to line {i + 1}"
    chain.lines.reverse()
    if leaf is not None and is_conversation(entries[leaf], side):
        # Lines chained after the leaf conversation entry (turn_duration, progress...) hang off
        # it: they are on the chain too, so that whatever a resume takes as its leaf, the walk is whole.
        tail = _str(entries[leaf].get("uuid"))
        for i in range(leaf + 1, len(entries)):
            e = entries[i]
            if isinstance(e, dict) and tail is not None and e.get("parentUuid") == tail \
                    and bool(e.get("isSidechain")) == side and not is_conversation(e, side) and _str(e.get("uuid")) \
                    and not shadowed(entries, by_uuid, i):
                chain.lines.append(i)
                tail = e["uuid"]
    for k in range(len(chain.lines) - 1, -1, -1):
        if is_boundary(entries[chain.lines[k]]):
            chain.start = k
            break
    on_chain = set(chain.lines)
    chain.passed = [i for i in sorted(passed) if i not in on_chain]
    return chain


def results_only(entry: Any, side: bool = False) -> bool:
    """Whether a line is a user line holding tool results and nothing else."""
    if not is_conversation(entry, side) or entry.get("type") != "user":
        return False
    blocks = blocks_of(entry)
    return isinstance(blocks, list) and bool(blocks) and all(
        isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)
        for b in blocks)


def _results_only_chain(entries: list[Any], by_uuid: dict[str, int], leaf: int, side: bool) -> list[int]:
    """The lines of the chain a resume walks from ``leaf`` if each holds only tool results
    (so no call comes before any of them), else nothing."""
    lines: list[int] = []
    i: int | None = leaf
    while i is not None and i not in lines:
        if not results_only(entries[i], side):
            return []
        lines.append(i)
        p = _str(entries[i].get("parentUuid"))
        i = by_uuid.get(p) if p is not None else None
    return lines


# -- import ------------------------------------------------------------------------------

def import_(document: Any, name: str = "<input>") -> Imported:
    document = session.open_store(document, name, NAME, parse, Lines, "a session file (JSON Lines)")
    entries = document.entries
    im = Imported(NAME, [], document, container=None, history=entries)
    chain = walk(entries)
    im.state = state = ClaudeState(chain)
    session.skipped_lines(im, document)
    fork = _fork_source(entries)
    if chain.why and fork is not None:
        # /fork (Claude Code 2.1.118) writes a pointer and reads the parent session's lines on
        # resume: a chain that starts at a parent of another file is whole there.
        im.notes.append(f"forked from {fork}: the lines before line {chain.lines[0] + 1} are read from that "
                        f"session's file on resume, and are not checked here")
    elif chain.why:
        im.note(None, "chain-broken", f"The chain stops: {chain.why}.")

    sent = chain.sent
    on_chain = set(chain.lines)
    # Group the sent conversation lines into API messages (split assistant lines merge by message.id).
    units: list[tuple[str, list[int]]] = []
    for i in sent:
        e = entries[i]
        if not is_conversation(e, chain.side):
            continue
        if not isinstance(e.get("message"), dict):
            im.note(None, "entry-skipped", f"Line {i + 1} is a {e.get('type')} entry without a message; "
                                          f"a resume has nothing to send for it.")
            continue
        if e["type"] == "assistant" and units and units[-1][0] == "assistant":
            mid = message_id(e)
            if mid is not None and mid == message_id(entries[units[-1][1][-1]]):
                units[-1][1].append(i)
                continue
        units.append((e["type"], [i]))

    _siblings(im, units, on_chain, chain.side)
    answered: set[str] = set()
    declared: dict[str, int] = {}          # call id -> index of its unit
    for u, (kind, lines) in enumerate(units):
        for i in lines:
            blocks = blocks_of(entries[i])
            if not isinstance(blocks, list):
                continue
            for b in blocks:
                if not isinstance(b, dict):
                    continue
                if kind == "assistant" and b.get("type") == "tool_use" and isinstance(b.get("id"), str):
                    declared.setdefault(b["id"], u)
                elif kind == "user" and b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str):
                    answered.add(b["tool_use_id"])
    recovered = _off_chain_results(entries, on_chain | {i for i in range(len(entries)) if isinstance(entries[i], dict)
                                                         and shadowed(entries, chain.by_uuid, i)},
                                   declared, answered, chain.side)
    pairs = _claude_code_pairs(entries, chain.lines, chain.side) if recovered else None
    by_unit: dict[int, list[int]] = {}
    for line, u in recovered.items():
        by_unit.setdefault(u, []).append(line)

    for u, (kind, lines) in enumerate(units):
        if kind == "assistant":
            _add_assistant(im, lines)
            for line in by_unit.get(u, ()):
                first = len(im.messages)
                _add_user(im, line)
                state.recovered[line] = lines[-1]
                for o in range(first, len(im.messages)):
                    call = im.messages[o]["tool_call_id"]
                    said = (f"Line {line + 1} holds the result for {call} but is off the chain a resume walks; it "
                            f"is put back right after the turn on line {lines[-1] + 1}.")
                    if pairs is not None and not pairs(line, call):
                        im.note(o, "result-unpaired", said + " Claude Code's own recovery would not put it there: "
                                "it sends a placeholder for the call instead.", tool_call_id=call)
                    else:
                        im.note(o, "result-recovered", said, tool_call_id=call)
        else:
            _add_user(im, lines[0])
    passed = set(chain.passed)
    for i in chain.passed:
        fate = ("it is put back after its call's turn" if i in recovered else
                "it is not put back on that chain (no call there that it answers alone), so the repair removes it")
        im.note(None, "leaf-passed-over",
                f"Line {i + 1} holds only tool results, with no call before them on the chain a resume walks "
                f"from it, so a resume from it sends nothing; the chain read ends at line {chain.lines[-1] + 1}, "
                f"where a resume starts once line {i + 1} is gone from the leaves: {fate}.")
    off = [i for i, e in enumerate(entries) if isinstance(e, dict) and i not in on_chain and i not in recovered
           and i not in state.siblings and i not in passed]
    side = sum(1 for i in off if bool(entries[i].get("isSidechain")) != chain.side)
    conv = sum(1 for i in off if is_conversation(entries[i], chain.side))
    if chain.side:
        im.notes.append("a sub-agent transcript: its own chain of sidechain lines (the Agent tool resumes it by id)")
    im.notes.append(f"resumed chain: {len(chain.lines)} lines"
                    + (f", lines {chain.lines[0] + 1} to {chain.lines[-1] + 1}" if chain.lines else ""))
    if chain.start:
        im.notes.append(f"compacted at line {chain.lines[chain.start] + 1}: the {chain.start} chain lines before "
                        f"it are not sent, and are kept as they are")
    if recovered:
        im.notes.append(f"put back on the chain: line{'s' if len(recovered) != 1 else ''} "
                        + ", ".join(str(i + 1) for i in sorted(recovered)))
    if conv:
        im.notes.append(f"off the chain: {conv} conversation line{'s' if conv != 1 else ''} (old branches), "
                        f"carried unchanged")
    if side:
        im.notes.append(f"sidechains: {side} sub-agent line{'s' if side != 1 else ''}, carried unchanged")
    rest = len(off) - side - conv
    if rest:
        im.notes.append(f"{rest} other line{'s' if rest != 1 else ''} (summaries, snapshots, progress, system), "
                        f"carried unchanged")
    return im


def _siblings(im: Imported, units: list[tuple[str, list[int]]], on_chain: set[int], side: bool) -> None:
    """Off-chain assistant lines that share ``message.id`` with a turn on the chain join that
    turn, in file order: Claude Code reads one API message back from all its lines, so a
    ``tool_use`` line that a new prompt cut off (the prompt hung off the turn's text line)
    is still sent."""
    entries = im.history
    state: ClaudeState = im.state
    by_mid: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        if i not in on_chain and is_conversation(e, side) and e.get("type") == "assistant" \
                and isinstance(e.get("message"), dict) and not shadowed(entries, state.chain.by_uuid, i):
            mid = message_id(e)
            if mid is not None:
                by_mid.setdefault(mid, []).append(i)
    if not by_mid:
        return
    for kind, lines in units:
        if kind != "assistant":
            continue
        mid = message_id(entries[lines[0]])
        extra = by_mid.pop(mid, None) if mid is not None else None
        if not extra:
            continue
        lines.extend(extra)
        lines.sort()
        state.siblings.update(extra)
        for i in extra:
            im.note(None, "sibling-recovered",
                    f"Line {i + 1} is part of the API message {mid} on the chain but hangs off it; a resume "
                    f"sends it with that message, so it is read with it.")


def shadowed(entries: list[Any], by_uuid: dict[str, int], i: int) -> bool:
    """Whether a later line holds line ``i``'s uuid: Claude Code's map by uuid then keeps only
    that later line, so line ``i`` is neither walked nor put back with its message."""
    u = _str(entries[i].get("uuid"))
    return u is not None and by_uuid.get(u, i) != i


def _fork_source(entries: list[Any]) -> str | None:
    """The session a ``/fork`` pointer line names (``fork-pointer``, with ``parentSessionId``
    or ``forkSource``), or None when the file has no pointer."""
    for e in entries:
        if isinstance(e, dict) and e.get("type") == "fork-pointer":
            for key in ("parentSessionId", "forkSource"):
                value = e.get(key)
                if isinstance(value, str) and value:
                    return f"session {value}"
                if isinstance(value, dict) and isinstance(value.get("sessionId"), str):
                    return f"session {value['sessionId']}"
            return "another session"
    return None


def _off_chain_results(entries: list[Any], on_chain: set[int], declared: dict[str, int],
                       answered: set[str], side: bool) -> dict[int, int]:
    """Off-chain user lines holding only results for calls the chain declares and never answers."""
    found: dict[int, int] = {}
    taken: set[str] = set()
    for i, e in enumerate(entries):
        if i in on_chain or not results_only(e, side):
            continue
        ids = [b["tool_use_id"] for b in blocks_of(e)]
        units = {declared.get(x) for x in ids}
        if None in units or len(units) != 1 or any(x in answered or x in taken for x in ids):
            continue
        taken.update(ids)
        found[i] = units.pop()
    return found


def _claude_code_pairs(entries: list[Any], chain: list[int], side: bool) -> Callable[[int, str], bool]:
    """Whether Claude Code's own recovery puts an off-chain result line where its request
    pairs it with ``call`` (the model of 2.1.88's source; see ``result-unpaired``).

    The recovery takes the line the result hangs off (through legacy ``progress`` lines, as
    its loader bridges them), that line's ``message.id``, and puts the result after the last
    chain line of that id (the anchor). The request merges an assistant line into the
    nearest earlier one of its id across tool results and other assistant lines, never
    across any other user message; lines of the id that are off the chain join the anchor.
    The result pairs only when the call is in the message the anchor is merged into."""
    by_uuid: dict[str, int] = {}
    for i, e in enumerate(entries):
        if isinstance(e, dict) and _str(e.get("uuid")):
            by_uuid[e["uuid"]] = i            # Claude Code's map of lines: the last one wins
    anchor: dict[str, int] = {}              # message.id -> position on the chain
    for pos, i in enumerate(chain):
        if is_conversation(entries[i], side) and entries[i]["type"] == "assistant" and message_id(entries[i]):
            anchor[message_id(entries[i])] = pos
    on_chain = set(chain)

    def calls(i: int) -> set[str]:
        blocks = blocks_of(entries[i])
        return {b["id"] for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"
                and isinstance(b.get("id"), str)} if isinstance(blocks, list) else set()

    known: dict[str, set[str]] = {}

    def merged(mid: str) -> set[str]:
        if mid in known:
            return known[mid]
        out = known[mid] = set()
        for pos in range(anchor[mid], -1, -1):
            e = entries[chain[pos]]
            if not isinstance(e, dict):
                continue
            kind = e.get("type")
            if kind == "assistant" and message_id(e) == mid:
                out |= calls(chain[pos])
            elif kind == "user":
                blocks = blocks_of(e)
                if not (isinstance(blocks, list)
                        and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)):
                    break                     # a prompt: the message stops here
            elif kind == "attachment" or (kind == "system" and e.get("subtype") == "local_command"):
                break                         # sent as a user message too
        for i, e in enumerate(entries):
            if i not in on_chain and is_conversation(e, side) and e["type"] == "assistant" and message_id(e) == mid:
                out |= calls(i)
        return out

    def pairs(line: int, call: str) -> bool:
        parent, seen = _str(entries[line].get("parentUuid")), set()
        while parent in by_uuid and entries[by_uuid[parent]].get("type") == "progress" and parent not in seen:
            seen.add(parent)
            parent = _str(entries[by_uuid[parent]].get("parentUuid"))
        at = by_uuid.get(parent) if parent is not None else None
        mid = message_id(entries[at]) if at is not None and entries[at].get("type") == "assistant" else None
        return mid is not None and mid in anchor and call in merged(mid)

    return pairs


def _add_assistant(im: Imported, lines: list[int]) -> None:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    locs: list[LineLoc] = []
    found: list[tuple[int, int, tuple[str, bool, bool, str], str | None]] = []   # (line, block, what, model)
    for i in lines:
        blocks = blocks_of(im.history[i])
        if isinstance(blocks, str):
            texts.append(blocks)
            continue
        if not isinstance(blocks, list):
            continue
        for k, b in enumerate(blocks):
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text" and isinstance(b.get("text"), str):
                texts.append(b["text"])
            elif b.get("type") == "tool_use":
                calls.append({"tool_call_id": b.get("id"), "name": b.get("name"), "arguments": b.get("input")})
                locs.append(LineLoc(i, "content", (k,)))
            else:
                thought = ANTHROPIC.reasoning_of(b)
                if thought is not None:
                    found.append((i, k, thought, line_model(im.history[i])))
    flat: dict[str, Any] = {"role": "assistant", "content": join_text(texts)}
    if calls:
        flat["tool_calls"] = calls
    row = im.add(flat, LineLoc(lines[0], None, None, tuple(lines)), locs)
    for i, k, (kind, signed, encrypted, text), model in found:
        # A block precedes the calls written after it: on a later line, or later on its own.
        before = tuple(j for j, c in enumerate(locs) if (c.message, c.blocks[0]) > (i, k))
        im.reasoning.append(Reasoning(row, LineLoc(i, "content", (k,)), kind, signed, encrypted, model, before, text))


def line_model(entry: Any) -> str | None:
    """The model that wrote an assistant line (``message.model``; Claude Code's own
    ``<synthetic>`` error lines name none)."""
    msg = entry.get("message") if isinstance(entry, dict) else None
    model = msg.get("model") if isinstance(msg, dict) else None
    return model if isinstance(model, str) and model and not model.startswith("<") else None


def _add_user(im: Imported, i: int) -> None:
    blocks = blocks_of(im.history[i])
    if not isinstance(blocks, list):
        im.add({"role": "user", "content": blocks}, LineLoc(i))
        return
    run: list[int] = []
    texts: list[str] = []
    for k, b in enumerate(blocks):
        if isinstance(b, dict) and b.get("type") == "tool_result":
            if run:
                im.add({"role": "user", "content": join_text(texts)}, LineLoc(i, "content", tuple(run)))
                run, texts = [], []
            im.add({"role": "tool", "content": result_text(b.get("content")), "tool_call_id": b.get("tool_use_id")},
                   LineLoc(i, "content", (k,)))
        else:
            run.append(k)
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                texts.append(b["text"])
    if run or not blocks:
        im.add({"role": "user", "content": join_text(texts)}, LineLoc(i, "content", tuple(run)))


def on_resume(im: Imported) -> OnResume:
    """What Claude Code does itself when it resumes this session, by the version that wrote
    it: the ``version`` of the newest chain line that records one."""
    state: ClaudeState = im.state
    version = None
    for i in reversed(state.chain.lines):
        v = im.history[i].get("version") if isinstance(im.history[i], dict) else None
        if isinstance(v, str) and v:
            version = v
            break
    return OnResume.of("Claude Code", version, SELF_REPAIRS, im.events)


# -- export ------------------------------------------------------------------------------

def _lines_of(loc: LineLoc) -> tuple[int, ...]:
    return loc.items or (loc.message,)


def export_same(im: Imported, result: Result, notes: Exported) -> Lines:
    doc: Lines = im.document
    entries = doc.entries
    state: ClaudeState = im.state
    chain, recovered = state.chain, state.recovered
    d = Decisions.of(result)

    # 1. Which blocks each line loses, and the final position of every surviving row.
    position: dict[int, int] = {}
    for p, o in enumerate(result.origins):
        if o is not None and o not in position:
            position[o] = p
    row_lines = {o: _lines_of(loc) for o, loc in enumerate(im.sources)}
    lost, dropped_rows = d.losses(im)
    whole = {i for o in dropped_rows for i in row_lines[o]}
    removed: set[int] = set(whole)
    rewrite: dict[int, dict[str, Any]] = {}
    for i, gone in lost.items():
        if i in removed:
            continue
        blocks = blocks_of(entries[i])
        keep = [b for k, b in enumerate(blocks) if k not in gone]
        if not keep:
            removed.add(i)
        else:
            entry = dict(entries[i])
            entry["message"] = {**entries[i]["message"], "content": keep}
            rewrite[i] = entry
            notes.note("entry-rewritten", f"Line {i + 1} loses content block"
                        f"{'s' if len(gone) > 1 else ''} {', '.join(map(str, sorted(gone)))}; the rest of it stays.")
    for i in sorted(removed):
        notes.note("entry-removed", f"Line {i + 1} is removed: nothing of it is left to send.")
    for i in chain.passed:
        # A passed-over leaf that answers no call of the chain read (``walk``): left in, it
        # would stay the leaf a resume starts from, and that resume would send nothing.
        if i not in recovered and i not in removed:
            removed.add(i)
            notes.note("entry-removed", f"Line {i + 1} is removed: it holds only tool results, with no call "
                        f"before them on its chain, and left in it would stay the line a resume starts from, "
                        f"which would then send nothing of the chain this repair wrote.")
    remove_uncovered(entries, chain.by_uuid, removed, notes)
    # A user line whose rows the engine put in two places (results of two turns, each moved
    # by --strict right after its call) is split: each run of its rows is a line of its own.
    parts = _runs(im, result, position, removed)
    for i, runs in parts.items():
        base = rewrite.get(i, entries[i])
        blocks = blocks_of(entries[i])
        entry = dict(base)
        entry["message"] = {**base["message"], "content": [blocks[k] for k in runs[0][1]]}
        rewrite[i] = entry
        moved = sorted(k for _, run in runs[1:] for k in run)
        notes.note("entry-rewritten", f"Line {i + 1} is split: it keeps content block"
                    f"{'s' if len(runs[0][1]) > 1 else ''} {', '.join(map(str, runs[0][1]))}, and block"
                    f"{'s' if len(moved) > 1 else ''} {', '.join(map(str, moved))} go to new lines after "
                    f"their calls' turns.")

    # 2. The new order of the sent part of the chain (rows in the engine's order).
    key_of_line: dict[int, int] = {}
    for o, lines in row_lines.items():
        if o in position:
            for i in lines:
                key_of_line[i] = min(key_of_line.get(i, position[o]), position[o])
    nodes: list[tuple[int, int, Any]] = []      # (key, tiebreak, line index or ("new", p))
    last = -1
    sent = chain.sent                            # one copy: a property that slices
    for t, i in enumerate(sent):
        if i in removed:
            continue
        if i in key_of_line:
            last = key_of_line[i]
        nodes.append((key_of_line.get(i, last), t, i))
    for i in (*recovered, *sorted(state.siblings)):
        if i not in removed and i in key_of_line:
            nodes.append((key_of_line[i], len(sent), i))
    for i, runs in parts.items():
        for g in range(1, len(runs)):
            nodes.append((runs[g][0], len(sent), ("part", i, g)))
    for p, o in enumerate(result.origins):
        if o is None:
            nodes.append((p, -1, ("new", p)))
    nodes.sort(key=lambda n: (n[0], n[1]))
    order = [n[2] for n in nodes]

    # 3. Re-link: each node's parent is the node before it; the first keeps the chain's start.
    parent_uuid: dict[int, Any] = {}     # line -> wanted parentUuid
    new_lines: dict[int, list[dict[str, Any]]] = {}    # existing line -> new entries written after it
    made: dict[tuple, dict[str, Any]] = {}
    first_parent = _start_parent(entries, chain)
    prev_uuid: Any = first_parent
    anchor: int | None = None
    held = _carrying(entries, chain, [i for i in (*recovered, *state.siblings) if i not in removed], order,
                     removed)
    for node in order:
        if isinstance(node, tuple) and node[0] == "part":
            _, i, g = node
            blocks = blocks_of(entries[i])
            entry = _part_line(entries[i], prev_uuid, [blocks[k] for k in parts[i][g][1]], g)
            made[node] = entry
            new_lines.setdefault(anchor if anchor is not None else -1, []).append(entry)
            notes.note("entry-added", f"A new user line after line {(anchor or 0) + 1} holds content block"
                        f"{'s' if len(parts[i][g][1]) > 1 else ''} {', '.join(map(str, parts[i][g][1]))} "
                        f"of line {i + 1}, right after their call's turn.")
            prev_uuid = entry["uuid"]
            continue
        if isinstance(node, tuple):
            p = node[1]
            msg = result.messages[p]
            base = entries[anchor] if anchor is not None else {}
            entry = _result_line(base, prev_uuid, msg["tool_call_id"], msg["content"], chain.side)
            made[node] = entry
            new_lines.setdefault(anchor if anchor is not None else -1, []).append(entry)
            notes.note("entry-added", f"A new user line after line {(anchor or 0) + 1} answers "
                        f"{msg['tool_call_id']} as interrupted (is_error tool_result).")
            prev_uuid = entry["uuid"]
            continue
        anchor = node
        own = _str(entries[node].get("uuid"))
        if own is None or entries[chain.by_uuid.get(own, node)] != entries[node]:
            # A line without a uuid, or whose uuid a later, different line holds too, is a
            # line no parent can name: the chain read goes to that other line (a copy written
            # twice reads the same either way). A resume sends it (with its API message, or as
            # a recovered result) whatever it names, so it keeps its parent, and the next line
            # hangs from the line before it.
            continue
        if node in held:
            # A put-back line that other lines off the chain hang from keeps its parent too:
            # re-linked, it would hang them on the chain, and a resume would walk from the
            # newest of them, sending lines this repair never read (``_carrying``).
            continue
        parent_uuid[node] = prev_uuid
        prev_uuid = own

    # 4. Lines that named a removed line (as parent, logical parent or leaf) name its survivor.
    survivor = _survivors(entries, chain, removed)
    new_uuids = {entry["uuid"] for entry in made.values()}
    for i, e in enumerate(entries):
        if i in removed or not isinstance(e, dict):
            continue
        entry = rewrite.get(i, e)
        changes: dict[str, Any] = {}
        if i in parent_uuid:
            if e.get("parentUuid") != parent_uuid[i]:
                changes["parentUuid"] = parent_uuid[i]
        elif _str(e.get("parentUuid")) in survivor:
            changes["parentUuid"] = survivor[e["parentUuid"]]
        for fld in ("logicalParentUuid", "leafUuid"):
            if _str(e.get(fld)) in survivor:
                changes[fld] = survivor[e[fld]]
        if changes:
            entry = dict(entry)
            entry.update(changes)
            rewrite[i] = entry
            for fld, value in changes.items():
                notes.note("entry-relinked", f"Line {i + 1}: {fld} now names {_named(chain, new_uuids, value)}.")

    # 5. Write: untouched lines as their bytes, changed ones re-serialized, new ones in place.
    after = {i: [(None, entry) for entry in made_here] for i, made_here in new_lines.items()}
    return session.rewrite_lines(doc, NAME, removed, rewrite, after)


def remove_uncovered(entries: list[Any], by_uuid: dict[str, int], removed: set[int], notes: Exported) -> None:
    """Remove, each by its own event, the earlier lines under the uuid of a removed line.

    Claude Code never read them: its loader keeps one line per uuid, the last (2.1.88,
    src/utils/sessionStorage.ts, loadTranscriptFile: ``messages.set(entry.uuid, entry)``),
    before any walk, leaf choice or recovery runs. Removing the last holder uncovers them,
    and the next resume would read one as that line (a call sent again, a result of no call),
    so a repair would not be the fixed point it must be. Keeping such a line under a fresh
    uuid still exposes it: a line no parent names is a terminal, so the resume may start
    from it (the newest leaf wins) and the session's branch listing shows it
    (loadAllLogsFromSessionFile, a log per leaf); an assistant line rejoins the lines of its
    message.id and a result line the call it hangs off (recoverOrphanedParallelToolResults).
    Removed, the file reads as Claude Code already read it: nothing any resume of it sent,
    or showed, is lost, and the event names the line (the original holds it)."""
    holders = {i: _str(entries[i].get("uuid")) for i in removed if isinstance(entries[i], dict)}
    gone = {u: i for i, u in holders.items() if u is not None and by_uuid.get(u) == i}
    if not gone:
        return
    for k, e in enumerate(entries):
        u = _str(e.get("uuid")) if isinstance(e, dict) and k not in removed else None
        # A sub-agent's line under the uuid stays: the chain read here never takes it in.
        if u in gone and gone[u] > k and bool(e.get("isSidechain")) == bool(entries[gone[u]].get("isSidechain")):
            removed.add(k)
            notes.note("entry-removed", f"Line {k + 1} is removed too: line {gone[u] + 1}, which is removed, held "
                        f"its uuid after it, so Claude Code never read line {k + 1} (it keeps the last line of a "
                        f"uuid); left in, it would be read in line {gone[u] + 1}'s place.")


def _carrying(entries: list[Any], chain: Chain, put_back: list[int], order: list[Any],
              removed: set[int]) -> set[int]:
    """The put-back lines (recovered results, siblings) that lines outside the chain being
    written hang from, through any number of parents: each keeps its own parent.

    Re-linked into the chain, such a line would bring every line under it along, and a
    resume, which starts from the newest line no other line names (``pick_leaf``), could then
    start in that branch (its last line the newest, or hanging from the chain's new end) and
    send lines the repair never read; the next run would read another chain. Left as it is,
    Claude Code's own recovery still sends it where the import put it (``sibling-recovered``;
    ``result-recovered`` from 2.1.80), and the next run finds it off the chain with the same
    lines under it, so one run is a fixed point. Keeping it only where the leaf would move
    is not one: which line ends the chain follows the engine's order of the results, which
    differs between runs. A removed line's children go to its nearest surviving ancestor, so
    the walk up from a line goes through removed lines."""
    if not put_back:
        return set()
    written = {n for n in order if isinstance(n, int)}

    def parent(i: int) -> int | None:
        """The line ``i`` hangs from, as the walk reads it (None: a line no walk follows)."""
        e = entries[i]
        if not isinstance(e, dict) or bool(e.get("isSidechain")) != chain.side or e.get("type") not in CHAINED \
                or shadowed(entries, chain.by_uuid, i):
            return None
        p = _str(e.get("parentUuid"))
        if p is None and is_boundary(e):
            p = _str(e.get("logicalParentUuid"))
        return chain.by_uuid.get(p) if p is not None else None

    carrying: set[int] = set()            # lines with a line under them that is not written
    for i in range(len(entries)):
        if i in written or i in removed:
            continue
        k = parent(i)
        while k is not None and k not in carrying:   # each line is marked once
            carrying.add(k)
            k = parent(k)
    return {r for r in put_back if r in carrying}


def _start_parent(entries: list[Any], chain: Chain) -> Any:
    """What the first sent line hangs from: the first sent line's own parent (a boundary's is null)."""
    sent = chain.sent
    if not sent:
        return None
    return entries[sent[0]].get("parentUuid")


def _runs(im: Imported, result: Result, position: dict[int, int],
          removed: set[int]) -> dict[int, list[tuple[int, list[int]]]]:
    """User lines whose kept rows the engine's order separates by a row that is not a
    result (another turn's call), or whose text the engine's order puts after another line's
    results: line -> its runs, each (first position, its block indexes), in output order.
    Results only made adjacent by a synthesized result stay one line."""
    by_line: dict[int, list[tuple[int, int]]] = {}
    for o, loc in enumerate(im.sources):
        if o in position and loc.blocks is not None and not loc.items and loc.message not in removed \
                and isinstance(im.history[loc.message], dict) and im.history[loc.message].get("type") == "user":
            by_line.setdefault(loc.message, []).append((position[o], o))
    out: dict[int, list[tuple[int, list[int]]]] = {}
    for i, rows in by_line.items():
        if len(rows) < 2:
            continue
        rows.sort()
        runs: list[list[int]] = [[rows[0][1]]]
        for (q, _), (p, o) in zip(rows, rows[1:]):
            # Split where another turn's row comes between, and where this line's text would
            # follow results of another line (R3-22: the provider wants the results first).
            if any(result.messages[x]["role"] != "tool" for x in range(q + 1, p)) or \
                    (p > q + 1 and result.messages[p]["role"] != "tool"):
                runs.append([])
            runs[-1].append(o)
        if len(runs) > 1:
            out[i] = [(position[run[0]], sorted(k for o in run for k in im.sources[o].blocks)) for run in runs]
    return out


def _part_line(source: Mapping, parent: Any, blocks: list[Any], g: int) -> dict[str, Any]:
    """A new line holding some blocks of a split user line: the line itself in its own key
    order, with its own uuid and parent; the tool's display record stays on the original."""
    entry = {k: v for k, v in source.items() if k != "toolUseResult"}
    entry["parentUuid"] = parent
    entry["message"] = {**source["message"], "content": blocks}
    entry["uuid"] = str(uuidlib.uuid5(NAMESPACE, f"{source.get('uuid')}/part/{g}"))
    return entry


def _named(chain: Chain, new_uuids: set[str], value: Any) -> str:
    """How a re-link's new target reads: a line of the file, a line the export adds, the
    root, or a parent that no line holds (a chain that started at a missing parent)."""
    if value is None:
        return "none (the root)"
    if not isinstance(value, str):
        return "a parent that is not a uuid"
    if value in new_uuids:
        return "the new line"
    target = chain.by_uuid.get(value)
    return f"line {target + 1}" if target is not None else f"{value}, which no line of the file has"


def _survivors(entries: list[Any], chain: Chain, removed: set[int]) -> dict[str, Any]:
    """For each removed line's uuid, the uuid of its nearest ancestor that stays (None: the
    root). A removed ancestor's answer is reused, so a run of removed lines costs one walk."""
    memo: dict[int, Any] = {}        # removed line -> the uuid it is replaced by
    for start in removed:
        path: list[int] = []
        on_path: set[int] = set()
        j, target = start, None
        while True:
            if j in memo:
                target = memo[j]
                break
            path.append(j)
            on_path.add(j)
            parent = _str(entries[j].get("parentUuid"))
            if parent is None or parent not in chain.by_uuid:
                target = parent
                break
            k = chain.by_uuid[parent]
            if k not in removed:
                target = parent
                break
            if k in on_path:            # a loop of removed lines: they hang from the root
                target = None
                break
            j = k
        for k in path:
            memo[k] = target
    out: dict[str, Any] = {}
    for i in removed:
        u = _str(entries[i].get("uuid"))
        if u is not None and chain.by_uuid.get(u) == i:
            # A uuid names the last line that holds it: an earlier holder removed with it
            # (or alone, while that line stays) says nothing about where its children go.
            out[u] = memo[i]
    return out


def _result_line(base: Mapping, parent: Any, cid: str, text: str, side: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {k: base[k] for k in HEADER if k in base}
    entry["parentUuid"] = parent
    if "isSidechain" in entry:
        entry["isSidechain"] = side      # on the chain read, even when hung after a sub-agent line
    entry["type"] = "user"
    entry["message"] = {"role": "user", "content": [
        {"tool_use_id": cid, "type": "tool_result", "content": text, "is_error": True}]}
    entry["uuid"] = str(uuidlib.uuid5(NAMESPACE, f"{base.get('sessionId')}/{parent}/{cid}"))
    if "timestamp" in base:
        entry["timestamp"] = base["timestamp"]
    return entry


def export_new(im: Imported, result: Result, notes: Exported) -> Lines:
    """A fresh session file from another format's history: one line per message, chained."""
    session = str(uuidlib.uuid5(NAMESPACE, f"session/{len(result.messages)}/{id(im)}"))
    out: list[dict[str, Any]] = []
    parent = None
    for n, msg in enumerate(result.messages):
        role = msg["role"]
        if role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": msg["content"]}] if msg["content"].strip() else []
            blocks += [{"type": "tool_use", "id": c["tool_call_id"], "name": call_name(c),
                        "input": args_object(call_args(c))} for c in msg.get("tool_calls") or ()]
            message: dict[str, Any] = {"role": "assistant", "content": blocks}
            kind = "assistant"
        elif role == "tool":
            block = {"tool_use_id": msg["tool_call_id"], "type": "tool_result", "content": msg["content"]}
            if result.origins[n] is None:
                block["is_error"] = True
            message, kind = {"role": "user", "content": [block]}, "user"
        else:
            text = msg["content"] if role == "user" else f"[{role}] {as_text(msg['content'])}"
            message, kind = {"role": "user", "content": text}, "user"
        u = str(uuidlib.uuid5(NAMESPACE, f"{session}/{n}"))
        out.append({"parentUuid": parent, "isSidechain": False, "sessionId": session, "type": kind,
                    "message": message, "uuid": u})
        parent = u
    return Lines(NAME, [dump_line(e) for e in out], out)


# -- --reasoning strip ---------------------------------------------------------------------

def strip_reasoning(document: Any, notes: Exported) -> Any:
    """``--reasoning strip`` on a session file: every ``thinking`` and ``redacted_thinking``
    block goes from every assistant line (sidechains too). Claude Code 2.1.x streams one
    block per line, so a line of thinking alone goes whole, and the lines that named it
    (parent, logical parent, leaf) name its nearest surviving ancestor instead; every other
    line keeps its bytes."""
    if not isinstance(document, Lines):
        return document
    entries = document.entries
    removed: set[int] = set()
    rewrite: dict[int, dict[str, Any]] = {}
    for i, e in enumerate(entries):
        blocks = blocks_of(e) if isinstance(e, dict) and e.get("type") == "assistant" else None
        if not isinstance(blocks, list):
            continue
        kept = [b for b in blocks if ANTHROPIC.reasoning_of(b) is None]
        if len(kept) == len(blocks):
            continue
        for k, b in enumerate(blocks):
            if ANTHROPIC.reasoning_of(b) is not None:
                thoughts.removed(notes, f"line {i + 1}, content[{k}]", b["type"])
        if kept:
            rewrite[i] = {**e, "message": {**e["message"], "content": kept}}
        else:
            removed.add(i)
            thoughts.removed(notes, f"line {i + 1}", "a line of thinking alone", ", so the line goes too")
    if not removed and not rewrite:
        return document
    by_uuid: dict[str, int] = {}
    for i, e in enumerate(entries):
        u = _str(e.get("uuid")) if isinstance(e, dict) else None
        if u is not None:
            by_uuid[u] = i                # the later of two lines under one uuid, as in walk()
    remove_uncovered(entries, by_uuid, removed, notes)
    chain = Chain(by_uuid)
    survivor = _survivors(entries, chain, removed)
    for i, e in enumerate(entries):
        if i in removed or not isinstance(e, dict):
            continue
        changes = {fld: survivor[e[fld]] for fld in ("parentUuid", "logicalParentUuid", "leafUuid")
                   if _str(e.get(fld)) in survivor}
        if changes:
            rewrite[i] = {**rewrite.get(i, e), **changes}
            for fld, value in changes.items():
                notes.note("entry-relinked", f"Line {i + 1}: {fld} now names {_named(chain, set(), value)}.")
    return session.rewrite_lines(document, NAME, removed, rewrite, {})


# -- registration --------------------------------------------------------------------------

# The agent whose store this is (the doctor's table of agents reads it here).
def _session_of(name: str) -> str | None:
    """The session id a file's name is (``<uuid>.jsonl``); a subagent's ``agent-*.jsonl`` is no
    session of its own that ``--resume`` opens."""
    stem = PurePath(name).stem
    try:
        return str(uuidlib.UUID(stem)) if len(stem) == 36 else None
    except ValueError:
        return None


AGENT = Agent("claude-code", "Claude Code",
              "keep a copy of the original, put the repaired file in its place under the same name, then "
              "`claude --resume <session id>`",
              # `claude --resume <id>` opens <id>.jsonl of the project it is run in: the id is the
              # file's name (code.claude.com/docs/en/cli-reference, "--resume, -r").
              command="claude --resume {session}",
              session_id=lambda imported, name: _session_of(name),
              versions="not pinned: read as 2.1.88 reads a session; self-repairs dated by the CHANGELOG",
              built_from=(
                  Source("anthropics/claude-code", "5cfc0a1905ce", ("CHANGELOG.md",),
                         "the self-repairs and the release of each (2.1.69 to 2.1.152)"),
                  Source("DroxKiwi/claude-code-leak-packaged", "fb1320d1baf5",
                         ("src/utils/sessionStorage.ts", "src/utils/messages.ts"),
                         "2.1.88's TypeScript, from its published source map (March 2026)"),
                  Source("code.claude.com/docs", "", ("en/cli-reference",),
                         "source not published: the layout from its docs and published sessions"),
              ))

FORMAT = Format(
    NAME, "a Claude Code session", SUMMARY, evidence, import_, export_same, export_new,
    describe_block=lambda block: _describe(block, ("id", "tool_use_id"), ("text", "content", "input", "thinking")),
    sniff=sniff, parse=parse, dump=dump,
    kind=SESSION, suffixes=(".jsonl",), provider="anthropic", whole_file=True,
    kinds=EMITS + session.EMITS + thoughts.EMITS + surrogates.EMITS, on_resume=on_resume, strip_reasoning=strip_reasoning,
    repairs=SELF_REPAIRS,
    pairing=identity.ADJACENT,
    agent=AGENT,
)
