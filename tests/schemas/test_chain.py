"""The per-episode hash chain detects edits, removals, reorders and foreign events."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import EpisodeChain, Event, to_json, verify_chain
from schemas.chain import SealedEvent, canonical_bytes, canonical_json, hash_structured
from schemas.codec import to_structured
from schemas.events import Escalated
from tests.schemas.builders import episode
from tests.schemas.strategies import sealed_events


def test_an_untouched_chain_verifies() -> None:
    assert verify_chain(episode()) is None
    assert verify_chain(to_structured(e) for e in episode()) is None


def test_editing_one_event_names_that_event() -> None:
    docs = [json.loads(to_json(e)) for e in episode()]
    docs[2]["data"]["call"]["arguments"]["i"] = 99
    broken = verify_chain(docs)
    assert broken is not None
    assert (broken.index, broken.seq, broken.event_id) == (2, 2, docs[2]["id"])
    assert "edited" in broken.reason


def test_editing_an_event_and_its_hash_breaks_the_next_link() -> None:
    from schemas.chain import hash_structured

    docs = [json.loads(to_json(e)) for e in episode()]
    docs[1]["data"]["call"]["name"] = "post_write_off"
    docs[1]["hash"] = hash_structured(docs[1])
    broken = verify_chain(docs)
    assert broken is not None and broken.seq == 2
    assert "prevhash" in broken.reason


def test_a_removed_event_is_a_gap() -> None:
    events = episode()
    del events[1]
    broken = verify_chain(events)
    assert broken is not None and broken.index == 1
    assert "gap" in broken.reason


def test_reordered_events_are_caught() -> None:
    events = episode()
    events[1], events[2] = events[2], events[1]
    assert verify_chain(events) is not None


def test_an_event_from_another_episode_is_caught() -> None:
    events = episode()
    events[2] = episode(episode_id="ep-2")[2]
    broken = verify_chain(events)
    assert broken is not None and "stream" in broken.reason


def test_a_resumed_chain_continues_the_stream() -> None:
    first = episode()
    last = first[-1]
    chain = EpisodeChain(
        "ep-1", tenant="acme", source="loopline://test", next_seq=last.seq + 1, prevhash=last.hash
    )
    later = chain.append(Escalated(reason="appeal denied", trigger="rule"))
    assert later.seq == len(first)
    assert verify_chain([*first, later]) is None
    assert verify_chain([later], start_seq=later.seq) is None


def test_a_chain_refuses_invalid_stream_attributes_up_front() -> None:
    import pytest

    with pytest.raises(ValueError, match="tenant"):
        EpisodeChain("ep-1", tenant="no spaces allowed", source="loopline://test")
    with pytest.raises(ValueError, match="prevhash"):
        EpisodeChain("ep-1", tenant="acme", source="loopline://test", prevhash="not-a-hash")
    chain = EpisodeChain("ep-1", tenant="acme", source="loopline://test")
    with pytest.raises(ValueError, match="subject"):
        chain.append(Escalated(reason="r", trigger="rule"), subject="x" * 300)
    for unreadable in (
        "",
        "tab\there",
        "nul\x00",
        "newline at the end\n",
    ):  # the envelope's decoder would refuse them
        with pytest.raises(ValueError, match="subject"):
            chain.append(Escalated(reason="r", trigger="rule"), subject=unreadable)
    assert chain.next_seq == 0  # a refused append takes no seq


def test_appended_events_equal_what_the_validating_decoder_reads() -> None:
    from schemas import from_json

    for event in episode():
        assert from_json(to_json(event)) == event


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_canonical_json_is_sorted_compact_ascii_json(value: Any) -> None:
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    assert canonical_json(value) == expected


@settings(max_examples=200, deadline=None)
@given(sealed=sealed_events())
def test_a_sealed_doc_is_the_structured_event_and_verifies_as_stored(sealed: SealedEvent) -> None:
    stored = json.loads(sealed.doc)
    assert stored == to_structured(sealed.event)
    assert hash_structured(stored) == sealed.event.hash
    assert sealed.doc == canonical_bytes(stored)[:-1] + f',"hash":"{sealed.event.hash}"}}'.encode()
    assert sealed.doc.isascii()


printable = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="".join(map(chr, [*range(32), 127]))),
    min_size=1,
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(
    episode_id=printable,
    source=printable,
    subject=st.none() | printable,
    traceparent=st.none() | st.text(max_size=64),
    event_id=st.text(min_size=1, max_size=40),
    reason=st.text(max_size=30),
)
def test_the_seal_writes_exactly_the_canonical_json_of_hostile_attribute_text(
    episode_id: str, source: str, subject: str | None, traceparent: str | None, event_id: str, reason: str
) -> None:
    # quotes, backslashes, non-ASCII and control characters in any attribute must come out of the
    # seal as canonical_json writes them
    chain = EpisodeChain(episode_id, tenant="t-1", source=source, id_factory=lambda: event_id)
    for _ in range(2):
        event, doc = chain.seal(
            Escalated(reason=reason, trigger="rule"), subject=subject, traceparent=traceparent
        )
        stored = json.loads(doc)
        assert stored == to_structured(event)
        assert doc == canonical_bytes(stored)[:-1] + f',"hash":"{event.hash}"}}'.encode()
        assert hash_structured(stored) == event.hash
    assert verify_chain([json.loads(to_json(e)) for e in (event,)], start_seq=1) is None


@settings(max_examples=100, deadline=None)
@given(sealed=sealed_events())
def test_an_event_the_chain_builds_is_indistinguishable_from_one_pydantic_validates(
    sealed: SealedEvent,
) -> None:
    built = sealed.event
    validated = Event.model_validate(built.model_dump())
    assert built == validated and validated == built
    assert built.model_fields_set == validated.model_fields_set
    assert (
        built.model_extra == validated.model_extra
        and built.__pydantic_private__ == validated.__pydantic_private__
    )
    assert built.model_dump_json() == validated.model_dump_json()
    assert copy.deepcopy(built) == built and pickle.loads(pickle.dumps(built)) == built
    assert built.model_copy(update={"subject": "CLM-9"}).subject == "CLM-9"
