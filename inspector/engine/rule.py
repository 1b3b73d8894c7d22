"""MEM-5 in this project's own words: clause summaries and what each event kind means.

Every view (CLI report, TUI rule panel and tags, batch report) reads these tables; none
keeps its own. A stage records an event by its kind's name alone: the clause, the stage
(from the clause, :data:`CLAUSE_STAGES`) and whether it drops are read from :data:`KINDS`,
and a kind whose clause no table defines cannot be declared. The wording is ours, written to be faithful to the rule; the rule itself
is cited by id and address, never quoted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

RULE_ID = "MEM-5"
RULE_TITLE = "Normalizing a conversation makes it sendable to a provider"
RULE_SOURCE = "https://flowdrop.io/spec/rules/gr-mem/mem-5"
RULE_SPEC = "FlowDrop Workflow Specification 1.0-draft (CC BY 4.0)"


@dataclass(frozen=True, slots=True)
class Clause:
    number: str
    stage: str
    title: str
    summary: str


CLAUSES: dict[str, Clause] = {
    "1": Clause(
        "1",
        "coerce",
        "Coerce every entry to the flat message shape",
        "Each entry must become a flat message with a role and text content. Anything that "
        "is not an object, or has no usable role, is dropped. Content that is not already "
        "text is turned into text: numbers and booleans are cast, objects and lists are "
        "written out as JSON instead of being thrown away, and only content that cannot be "
        "written out at all becomes an empty string.",
    ),
    "2": Clause(
        "2",
        "hoist",
        "System messages go first",
        "Every system message is moved to the front of the list. The system messages keep "
        "their order among themselves, and so do all the others. A system message is never "
        "dropped, by this stage or any later one.",
    ),
    "3": Clause(
        "3",
        "repair",
        "Repair tool pairing",
        "Every tool call must have exactly one result and every result must answer a "
        "declared call, using the same repair a reasoner runs during its loop. A call left "
        "unanswered gets a synthetic 'interrupted' result placed right after its turn. A "
        "result whose id no turn declares, or a second result for an id already answered, "
        "is dropped. When an id is declared twice, the later declaration is dropped, so the "
        "first one owns the pairing. A call whose id is unusable (empty or '0') cannot be "
        "paired at all and is dropped with its result.",
    ),
    "4": Clause(
        "4",
        "strip",
        "No tool result may open the conversation",
        "A tool message still at the head of the list (right after the system messages) is "
        "removed. Removing it can leave its call unanswered, so the pairing repair of "
        "clause 3 runs again; running it twice changes nothing more.",
    ),
}

CLAUSE_BY_STAGE = {c.stage: c for c in CLAUSES.values()}

# Where the literal rule stops short of what providers accept (this project's reading of the
# rule's open points: the rule matches ids as sets, not positions). The engine follows the
# rule; the strict extension and ``check --target`` cover these.
KNOWN_LIMITS = (
    "A result that comes before the turn declaring its call, but not at the very front, "
    "stays where it is: its id is answered, so clause 3 has nothing to drop, yet a provider "
    "reads it as a result of no call.",
    "A result kept apart from its call by other messages stays apart: the pairing is whole "
    "as a set, but providers want each result in the block right after its call's turn.",
    "When one id has an early result and a later real one, the later is dropped as a "
    "duplicate, and if the early one then opens the conversation clause 4 removes it, so "
    "the call ends up with the interrupted result instead of its real one.",
)
KNOWN_LIMITS_FIX = (
    "Inspector's strict extension (--strict, t in the TUI) repairs these beyond MEM-5: it "
    "moves a separated result next to its call and drops a result placed before its call, "
    "keeping the real later one. 'inspector check FILE --target NAME' names what a provider "
    "would still refuse."
)

DROP_COUNT_NOTE = (
    "The number of dropped entries is counted by the passes as they drop things, never "
    "recomputed afterwards: one unusable id can cost a call, its turn and its result."
)


EFFECTS = ("drop", "add", "restore", "move", "change", "note")
SCOPES = ("row", "call")

# Clause names of the kinds that are not MEM-5 clause numbers.
STRICT_STAGE = "strict"
STRICT_CLAUSES = {
    "strict:adjacent": "A result must sit in the block of results right after the turn that made its call.",
    "strict:early-result": "A result placed before the turn that declares its call answers nothing a provider can see.",
    "strict:restore": "With the early result gone, a later real result for the call is no longer a duplicate.",
    "strict:heal": "A call left without a result gets the interrupted result, right after its turn.",
    "strict:identity": "A result is never moved onto another call that shares its id: the call it answered is the "
                       "latest declaration of that id before it.",
}
# What ``--strict`` asks of an export (not of the strict stage, which sees only flat rows).
STRICT_EXPORT_CLAUSES = {
    "strict:text-after-tool-use": "In a target whose provider requires it (Anthropic), nothing of an assistant "
                                  "message follows its first tool_use block.",
    "strict:server-tools": "In a target whose provider requires it (Anthropic), a server or MCP tool call has its "
                           "result block (unless still in flight), and a server result follows its call in the same "
                           "turn.",
    "strict:call-fields": "In a target whose provider requires it (OpenAI), every call has a name and its arguments "
                          "as a JSON string.",
    "strict:image-role": "In a target whose provider requires it (OpenAI Chat), images sit in user messages only.",
    "strict:blank-text": "In a target whose provider refuses it (Anthropic), no text block is empty and no message "
                         "is only blank text: an empty block beside other content goes, a message left with nothing "
                         "gets a placeholder text.",
}
# What reasoning asks of an export: ``--reasoning strip``, and what a repair did to a turn a
# provider signed (recorded by the export step, beside the export's own events).
REASONING_CLAUSES = {
    "reasoning:strip": "With --reasoning strip, reasoning blocks, their signatures and encrypted reasoning items are "
                       "removed, so that a history moved to another model is accepted.",
    "reasoning:signed": "What a provider signed or encrypted goes back unchanged and in place; a repair that changes "
                        "the turn it belongs to is said, with what the provider may do.",
}
IMPORT_CLAUSE = "import"   # events carry "import:<format>"
EXPORT_CLAUSE = "export"

# The stage that records each clause's events: the one definition every kind's stage reads.
CLAUSE_STAGES: dict[str, str] = {
    **{number: c.stage for number, c in CLAUSES.items()},
    **dict.fromkeys(STRICT_CLAUSES, STRICT_STAGE),
    IMPORT_CLAUSE: IMPORT_CLAUSE,
    EXPORT_CLAUSE: EXPORT_CLAUSE,
    **dict.fromkeys(STRICT_EXPORT_CLAUSES, EXPORT_CLAUSE),
    **dict.fromkeys(REASONING_CLAUSES, EXPORT_CLAUSE),
}


@dataclass(frozen=True, slots=True)
class Kind:
    """Everything an event kind means, so no view or exporter keeps a table of its own.

    ``effect`` on a row: ``drop`` (the row or call is gone), ``add`` (a new synthesized row),
    ``restore`` (a row dropped earlier comes back), ``move``, ``change`` (edited in place) or
    ``note`` (how something was read or written; the document is the same). ``scope``:
    ``row`` (the event is about a whole message) or ``call`` (one call inside a turn; a
    ``call`` drop removes just that call, and ``Event.call`` says which). ``unknown_effects``:
    the row it adds answers a call whose tool may already have run.
    """

    name: str
    clause: str
    drop: bool
    label: str
    meaning: str
    effect: str = "change"
    scope: str = "row"
    # The row this kind adds stands for a result nobody saw: the call's tool may already
    # have run, so its side effects are unknown (the event's sentence and the doctor say so).
    unknown_effects: bool = False

    @property
    def stage(self) -> str:
        """The stage that records this kind, read from its clause ("" for an unknown clause).
        A stage that reruns another's procedure (strip reruns repair) records it as its own."""
        return CLAUSE_STAGES.get(self.clause, "")

    def __post_init__(self) -> None:
        if self.drop and self.effect != "drop":
            object.__setattr__(self, "effect", "drop")
        if self.effect not in EFFECTS or self.scope not in SCOPES:
            raise ValueError(f"kind {self.name!r}: effect {self.effect!r} / scope {self.scope!r} unknown")


_KINDS = [
    # MEM-5, in clause order
    Kind("not-a-map", "1", True, "not a message", "The entry is not an object, so it cannot be a message."),
    Kind("no-role", "1", True, "no role", "The entry has no usable role (missing, not text, or blank)."),
    Kind("role-trimmed", "1", False, "role trimmed", "Whitespace around the role was removed."),
    Kind("content-cast", "1", False, "content cast", "A number, boolean or byte string in the content was turned into text."),
    Kind("content-serialized", "1", False, "content serialized", "Structured content was written out as JSON text rather than blanked."),
    Kind("content-unserializable", "1", False, "content unserializable", "The content could not be written out as text, so it became an empty string."),
    Kind("id-cast", "1", False, "id cast", "A result's tool_call_id was not a string and was cast to one."),
    Kind("metadata-lifted", "1", False, "metadata lifted", "A stored row kept its pairing field in metadata; it was read from there."),
    Kind("field-discarded", "1", False, "fields discarded", "Fields that the flat shape has no place for were left out."),
    Kind("system-hoisted", "2", False, "system moved", "A system message was moved to the front.", "move"),
    Kind("call-malformed", "3", True, "call malformed", "A call inside tool_calls is not an object.", scope="call"),
    Kind("call-unusable-id", "3", True, "call id unusable", "A call's id is empty or '0', so nothing can be paired with it.", scope="call"),
    Kind("call-redeclared", "3", True, "call redeclared", "An id was declared again after its first declaration; the first owns the pairing.", scope="call"),
    Kind("turn-emptied", "3", True, "turn emptied", "An assistant turn lost all its calls and has no text, so nothing of it remains."),
    Kind("result-unusable-id", "3", True, "result id unusable", "A result's id is empty or '0', so it can answer no call."),
    Kind("result-orphan", "3", True, "orphan result", "No turn declares the id this result answers."),
    Kind("result-duplicate", "3", True, "duplicate result", "The call already has an earlier result; the first result wins."),
    Kind("result-synthesized", "3", False, "result synthesized", "A call had no result, so an 'interrupted' result was inserted right after its turn; the call's tool may already have run.", "add", unknown_effects=True),
    Kind("leading-tool", "4", True, "leading tool", "A tool message opened the conversation (after the system messages)."),
    # the strict stage: Inspector's extension beyond MEM-5
    Kind("strict-moved", "strict:adjacent", False, "result moved",
         "A result separated from its call was moved next to it (strict, beyond MEM-5).", "move"),
    Kind("strict-early-result", "strict:early-result", True, "early result",
         "A result before its call was dropped as if it were an orphan (strict, beyond MEM-5)."),
    Kind("strict-restored", "strict:restore", False, "result restored",
         "A later result clause 3 had dropped as a duplicate of an early one now answers the call "
         "(strict, beyond MEM-5).", "restore"),
    Kind("strict-other-call", "strict:identity", True, "result of a dropped call",
         "A result answered a later declaration of its id, which clause 3 dropped; it is not moved onto the earlier "
         "call that keeps the id (strict, beyond MEM-5), and that call gets the interrupted result."),
    Kind("strict-healed", "strict:heal", False, "result synthesized",
         "The call that lost its early result got an interrupted result (strict, beyond MEM-5); its tool ran, and "
         "what it did is not in the history.", "add", unknown_effects=True),
    # what formats emit on import and export is declared by each format (``declare`` below)
]

# What an event of an ``unknown_effects`` kind adds to its sentence.
SIDE_EFFECTS_UNKNOWN = ("Side effects unknown: the call's tool may already have run (a file written, a command "
                        "executed), so check before running it again.")

KINDS: dict[str, Kind] = {}


def declare(*kinds: Kind) -> tuple[Kind, ...]:
    """Register kinds that a module outside the engine emits (a format's import and export
    notes), as pylint checkers declare their messages: the kind table stays the one place an
    event's meaning is written. Declaring the same kind again is a no-op; a different meaning
    under a known name is an error."""
    for k in kinds:
        if k.clause not in CLAUSE_STAGES:
            raise ValueError(f"kind {k.name!r} names clause {k.clause!r}, which no table defines")
        known = KINDS.get(k.name)
        if known is not None and known != k:
            raise ValueError(f"kind {k.name!r} is declared twice with different meanings")
        KINDS[k.name] = k
    return kinds


declare(*_KINDS)


def kinds_with(*effects: str) -> KindSet:
    """The names of the kinds with one of these effects (``add``, ``restore``, ``move``...),
    kinds declared later included: what a view asks instead of keeping a list of its own."""
    return KindSet(lambda k: k.effect in effects)


def kinds_of(stage: str) -> KindSet:
    """The names of the kinds a stage records (``kinds_of("strict")``: the strict stage's)."""
    return KindSet(lambda k: k.stage == stage)


class KindSet(AbstractSet[str]):
    """A live, read-only set of kind names chosen by a test on their table entries."""

    __slots__ = ("_test",)

    def __init__(self, test: Callable[[Kind], bool]):
        self._test = test

    def __contains__(self, name: object) -> bool:
        k = KINDS.get(name) if isinstance(name, str) else None
        return k is not None and self._test(k)

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, k in KINDS.items() if self._test(k)])

    def __len__(self) -> int:
        return sum(1 for k in KINDS.values() if self._test(k))

    @classmethod
    def _from_iterable(cls, names: Iterable[str]) -> frozenset[str]:  # what ``|`` and ``&`` build
        return frozenset(names)

    def __repr__(self) -> str:
        return f"KindSet({sorted(self)!r})"


UNKNOWN_KIND = Kind("unknown", "", False, "note", "An event kind this version does not know.", "note")


def kind(name: str) -> Kind:
    """The table entry for ``name`` (a neutral note for a kind this version does not know)."""
    return KINDS.get(name, UNKNOWN_KIND)
