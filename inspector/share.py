"""``inspector share FILE -o CASE``: a copy of a case that can be attached to a public issue.

The copy keeps only the entries that make the verdict (every entry an event or a provider
problem is about, with the entries around them), and in what it keeps:

- secrets are replaced by a token naming their kind (``REDACTED_ANTHROPIC_KEY_3f2a9c``; the
  same secret always gets the same token): the key shapes of :data:`SHAPES`, and, when the
  ``share`` extra is installed, what Yelp's detect-secrets finds with its pattern plugins
  (its entropy plugins are left out: they take call ids and signatures for secrets);
- e-mail addresses and the user's name in home paths (``/home/NAME``, ``/Users/NAME``,
  ``C:\\Users\\NAME``) are masked;
- long prose is cut to its start, with its length kept; ids, signatures and JSON payloads are
  kept as they are.

The copy must give the same verdict and the same repair as the original: the engine's
events (clause, kind), whether it changes, and every target's problems (rule, severity, call
id), counted, with and without ``--strict``. The copy is checked before it is written; when
a cut would change the verdict, fewer entries are cut, and when redaction itself would,
nothing is written and the command says so.

It reads JSON and JSON Lines files, whose entries it can leave out, and SQLite session
stores, whose text cells it redacts in a vacuumed private copy, keeping every row.
"""

from __future__ import annotations

import hashlib
import html
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import orjson

from . import formats, pipeline
from .io import InputError, atomic_write, display_name, read_bytes
from .targets import TARGETS, check

LIMIT = 240             # prose longer than this is cut
HEAD = 60               # what is kept of it
CONTEXT = 1             # entries kept on each side of one that makes the verdict

# The key shapes redacted whatever else is installed: (kind, pattern).
SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((k, re.compile(p, f)) for k, p, f in (
    ("PRIVATE_KEY", r"-----BEGIN[A-Z ]*PRIVATE KEY-----(?:.*?-----END[A-Z ]*PRIVATE KEY-----|.*)", re.S),
    ("ANTHROPIC_KEY", r"sk-ant-[A-Za-z0-9_-]{20,}", 0),
    ("OPENAI_KEY", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0),
    ("AWS_ACCESS_KEY", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", 0),
    ("AWS_SECRET_KEY", r"(?i)(?<=aws_secret_access_key)[\s\"':=]+[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])", 0),
    ("AWS_SECRET_KEY", r"(?i)(?<=secret_access_key)[\s\"':=]+[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])", 0),
    ("GITHUB_TOKEN", r"\bgh[pousr]_[A-Za-z0-9]{36,}\b", 0),
    ("GITHUB_TOKEN", r"\bgithub_pat_[A-Za-z0-9_]{22,}", 0),
    ("JWT", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
    ("GOOGLE_KEY", r"\bAIza[0-9A-Za-z_-]{35}\b", 0),
    ("SLACK_TOKEN", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0),
))
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
HOME = re.compile(r"(/home/|/Users/|[A-Za-z]:\\\\Users\\\\|[A-Za-z]:\\Users\\)(?!user\b)([^/\\\s\"'`:;,)]+)")
# detect-secrets plugins that match a shape, not a guess from entropy.
DETECTORS = ("AWSKeyDetector", "ArtifactoryDetector", "AzureStorageKeyDetector", "BasicAuthDetector",
             "CloudantDetector", "DiscordBotTokenDetector", "GitHubTokenDetector", "GitLabTokenDetector",
             "IbmCloudIamDetector", "IbmCosHmacDetector", "JwtTokenDetector", "KeywordDetector", "MailchimpDetector",
             "NpmDetector", "OpenAIDetector", "PrivateKeyDetector", "PypiTokenDetector", "SendGridDetector",
             "SlackDetector", "SoftlayerDetector", "SquareOAuthDetector", "StripeDetector",
             "TelegramBotTokenDetector", "TwilioKeyDetector")
KEEP_KEYS = re.compile(r"(?i)(^|_)(id|uuid|signature|encrypted_content|thoughtsignature|type|role|name|model)$|Id$")


def token(kind: str, secret: str) -> str:
    return f"REDACTED_{kind}_{hashlib.sha256(secret.encode('utf-8', 'surrogatepass')).hexdigest()[:6]}"


class Detector:
    """detect-secrets' scan of one string, with its pattern plugins; ``with`` it around a run
    (its settings are set once: setting them is most of its cost)."""

    def __init__(self) -> None:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import transient_settings

        self._scan_line = scan_line
        self._settings = transient_settings({"plugins_used": [{"name": name} for name in DETECTORS]})

    def __enter__(self) -> "Detector":
        self._settings.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._settings.__exit__(*exc)

    def __call__(self, text: str) -> Iterator[str]:
        for line in text.splitlines() or [text]:
            for found in self._scan_line(line):
                if found.secret_value:
                    yield found.secret_value


def detector() -> Detector | None:
    """detect-secrets, or None when it is not installed."""
    try:
        return Detector()
    except ImportError:
        return None


@dataclass(slots=True)
class Redactor:
    """Redacts strings; counts what it replaced, by kind."""

    scan: Callable[[str], Iterator[str]] | None = None
    keep: frozenset[str] = frozenset()          # strings kept whole (the history's call ids)
    counts: Counter = field(default_factory=Counter)
    memo: dict = field(default_factory=dict)    # string → (its redaction, what it counted); shareable

    def text(self, value: str) -> str:
        if value in self.keep:
            return value
        done = self.memo.get(value)
        if done is None:
            before = Counter(self.counts)
            done = (self._text(value), None)
            self.memo[value] = (done[0], self.counts - before)
        else:
            self.counts.update(done[1])
        return done[0]

    def _text(self, value: str) -> str:
        for kind, pattern in SHAPES:
            value = pattern.sub(lambda m, k=kind: self._note(k, m.group()), value)
        if self.scan is not None:
            for secret in sorted(set(self.scan(value)), key=len, reverse=True):
                if len(secret) >= 8 and secret in value and secret not in self.keep:
                    value = value.replace(secret, self._note("SECRET", secret))
        value = EMAIL.sub(lambda m: self._note("EMAIL", m.group()), value)
        return HOME.sub(lambda m: self._home(m), value)

    def _note(self, kind: str, secret: str) -> str:
        self.counts[kind] += 1
        return token(kind, secret)

    def _home(self, m: re.Match[str]) -> str:
        self.counts["HOME_PATH"] += 1
        return f"{m.group(1)}user"


def _json_text(value: str) -> bool:
    if not value[:1] in ("{", "["):
        return False
    try:
        orjson.loads(value)
    except orjson.JSONDecodeError:
        return False
    return True


def cut(value: str) -> str:
    """Long prose cut to its start, its length kept; a string without a space (an id, a
    signature, a payload) or that is JSON is kept whole."""
    if len(value) <= LIMIT or not any(c.isspace() for c in value[:LIMIT]) or _json_text(value):
        return value
    return f"{value[:HEAD]} [… cut by inspector share: {len(value)} characters]"


def walk(value: Any, redact: Redactor, shorten: bool, key: str = "") -> Any:
    if isinstance(value, str):
        out = redact.text(value)
        return cut(out) if shorten and not KEEP_KEYS.search(key) else out
    if isinstance(value, dict):
        return {redact.text(k): walk(v, redact, shorten, k) for k, v in value.items()}
    if isinstance(value, list):
        return [walk(v, redact, shorten, key) for v in value]
    return value


# -- the file as JSON values ---------------------------------------------------------------

@dataclass(slots=True)
class Shape:
    """A JSON document, or JSON Lines (one value a line), and where its entries are."""

    lines: bool
    values: list[Any]               # the document alone, or one value per line
    container: str | None           # the key of the history list in a JSON document

    def entries(self) -> list[Any] | None:
        if self.lines:
            return self.values
        doc = self.values[0]
        if isinstance(doc, list):
            return doc
        if isinstance(doc, dict) and self.container and isinstance(doc.get(self.container), list):
            return doc[self.container]
        return None

    def dump(self, values: list[Any]) -> bytes:
        if self.lines:
            return b"".join(orjson.dumps(v) + b"\n" for v in values)
        return orjson.dumps(values[0], option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)

    def keep(self, values: list[Any], kept: set[int]) -> list[Any]:
        """The values with only the entries ``kept`` (by position)."""
        if self.lines:
            return [v for n, v in enumerate(values) if n in kept]
        doc = values[0]
        if isinstance(doc, list):
            return [[v for n, v in enumerate(doc) if n in kept]]
        doc = dict(doc)
        doc[self.container] = [v for n, v in enumerate(doc[self.container]) if n in kept]
        return [doc]


def shape_of(data: bytes, name: str, container: str | None) -> Shape:
    try:
        return Shape(False, [orjson.loads(data)], container)
    except orjson.JSONDecodeError:
        pass
    values = []
    for number, line in enumerate(data.splitlines(), 1):
        if line.strip():
            try:
                values.append(orjson.loads(line))
            except orjson.JSONDecodeError as exc:
                raise InputError(name, f"share reads JSON and JSON Lines files; line {number}: {exc}") from None
    return Shape(True, values, container)


# -- the verdict -------------------------------------------------------------------------

def verdict(data: bytes, name: str, fmt: str, session: str | None, targets: tuple[str, ...]) -> tuple:
    """What must not change: per --strict off and on, whether the repair changes anything,
    the engine's and the export's events (clause, kind, drop), and every target's problems
    (rule, severity, call id) over the history as it is and over the repair; counted."""
    out = []
    for strict in (False, True):
        o = pipeline.run(data, name, fmt, strict=strict, session=session)
        events = Counter((e.clause, e.kind, e.drop) for e in o.events)
        problems = Counter((t, p.rule, p.severity, p.tool_call_id) for t in targets for p in check(o, t))
        as_is = Counter((t, p.rule, p.severity, p.tool_call_id) for t in targets for p in check(o.imported.messages, t, identity=o.imported.identity))
        out.append((o.format, o.changed, events, problems, as_is))
    return tuple(out)


def involved(data: bytes, name: str, fmt: str, session: str | None, targets: tuple[str, ...]) -> set[int]:
    """The entries (positions in the file's history list, or lines) that an event or a
    problem is about."""
    rows: set[int] = set()
    for strict in (False, True):
        o = pipeline.run(data, name, fmt, strict=strict, session=session)
        rows |= {e.origin for e in o.events if e.origin is not None}
        for t in targets:
            rows |= {p.index for p in check(o.imported.messages, t, identity=o.imported.identity)}
            origins = o.result.origins
            rows |= {origins[p.index] for p in check(o, t) if p.index < len(origins) and origins[p.index] is not None}
    im = pipeline.load(data, name, fmt, session)
    return {im.sources[r].message for r in rows if r < len(im.sources) and isinstance(im.sources[r].message, int)}


def sources(data: bytes, name: str, fmt: str, session: str | None) -> set[int]:
    im = pipeline.load(data, name, fmt, session)
    return {s.message for s in im.sources if isinstance(s.message, int)}


@dataclass(slots=True)
class Shared:
    name: str
    format: str
    data: bytes
    entries: int                # entries of the original
    kept: int                   # entries in the copy
    redacted: Counter
    detector: str

    def summary(self) -> str:
        what = ", ".join(f"{n} {k.lower().replace('_', ' ')}" for k, n in sorted(self.redacted.items())) or "nothing"
        return (f"{self.name}: kept {self.kept} of {self.entries} entries; redacted {what} "
                f"(detectors: {self.detector}); same verdict and repair as the original")


def share(path: str, fmt: str = "auto", session: str | None = None, targets: tuple[str, ...] = TARGETS,
          keep_all: bool = False) -> Shared:
    """The redacted, minimal copy of the case at ``path``, checked to give its verdict."""
    scan = detector()
    with scan if scan is not None else nullcontext():
        return _share(path, fmt, session, targets, keep_all, scan)


def _share(path: str, fmt: str, session: str | None, targets: tuple[str, ...], keep_all: bool,
           scan: Detector | None) -> Shared:
    name = display_name(path)
    data = formats.plain_bytes(read_bytes(path), name)    # a .jsonl.zst is shared as its plain lines
    imported = pipeline.load(data, name, fmt, session)
    fmt = imported.format
    ids = frozenset(str(c) for m in imported.messages if isinstance(m, dict)
                    for c in [m.get("tool_call_id"), *(x.get("id") for x in m.get("tool_calls") or ()
                                                       if isinstance(x, dict))] if c)
    want = verdict(data, name, fmt, session, targets)
    if data.startswith(SQLITE):
        return _share_database(data, name, fmt, session, targets, want, Redactor(scan, ids), len(imported.history),
                               scan is not None)
    shape = shape_of(data, name, imported.container)

    memo: dict = {}

    def attempt(values: list[Any], shorten: bool) -> tuple[bytes, Redactor] | None:
        redactor = Redactor(scan, ids, memo=memo)
        out = shape.dump([walk(v, redactor, shorten) for v in values])
        try:
            same = verdict(out, name, fmt, session, targets) == want
        except Exception:           # the cut copy no longer reads as the format: not this one
            return None
        return (out, redactor) if same else None

    entries = shape.entries()
    total = len(entries) if entries is not None else 1
    made = None
    if entries is not None and not keep_all:
        hot = involved(data, name, fmt, session, targets)
        history = sources(data, name, fmt, session)
        context = CONTEXT
        while made is None and context <= total:
            kept = {n for n in range(total)
                    if n not in history or any(abs(n - h) <= context for h in hot)}
            if len(kept) == total:
                break
            made = attempt(shape.keep(shape.values, kept), True)
            if made is not None:
                total_kept = len(kept)
            context *= 2
    if made is None:
        total_kept = total
        made = attempt(shape.values, True) or attempt(shape.values, False)
    if made is None:
        raise InputError(name, "the redacted copy would not give the same verdict as the original; nothing "
                               "written (a secret or an address sits where a rule reads it)")
    out, redactor = made
    return Shared(Redactor().text(name), fmt, out, total, total_kept, redactor.counts,
                  "built-in key shapes" + (", detect-secrets" if scan else " (detect-secrets is not installed)"))


SQLITE = b"SQLite format 3\x00"


def _cell(value: Any, redact: Redactor) -> Any:
    """One cell of a store: a JSON text walked (and written back compact), other text redacted
    and cut; numbers and blobs as they are."""
    if not isinstance(value, str):
        return value
    if value[:1] in ("{", "["):
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            pass
        else:
            return orjson.dumps(walk(parsed, redact, True)).decode()
    return cut(redact.text(value))


def _share_database(data: bytes, name: str, fmt: str, session: str | None, targets: tuple[str, ...], want: tuple,
                    redactor: Redactor, entries: int, scanned: bool) -> Shared:
    """A session store (SQLite): every text cell of every table redacted in a private copy,
    which is then vacuumed so that no freed page keeps the old text. Every row is kept (a
    store's rows refer to each other)."""
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/case.db"
        with open(path, "wb") as handle:
            handle.write(data)
        db = sqlite3.connect(path)
        try:
            db.execute("PRAGMA journal_mode=DELETE")
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' "
                                               "AND name NOT LIKE 'sqlite_%'")]
            for table in tables:
                quoted = '"' + table.replace('"', '""') + '"'
                columns = [r[1] for r in db.execute(f"PRAGMA table_info({quoted})")]
                rows = db.execute(f"SELECT rowid, * FROM {quoted}").fetchall()
                for row in rows:
                    new = [_cell(v, redactor) for v in row[1:]]
                    if new != list(row[1:]):
                        sets = ", ".join('"' + c.replace('"', '""') + '" = ?' for c in columns)
                        db.execute(f"UPDATE {quoted} SET {sets} WHERE rowid = ?", [*new, row[0]])
            db.commit()
            db.execute("VACUUM")
        finally:
            db.close()
        with open(path, "rb") as handle:
            out = handle.read()
    if verdict(out, name, fmt, session, targets) != want:
        raise InputError(name, "the redacted copy would not give the same verdict as the original; nothing "
                               "written (a secret or an address sits where a rule reads it)")
    return Shared(Redactor().text(name), fmt, out, entries, entries, redactor.counts,
                  "built-in key shapes" + (", detect-secrets" if scanned else " (detect-secrets is not installed)"))


# -- the page ------------------------------------------------------------------------------

STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
pre{background:#f6f6f6;padding:1em;overflow:auto;white-space:pre-wrap}.error{color:#a00}.warning{color:#a60}"""


def page(shared: Shared, targets: tuple[str, ...] = TARGETS) -> str:
    """One self-contained page: what the copy gives at each stage, the verdict per provider,
    and the copy itself. Every text from the case is escaped."""
    e = html.escape
    o = pipeline.run(shared.data, shared.name, shared.format)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>Inspector case: {e(shared.name)}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>Inspector case: {e(shared.name)} ({e(shared.format)})</h1>",
             f"<p>{e(shared.summary())}</p>",
             f"<p>Repair: {e(o.result.summary())}; {'changes the file' if o.changed else 'nothing to change'}.</p>",
             "<h2>Stages</h2><table><tr><th>stage</th><th>entry</th><th>clause</th><th>kind</th><th>what</th></tr>"]
    for stage in o.result.stages:
        if not stage.events:
            parts.append(f"<tr><td>{e(stage.name)}</td><td colspan=4>no change</td></tr>")
        for ev in stage.events:
            parts.append(f"<tr><td>{e(stage.name)}</td><td>{'' if ev.origin is None else f'#{ev.origin}'}</td>"
                         f"<td>{e(str(ev.clause))}</td><td>{e(ev.kind)}</td><td>{e(ev.message)}</td></tr>")
    for ev in o.export_events:
        parts.append(f"<tr><td>export</td><td></td><td>{e(str(ev.clause))}</td><td>{e(ev.kind)}</td>"
                     f"<td>{e(ev.message)}</td></tr>")
    parts.append("</table><h2>Verdict per provider (after the repair)</h2>"
                 "<table><tr><th>target</th><th>rule</th><th>severity</th><th>where</th><th>what</th></tr>")
    for t in targets:
        problems = check(o, t)
        if not problems:
            parts.append(f"<tr><td>{e(t)}</td><td colspan=4>accepted</td></tr>")
        for p in problems:
            parts.append(f"<tr><td>{e(t)}</td><td>{e(p.rule)}</td><td class='{e(p.severity)}'>{e(p.severity)}</td>"
                         f"<td>{e(p.where or '')}</td><td>{e(p.error)}</td></tr>")
    if shared.data.startswith(SQLITE):      # a store: its history as Inspector reads it
        text = orjson.dumps(o.imported.messages, option=orjson.OPT_INDENT_2).decode()
    else:
        text = shared.data.decode("utf-8", "replace")
    parts.append(f"</table><h2>The redacted copy</h2><pre>{e(text)}</pre></body></html>\n")
    return "".join(parts)


def run(args: Any) -> int:
    targets = (args.target,) if args.target else TARGETS
    shared = share(args.file, args.fmt, args.session, targets, args.keep_all)
    atomic_write(args.output, shared.data, inputs=(args.file,))
    if args.html:
        atomic_write(args.html, page(shared, targets).encode(), inputs=(args.file, args.output))
    print(f"wrote {args.output}" + (f" and {args.html}" if args.html else "") + f": {shared.summary()}",
          file=sys.stderr)
    return 0


__all__ = ["SHAPES", "Redactor", "Shared", "page", "run", "share", "verdict"]
