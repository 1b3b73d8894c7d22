"""Inspector: make a broken LLM conversation history sendable, by MEM-5, and show why."""

__version__ = "0.1.0"
