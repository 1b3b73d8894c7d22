"""What a format is: the :class:`Format` record every format module fills in, below the
registry so that format modules and the registry import it without a circle.

A format declares its facts here, and nothing outside ``formats/`` keeps a list of them:
whether it is a request body (``history``) or an agent's own record (``session``), the file
suffixes it reads, the provider API it speaks (what a resume of a session hits), whether it
writes whole files of its own, and, for a file that holds several sessions, how to list
them and choose one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import Kind, Result
from ..io import dump_messages, parse_json
from .base import Exported, Imported, kind_of

HISTORY, SESSION = "history", "session"


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
class SessionInfo:
    """One session of a file that holds several: what a picker or an error lists."""

    id: str
    items: int
    first_user: str = ""
    last_activity: str | None = None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


@dataclass(frozen=True, slots=True)
class SelfRepair:
    """A case an agent repairs by itself when it resumes a session, declared by its format:
    the import event ``kind`` that finds the case, the first version that does it (``since``;
    None: every version known), what it ``does`` then, what happened ``before``, and the
    ``source`` of the claim (a changelog entry or a source file)."""

    kind: str
    since: str | None
    does: str
    before: str
    source: str

    def covers(self, version: str | None) -> bool | None:
        """Whether ``version`` does it (None: the version is not known)."""
        if self.since is None:
            return True
        if not version or not _version(version):
            return None
        return _version(version) >= _version(self.since)


@dataclass(frozen=True, slots=True)
class OnResume:
    """What an agent itself does on resume to one imported session: the agent, the version
    that wrote the session (None: not recorded), and each self-repaired case it has, with its
    count. ``sentences()`` is the one wording of it (``check``, ``doctor`` and the TUI)."""

    agent: str
    version: str | None
    cases: tuple[tuple[SelfRepair, int], ...] = ()

    @classmethod
    def of(cls, agent: str, version: str | None, repairs: tuple[SelfRepair, ...],
           events: list) -> "OnResume":
        """The self-repaired cases among an import's ``events``, counted by their kind."""
        counts = {r.kind: 0 for r in repairs}
        for e in events:
            if e.kind in counts:
                counts[e.kind] += 1
        return cls(agent, version, tuple((r, counts[r.kind]) for r in repairs if counts[r.kind]))

    def sentences(self) -> list[str]:
        out = []
        for repair, n in self.cases:
            what = f"{n} case{'s' if n != 1 else ''} ({repair.kind})"
            covers = repair.covers(self.version)
            if repair.since is None:
                out.append(f"{self.agent} {repair.does} itself on resume: {what}")
            elif covers:
                out.append(f"{self.agent} {self.version} (which wrote it) {repair.does} itself: {what}")
            else:
                writer = (f"{self.agent} {self.version} (which wrote it)" if covers is False
                          else f"{self.agent} before {repair.since} (no version recorded)")
                out.append(f"{writer} {repair.before}: {what}; since {repair.since} it {repair.does} itself")
        return out


@dataclass(frozen=True, slots=True)
class Format:
    """One provider format: what it is called, how it is recognized, read and written.

    ``evidence(document)`` lists reasons the parsed document belongs to this format (empty:
    none); detection asks every registered format. ``sniff``/``parse``/``dump`` are for
    formats whose files are not one JSON document (JSONL sessions, SQLite); the defaults
    read and write JSON through ``inspector.io``. ``describe_block`` names one original
    block, part or item for the TUI. ``export_same``/``export_new`` write the repaired
    document and record what the export changes on its own in the :class:`Exported` notes
    they are given.

    Facts: ``kind`` is :data:`HISTORY` or :data:`SESSION`; ``suffixes`` the file names it
    reads; ``provider`` the target a resume of it hits (None: no provider of its own);
    ``whole_file`` that its output is a file of its own (JSONL, a database), never one line
    of a JSONL output; ``sessions(document)`` lists the sessions of a file holding several,
    ``select(document, id, name)`` chooses one, ``chosen(document)`` says which one is.
    ``kinds`` are the event kinds only this format emits (declared to the engine's table).
    ``on_resume(imported)`` says what the agent repairs by itself when it resumes the
    session, by the version that wrote it (see :class:`SelfRepair`).
    ``replace(path, before, after, keep)`` is ``--in-place`` for a store that is not one file
    to swap (a live SQLite database): it writes the repair into the file itself, calling
    ``keep(bytes)`` to store the backup, and returns the backup's name.
    ``strip_reasoning(document, notes)`` removes the reasoning of a written document.
    ``own``: the format is MEM-5's own message list (no mapping to show).
    """

    name: str
    label: str
    summary: str
    evidence: Callable[[Any], list[str]]
    import_: Callable[[Any, str], Imported]
    export_same: Callable[[Imported, Result, Exported], Any]
    export_new: Callable[[Imported, Result, Exported], Any]
    describe_block: Callable[[Any], str] = _describe
    sniff: Callable[[bytes, str], bool] = _never
    parse: Callable[[bytes, str], Any] = parse_json
    dump: Callable[[Any, bool], bytes] = dump_messages
    # Content part types this format's messages may hold without any being decisive on its
    # own; plain input whose parts no format claims is read by the first format they fit.
    parts: frozenset[str] = frozenset()
    kind: str = HISTORY
    suffixes: tuple[str, ...] = (".json",)
    provider: str | None = None
    whole_file: bool = False
    sessions: Callable[[Any], list[SessionInfo]] | None = None
    select: Callable[[Any, str, str], Any] | None = None
    chosen: Callable[[Any], str | None] | None = None
    kinds: tuple[Kind, ...] = ()
    # What the agent does itself on resume to an imported session (a session store's fact).
    on_resume: Callable[[Imported], OnResume] | None = None
    replace: Callable[[str, Any, Any, Callable[[bytes], str]], str] | None = None
    # ``--reasoning strip`` on a document this format wrote: the document without its
    # reasoning, each removal noted (None: the format holds none Inspector knows).
    strip_reasoning: Callable[[Any, Exported], Any] | None = None
    # MEM-5's own message list: read one to one, so there is no import step to show.
    own: bool = False

    @property
    def is_session(self) -> bool:
        return self.kind == SESSION
