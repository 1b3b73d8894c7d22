"""The engine's shortcuts rest on fixed points: the clause-3 procedure leaves its own output
as it is (so strip skips it when it removed nothing), and the whole engine its own output."""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings

from inspector.engine import normalize
from inspector.engine.model import Recorder
from inspector.engine.pairing import repair

from .strategies import flat_histories, to_text


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(flat_histories())
def test_the_pairing_procedure_leaves_its_own_output_alone(history):
    try:
        messages = orjson.loads(to_text(history))
    except orjson.JSONDecodeError:
        return
    result = normalize(messages)
    stage = result.stage("repair")
    rec = Recorder()
    again, origins = repair(stage.messages, stage.origins, rec)
    assert rec.events == [] and again == stage.messages and origins == stage.origins
    rerun = normalize(result.messages)
    assert [e for e in rerun.events if e.drop or e.kind == "result-synthesized"] == []
    assert rerun.messages == result.messages
