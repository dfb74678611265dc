"""A stateless faust agent, run as a separate worker process by test_stack_faust.py.

It appends every event it sees (key, value, headers) as one JSON line to ECHO_OUT. Settings follow
design.md section 6 for the embedded broker: a short session timeout (Tansu makes each group join
wait half of it), no idempotent or transactional producer (aiokafka's InitProducerId v0 is
rejected), no tables, and no topic declaration (the test creates the topic).
"""

from __future__ import annotations

import json
import os
from typing import Any

import faust

app = faust.App(
    os.environ["ECHO_APP_ID"],
    broker=f"kafka://{os.environ['ECHO_BOOTSTRAP']}",
    broker_session_timeout=3.0,
    broker_heartbeat_interval=0.5,
    consumer_auto_offset_reset="earliest",
    processing_guarantee="at_least_once",
    producer_acks=-1,
    topic_allow_declare=False,
    topic_disable_leader=True,
    web_enabled=False,
    store="memory://",
)
events_topic = app.topic(
    os.environ["ECHO_TOPIC"], key_type=bytes, value_type=bytes, key_serializer="raw", value_serializer="raw"
)


@app.agent(events_topic)
async def echo(stream: Any) -> None:
    async for event in stream.events():
        headers = {name: value.decode() for name, value in (event.headers or {}).items()}
        line = {"key": event.key.decode(), "value": event.value.decode(), "headers": headers}
        with open(os.environ["ECHO_OUT"], "a") as out:
            out.write(json.dumps(line) + "\n")
