"""Create Kafka topics explicitly before anything produces to them.

On the embedded broker, auto-created topics lose acknowledged messages (loopline.stack.tansu_compat,
fact 1), so every deployable that produces makes sure its topics exist first. An existing topic is
fine; any other failure is raised with the broker's words.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class TopicError(RuntimeError):
    """A topic could not be created."""


def ensure_topics(
    client_config: dict[str, Any], names: Iterable[str], *, partitions: int = 1, timeout_s: float = 15.0
) -> list[str]:
    """Create each missing topic with `partitions` partitions (replication 1 on the embedded broker)."""
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import AdminClient
    from confluent_kafka.cimpl import NewTopic  # the documented confluent_kafka.admin path lacks a stub

    wanted = list(dict.fromkeys(names))
    if not wanted:
        return []
    admin = AdminClient(client_config)
    futures = admin.create_topics(
        [NewTopic(name, partitions, 1) for name in wanted], request_timeout=timeout_s
    )
    for name, future in futures.items():
        try:
            future.result(timeout=timeout_s)
        except KafkaException as exc:
            error = exc.args[0]
            if error.code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise TopicError(f"cannot create topic {name}: {error.str()}") from exc
    return wanted
