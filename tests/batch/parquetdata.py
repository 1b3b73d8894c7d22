"""A generated chat dataset as Hugging Face datasets store one: an id, a ``messages`` list of
OpenAI chat messages (calls with an id, a type and JSON-string arguments), a score; with
the damage stored traces carry (results lost, written twice, orphaned by a cut)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson


def history(rng: random.Random, n: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": f"You are agent {n}."}]
    for turn in range(rng.randint(1, 4)):
        msgs.append({"role": "user", "content": f"question {n}.{turn}"})
        ids = [f"call_{n}_{turn}_{k}" for k in range(rng.randint(0, 3))]
        if ids:
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": i, "type": "function",
                 "function": {"name": rng.choice(("search", "sql")), "arguments": orjson.dumps({"q": i}).decode()}}
                for i in ids]})
            for i in ids:
                roll = rng.random()
                if roll < 0.15:
                    continue                                     # lost: the agent crashed mid-call
                msgs.append({"role": "tool", "tool_call_id": i, "content": f"result {i}"})
                if roll > 0.9:                                   # a retry wrote it twice
                    msgs.append({"role": "tool", "tool_call_id": i, "content": "again"})
        msgs.append({"role": "assistant", "content": f"answer {n}.{turn}"})
    if rng.random() < 0.15:                                      # its call was cut away
        msgs.insert(len(msgs) // 2, {"role": "tool", "tool_call_id": f"gone_{n}", "content": "orphan"})
    return msgs


def rows(count: int = 400, seed: int = 3) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [{"id": f"row-{i}", "messages": history(rng, i), "score": round(rng.random(), 6)} for i in range(count)]


def write(path: Path, data: list[dict[str, Any]], text: bool, row_group_size: int = 64,
          compression: str = "zstd") -> Path:
    """The rows as Parquet: ``messages`` a list of structs (pyarrow infers the type from the
    rows, as ``datasets`` does), or with ``text`` a column of JSON strings."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if text:
        data = [{**r, "messages": orjson.dumps(r["messages"]).decode()} for r in data]
    table = pa.Table.from_pylist(data)
    table = table.replace_schema_metadata({b"huggingface": b'{"info": {"features": "generated"}}'})
    pq.write_table(table, path, row_group_size=row_group_size, compression=compression)
    return path
