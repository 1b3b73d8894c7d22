"""The dataset health report: what went wrong upstream, added up over every record.

Counts are sums of what the workers read off the engine's events; labels, clauses and
meanings come from the engine's ``KINDS`` and ``CLAUSES`` tables. Everything kept here
is bounded (a histogram, the top few records, the first few failures), so the report
costs the same memory for a thousand records as for a billion. Partial reports (one per
Dask partition) merge by addition.
"""

from __future__ import annotations

import bisect
import heapq
from collections import Counter
from typing import Any

from ..engine import CLAUSES, KINDS, RULE_ID

TOP = 10
FIRST_FAILURES = 10
RESUME_LISTED = 50       # session records whose resume verdict the report lists (all are counted)
MAX_REASONS = 200
BUCKETS = ((0, 0), (1, 1), (2, 2), (3, 4), (5, 9), (10, 19), (20, 49), (50, None))


class Health:
    def __init__(self, inputs: list[str] | None = None):
        self.inputs = list(inputs or [])
        self.read = 0
        self.changed = 0
        self.failed = 0
        self.kinds: dict[tuple[str, str], list[int]] = {}
        self.histogram: Counter[int] = Counter()
        self._top: list[tuple[int, int, str, int | None, int | None]] = []  # min-heap of (drops, -ordinal, source, line, row)
        self.reasons: Counter[str] = Counter()
        self.first_failures: list[dict[str, Any]] = []  # the earliest failures, in input order
        self._first_keys: list[int] = []                 # and their ordinals (record numbers)
        # --target: what the provider would still reject, (target, rule, severity) -> [problems, records]
        self.problems: dict[tuple[str, str, str], list[int]] = {}
        self.rejected = 0                                # records with at least one error left
        # Agent session records: the resume verdict (inspector.verdict), counted by status,
        # and the first few listed as ``check`` says them: (ordinal, entry)
        self.resumes: Counter[str] = Counter()
        self.resume_rows: list[tuple[int, dict[str, Any]]] = []
        self.seconds = 0.0
        # Parts of an input that were not read at all (a Parquet row group past reading), one
        # sentence each naming file and part: said even with -q, as an unreadable file is
        self.unread: list[str] = []

    # -- adding up ------------------------------------------------------------------
    # A worker counts its task's records into a Health of its own (ordinals from 0, lines
    # from the task's first line); the parent shifts each into place and merges it. Dask
    # partitions are merged the same way: one way of adding up, whatever ran the records.
    def add_record(self, drops: int, kinds: dict[tuple[str, str], int], changed: bool,
                   source: str, line: int | None, row: int | None = None, problems: list | None = None) -> None:
        """Count one processed record: its drops, its events by (clause, kind), and with
        ``--target`` the problems the provider would still find. ``row`` is a Parquet row's
        number in its file (``line`` is then None)."""
        ordinal = self.read
        self.read += 1
        self.changed += changed
        for key, events in kinds.items():
            tally = self.kinds.get(key)
            if tally is None:
                tally = self.kinds[key] = [0, 0]
            tally[0] += events
            tally[1] += 1
        self.histogram[drops] += 1
        if problems:
            self.add_problems(problems)
        if drops:
            item = (drops, -ordinal, source, line, row)
            if len(self._top) < TOP:
                heapq.heappush(self._top, item)
            elif item > self._top[0]:
                heapq.heapreplace(self._top, item)

    def add_resume(self, source: str, session: str | None, verdict: Any) -> None:
        """One session's resume verdict (``inspector.verdict.ResumeVerdict``), rendered only:
        its status, its words, the rules refused and the agent's claims."""
        self.resumes[verdict.status] += 1
        if len(self.resume_rows) < RESUME_LISTED:
            self.resume_rows.append((self.read, {"source": source, "session": session, "status": verdict.status,
                                                 "verdict": verdict.head(), "refused": list(verdict.refused_rules),
                                                 "claims": list(verdict.claimed), "sentence": verdict.sentence()}))

    def add_problems(self, problems: list) -> None:
        """One record's provider problems (``targets.Problem``), counted by rule."""
        seen = set()
        for p in problems:
            key = (p.target, p.rule, p.severity)
            tally = self.problems.setdefault(key, [0, 0])
            tally[0] += 1
            if key not in seen:
                seen.add(key)
                tally[1] += 1
        self.rejected += any(p.severity == "error" for p in problems)

    def add_failed(self, entry: dict[str, Any]) -> None:
        """Count one record that could not be processed (``entry`` as in the errors file)."""
        ordinal = self.read
        self.read += 1
        self.add_failure(entry, ordinal)

    def add_failure(self, entry: dict[str, Any], ordinal: int) -> None:
        self.failed += 1
        reason = entry["reason"]
        if reason in self.reasons or len(self.reasons) < MAX_REASONS:
            self.reasons[reason] += 1
        else:
            self.reasons["(other reasons)"] += 1
        if len(self.first_failures) < FIRST_FAILURES or ordinal < self._first_keys[-1]:
            at = bisect.bisect(self._first_keys, ordinal)
            self._first_keys.insert(at, ordinal)
            self.first_failures.insert(at, entry)
            del self._first_keys[FIRST_FAILURES:], self.first_failures[FIRST_FAILURES:]

    def merge(self, other: Health) -> None:
        """Add a partial report (its ordinals and lines made global first: see ``shift``)."""
        self.read += other.read
        self.changed += other.changed
        for key, (events, records) in other.kinds.items():
            tally = self.kinds.setdefault(key, [0, 0])
            tally[0] += events
            tally[1] += records
        self.histogram.update(other.histogram)
        for key, (problems, records) in other.problems.items():
            tally = self.problems.setdefault(key, [0, 0])
            tally[0] += problems
            tally[1] += records
        self.rejected += other.rejected
        self.resumes.update(other.resumes)
        self.resume_rows = sorted(self.resume_rows + other.resume_rows, key=lambda r: r[0])[:RESUME_LISTED]
        for item in other._top:
            if len(self._top) < TOP:
                heapq.heappush(self._top, item)
            elif item > self._top[0]:
                heapq.heapreplace(self._top, item)
        self.failed += other.failed
        self.unread += other.unread
        for reason, n in other.reasons.items():
            known = reason in self.reasons or len(self.reasons) < MAX_REASONS
            self.reasons[reason if known else "(other reasons)"] += n
        pairs = sorted(zip(self._first_keys + other._first_keys, self.first_failures + other.first_failures),
                       key=lambda pair: pair[0])[:FIRST_FAILURES]
        self._first_keys = [k for k, _ in pairs]
        self.first_failures = [e for _, e in pairs]

    def shift(self, source: str, lines: int, ordinals: int) -> None:
        """Make a partition's local line numbers and ordinals global (Dask partitions start
        mid-file and only learn their offsets once every earlier partition has counted)."""
        self._top = [(d, o - ordinals, s, (ln + lines if s == source and ln is not None else ln), r)
                     for d, o, s, ln, r in self._top]
        heapq.heapify(self._top)
        for entry in self.first_failures:
            shift_line(entry, source, lines)
        self._first_keys = [k + ordinals for k in self._first_keys]
        self.resume_rows = [(k + ordinals, e) for k, e in self.resume_rows]

    def main_reason(self) -> str:
        """Why records failed, for one line: the commonest reason, and how many others there are."""
        if not self.reasons:
            return ""
        (reason, n), others = self.reasons.most_common(1)[0], len(self.reasons) - 1
        return reason + (f" (and {others} other reason{'s' if others != 1 else ''})" if others else "")

    def summary(self, output: str) -> str:
        """The one line printed at the end of a run (the table aside)."""
        rate = f", {self.read / self.seconds:,.0f} records/s" if self.seconds > 0 else ""
        return (f"batch: {self.read:,} records ({self.changed:,} changed, {self.unchanged:,} unchanged, "
                f"{self.failed:,} failed) in {self.seconds:.1f} s{rate} -> {output}")

    # -- reading out ---------------------------------------------------------------------
    @property
    def unchanged(self) -> int:
        return self.read - self.changed - self.failed

    @property
    def most_drops(self) -> list[dict[str, Any]]:
        return [{"source": s, "line": ln, "drops": d} if r is None else {"source": s, "row": r, "drops": d}
                for d, _, s, ln, r in sorted(self._top, reverse=True)]

    def kind_rows(self) -> list[dict[str, Any]]:
        """Every kind the engine knows (zero counts included, so the table's shape never
        changes), then any (clause, kind) pair the events carried that the table lacks."""
        rows = []
        seen = set()
        for name, kind in KINDS.items():
            keys = [k for k in self.kinds if k[1] == name] or [(kind.clause, name)]
            for key in sorted(keys):
                seen.add(key)
                events, records = self.kinds.get(key, (0, 0))
                rows.append({"kind": name, "clause": key[0], "label": kind.label, "drop": kind.drop,
                             "events": events, "records": records, "meaning": kind.meaning})
        for key in sorted(set(self.kinds) - seen):
            events, records = self.kinds[key]
            rows.append({"kind": key[1], "clause": key[0], "label": key[1], "drop": None,
                         "events": events, "records": records, "meaning": ""})
        return rows

    def distribution(self) -> dict[str, Any]:
        total = sum(self.histogram.values())
        keys = sorted(self.histogram)
        out: dict[str, Any] = {"histories": total,
                               "histogram": {str(k): self.histogram[k] for k in keys}}
        if total:
            out["mean"] = round(sum(k * n for k, n in self.histogram.items()) / total, 3)
            for name, percent in (("median", 50), ("p90", 90), ("p99", 99)):
                out[name] = _quantile(self.histogram, keys, total, percent)
            out["max"] = keys[-1]
        return out

    def problem_rows(self) -> list[dict[str, Any]]:
        """What ``--target`` found left, by rule: most problems first."""
        return [{"target": t, "rule": r, "severity": sev, "problems": n, "records": k}
                for (t, r, sev), (n, k) in sorted(self.problems.items(), key=lambda item: (-item[1][0], item[0]))]

    def to_json(self) -> dict[str, Any]:
        # The engine's own drop counts (result.dropped), added up: not re-derived from kinds.
        drop_events = sum(k * n for k, n in self.histogram.items())
        report = {
            "rule": RULE_ID,
            "inputs": self.inputs,
            "records": {"read": self.read, "changed": self.changed,
                        "unchanged": self.unchanged, "failed": self.failed},
            "events": {"total": sum(v[0] for v in self.kinds.values()), "drops": drop_events},
            "kinds": self.kind_rows(),
            "drops_per_history": self.distribution(),
            "most_drops": self.most_drops,
            "failures": {"reasons": dict(self.reasons.most_common()), "first": self.first_failures},
            "seconds": round(self.seconds, 3),
            "records_per_second": round(self.read / self.seconds, 1) if self.seconds else None,
        }
        if self.problems:   # only with --target
            report["left"] = {"rejected": self.rejected, "rules": self.problem_rows()}
        if self.resumes:    # only for agent session files
            report["resume"] = {"counts": dict(self.resumes), "sessions": [e for _, e in self.resume_rows]}
        return report

    def render(self) -> str:
        """The report as a plain-text table: readable in a terminal, a log or an email."""
        read = self.read
        lines = [
            f"Dataset health ({RULE_ID}): {read:,} records read: {self.changed:,} changed, "
            f"{self.unchanged:,} unchanged, {self.failed:,} failed{_pct(self.failed, read)}",
        ]
        if self.seconds:
            lines.append(f"in {self.seconds:.1f} s, {read / self.seconds:,.0f} records/s")
        shown = [row for row in self.kind_rows() if row["events"] or row["drop"]]
        # Columns as wide as their longest entry, and a space apart: a clause such as
        # strict:early-result or import:claude-code never runs into the kind beside it.
        cw = max([len("clause"), *(len(row["clause"]) for row in shown)]) + 1
        kw = max([len("kind"), *(len(row["kind"]) for row in shown)]) + 1
        lines += ["", "Events by kind (from the engine's events)",
                  f"  {'clause':<{cw}}{'kind':<{kw}}{'':<6}{'events':>10}{'histories':>11}  meaning"]
        for row in shown:
            tag = "drop" if row["drop"] else ""
            lines.append(f"  {row['clause']:<{cw}}{row['kind']:<{kw}}{tag:<6}{row['events']:>10,}"
                         f"{row['records']:>11,}  {row['meaning']}")
        quiet = [r["kind"] for r in self.kind_rows() if not r["events"] and not r["drop"]]
        if quiet:
            lines.append(f"  (no events of: {', '.join(quiet)})")
        lines.append("  clauses: " + "; ".join(f"{c.number} {c.title.lower()}" for c in CLAUSES.values()))
        if self.problems:
            lines += ["", f"Left for the provider (--target): {self.rejected:,} records would still be rejected",
                      f"  {'severity':<9}{'rule':<34}{'problems':>10}{'histories':>11}"]
            for row in self.problem_rows():
                lines.append(f"  {row['severity']:<9}{row['target'] + ':' + row['rule']:<34}{row['problems']:>10,}"
                             f"{row['records']:>11,}")
        if self.resumes:
            counts = ", ".join(f"{n:,} {status}" for status, n in sorted(self.resumes.items()))
            lines += ["", f"Resume verdicts (agent session files): {counts}"]
            lines += [f"  {e['source']}" + (f" --session {e['session']}" if e["session"] else "")
                      + f": {e['sentence']}" for _, e in self.resume_rows]
        dist = self.distribution()
        lines += ["", f"Drops per history ({dist['histories']:,} histories)"]
        if dist["histories"]:
            width = 40
            counts = [(label, sum(n for k, n in self.histogram.items() if lo <= k and (hi is None or k <= hi)))
                      for label, lo, hi in _buckets()]
            peak = max(n for _, n in counts) or 1
            for label, n in counts:
                bar = "#" * round(width * n / peak) if n else ""
                lines.append(f"  {label:>6}  {bar:<{width}} {n:,}{_pct(n, dist['histories'])}")
            lines.append(f"  mean {dist['mean']}, median {dist['median']}, p90 {dist['p90']}, "
                         f"p99 {dist['p99']}, max {dist['max']}")
        if self._top:
            lines += ["", "Most drops"]
            for entry in self.most_drops:
                lines.append(f"  {entry['drops']:>6}  {_where(entry)}")
        if self.failed:
            lines += ["", f"Failures ({self.failed:,})"]
            for reason, n in self.reasons.most_common(8):
                lines.append(f"  {n:>6,}  {reason}")
            if len(self.reasons) > 8:
                lines.append(f"  ({len(self.reasons) - 8} more reasons in the JSON report)")
            lines.append("  first: " + ", ".join(_where(e) for e in self.first_failures[:3]))
        return "\n".join(lines) + "\n"


def shift_line(entry: dict[str, Any], source: str, lines: int) -> None:
    """Make an errors-file entry's line file-wide: records of ``source`` were numbered from
    the start of their task (or partition), which began after ``lines`` lines."""
    if lines and entry["source"] == source and entry["line"] is not None:
        entry["line"] += lines


def _buckets():
    for lo, hi in BUCKETS:
        label = f"{lo}" if lo == hi else f"{lo}+" if hi is None else f"{lo}-{hi}"
        yield label, lo, hi


def _quantile(histogram: Counter[int], keys: list[int], total: int, percent: int) -> int:
    """Nearest-rank percentile from the histogram: exact, without keeping every value."""
    rank = max(1, -(-percent * total // 100))
    seen = 0
    for k in keys:
        seen += histogram[k]
        if seen >= rank:
            return k
    return keys[-1]


def _pct(n: int, total: int) -> str:
    return f" ({100 * n / total:.1f}%)" if total else ""


def _where(entry: dict[str, Any]) -> str:
    if entry.get("row") is not None:                 # a Parquet row (its line, if any, is inside its text)
        return f"{entry['source']} row {entry['row']}"
    return entry["source"] if entry.get("line") is None else f"{entry['source']}:{entry['line']}"
