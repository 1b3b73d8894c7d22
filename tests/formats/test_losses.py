"""``Decisions.losses``: which native blocks each entry loses, read from origins and the calls
the engine dropped (the one reading the Claude Code and Gemini CLI exporters share)."""

from inspector.formats.base import Decisions, Imported, Loc


def _history() -> Imported:
    # entry 0: a user message that is one row; entry 1: an assistant message with text and two
    # calls; entry 2: a user message holding both results, one row per result block.
    im = Imported("anthropic", [], None)
    im.sources = [Loc(0), Loc(1), Loc(2, "content", (0,)), Loc(2, "content", (1,))]
    im.calls = [[], [Loc(1, "content", (1,)), Loc(1, "content", (2,))], [], []]
    return im


def test_a_dropped_row_loses_its_blocks_and_a_kept_turn_loses_its_dropped_call():
    # Row 0 (whole) and row 2 (block 0 of entry 2) are gone; row 1 stays but loses its second call.
    d = Decisions([({"role": "assistant"}, 1), ({"role": "tool"}, 3)], {1: frozenset({1})})
    lost, whole = d.losses(_history())
    assert lost == {1: {2}, 2: {0}}
    assert whole == [0]


def test_nothing_dropped_loses_nothing():
    rows = [({"role": r}, o) for o, r in enumerate(("user", "assistant", "tool", "tool"))]
    assert Decisions(rows, {}).losses(_history()) == ({}, [])


def test_a_synthesized_row_keeps_nothing_alive():
    # A row the engine wrote (origin None) does not keep any input row.
    d = Decisions([({"role": "tool"}, None)], {})
    lost, whole = d.losses(_history())
    assert lost == {2: {0, 1}}
    assert whole == [0, 1]
