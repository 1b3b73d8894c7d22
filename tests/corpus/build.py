"""Build the corpus of real request bodies that providers accepted (HTTP 200).

Provenance: every body comes from a recorded HTTP interaction (a VCR cassette) in the test
suite of a public project. The script reads repository snapshots (git directories, no work
tree needed), keeps POST requests to a chat/messages/responses/generateContent/converse
endpoint whose recorded response status is 200, and writes each distinct body as
``<format>/<sha>.json`` with its source (repository, path, commit, interaction) in
``SOURCES.json``. The test (``tests/formats/test_corpus.py``) reads only the written files.

    python tests/corpus/build.py owner/name=/path/to/git-dir [...]

The corpus here was built from snapshots of pydantic/pydantic-ai, traceloop/openllmetry,
crewAIInc/crewAI, langchain-ai/langchain-google, langchain-ai/langchain-aws,
DataDog/dd-trace-py and Arize-ai/openinference (the commits are in ``SOURCES.json``; the two
langchain repositories gave no body that made the cut).

Bodies with tool calls and results are preferred; bodies over ``MAX_BYTES`` (inline images,
long documents) and bodies of no recognised shape are left out.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
MAX_BYTES = 24_000
PER_FORMAT = 100          # cap per format: tool-using bodies first, repositories interleaved

ENDPOINTS = [
    ("openai-responses", re.compile(r"/(v1/|openai/)?responses(\?|$)")),
    ("openai-chat", re.compile(r"/chat/completions(\?|$)")),
    ("anthropic", re.compile(r"/v1/messages(\?|$)")),
    ("gemini", re.compile(r":(stream)?generateContent(\?|$)", re.I)),
    ("bedrock", re.compile(r"/model/[^/]+/converse(-stream)?(\?|$)")),
]
HISTORY = {"openai-responses": "input", "openai-chat": "messages", "anthropic": "messages",
           "gemini": "contents", "bedrock": "messages"}


def git(repo: str, *args: str) -> bytes:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True).stdout


def cassettes(repo: str) -> list[str]:
    names = git(repo, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
    return [n for n in names if re.search(r"cassette|vcr|recording", n, re.I) and n.endswith((".yaml", ".yml", ".json"))]


def body_of(request: dict) -> object | None:
    if isinstance(request.get("parsed_body"), dict):
        return request["parsed_body"]
    body = request.get("body")
    if isinstance(body, dict):
        body = body.get("string", body.get("json", body))
        if isinstance(body, dict):
            return body
    if isinstance(body, bytes):
        if body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        body = body.decode("utf-8", "replace")
    if isinstance(body, str) and body.lstrip().startswith("{"):
        try:
            return json.loads(body)
        except ValueError:
            return None
    return None


def status_of(response: dict) -> int | None:
    status = response.get("status")
    if isinstance(status, dict):
        status = status.get("code")
    return status if isinstance(status, int) else None


def interactions(doc: object) -> list[dict]:
    if isinstance(doc, dict):
        for key in ("interactions", "recordings"):
            if isinstance(doc.get(key), list):
                return doc[key]
    return doc if isinstance(doc, list) else []


def format_of(uri: str, body: dict) -> str | None:
    path = uri.split("://", 1)[-1]
    for fmt, pattern in ENDPOINTS:
        if pattern.search(path) and isinstance(body.get(HISTORY[fmt]), list) and body[HISTORY[fmt]]:
            return fmt
    return None


TOOL_MARKS = ("tool_call_id", "function_call_output", "tool_result", "functionResponse", "function_response",
              "toolResult")


def score(body: dict) -> int:
    text = json.dumps(body)
    return 2 * any(m in text for m in TOOL_MARKS) + ("tool" in text)


def collect(repo_name: str, repo: str, found: dict, sources: dict) -> None:
    commit = git(repo, "rev-parse", "HEAD").decode().strip()
    for path in cassettes(repo):
        try:
            raw = git(repo, "show", f"HEAD:{path}")
        except subprocess.CalledProcessError:
            continue                # a large file the snapshot lists but does not hold
        if not re.search(rb"generateContent|/messages|/responses|/chat/completions|/converse", raw):
            continue
        try:
            doc = yaml.load(raw, Loader=yaml.CSafeLoader) if not path.endswith(".json") else json.loads(raw)
        except Exception:
            continue
        for n, inter in enumerate(interactions(doc)):
            if not isinstance(inter, dict):
                continue
            req, resp = inter.get("request") or {}, inter.get("response") or {}
            if not isinstance(req, dict) or not isinstance(resp, dict):
                continue
            if str(req.get("method", "POST")).upper() != "POST" or status_of(resp) != 200:
                continue
            body = body_of(req)
            if not isinstance(body, dict):
                continue
            fmt = format_of(str(req.get("uri") or req.get("url") or ""), body)
            if fmt is None:
                continue
            data = json.dumps(body, ensure_ascii=False, sort_keys=True).encode()
            if len(data) > MAX_BYTES:
                continue
            key = hashlib.sha256(data).hexdigest()[:16]
            if key in sources:
                continue
            sources[key] = {"format": fmt, "repository": repo_name, "commit": commit, "path": path,
                            "interaction": n, "uri": str(req.get("uri") or req.get("url"))}
            found[fmt].append((score(body), key, body))


def main(argv: list[str]) -> None:
    found: dict[str, list] = defaultdict(list)
    sources: dict[str, dict] = {}
    for arg in argv:
        name, _, repo = arg.partition("=")
        collect(name, repo, found, sources)
    manifest = {}
    for old in HERE.glob("*/*.json"):
        old.unlink()
    for fmt, items in sorted(found.items()):
        items.sort(key=lambda t: (-t[0], t[1]))
        rank: dict[tuple, int] = defaultdict(int)
        order = []
        for item in items:
            tier = (item[0], sources[item[1]]["repository"])
            order.append((-item[0] // 2, rank[tier], item[1], item))
            rank[tier] += 1
        items = [o[-1] for o in sorted(order, key=lambda o: o[:3])]
        (HERE / fmt).mkdir(exist_ok=True)
        for _, key, body in items[:PER_FORMAT]:
            file = f"{fmt}/{key}.json"
            (HERE / file).write_text(json.dumps(body, ensure_ascii=False, indent=1) + "\n")
            manifest[file] = sources[key]
        print(f"{fmt}: {len(items)} found, {min(len(items), PER_FORMAT)} kept")
    (HERE / "SOURCES.json").write_text(json.dumps(dict(sorted(manifest.items())), indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
