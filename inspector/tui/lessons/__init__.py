"""``inspector learn``: the bundled samples as lessons (:data:`LESSONS`), and the scoring of a
learner's prediction against what the engine did (:mod:`.score`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Lesson:
    """One sample, the stages the learner predicts (those where the engine acts), and what
    the lesson is about, in one line of this project's words."""

    sample: str
    title: str
    about: str
    stages: tuple[str, ...]


LESSONS: tuple[Lesson, ...] = (
    Lesson("10-not-messages.json", "Entries that are not messages",
           "Clause 1 reads every entry as a flat message, or drops it.", ("coerce",)),
    Lesson("06-system-mid-conversation.json", "A system message in the middle",
           "Clause 2 moves system messages; nothing else moves.", ("hoist", "repair")),
    Lesson("04-duplicate-after-retry.json", "Duplicate result after a retry",
           "Clause 3: one result per call, the first one wins.", ("repair",)),
    Lesson("03-crash-parallel-calls.json", "Crash mid-loop, parallel calls",
           "Clause 3 answers a call nobody answered: where does its result go?", ("repair",)),
    Lesson("01-falsy-id.json", "A falsy call id",
           "Clause 3 and an id that reads as no id.", ("repair",)),
    Lesson("02-result-before-call.json", "A result ahead of its call",
           "Clause 4 strips a leading result, and the repair runs again.", ("strip",)),
)

BLANK_GOAL = ("Build a history from nothing (a adds an entry from a template, E edits it, delete deletes it): "
              "make the repair stage synthesize a result and the hoist stage move a system message.")
BLANK_KINDS = ("result-synthesized", "system-hoisted")  # what the blank lesson asks the engine to show

__all__ = ["BLANK_GOAL", "BLANK_KINDS", "LESSONS", "Lesson"]
