"""What a format is: the :class:`Format` record every format module fills in, below the
registry so that format modules and the registry import it without a circle.

A format declares its facts here, and nothing outside ``formats/`` keeps a list of them:
whether it is a request body (``history``) or an agent's own record (``session``), the file
suffixes it reads, the provider API it speaks (what a resume of a session hits), whether it
writes whole files of its own, and, for a file that holds several sessions, how to list
them and choose one.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import Kind, Result
from ..io import dump_messages, parse_json
from . import identity
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
    the one statement of the claim, which ``check``, ``doctor`` and the TUI all read.

    How the case is found: ``kind``, an import event kind the format's importer records for
    it (None: no event marks it), and/or ``rule``, the provider check's rule
    (``inspector.targets``) it would break if the agent sent it as it is. With both, the rule's
    problem must concern an entry or call an event of ``kind`` names (a result the import put
    back); ``leading``: only when the problem is the first message sent. ``since`` is the
    first version that does it (None: every version known), ``does`` what it does then,
    ``before`` what happened before, ``source`` where the claim comes from (a changelog entry
    or a source file), ``lossless`` whether the real content is kept (False: a placeholder
    stands for a result, so the tool may already have run), ``lost_before`` whether what
    versions before ``since`` do stands a placeholder for it."""

    kind: str | None
    since: str | None
    does: str
    before: str
    source: str
    rule: str | None = None
    lossless: bool = True
    leading: bool = False
    case: str = ""          # the case in words, for a claim found by neither kind nor rule
    lost_before: bool = False   # before ``since`` the agent stands a placeholder for the result
    # The agent throws away what the file holds (a result Inspector's repair keeps): the claim
    # is said, and covers none of Inspector's changes.
    drops: bool = False

    @property
    def name(self) -> str:
        """What the claim is called in a sentence: its event kind, else its rule, else its case."""
        return self.kind or self.rule or self.case

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
    that wrote the session (None: not recorded), every claim its format declares
    (``repairs``), and each self-repaired case found, with its count. ``sentences()`` is the
    one wording of it (``check``, ``doctor`` and the TUI); :meth:`claim` says which claim, if
    any, covers a problem a provider check found."""

    agent: str
    version: str | None
    cases: tuple[tuple[SelfRepair, int], ...] = ()
    repairs: tuple[SelfRepair, ...] = ()
    marked: tuple[tuple[str, frozenset[Any], frozenset[Any]], ...] = ()   # (kind, rows, call ids)

    @classmethod
    def of(cls, agent: str, version: str | None, repairs: tuple[SelfRepair, ...],
           events: list) -> "OnResume":
        """The self-repaired cases among an import's ``events``, counted by their kind (a
        claim found by its rule alone is counted where a check finds it: :meth:`with_claims`)."""
        counts = {r.kind: 0 for r in repairs if r.kind is not None}
        rows: dict[str, set[Any]] = {r.kind: set() for r in repairs if r.kind is not None}
        ids: dict[str, set[Any]] = {k: set() for k in rows}
        for e in events:
            if e.kind in counts:
                counts[e.kind] += 1
            if e.kind in rows:
                if e.origin is not None:
                    rows[e.kind].add(e.origin)
                if isinstance(e.tool_call_id, str):
                    ids[e.kind].add(e.tool_call_id)
        cases = tuple((r, counts[r.kind]) for r in repairs if r.kind in counts and counts[r.kind])
        marked = tuple((k, frozenset(rows[k]), frozenset(ids[k])) for k in rows)
        return cls(agent, version, cases, tuple(repairs), marked)

    def claim(self, rule: str, row: int | None, tool_call_id: Any, first: int | None) -> SelfRepair | None:
        """The claim that covers a provider problem (its ``rule``, the imported ``row`` it is
        at, its call id), ``first`` being the row of the first message sent; None: none does."""
        marks = {k: (rows, ids) for k, rows, ids in self.marked}
        for repair in self.repairs:
            if repair.rule is None or repair.rule != rule:
                continue
            if repair.kind is not None:
                rows, ids = marks.get(repair.kind, ((), ()))
                if row not in rows and tool_call_id not in ids:
                    continue
            if repair.leading and row != first:
                continue
            return repair
        return None

    def with_claims(self, claims: list[SelfRepair]) -> "OnResume":
        """This with the cases a check found (one per problem a claim covers) counted in."""
        counts: dict[SelfRepair, int] = {}
        for c in claims:
            counts[c] = counts.get(c, 0) + 1
        if not counts:
            return self
        cases = list(self.cases)
        for repair, n in counts.items():
            at = next((k for k, (r, _) in enumerate(cases) if r == repair), None)
            if at is None:
                cases.append((repair, n))
            else:
                cases[at] = (repair, cases[at][1] + n)
        return OnResume(self.agent, self.version, tuple(cases), self.repairs, self.marked)

    def sentences(self) -> list[str]:
        out = []
        for repair, n in self.cases:
            what = f"{n} case{'s' if n != 1 else ''} ({repair.name})"
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
class Source:
    """One piece of the agent's own code (or, where none is published, its documentation) that
    its store was built from: ``repo`` (owner/name, or where the text lives), ``commit`` (the
    one read; "" where there is none to read, ``note`` saying why), ``paths`` (the files that
    matter) and ``note`` (the release the commit is, what was read there). Declared on the
    :class:`Agent`, so the README's table of sources is generated from the one statement."""

    repo: str
    commit: str = ""
    paths: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True, slots=True)
class Agent:
    """The coding agent whose store a format reads: ``name`` (the doctor's own, also its folder
    under ``doctor --fix DIR``), ``title`` (what a sentence calls it), ``resume`` (how to resume
    a repaired copy), ``folder`` (the agent resumes the session file's whole folder, a Cline
    task). Several formats of one store (Gemini CLI's records and logs, Goose's database and
    JSONL) carry the same record."""

    name: str
    title: str
    resume: str = ""
    folder: bool = False
    # The agent's own command that resumes one session, a template with ``{session}`` (the
    # session's id) and ``{path}`` (the session file or database), rendered by
    # :meth:`command_for` ("" : the agent has no command line that resumes a session).
    command: str = ""
    # The same, run on the repaired copy where it lies (OpenCode's ``OPENCODE_DB``): nothing
    # to put in place first ("" : the agent reads only its own store).
    command_on_copy: str = ""
    # How a person resumes it when there is no command (a VS Code task, a program of one's own).
    reopen: str = ""
    # The session's id as the command takes it, from the imported session and its file name
    # (None: the id of the session chosen in a store holding several).
    session_id: Callable[[Any, str], str | None] | None = None
    # The agent keeps a SQLite database whose -wal and -shm must be moved aside with it.
    database: bool = False
    # Which versions of the agent the store reads, in words, and the sources it was built from
    # (:class:`Source`): the README's table of agents, versions and commits.
    versions: str = ""
    built_from: tuple[Source, ...] = ()
    # What else must stop before the store is put in place, beyond quitting the agent ("" :
    # nothing; OpenCode 2's background server outlives its TUI and holds the database open).
    stop: str = ""
    # The record of the version that wrote an imported session, where that version resumes it
    # another way (None, or no hook: this record stands); rendered through ``formats.agent_of``.
    by_version: Callable[[Any], "Agent | None"] | None = None

    def command_for(self, session: str | None, path: str = "", on_copy: bool = False) -> str | None:
        """The command that resumes ``session`` (None: no command, or no id to give it). The
        id and the path are data: each is quoted for a POSIX shell."""
        template = self.command_on_copy if on_copy else self.command
        if not template or ("{session}" in template and not session):
            return None
        return template.format(session=shlex.quote(session or ""), path=shlex.quote(path))


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
    ``repairs`` are the agent's self-repair claims (:class:`SelfRepair`), each stated once
    here; ``on_resume(imported)`` says what the agent repairs by itself when it resumes the
    session, by the version that wrote it.
    ``agent`` is the :class:`Agent` whose store it reads (None: a request body or flat history).
    ``ran_on(imported)`` lists the (provider, model) a store records per message, oldest first
    (``formats/provider_ids.py`` says which provider's rules judge it; nothing recorded: the
    format's ``provider`` stands).
    ``replace(path, before, after, keep)`` is ``--in-place`` for a store that is not one file
    to swap (a live SQLite database): it writes the repair into the file itself, calling
    ``keep(bytes)`` to store the backup, and returns the backup's name (None: the file is
    swapped as any session file is).
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
    repairs: tuple[SelfRepair, ...] = ()
    agent: Agent | None = None
    ran_on: Callable[[Imported], list[tuple[str | None, str | None]]] | None = None
    replace: Callable[[str, Any, Any, Callable[[bytes], str]], str | None] | None = None
    # ``--reasoning strip`` on a document this format wrote: the document without its
    # reasoning, each removal noted (None: the format holds none Inspector knows).
    strip_reasoning: Callable[[Any, Exported], Any] | None = None
    # MEM-5's own message list: read one to one, so there is no import step to show.
    own: bool = False
    # How the format pairs a result with its call (``formats.identity``: ``literal``, the flat
    # list's ids as sets; ``adjacent``, ``call-order``, ``name``: the provider's pairing).
    pairing: str = "literal"

    def __post_init__(self) -> None:
        # A format that pairs as its provider does emits the identity kinds (formats.identity).
        if self.pairing != identity.LITERAL:
            extra = tuple(k for k in identity.EMITS if k not in self.kinds)
            object.__setattr__(self, "kinds", (*self.kinds, *extra))

    @property
    def is_session(self) -> bool:
        return self.kind == SESSION
