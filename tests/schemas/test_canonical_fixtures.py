"""Every committed event fixture still hashes, MACs and chains to what it stores.

Canonical JSON is what every hash and MAC covers, so a change in how it is written would orphan
every stored event. `fixtures/sealed-events.jsonl` holds events exactly as the chain sealed them
when canonical JSON was still written through CPython's private encoder and pydantic's internals:
every registered event type, floats at the edges of `repr`, big integers, non-ASCII and lone
surrogates, control characters, quotes, and times given in another zone. Its `.macs.json` holds
their MACs under a fixed key. Any other `*.jsonl` of events committed later is checked the same way.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from bridge.audit.event_keys import EventKey
from schemas.chain import canonical_bytes, hash_structured, verify_chain

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("tests", "bench", "schemas", "workflows", "training", "envs", "adapters", "bridge", "docs")


def event_fixtures() -> list[Path]:
    """Every committed JSONL file under the source folders whose lines are events."""
    found = []
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.jsonl")):
            with path.open("rb") as lines:
                if b'"specversion"' in lines.readline():
                    found.append(path)
    return found


def stored_lines(path: Path) -> list[bytes]:
    return [line for line in path.read_bytes().splitlines() if line.strip()]


FIXTURES = event_fixtures()


def test_the_golden_fixture_is_among_the_fixtures_found() -> None:
    golden = REPO / "tests" / "schemas" / "fixtures" / "sealed-events.jsonl"
    assert golden in FIXTURES
    assert len(stored_lines(golden)) >= 100


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_stored_event_hashes_to_its_stored_hash(path: Path) -> None:
    for line in stored_lines(path):
        doc = json.loads(line)
        assert hash_structured(doc) == doc["hash"], doc["id"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_stored_stream_verifies(path: Path) -> None:
    streams: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in stored_lines(path):
        doc = json.loads(line)
        streams[doc["episodeid"]].append(doc)
    for docs in streams.values():
        assert verify_chain(docs, start_seq=docs[0]["seq"]) is None


def test_the_golden_fixture_is_byte_for_byte_as_the_chain_sealed_it() -> None:
    lines = stored_lines(REPO / "tests" / "schemas" / "fixtures" / "sealed-events.jsonl")
    for line in lines:
        doc = json.loads(line)
        assert line == canonical_bytes(doc)[:-1] + f',"hash":"{doc["hash"]}"}}'.encode(), doc["id"]


@pytest.mark.parametrize(
    "path", [p for p in FIXTURES if p.with_suffix(".macs.json").is_file()], ids=lambda p: p.name
)
def test_every_stored_mac_is_the_mac_of_the_events_canonical_bytes(path: Path) -> None:
    stored = json.loads(path.with_suffix(".macs.json").read_text())
    key = EventKey(stored["key_id"], stored["source"], bytes.fromhex(stored["secret_hex"]))
    docs = [json.loads(line) for line in stored_lines(path)]
    assert {doc["id"] for doc in docs} == set(stored["macs"])
    for doc in docs:
        assert key.mac(canonical_bytes(doc)) == stored["macs"][doc["id"]], doc["id"]
