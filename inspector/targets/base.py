"""The machinery every provider module shares: :class:`Problem`, :class:`Rule`, the
:class:`View` of one history the rules read, and :func:`create`, which assembles a target
from its table of rules (as python-jsonschema's ``validators.create`` assembles a validator
from its keyword functions).

A rule is a small function ``rule(view) -> Iterable[Hit]``. It says *where* and *what the
provider answers*; its severity, source and usual fix live once, in the rule's table row.
Severity ``error`` is kept for rules that are documented and observed to be rejected (the
source then names the observation); a rule that is documented but not enforced everywhere,
or not observed, is a ``warning``. Every rule runs over the rows once (linear in the size
of the history, whatever the number of calls in one turn).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from ..engine import call_id

ERROR, WARNING = "error", "warning"
SEVERITIES = (ERROR, WARNING)

MOVE = "Move each result directly after the turn that made its call (--strict does this)."
EARLY = ("A result placed before its call answers nothing the provider can see: drop it and give the call "
         "an interrupted result (--strict does this).")
RENAME = "Rename the id consistently in the call and its result; Inspector does not rewrite ids."


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing a provider would reject (``error``) or may reject (``warning``).

    ``index`` is the flat row in the checked messages (the engine's output); ``where`` the
    native location in the input document (``messages[1].content[2]``) when it is known.
    """

    index: int
    rule: str
    severity: str
    error: str              # the provider's own error text for this case
    fix: str
    source: str             # where the rule is documented, or where its rejection was observed
    strict: bool            # True when --strict repairs it
    where: str | None = None
    tool_call_id: str | None = None
    target: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "rule": self.rule, "severity": self.severity, "index": self.index,
                "where": self.where, "error": self.error, "fix": self.fix, "source": self.source,
                "strict": self.strict, "tool_call_id": self.tool_call_id}


class Hit(NamedTuple):
    """What a rule function yields: the row, the provider's text, and what differs from the
    rule's defaults for this case."""

    index: int
    error: str
    tool_call_id: str | None = None
    call: int | None = None         # which of the row's tool_calls, to locate it natively
    where: str | None = None        # a native location the rule found itself (a block)
    fix: str | None = None
    strict: bool | None = None


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    check: Callable[["View"], Iterable[Hit]]
    severity: str
    source: str
    summary: str
    fix: str = ""
    strict: bool = False


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    rules: tuple[Rule, ...]
    base: "Target | None" = None          # the target this one extends (its rules come first)

    def own_rules(self) -> tuple[Rule, ...]:
        """The rules this target adds to (or replaces in) its base's table."""
        inherited = {id(r) for r in self.base.rules} if self.base is not None else set()
        return tuple(r for r in self.rules if id(r) not in inherited)

    def check(self, view: "View") -> list[Problem]:
        out: list[Problem] = []
        for rule in self.rules:
            for hit in rule.check(view):
                out.append(Problem(
                    hit.index, rule.name, rule.severity, hit.error,
                    hit.fix if hit.fix is not None else rule.fix, rule.source,
                    hit.strict if hit.strict is not None else rule.strict,
                    hit.where or view.where(hit.index, hit.call), hit.tool_call_id, self.name))
        out.sort(key=lambda p: p.index)          # stable: within a row, in table order
        return out


def extend(parent: Target, name: str, rules: Iterable[Rule] = ()) -> Target:
    """A target built on ``parent`` (as python-jsonschema's ``validators.extend`` builds a
    validator on another): the parent's table, then ``rules``. A rule named like one of
    the parent's takes its place in the table; nothing is copied, so a rule fixed in the
    parent is fixed in every target built on it."""
    own = {r.name: r for r in rules}
    table = [own.pop(r.name, r) for r in parent.rules]
    return replace(create(name, [*table, *own.values()]), base=parent)


def create(name: str, rules: Iterable[Rule]) -> Target:
    """A target from its table of rules; names must be unique, severities known."""
    rules = tuple(rules)
    names = [r.name for r in rules]
    if len(set(names)) != len(names):
        raise ValueError(f"{name}: a rule name is used twice: {names}")
    for r in rules:
        if r.severity not in SEVERITIES:
            raise ValueError(f"{name}: rule {r.name} has severity {r.severity!r}")
        if not r.source.startswith("https://"):
            raise ValueError(f"{name}: rule {r.name} needs a source URL")
    return Target(name, rules)


def horizon(view: "View", fmt: str, key: str | None) -> int:
    """The first flat row the provider reads: with server-side compaction (an Anthropic
    ``compaction`` block, ``key`` "content"; a Responses ``compaction`` item, ``key`` None)
    the provider drops everything before the last one, so rows before it are not judged
    (issue 31, item 2). 0 when the history has none or is not native."""
    def build() -> int:
        history = view.sent(fmt)
        if not history:
            return 0
        last = None
        for p, m in enumerate(history):
            if not is_map(m):
                continue
            if key is None and m.get("type") == "compaction":
                last = p
            blocks = m.get(key) if key is not None else None
            if isinstance(blocks, list) and any(is_map(b) and b.get("type") == "compaction" for b in blocks):
                last = p
        if last is None:
            return 0
        found = view.near(history, last, key or "content")
        return found[0] if found is not None else 0
    return view.memo(f"horizon:{fmt}", build)


def after_compaction(rules: Iterable[Rule], fmt: str, key: str | None) -> list[Rule]:
    """``rules`` whose hits on rows the provider drops (before the last compaction) are left
    out: what the API never reads is not judged."""
    def wrap(check: Callable[["View"], Iterable[Hit]]) -> Callable[["View"], Iterator[Hit]]:
        def checked(view: "View") -> Iterator[Hit]:
            first = horizon(view, fmt, key)
            return (h for h in check(view) if h.index >= first)
        return checked
    return [replace(r, check=wrap(r.check)) for r in rules]


SIGNED_CLAUSE = "reasoning:signed"      # the export's events about signed turns a repair changed


def signed_repairs(view: "View", fmt: str) -> Iterator[Hit]:
    """Native: each export event saying a repair changed a turn that carries signed
    reasoning (a call dropped from it, the turn dropped, merged or not reordered, rows cut
    before it), as the warning of what the provider may do, on the row it concerns."""
    if view.native(fmt) is None:
        return
    out = view.outcome
    rows = {o: i for i, o in enumerate(out.result.origins) if o is not None}
    for e in getattr(out, "export_events", ()):
        if e.clause == SIGNED_CLAUSE:
            yield Hit(rows.get(e.origin, 0), e.message)


def signed_rule(fmt: str, source: str) -> "Rule":
    """The ``signed-turn-repaired`` rule of a target whose provider signs reasoning."""
    return Rule("signed-turn-repaired", lambda view: signed_repairs(view, fmt), WARNING, source,
                "a repair changed a turn that carries signed reasoning, or cut rows before it (native)",
                "Keep the turn whole (repair its results, not its calls), or send the history with "
                "--reasoning strip, which removes the reasoning the provider would check.")


# -- the view of one history --------------------------------------------------------------

def calls_of(m: Mapping) -> list[Any]:
    calls = m.get("tool_calls")
    return calls if isinstance(calls, list) else []


def is_map(value: Any) -> bool:
    """``isinstance(value, Mapping)``, with the plain dict the engine writes decided first
    (the abstract-class check is most of a check's time on a huge turn)."""
    return type(value) is dict or isinstance(value, Mapping)


def cid_of(call: Any) -> str | None:
    return call_id(call) if is_map(call) else None


def result_id(m: Mapping) -> str:
    cid = m.get("tool_call_id")
    return cid if isinstance(cid, str) else str(cid)


class Turn:
    """Consecutive rows the provider reads as one message: ``side`` is ``assistant`` or
    ``user`` (user and tool rows)."""

    __slots__ = ("side", "rows", "_calls")

    def __init__(self, side: str, first: tuple[int, Mapping]):
        self.side = side
        self.rows = [first]
        self._calls: list[tuple[int, int, str]] | None = None

    @property
    def index(self) -> int:
        return self.rows[0][0]

    def call_ids(self) -> list[tuple[int, int, str]]:
        """(row index, call position, id) of every call in the turn, in order."""
        if self._calls is None:
            self._calls = [(i, j, c) for i, m in self.rows if m["role"] == "assistant"
                           for j, c in enumerate(map(cid_of, calls_of(m))) if c is not None]
        return self._calls

    def leading_results(self) -> set[str]:
        """Ids of the results that open the turn, before anything else."""
        ids = set()
        for _, m in self.rows:
            if m["role"] != "tool":
                break
            ids.add(result_id(m))
        return ids


def unanswered(turns: list[Turn], leading: bool) -> Iterator[tuple[int, list[tuple[int, int, str]]]]:
    """(turn number, its calls the next turn does not answer) for each assistant turn that
    has some; ``leading``: only results that open the next turn count (Anthropic)."""
    for t, turn in enumerate(turns):
        calls = turn.call_ids() if turn.side == "assistant" else []
        if not calls:
            continue
        nxt = turns[t + 1] if t + 1 < len(turns) else None
        if nxt is None or nxt.side != "user":
            got: set[str] = set()
        elif leading:
            got = nxt.leading_results()
        else:
            got = {result_id(m) for _, m in nxt.rows if m["role"] == "tool"}
        missing = [call for call in calls if call[2] not in got]
        if missing:
            yield t, missing


def stray_results(turns: list[Turn]) -> Iterator[tuple[int, int, int, str]]:
    """(turn number, position in the turn, row, id) of each result that answers no call of
    the assistant turn right before its own."""
    for t, turn in enumerate(turns):
        if turn.side != "user":
            continue
        prev = turns[t - 1] if t > 0 else None
        allowed = {c for _, _, c in prev.call_ids()} if prev is not None and prev.side == "assistant" else set()
        for k, (i, m) in enumerate(turn.rows):
            if m["role"] == "tool" and result_id(m) not in allowed:
                yield t, k, i, result_id(m)


class View:
    """The flat rows to check, and the pipeline Outcome they came from when there is one
    (for the rules that read native blocks). Derived shapes are computed once, on demand."""

    def __init__(self, messages: list[Any], outcome: Any = None, model: str | None = None,
                 identity: Mapping[str, Any] | None = None, given: Any = None):
        self.messages = messages
        self.outcome = outcome
        self.given = given          # the Imported whose rows these are, as sent (no outcome): its reasoning
        # identities the import derived -> the id strings the document holds (``Imported.identity``)
        self.identity = identity if identity is not None else getattr(getattr(outcome, "imported", None),
                                                                      "identity", None)
        self.model = model          # --model: the model the history goes to, where the body names none
        self.rows: list[tuple[int, Mapping]] = [
            (i, m) for i, m in enumerate(messages) if is_map(m) and type(m.get("role")) is str]
        self._memo: dict[str, Any] = {}

    def memo(self, key: str, build: Callable[[], Any]) -> Any:
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    def turns(self, combine_assistant: bool) -> list[Turn]:
        """Provider turns, system rows left out (they go to a top-level field). Consecutive
        user and tool rows always form one turn; consecutive assistant rows do too when the
        provider combines same-role messages (Anthropic, Gemini)."""
        return self.memo(f"turns:{combine_assistant}", lambda: self._turns(combine_assistant))

    def _turns(self, combine_assistant: bool) -> list[Turn]:
        turns: list[Turn] = []
        for i, m in self.rows:
            if m["role"] == "system":
                continue
            side = "assistant" if m["role"] == "assistant" else "user"
            if turns and turns[-1].side == side and (side == "user" or combine_assistant):
                turns[-1].rows.append((i, m))
            else:
                turns.append(Turn(side, (i, m)))
        return turns

    def sent_id(self, cid: str) -> str:
        """The id string the provider receives for a call read under ``cid``: the import may have
        given a reused or empty id an identity of its own (``formats.identity``), which the export
        writes back as the original string, unless it renamed the pair for this provider
        (``id-renamed``). The rules about an id's spelling judge that string, never the identity."""
        out, derived = self.outcome, self.identity
        if not derived or cid not in derived or not isinstance(derived[cid], str):
            return cid
        renamed = self.memo("renamed", lambda: any(e.kind == "id-renamed" for e in getattr(out, "export_events", ())))
        return cid if renamed else derived[cid]

    # -- native provenance (only with an Outcome)
    def native(self, fmt: str) -> Any:
        """The Imported document when the input was read as ``fmt`` and is written back in
        it (what the provider would receive keeps its native blocks), else None."""
        out = self.outcome
        if out is None or out.imported.format != fmt or getattr(out, "to", "same") not in ("same", fmt):
            return None
        return out.imported

    def document(self, fmt: str) -> Any:
        """The exported request body (its top-level settings: ``model``, ``thinking``,
        ``store``...) when the input was read and is written back as ``fmt``, else None."""
        if self.native(fmt) is None:
            return None
        exported = getattr(self.outcome, "exported", None)      # an Outcome-like object may have none
        return exported if is_map(exported) else None

    def setting(self, fmt: str, key: str) -> Any:
        """One top-level setting of the exported body (None when absent or not native)."""
        doc = self.document(fmt)
        return doc.get(key) if doc is not None else None

    def origin(self, index: int) -> int | None:
        if self.outcome is None:
            return None
        origins = self.outcome.result.origins
        return origins[index] if index < len(origins) else None

    def sent(self, fmt: str) -> list[Any] | None:
        """The history list the provider would receive (the exported document), when the
        input was read and is written back as ``fmt``."""
        im = self.native(fmt)
        if im is None:
            return None
        exported = getattr(self.outcome, "exported", None)      # an Outcome-like object may have none
        history = exported if im.container is None else (
            exported.get(im.container) if is_map(exported) else None)
        return history if isinstance(history, list) else None

    def _places(self, key: str) -> tuple[dict[int, tuple[int, int | None]], dict[int, int]]:
        """Where each original message and block object sits in the input history, and the
        first flat row each input message became (built once, on first need)."""
        def build() -> tuple[dict[int, tuple[int, int | None]], dict[int, int]]:
            im = self.outcome.imported
            places: dict[int, tuple[int, int | None]] = {}
            for i, m in enumerate(im.history):
                places[id(m)] = (i, None)
                blocks = m.get(key) if is_map(m) else None
                if isinstance(blocks, list):
                    for k, b in enumerate(blocks):
                        places[id(b)] = (i, k)
            rows: dict[int, int] = {}
            for r, o in enumerate(self.outcome.result.origins):
                if o is not None and isinstance(im.sources[o].message, int):
                    rows.setdefault(im.sources[o].message, r)
            return places, rows
        return self.memo(f"places:{key}", build)

    def locate(self, obj: Any, key: str) -> tuple[int, str] | None:
        """(flat row, native location) of a message or block the exporter wrote, found by
        provenance: export keeps the original objects, so their place in the input history
        and the row that message became are known. None for an object export made itself."""
        places, rows = self._places(key)
        place = places.get(id(obj))
        if place is None or place[0] not in rows:
            return None
        i, k = place
        im = self.outcome.imported
        loc = im.sources[self.outcome.result.origins[rows[i]]]
        loc = loc._replace(message=i, key=None if k is None else key, blocks=None if k is None else (k,), items=None)
        return rows[i], loc.describe(im.container)

    def near(self, history: list[Any], k: int, key: str) -> tuple[int, str] | None:
        """(flat row, native location) of item ``k`` of the exported ``history``, for items
        that became no row of their own (a reasoning item, the second call of a turn): the
        row is the one of the nearest item before it that has one, the location its own."""
        found = self.locate(history[k], key)
        if found is not None:
            return found
        places, _ = self._places(key)
        place = places.get(id(history[k]))
        im = self.outcome.imported
        where = (f"{im.container}[{place[0]}]" if im.container else f"[{place[0]}]") if place else None
        for j in range(k - 1, -1, -1):
            before = self.locate(history[j], key)
            if before is not None:
                return before[0], where or before[1]
        rows = self.rows
        return (rows[0][0], where or "") if rows else None

    def dropped_calls(self, origin: int) -> frozenset[int]:
        """Import call positions of row ``origin`` that the engine dropped."""
        return self.memo("dropped-calls", self.outcome.result.dropped_calls).get(origin, frozenset())

    def where(self, index: int, call: int | None = None) -> str | None:
        """Native location of flat row ``index`` (and of its call ``call``), if known."""
        o = self.origin(index)
        if o is None:
            return None
        im = self.outcome.imported
        if call is not None and o < len(im.calls) and im.calls[o]:
            gone = self.dropped_calls(o)
            kept = [k for k in range(len(im.calls[o])) if k not in gone]
            if call < len(kept):
                return im.calls[o][kept[call]].describe(im.container)
        return im.where(o)
