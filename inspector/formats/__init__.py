"""Provider formats in and out. Importers turn a parsed document into the flat messages the
engine consumes, recording where each message, block and call came from; exporters apply
the engine's decisions back to the original objects through that provenance.

Every format is a :class:`Format` in :data:`REGISTRY` (``formats/registry.py``) and declares
its facts there (kind, suffixes, provider, sessions). Entry points (the pipeline, and
through it the CLI, the TUI and batch):
- ``import_history(document, name, fmt="auto") -> Imported``
- ``export_history(imported, result, to="same") -> Exported`` (document and its own events)
and, for views that need a format's facts: :func:`provider`, :func:`is_session_format`,
:func:`writes_whole_file`, :func:`on_resume`, :func:`self_repairs`, :func:`sessions`, :func:`select_session`, :func:`chosen_session`,
``suffixes``, ``claims``, ``is_session_file``, ``session_files``, ``folder_files``.
"""

from __future__ import annotations

from typing import Any

from ..engine import Result, gc_paused
from ..io import InputError
from . import envelope, identity
from . import reasoning as thoughts
from . import surrogates
from .base import Exported, Imported, Loc, Reasoning, kind_of
from .detect import detect, evidence
from . import codex_zst
from .codex_state import database as codex_state_database, threads as codex_threads
from .files import (
    claims, folder_files, is_session_file, may_hold_sessions, session_files, shadowed, skip_file, skip_folder, suffixes, whole_file_suffixes,
)
from .format import Agent, Format, OnResume, SelfRepair, SessionInfo, Source
from .jsonl import GONE
from .registry import REGISTRY, get, unknown
from .session import end_last_line, repaired_lines
from .store.side import LocalFiles, reading_through
from .store.sqlite import whole_database

FORMATS: tuple[str, ...] = tuple(REGISTRY)
REASONING_POLICIES: tuple[str, ...] = thoughts.POLICIES     # --reasoning keep (default) | strip
EXPORT_CHOICES: tuple[str, ...] = ("same", *FORMATS)

__all__ = ["GONE", "LocalFiles", "reading_through", "EXPORT_CHOICES", "FORMATS", "REASONING_POLICIES", "REGISTRY", "Agent", "Exported", "Format", "Imported", "Loc",
           "OnResume", "Reasoning", "SelfRepair", "SessionInfo", "Source",
           "agent_of", "agent_title", "chosen_session", "claims", "detect", "evidence", "export_history", "get", "has_import_step", "import_history",
           "is_session_file", "is_session_format", "kind_of", "known", "may_hold_sessions", "on_resume", "provider", "ran_on",
           "resume_command", "resume_session_id", "select_session", "self_repairs", "session_files", "folder_files", "sessions", "shadowed", "skip_file", "skip_folder", "suffixes", "whole_database", "written_name", "plain_bytes", "codex_state_database", "codex_threads",
           "whole_file_suffixes", "writes_whole_file"]


def known(fmt: str, name: str = "<input>", same: bool = False) -> str:
    """``fmt`` if it is a registered format (or ``same``, when allowed), else the one
    "unknown format" error, naming the input."""
    if fmt in REGISTRY or (same and fmt == "same"):
        return fmt
    raise InputError(name, unknown(fmt, extra=("same",) if same else ()))


def import_history(document: Any, name: str = "<input>", fmt: str = "auto") -> Imported:
    if fmt == "auto":
        fmt = detect(document, name)
    with gc_paused():
        found = REGISTRY[known(fmt, name)]
        im = found.import_(document, name)
        identity.assign(im, found.pairing)     # the provider's pairing, before MEM-5
        return im


def export_history(imported: Imported, result: Result, to: str = "same", reasoning: str = "keep") -> Exported:
    """The repaired history as a document in format ``to`` (``same``: the input's format),
    with what the export itself changed beyond the engine's decisions.

    ``result`` must come from normalizing ``imported.messages``. In the input's own format,
    every message the engine kept is the original object; changed ones keep their other keys
    and lose only what was dropped. The import is not changed: each export has its own events.
    Signed reasoning goes back as it was read, and a repair that touched its turn is an
    event; a conversion says per block that it carries none. ``reasoning="strip"``
    (``--reasoning strip``) removes every reasoning block, signature and encrypted item of
    the written document, each removal an event.
    """
    known(to, "--to", same=True)
    if reasoning not in thoughts.POLICIES:
        raise InputError("--reasoning", f"unknown policy {reasoning!r}; known: {', '.join(thoughts.POLICIES)}")
    out = Exported()
    with gc_paused():
        # The document's own id strings back (a target that refuses reuse keeps the derived ones).
        result = identity.restore(imported, result, to, REGISTRY[imported.format if to == "same" else to].provider, out)
        if to in ("same", imported.format):
            target = imported.format
            out.document = REGISTRY[target].export_same(imported, result, out)
            if reasoning != thoughts.STRIP_POLICY:   # stripped, no signed block is sent to be checked
                thoughts.note_signed(imported, result, out)
        else:
            target = to
            out.document = REGISTRY[to].export_new(imported, result, out)
            out.document = envelope.carry(imported, to, out.document, out)
            thoughts.note_omitted(imported, to, out)
        if reasoning == thoughts.STRIP_POLICY:
            out.document = thoughts.strip(REGISTRY[target], out.document, out)
        if REGISTRY[target].provider in surrogates.REFUSED_BY:
            out.document = surrogates.replace(out.document, out, imported)
        repaired_lines(out.document, out, imported.document)
        out.document = end_last_line(out.document, out, imported.document)
    return out


def provider(fmt: str) -> str | None:
    """The provider API a format speaks (a session's resume target), None for none."""
    return get(fmt).provider


def is_session_format(fmt: str) -> bool:
    return get(fmt).is_session


def on_resume(imported: Imported) -> OnResume | None:
    """What the agent itself does when it resumes this imported session (None: its format
    declares nothing): ``check``, ``doctor`` and the TUI word it with ``sentences()``."""
    fact = get(imported.format).on_resume
    return fact(imported) if fact is not None else None


def ran_on(imported: Imported) -> tuple[str | None, str] | None:
    """The provider check a session is judged by, from what its store records it ran on, and
    the words that say so (None: the store records nothing; its format's provider stands)."""
    from .provider_ids import judged_for

    hook = get(imported.format).ran_on
    return judged_for(hook(imported)) if hook is not None else None


def agent_title(fmt: str) -> str | None:
    """What a sentence calls the agent whose store ``fmt`` reads (None: no agent's store)."""
    agent = REGISTRY[fmt].agent if fmt in REGISTRY else None
    return agent.title if agent is not None else None


def plain_bytes(data: bytes, name: str) -> bytes:
    """A file's bytes as its lines are read: a compressed Codex rollout decompressed, anything
    else as it is (for the readers of raw lines, as ``inspector share``)."""
    return codex_zst.decompress(data, name) if codex_zst.is_compressed(data) else data


def written_name(path: str) -> str:
    """The name a repaired copy of ``path`` takes to be read by its agent: the same, except a
    compressed Codex rollout, whose repair is plain JSON Lines under the plain name (Codex
    reads ``x.jsonl`` before ``x.jsonl.zst``: ``codex_zst``)."""
    return codex_zst.plain_path(path)


def agent_of(imported: Imported) -> Agent | None:
    """The agent record that resumes this imported session: its format's, or the one of the
    version that wrote it where that version resumes another way (``Agent.by_version``:
    OpenCode 2's background server); None for a request body or a flat history."""
    fmt = getattr(imported, "format", None)
    agent = REGISTRY[fmt].agent if fmt in REGISTRY else None
    if agent is not None and agent.by_version is not None:
        return agent.by_version(imported) or agent
    return agent


def resume_session_id(imported: Imported, name: str, session: str | None = None) -> str | None:
    """The id the agent's resume command takes for this imported session: ``session`` when one
    was chosen (``--session``), else what the format reads from the session and its file name,
    else the session chosen in a store (None: no agent, or no id)."""
    agent = agent_of(imported)
    if agent is None:
        return None
    if session:
        return session
    if agent.session_id is not None:
        return agent.session_id(imported, name)
    try:
        return chosen_session(imported.document)
    except Exception:       # a document no store format claims has no session to choose
        return None


def resume_command(imported: Imported, name: str, session: str | None = None, on_copy: bool = False) -> str | None:
    """The agent's own command that resumes this session (``Agent.command`` with its id and
    ``name``), the one place it is rendered; None where the agent has no such command or no id
    is known. ``on_copy``: the command that runs the copy ``name`` where it lies, when the
    agent has one (OpenCode's ``OPENCODE_DB``)."""
    agent = agent_of(imported)
    if agent is None:
        return None
    return agent.command_for(resume_session_id(imported, name, session), name, on_copy)


def self_repairs(fmt: str) -> tuple[SelfRepair, ...]:
    """What the agent whose store ``fmt`` reads repairs itself on resume: its format's claims,
    each stated once (none for a format not registered, or no agent's store)."""
    return REGISTRY[fmt].repairs if fmt in REGISTRY else ()


def writes_whole_file(fmt: str) -> bool:
    """Whether the format's output is a file of its own (JSONL, a database), never a line of JSONL."""
    return get(fmt).whole_file


def has_import_step(fmt: str) -> bool:
    """Whether reading the format maps a native document onto MEM-5's messages (every format
    but MEM-5's own), so views show that step and its provenance."""
    return not get(fmt).own


def _format_of(document: Any) -> Format | None:
    """The format of a parsed file that holds several sessions (the one that claims it)."""
    return next((f for f in REGISTRY.values() if f.select is not None and f.evidence(document)), None)


def sessions(document: Any) -> list[SessionInfo]:
    """The sessions of a parsed file that holds several (empty for any other document)."""
    f = _format_of(document)
    return f.sessions(document) if f is not None and f.sessions is not None else []


def chosen_session(document: Any) -> str | None:
    """The session chosen in a parsed file that holds several (None: none, or not such a file)."""
    f = _format_of(document)
    return f.chosen(document) if f is not None and f.chosen is not None else None


def select_session(document: Any, session: str, name: str) -> Any:
    """``--session ID``: one session of a file that holds several (an Agents SDK database)."""
    f = _format_of(document)
    if f is None or f.select is None:
        raise InputError(name, "--session is for files that hold several sessions (an Agents SDK database)")
    return f.select(document, session, name)
