"""The one table of provider formats. A format is one module that defines a :class:`Format`
and one line in :data:`REGISTRY` below; detection, the CLI's choices, the TUI's labels and
block names, and export all read this table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import Result
from ..io import dump_messages, parse_json
from .base import Imported, kind_of


def _never(data: bytes, name: str) -> bool:
    return False


def _describe(block: Any) -> str:
    """A block named by its ``type`` (or its one key), else by the kind of value it is."""
    if isinstance(block, Mapping):
        kind = block.get("type")
        if isinstance(kind, str) and kind:
            return kind
        if len(block) == 1:
            return str(next(iter(block)))
    return kind_of(block)


@dataclass(frozen=True, slots=True)
class Format:
    """One provider format: what it is called, how it is recognized, read and written.

    ``evidence(document)`` lists reasons the parsed document belongs to this format (empty:
    none); detection asks every registered format. ``sniff``/``parse``/``dump`` are for
    formats whose files are not one JSON document (JSONL sessions, SQLite); the defaults
    read and write JSON through ``inspector.io``. ``describe_block`` names one original
    block, part or item for the TUI.
    """

    name: str
    label: str
    summary: str
    evidence: Callable[[Any], list[str]]
    import_: Callable[[Any, str], Imported]
    export_same: Callable[[Imported, Result], Any]
    export_new: Callable[[Imported, Result], Any]
    describe_block: Callable[[Any], str] = _describe
    sniff: Callable[[bytes, str], bool] = _never
    parse: Callable[[bytes, str], Any] = parse_json
    dump: Callable[[Any, bool], bytes] = dump_messages
    # Content part types this format's messages may hold without any being decisive on its
    # own; plain input whose parts no format claims is read by the first format they fit.
    parts: frozenset[str] = frozenset()


# Format modules import Format from here, so they are imported after it is defined.
from . import anthropic, bedrock, flat, gemini, openai_chat, openai_responses  # noqa: E402
from . import agents_sqlite, claude_code, codex_rollout, gemini_cli  # noqa: E402

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
    agents_sqlite.FORMAT,
)}


def formats() -> tuple[str, ...]:
    """The registered names, in order (read at call time: tests may register more)."""
    return tuple(REGISTRY)


def get(name: str) -> Format:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown format {name!r}; known: {', '.join(REGISTRY)}") from None
