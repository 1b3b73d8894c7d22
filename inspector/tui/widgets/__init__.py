"""One widget per module; each renders part of the engine's result and decides nothing."""
