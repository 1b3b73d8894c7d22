"""Which provider's rules a session is judged by, from what its store records it ran on.

A store that records the provider of each message (Crush's ``messages.provider`` and
``model``, OpenCode's ``providerID``/``modelID``) declares a ``Format.ran_on`` hook that lists
them, oldest first; :func:`judged_for` turns that list into the provider check
(``inspector.targets``) the resume is judged by, and the words that say so. The resume runs
on the last one recorded. An aggregator (OpenRouter and the like) is judged for the real
provider when its model names one (``anthropic/claude-sonnet-4``); a provider Inspector has
no rules for (a local server, Ollama, an unknown id) is said to be unknown, never guessed.

Provider ids: Crush's are catwalk's (charmbracelet/catwalk ``pkg/catwalk/provider.go``:
``anthropic``, ``openai``, ``gemini``, ``azure``, ``bedrock``, ``vertexai``, ``xai``,
``openrouter``, ``groq``...), OpenCode's are models.dev's (``anthropic``, ``openai``,
``google``, ``amazon-bedrock``, ``openrouter``...).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["PROVIDERS", "judged_for", "target_of"]

# A provider id -> the provider check that judges what is sent to it.
PROVIDERS = {
    "anthropic": "anthropic", "openai": "openai-chat", "azure": "openai-chat", "gemini": "gemini",
    "google": "gemini", "bedrock": "bedrock", "amazon-bedrock": "bedrock", "mistral": "mistral", "xai": "xai",
    "groq": "groq", "deepseek": "deepseek",
    # pi records the API beside the provider: its Responses sessions are judged as Responses.
    "openai-responses": "openai-responses",
}
# An aggregator's model prefix (``vendor/model``) -> the provider check of that vendor.
VENDORS = {"anthropic": "anthropic", "openai": "openai-chat", "google": "gemini", "mistralai": "mistral",
           "x-ai": "xai", "deepseek": "deepseek"}
# Providers that serve several vendors' models under their own id, told apart by the model.
BY_MODEL = {"vertexai": (("claude", "anthropic"), ("gemini", "gemini")),
            "google-vertex": (("claude", "anthropic"), ("gemini", "gemini"))}


def target_of(provider: str, model: str | None) -> str | None:
    """The provider check for one recorded (provider, model); None: not one Inspector knows."""
    p = provider.strip().lower()
    if p in PROVIDERS:
        return PROVIDERS[p]
    m = (model or "").strip().lower()
    for prefix, target in BY_MODEL.get(p, ()):
        if m.startswith(prefix):
            return target
    if "/" in m:                       # an aggregator's vendor/model
        return VENDORS.get(m.split("/", 1)[0])
    return None


def judged_for(recorded: Iterable[tuple[str | None, str | None]]) -> tuple[str | None, str] | None:
    """(the provider check, the words) for what a store recorded, oldest first; None when it
    recorded no provider (the format's own provider then stands)."""
    pairs = [(p, m) for p, m in recorded if isinstance(p, str) and p.strip()]
    if not pairs:
        return None
    provider, model = pairs[-1]
    target = target_of(provider, model)
    seen = ", ".join(dict.fromkeys(f"{p} ({m})" if m else p for p, m in pairs))
    last = f"{provider} ({model})" if model else provider
    if target is None:
        return None, f"ran on {seen}; the last, {last}, is a provider whose rules Inspector does not know"
    if len({p for p, _ in pairs}) == 1:
        return target, f"ran on {seen}"
    return target, f"ran on {seen}; judged for {target}, the last one's"
