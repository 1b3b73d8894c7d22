"""What a provider would still reject after normalization: ``inspector check --target``.

MEM-5 (https://flowdrop.io/spec/rules/gr-mem/mem-5) matches ids as sets, so its output is
orphan-free but not always accepted (``semantics.md``, "Known limits of the literal rule"),
and every provider adds rules of its own. These checks are not MEM-5 and never change a
history: each provider module holds a table of small rule functions; :func:`check` runs a
target's table over the engine's output and lists every :class:`Problem` with its severity
(``error``: documented and observed to be rejected; ``warning``: documented, not always
enforced or not observed) and its source.

``check`` takes the pipeline Outcome (``inspector.pipeline.run``): the rules that need the
native blocks (block order inside an Anthropic message, part types inside OpenAI assistant
content) read them through the importer's provenance, and every problem names its native
location. Flat messages are accepted too; the native rules then have nothing to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import gc_paused
from . import anthropic, bedrock, deepseek, gemini, groq, mistral, openai_chat, openai_responses, vllm, xai
from .base import ERROR, WARNING, Problem, Rule, Target, View, create, extend
from .template import ChatTemplate, check_template, load_template
from .errors import ANY as ANY_TARGET, KNOWN as KNOWN_ERRORS, OWN_TEXT, Known as KnownError  # noqa: F401 (inspector why)

# xai, groq, deepseek and vllm are built on openai-chat (base.extend): its table, then their own.
REGISTRY: dict[str, Target] = {m.TARGET.name: m.TARGET for m in
                               (openai_chat, openai_responses, anthropic, bedrock, gemini, mistral,
                                xai, groq, deepseek, vllm)}
TARGETS = tuple(REGISTRY)

# Every rule checked, per target (name, severity, source, summary): the README table lists them.
RULES: dict[str, list[Rule]] = {name: list(t.rules) for name, t in REGISTRY.items()}

NOT_CHECKED: dict[str, str] = {
    "all targets: tool schemas, content size and token limits":
        "they depend on the request's tools and model, not on the history",
    "mistral: a history ending with an assistant message":
        "legal to store; only a request for a new completion must end with a user or tool message",
}

__all__ = ["ERROR", "NOT_CHECKED", "ChatTemplate", "check_template", "load_template", "REGISTRY", "RULES", "TARGETS", "WARNING", "Problem", "Rule", "Target",
           "check", "create", "extend", "failed", "rule_table"]


def check(subject: Any, target: str, model: str | None = None,
          identity: Mapping[str, Any] | None = None, given: Any = None) -> list[Problem]:
    """Every problem ``target`` would reject (or may reject) in ``subject``, ordered by row.

    ``subject`` is a pipeline Outcome (its engine result is checked, with native
    provenance) or a list of flat messages (normally the engine's output). ``model``
    (``--model``) is the model the history is sent to, for a session store or a body that
    names none (the rules on reasoning signed by another model read it). ``identity`` (the
    import's ``Imported.identity``) lets the rules on an id's spelling judge the string the
    provider receives when ``subject`` is a list of imported rows; ``given`` (that import, when
    ``subject`` is its rows as sent) lets the rules on reasoning signed by another model read
    the import's reasoning records, so a history is judged for the model it is sent to as given."""
    if target not in REGISTRY:
        raise ValueError(f"unknown target {target!r}; known: {', '.join(TARGETS)}")
    if isinstance(subject, list):
        view = View(subject, model=model, identity=identity, given=given)
    elif hasattr(subject, "result") and hasattr(subject, "imported"):
        view = View(subject.result.messages, subject, model)
    else:
        raise TypeError(f"check() expects a pipeline Outcome or a list of messages, got {type(subject).__name__}")
    with gc_paused():           # many small acyclic tuples, as in the engine: collections find nothing
        return REGISTRY[target].check(view)


def failed(problems: list[Problem]) -> bool:
    """Whether the provider would refuse: at least one error (warnings do not fail)."""
    return any(p.severity == ERROR for p in problems)


def rule_table() -> list[Mapping[str, str]]:
    """Every rule of every target as rows (target, rule, severity, source, summary); a
    target built on another lists only the rules it adds, with ``extends`` naming its base."""
    return [{"target": t.name, "rule": r.name, "severity": r.severity, "source": r.source, "summary": r.summary,
             "extends": t.base.name if t.base is not None else ""}
            for t in REGISTRY.values() for r in t.own_rules()]
