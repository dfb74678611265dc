"""The chain's fast paths lean on CPython's private JSON encoder and on pydantic's model internals;
these tests fail loudly the day either changes, instead of letting the seal go slow or wrong."""

from __future__ import annotations

import copy
import json
import pickle
import platform

import pytest
from hypothesis import given, settings

import schemas.chain
from schemas import Event
from schemas.chain import SealedEvent
from schemas.events import Escalated
from tests.schemas.strategies import sealed_events


@pytest.mark.skipif(platform.python_implementation() != "CPython", reason="the C encoder is CPython's")
def test_the_canonical_encoder_is_cpythons_c_encoder() -> None:
    # json.encoder.c_make_encoder is private: without it canonical_json falls back to the pure-Python
    # encoder, correct but several times slower on the agent's path
    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    assert c_make_encoder is not None
    assert type(schemas.chain._encode_canonical) is c_make_encoder


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


def test_the_sealed_payload_is_what_model_dump_writes() -> None:
    # the seal serialises `data` with its pydantic serializer directly, skipping model_dump's wrapper
    data = Escalated(reason="r", trigger="rule", recommendation="x", queue=None)
    assert data.__pydantic_serializer__.to_python(data, mode="json") == data.model_dump(mode="json")
