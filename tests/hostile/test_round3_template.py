"""Round 3, R3-13: ``check --template`` renders in jinja2's sandbox *and* within bounds: a
template that loops for hours, asks for a million lipsum paragraphs, multiplies a string to
10 GB or writes a huge prompt is stopped and reported as the template's refusal, in one
render (no bisection step renders it again). Reproducer: ``repro.sh`` R3-13.

Each case runs the command line in a child process with its own memory limit and a deadline,
so a regression fails here instead of hanging or exhausting the machine."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from extras import scaled

from inspector.bundled import samples_dir
from inspector.targets import template as T

from .harness import RUNS

HISTORY = samples_dir() / "03-crash-parallel-calls.json"
SUITE = "round 3: bounded templates"
CASES = {
    "nested-loops": "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
    "lipsum": "{{ lipsum(1000000) }}",
    "huge-product": "{{ 'x' * 10**10 }}",
    "huge-filter": "{{ 'x'|center(10000000000) }}",
    "huge-output": "{% for a in range(100000) %}{{ 'x' * 100000 }}{% endfor %}",
}


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_template_without_bounds_is_stopped(tmp_path: Path, case: str):
    source = tmp_path / f"{case}.jinja"
    source.write_text(CASES[case])
    # The real 20 s bound in CI; a 4 s one (INSPECTOR_TEMPLATE_SECONDS) in the README's run.
    bound = scaled(4.0, T.RENDER_SECONDS)
    env = {**os.environ, "INSPECTOR_TEMPLATE_SECONDS": f"{bound:g}"}
    start = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "inspector", "check", str(HISTORY), "--template", str(source)],
                              capture_output=True, text=True, timeout=bound + 40, preexec_fn=_limit, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: still rendering after {bound + 40:g} s")
    RUNS[SUITE] += 1
    took = time.monotonic() - start
    assert done.returncode == 1, (done.returncode, done.stderr[-500:])
    assert "Traceback" not in done.stderr and "template-raises" in done.stdout, done.stdout
    assert took < bound + 20, took          # one bounded render, not one per bisection step


def test_a_bounded_failure_is_not_bisected(monkeypatch):
    """A bound reached once is the verdict: the row is the history's last, rendered once."""
    renders = []
    real = T._failure

    def counting(*args, **kwargs):
        renders.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(T, "_failure", counting)
    template = T.ChatTemplate("t", {"default": CASES["huge-output"]})
    messages = [{"role": "user", "content": str(i)} for i in range(64)]
    error, prefix = T._verdict(template, messages, None, limit=1 << 20)
    assert error and "MB" in error and prefix == len(messages) and len(renders) == 1


def test_a_refusal_is_still_bisected_to_its_row():
    template = T.ChatTemplate("t", {"default": "{% for m in messages %}{% if m.content == 'bad' %}"
                                               "{{ raise_exception('no bad rows') }}{% endif %}{% endfor %}"})
    messages = [{"role": "user", "content": c} for c in ("a", "b", "bad", "c", "d")]
    assert T._verdict(template, messages, None) == ("no bad rows", 3)
