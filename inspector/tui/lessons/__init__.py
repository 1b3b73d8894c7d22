"""``inspector learn``: levels as files (:mod:`.levels`, the built-in ones in
``inspector/lessons/``), judged by the engine (:mod:`.score`, a stage's rows) and by the
provider checks (:mod:`.judge`), and the failures a level can inject (:mod:`.inject`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Lesson:
    """One stage level as the lesson screen plays it: the start history's name, the stages the
    learner predicts (those where the engine acts), and what it is about, in one line."""

    sample: str
    title: str
    about: str
    stages: tuple[str, ...]


def stage_lessons() -> tuple[Lesson, ...]:
    """The built-in stage levels (the six first lessons), as lessons."""
    from .levels import builtins

    return tuple(Lesson(lv.name, lv.title, lv.about, lv.stages) for lv in builtins() if lv.kind == "stage")


LESSONS: tuple[Lesson, ...] = stage_lessons()

__all__ = ["LESSONS", "Lesson", "stage_lessons"]
