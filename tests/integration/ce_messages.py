"""CloudEvents binary-mode Kafka messages for the stack tests: `ce_*` headers, key, JSON value."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime


def binary_mode_message(
    episode_id: str, data: dict[str, object]
) -> tuple[bytes, bytes, list[tuple[str, bytes]]]:
    """(key, value, headers) of one event as design.md section 3 puts it on Kafka."""
    headers = {
        "ce_specversion": "1.0",
        "ce_id": str(uuid.uuid4()),
        "ce_source": "loopline/tests",
        "ce_type": "loopline.episode.started.v1",
        "ce_subject": episode_id,
        "ce_time": datetime.now(UTC).isoformat(),
        "ce_episodeid": episode_id,
        "ce_seq": "0",
        "content-type": "application/json",
    }
    return episode_id.encode(), json.dumps(data).encode(), [(k, v.encode()) for k, v in headers.items()]
