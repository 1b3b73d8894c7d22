"""``inspector why "ERROR TEXT" [FILE]``: from the error a person holds to the rule, the entries and the fix.

The text is matched against every known error text (``targets.KNOWN_ERRORS``: one instance
of each rule's own refusal, and agents' rewordings, each with its source). Ids, numbers and
positions are left out before comparing, so ``messages.5 … toolu_01X`` matches the
``messages.3 … toolu_01Y`` kept. A text that matches nothing well enough is said to be
unknown, with the closest rules listed: nothing is guessed silently.

Given the history the error came from, the file is read through the pipeline and the
matched rules are run over it: over the history as its agent sends it on resume (the one
verdict's :func:`~inspector.verdict.as_sent_problems`, so a case the agent repairs itself
is shown as the agent's, with its claim, never as an entry that breaks the rule), and over
the repair. The entries shown are the problems of those rules, and of them the ones the
error names (a call id it quotes, the position it points at: ``messages.5``,
``messages.[2]``, ``input[3]``). The repaired copy is the one ``inspector normalize``
writes; ``--fix`` writes it.

Nothing here decides a rule: the rule tables do. This module compares texts only to pick
which rule a pasted text stands for.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import formats, pipeline, verdict
from .io import atomic_write, display_name, printable, read_bytes
from .targets import ANY_TARGET, KNOWN_ERRORS, REGISTRY, KnownError, Problem, Rule, check

MATCH = 0.7         # a score from here on is a match
TIE = 0.05          # matches this close to the best are all shown (the text does not tell them apart)
CANDIDATES = 3      # the closest rules listed for an unknown text

_WORD = re.compile(r"[a-z0-9_]+")
_ID_PREFIX = re.compile(r"^(?:toolu|toolu_vrtx|srvtoolu|tooluse|call|fc|rs|msg|ctc|item|req|chatcmpl|resp)_")
_KEYWORDS = frozenset({"call_id", "call_ids", "tool_call_id", "tool_call_ids", "item_reference", "msg_id"})
_STOP = frozenset("""a an the to in of and or is are be been must for with at by on that this your it its as
    api error errors type invalid_request_error request_id req http status code message_id""".split())
_PATH = re.compile(r"(?:[a-z]+://|[a-z]:\\|~?/)[^\s\"'`]*[/\\][^\s\"'`]*")     # URLs and file paths
# A position as providers print it: ``messages.5`` (Anthropic, Bedrock, Groq), ``messages[2]``
# and ``input[3]`` (OpenAI's texts), and OpenAI Chat's ``param`` ``messages.[3].role``
# (simonw/llm issue 937, miurla/morphic issue 136).
_POSITION = re.compile(r"\b(messages|contents|input|items)(?:\.(\d+)|\.?\[(\d+)\])")
# An id as providers print them (toolu_01…, call_Gt5…, fc_…): a prefix, then a token with a
# digit or a capital, so the rule's own words (tool_use, tool_result) are never taken for one.
_ID = re.compile(r"\b[A-Za-z]+_(?=[A-Za-z0-9_-]*[0-9A-Z])[A-Za-z0-9_-]{4,}\b")


def tokens(text: str) -> list[str]:
    """The words of an error text that say what it is: lowercased, with ids, numbers and
    filler words left out; a compound word (``tool_use``) also gives its parts."""
    out: list[str] = []
    for word in _WORD.findall(_PATH.sub(" ", text.lower())):
        word = word.strip("_")
        if not word or word in _STOP or word.isdigit():
            continue
        if word not in _KEYWORDS and (_ID_PREFIX.match(word) or (any(c.isdigit() for c in word) and len(word) >= 6)):
            continue                        # an id: toolu_01…, call_abc, a request id
        out.append(word)
        if "_" in word:
            out += [part for part in word.split("_") if part and part not in _STOP and not part.isdigit()]
    return out


def _grams(words: list[str]) -> tuple[set[str], set[tuple[str, str]]]:
    return set(words), set(zip(words, words[1:]))


def _cover(of: tuple[set, set], by: tuple[set, set]) -> float:
    """How much of ``of`` (its words, and its word pairs, which keep the order) ``by`` holds."""
    words, pairs = of
    if not words:
        return 0.0
    w = len(words & by[0]) / len(words)
    p = len(pairs & by[1]) / len(pairs) if pairs else w
    return 0.4 * w + 0.6 * p


def score(text: str, known: str) -> float:
    """How well ``text`` matches the known text ``known``, 0 to 1: the known text found in
    the pasted one (a whole error wrapped in an agent's JSON), or the pasted one found in the
    known text (a fragment, from three words on)."""
    a, b = _grams(tokens(text)), _grams(tokens(known))
    whole = _cover(b, a)
    part = _cover(a, b) * 0.95 if len(a[0]) >= 3 else 0.0
    return max(whole, part)


# -- what a text stands for ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Match:
    target: str
    rule: str
    score: float
    known: KnownError                       # the text it matched
    checked: Rule | None                    # the rule's table row; None when this build does not check it
    also: tuple[str, ...] = ()              # targets built on ``target`` that inherit the rule

    def to_dict(self) -> dict[str, Any]:
        r = self.checked
        return {"target": self.target, "rule": self.rule, "score": round(self.score, 3),
                "severity": r.severity if r else None, "meaning": r.summary if r else None,
                "fix": fix_of(r), "strict": bool(r and r.strict), "source": r.source if r else None,
                "matched": self.known.text, "seen_at": self.known.source or (r.source if r else None),
                "agent": self.known.agent or None, "also": list(self.also), "checked": r is not None}


def fix_of(rule: Rule | None) -> str:
    if rule is None:
        return "This build of Inspector does not check this rule yet."
    if rule.fix:
        return rule.fix
    return "Normalize the history: its events say what each clause changed."


def _owners() -> dict[tuple[str, str], tuple[Rule, tuple[str, ...]]]:
    """(target, rule name) → (the rule, the targets that inherit it), for the target that
    owns each rule (a target built on another lists only its own)."""
    out: dict[tuple[str, str], tuple[Rule, tuple[str, ...]]] = {}
    for t in REGISTRY.values():
        for r in t.own_rules():
            heirs = tuple(o.name for o in REGISTRY.values() if o is not t and any(x is r for x in o.rules))
            out[(t.name, r.name)] = (r, heirs)
    return out


def _expand(known: KnownError) -> list[tuple[str, str]]:
    names = [t for t in REGISTRY] if known.target == ANY_TARGET else [known.target]
    out = []
    for rule in known.rules:
        for t in names:
            if known.target != ANY_TARGET or any(r.name == rule for r in REGISTRY[t].own_rules()):
                out.append((t, rule))
    return out


@dataclass(slots=True)
class Reading:
    """What ``why`` found for one text: the matches (best first), or none and the closest."""

    text: str
    matches: list[Match]
    closest: list[Match]

    @property
    def known(self) -> bool:
        return bool(self.matches)


def read(text: str) -> Reading:
    """The rules ``text`` stands for: every known text scoring within :data:`TIE` of the best
    (from :data:`MATCH` on), each expanded to its rules; else the closest rules."""
    owners = _owners()
    scored = sorted(((score(text, k.text), n, k) for n, k in enumerate(KNOWN_ERRORS)), key=lambda s: (-s[0], s[1]))
    best = scored[0][0] if scored else 0.0
    chosen = [s for s in scored if s[0] >= MATCH and s[0] >= best - TIE]
    pool = chosen or [s for s in scored if s[0] > 0]
    seen: set[tuple[str, str]] = set()
    found: list[Match] = []
    for value, _, known in pool:
        for key in _expand(known):
            if key in seen:
                continue
            seen.add(key)
            rule, heirs = owners.get(key, (None, ()))
            found.append(Match(key[0], key[1], value, known, rule, heirs))
    if chosen:
        return Reading(text, found, [])
    return Reading(text, [], found[:CANDIDATES])


# -- the file the error came from ----------------------------------------------------------

@dataclass(slots=True)
class Entry:
    target: str
    rule: str
    row: int                    # the flat row of the input (the import's)
    where: str | None           # its native location (messages[3], line 12, …)
    error: str                  # what the provider would answer for it
    tool_call_id: str | None
    named: bool                 # the pasted error names this entry (its id or position)
    repair: list[str] = field(default_factory=list)     # what normalizing does to this entry
    # The agent repairs this entry itself on resume (it is never sent as it stands): the agent,
    # and the verdict's claim that covers it (``verdict.as_sent_split``).
    agent: str | None = None
    claim: verdict.Claim | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"target": self.target, "rule": self.rule, "row": self.row, "where": self.where,
               "error": self.error, "tool_call_id": self.tool_call_id, "named": self.named,
               "repair": self.repair}
        if self.claim is not None:
            out["agent_repair"] = {"agent": self.agent, "words": self.claim.words(), **self.claim.to_dict()}
        return out

    @property
    def place(self) -> str:
        """Where the entry is, as every report names it: its place in the file (else its row),
        and the call id it concerns."""
        return (self.where or f"row {self.row}") + (f" {self.tool_call_id}" if self.tool_call_id else "")

    @property
    def older(self) -> str | None:
        """The first agent version that makes this repair, when the version that wrote the
        session is not known to (an older one sends the entry as it stands)."""
        c = self.claim
        return c.repair.since if c is not None and c.repair.since and c.covers is not True else None


@dataclass(slots=True)
class Case:
    """The matched rules run over one file: the entries, and the repair that clears them."""

    name: str
    format: str
    entries: list[Entry]
    strict: bool                # the repair needs --strict
    cleared: bool               # after the repair none of the matched rules is reported
    output: str
    command: str
    data: bytes = b""
    absent: list[str] = field(default_factory=list)    # ids the error names that the file does not hold
    agent: str | None = None                            # the agent that resumes it (None: no agent's store)
    covered: list[Entry] = field(default_factory=list)  # entries the agent repairs itself on resume

    @property
    def agent_repairs(self) -> bool:
        """Every entry the rules find is one the agent repairs itself: the error came from
        another state of the session (or an older version of the agent)."""
        return bool(self.covered) and not self.entries

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.name, "format": self.format, "entries": [e.to_dict() for e in self.entries],
                "strict": self.strict, "cleared": self.cleared, "output": self.output, "command": self.command,
                "absent": self.absent, "agent": self.agent, "agent_repairs": [e.to_dict() for e in self.covered]}


def positions(text: str) -> set[str]:
    """``messages.3``, ``messages.[3]``, ``input[2]``: the positions a provider text points at,
    spelled one way (``messages.3``, ``input.2``)."""
    return {f"{m.group(1)}.{m.group(2) or m.group(3)}" for m in _POSITION.finditer(text)}


def _at(p: Problem, where: str | None, native: bool) -> set[str]:
    """The request positions of a problem: the ones its provider text names (``messages.5``,
    in the provider's own numbering); a text naming none (OpenAI Chat's) is at its native
    location when the file is that provider's own document (``messages[2]`` of a Chat body is
    the ``messages.[2]`` sent)."""
    return positions(p.error) or (positions(where) if native and where else set())


def repaired_name(path: str) -> str:
    """Where the repaired copy goes: beside the input, as ``normalize`` names a session's (a
    compressed Codex rollout's is the plain ``NAME.repaired.jsonl``)."""
    p = Path(formats.written_name(path))
    return str(p.with_name(f"{p.stem}.repaired{p.suffix or '.json'}"))


def examine(path: str, reading: Reading, fmt: str = "auto", session: str | None = None,
            output: str | None = None) -> Case:
    """Run the matched (or the closest) rules over the file at ``path``."""
    name = display_name(path)
    data = read_bytes(path)
    imported = pipeline.load(data, name, fmt, session)
    pairs = [(m.target, m.rule) for m in (reading.matches or reading.closest)]
    targets = list(dict.fromkeys(t for t, _ in pairs))
    wanted = set(pairs)
    plain = pipeline.outcome(imported, name, strict=False)
    named_pos = positions(reading.text)
    agent = formats.agent_title(imported.format) if formats.is_session_format(imported.format) else None
    entries: list[Entry] = []
    covered: list[Entry] = []
    keys: set[tuple[str, str, int]] = set()
    # A request body of the provider judged: its native locations are the positions sent.
    native = {t for t in targets if not formats.is_session_format(imported.format)
              and formats.provider(imported.format) == t}

    def add(p: Problem, row: int | None, where: str | None, claim: verdict.Claim | None = None) -> None:
        if row is None or (p.target, p.rule, row) in keys:
            return
        keys.add((p.target, p.rule, row))
        at = _at(p, where, p.target in native)
        named = bool((p.tool_call_id and p.tool_call_id in reading.text) or (at & named_pos))
        entry = Entry(p.target, p.rule, row, where, p.error, p.tool_call_id, named)
        if claim is not None:
            entry.agent, entry.claim = agent, claim
            covered.append(entry)
        else:
            entries.append(entry)

    n = len(imported.messages)
    models = {t: verdict.judged_model(imported, t) for t in targets}     # as ``check`` judges each
    for t in targets:
        # As the agent sends it on resume (the one verdict's computation): the cases its own
        # repairs cover first, then what the provider refuses.
        model = models[t]
        kept, _, covered_here = verdict.as_sent_split(imported, t, model)
        for p, claim in covered_here:
            if (t, p.rule) in wanted:
                add(p, p.index, p.where or (imported.where(p.index) if p.index < n else None), claim)
        for p in kept:
            if (t, p.rule) in wanted:
                add(p, p.index, p.where or (imported.where(p.index) if p.index < n else None))
        # What the repair leaves, with the native rules (blocks, signatures, settings).
        for p in check(plain, t, model):
            if (t, p.rule) in wanted:
                origins = plain.result.origins
                add(p, origins[p.index] if p.index < len(origins) else None, p.where)
    for found in (entries, covered):
        found.sort(key=lambda e: (not e.named, e.row))
    if any(e.named for e in entries + covered):
        entries = [e for e in entries if e.named]
        covered = [e for e in covered if e.named]
    rows = {e.row for e in entries}
    for e in plain.result.events:
        if e.origin in rows:
            for entry in entries:
                if entry.row == e.origin:
                    entry.repair.append(f"({e.clause}) {e.message}")
    strict = False
    cleared = not _left(plain, models, wanted)
    chosen = plain
    if not cleared:
        tight = pipeline.outcome(imported, name, strict=True)
        if not _left(tight, models, wanted):
            strict, cleared, chosen = True, True, tight
    out = output or repaired_name(path)
    words = ["inspector", "normalize", str(path), "-o", out]
    if strict:
        words.append("--strict")
    if fmt != "auto":
        words += ["--from", fmt]
    if session is not None:
        words += ["--session", session]
    # An error whose ids the file never holds came from another file or another state of it.
    absent = [] if any(e.named for e in entries + covered) else \
        [i for i in dict.fromkeys(_ID.findall(reading.text)) if i.encode() not in data]
    return Case(name, imported.format, entries, strict, cleared, out, shlex.join(words), chosen.data, absent,
                agent, covered)


def _left(outcome: pipeline.Outcome, models: dict[str, str | None], wanted: set[tuple[str, str]]) -> bool:
    return any((t, p.rule) in wanted for t, model in models.items() for p in check(outcome, t, model))


def fix(case: Case, path: str) -> str:
    """Write the repaired copy, atomically and never over the input; returns where."""
    atomic_write(case.output, case.data, inputs=(path,))
    return case.output


# -- the report ----------------------------------------------------------------------------

def to_dict(reading: Reading, case: Case | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"text": reading.text, "known": reading.known,
                           "matches": [m.to_dict() for m in reading.matches],
                           "closest": [m.to_dict() for m in reading.closest]}
    if case is not None:
        out["file"] = case.to_dict()
    return out


def report(reading: Reading, case: Case | None = None, wrote: str | None = None, fixing: bool = False) -> str:
    lines: list[str] = []
    if not reading.known:
        lines.append("Unknown error text: it matches no rule's error text well enough to say which it is.")
        if not reading.closest:
            lines.append("No rule's error text shares a word with it.")
        else:
            lines.append("Closest rules:")
            for m in reading.closest:
                meaning = m.checked.summary if m.checked else "(not checked by this build)"
                lines.append(f"  {m.target}/{m.rule} ({m.score:.2f}): {meaning}")
    else:
        several = len(reading.matches) > 1
        lines.append("This text stands for " + (f"one of {len(reading.matches)} rules:" if several else "the rule:"))
        for m in reading.matches:
            r = m.checked
            lines.append("")
            lines.append(f"{m.target}/{m.rule}" + (f" [{r.severity}]" if r else " [not checked by this build]")
                         + (f" (also {', '.join(m.also)})" if m.also else ""))
            if m.known.agent:
                lines.append(f"  {m.known.agent}'s wording of the provider's refusal (seen at {m.known.source})")
            if r is not None:
                lines.append(f"  means: {r.summary}")
                lines.append(f"  fix:   {fix_of(r)}")
                lines.append(f"  source: {r.source}")
    if case is not None:
        lines.append("")
        if case.entries:
            found = sorted({f"{e.target}/{e.rule}" for e in case.entries})
            lines.append(f"In {printable(case.name)} ({case.format}), the file shows "
                         + ("" if reading.known else "(of the closest rules) ") + f"{' and '.join(found)}; "
                         + ("the entries the error names:" if case.entries[0].named
                            else f"the error names {', '.join(case.absent)}, which this file does not hold (an error "
                                 "from another session, or from the file as it was before?), so every entry of it:"
                            if case.absent else "the error names no entry, so every entry of it:"))
            _entries(lines, case.entries)
        if case.covered:
            _covered(lines, reading, case, wrote)
        if not case.entries and not case.covered:
            lines.append(f"In {printable(case.name)} ({case.format}): none of these rules finds anything; the "
                         "agent may have sent a history other than this file (a later state, or another session).")
        if case.entries:
            if case.cleared:
                lines.append(f"The repaired copy clears it{' (with --strict)' if case.strict else ''}:")
            else:
                lines.append("Normalizing alone does not clear it (see the fix above); the repaired copy is still:")
            lines.append(f"  {printable(case.command)}")
            if wrote:
                lines.append(f"wrote {printable(wrote)}")
        elif wrote is None and case.data and fixing and not case.covered:
            lines.append("Nothing written: the file shows nothing to fix for these rules.")
    return "\n".join(lines) + "\n"


def _entries(lines: list[str], entries: list[Entry]) -> None:
    for e in entries:
        lines.append(f"  {printable(e.place)}: {e.target}/{e.rule}")
        lines.append(f"    {printable(e.error)}")
        for r in e.repair:
            lines.append(f"    repair: {printable(r)}")


def _covered(lines: list[str], reading: Reading, case: Case, wrote: str | None) -> None:
    """The entries the agent repairs itself on resume, each with the verdict's claim; when
    they are all the rules find, where the error must have come from instead (``--fix``
    still writes the repaired copy, as ``inspector normalize -o`` does)."""
    agent = printable(case.agent or "the agent")
    if case.entries:
        lines.append(f"{agent} repairs these itself on resume (they are not sent as they stand):")
    else:
        found = sorted({f"{e.target}/{e.rule}" for e in case.covered})
        which = ("the entries the error names:" if case.covered[0].named
                 else f"the error names {', '.join(case.absent)}, which this file does not hold; every entry:"
                 if case.absent else "every entry of it:")
        lines.append(f"In {printable(case.name)} ({case.format}), the file shows "
                     + ("" if reading.known else "(of the closest rules) ") + f"{' and '.join(found)}, "
                     f"but {agent} repairs it itself on resume; {which}")
    for e in case.covered:
        _entries(lines, [e])            # a covered entry has no repair lines of its own
        if e.claim is not None:
            lines.append(f"    {agent} repairs it itself: {printable(e.claim.words())}")
    if case.agent_repairs:
        # The newest version a claim names: every version before it sends one of these as it stands.
        older = max((v for e in case.covered if (v := e.older)), default=None,
                    key=lambda v: tuple(int(x) for x in re.findall(r"\d+", v)))
        lines.append(f"{agent} repairs this itself, so the error must have come from a different state of the session"
                     + (f" (or from {agent} before {older}, which sends it as it stands)." if older else "."))
        if older and case.cleared:
            lines.append(f"For {agent} before {older}, the repaired copy clears it"
                         f"{' (with --strict)' if case.strict else ''}:")
            lines.append(f"  {printable(case.command)}")
        if wrote:
            lines.append(f"wrote {printable(wrote)} (the repaired copy, all the same)")


__all__ = ["Case", "Entry", "Match", "Reading", "examine", "fix", "read", "report", "score", "to_dict", "tokens"]
