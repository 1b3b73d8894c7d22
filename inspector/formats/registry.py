"""The one table of provider formats. A format is one module that defines a
:class:`~inspector.formats.format.Format` and one line in :data:`REGISTRY` below;
detection, the CLI's choices, the TUI's labels and block names, the session files of a
folder, and export all read this table.
"""

from __future__ import annotations

from . import agents_sqlite, anthropic, bedrock, claude_code, cline, codex_rollout, crush, flat, gemini, gemini_cli
from . import copilot, goose, openai_chat, openai_responses, opencode, pi
from .format import Format

# Detection-priority order: where two formats have evidence, errors list them in this order.
REGISTRY: dict[str, Format] = {f.name: f for f in (
    flat.FORMAT,
    openai_chat.FORMAT,
    openai_responses.FORMAT,
    anthropic.FORMAT,
    gemini.FORMAT,
    bedrock.FORMAT,
    claude_code.FORMAT,
    codex_rollout.FORMAT,
    gemini_cli.FORMAT,
    gemini_cli.LOG_FORMAT,
    agents_sqlite.FORMAT,
    opencode.FORMAT,
    opencode.EXPORT_FORMAT,
    cline.FORMAT,
    crush.FORMAT,
    goose.FORMAT,
    goose.JSONL_FORMAT,
    copilot.FORMAT,
    pi.FORMAT,
    pi.DB_FORMAT,
)}


def unknown(name: str, what: str = "format", extra: tuple[str, ...] = ()) -> str:
    """The one sentence for a format name nobody registered."""
    return f"unknown {what} {name!r}; known: {', '.join((*extra, *REGISTRY))}"


def get(name: str) -> Format:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(unknown(name)) from None
