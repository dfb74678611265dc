"""X12 835: what the sandbox writes validates against the 005010X221A1 map (pyx12) and parses
back into exactly the remittances it came from."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.rcm import World
from adapters.rcm.models import Adjustment
from adapters.rcm.x12 import X12ParseError, parse_835, validate_835, write_835


def _interchange(world: World) -> str:
    remittances = sorted(world.remittances.values(), key=lambda r: r.remittance_id)
    names = {p.payer_id: p.name for p in world.payers.values()}
    return write_835(remittances, names, world.practice, world.today)


def test_every_seed_remittance_round_trips_through_835_text(world: World) -> None:
    remittances, names = parse_835(_interchange(world))
    assert remittances == sorted(world.remittances.values(), key=lambda r: r.remittance_id)
    assert names == {p.payer_id: p.name for p in world.payers.values() if p.payer_id in names}


def test_generated_835_passes_pyx12_validation_against_005010x221a1(world: World) -> None:
    assert validate_835(_interchange(world)) == []


def test_835s_of_worlds_the_task_generator_builds_pass_pyx12() -> None:
    from envs.rcm.cases import BASE, PAYER_FOR
    from envs.rcm.cases_edge import EDGE, EdgeSpec
    from envs.rcm.tasks import draw

    builders: list[EdgeSpec] = [(build, name, PAYER_FOR.get(name)) for name, build in BASE.items()]
    builders += [(build, name, payers) for name, (build, _, payers) in EDGE.items()]
    for build, name, payers in builders:
        for index in range(3):
            world = draw("x12", 0, name, index, build, payers).world
            assert validate_835(_interchange(world)) == [], (name, index)


def test_pyx12_rejects_the_837_only_ci_filing_indicator_in_an_835(world: World) -> None:
    text = _interchange(world).replace("*12*ACME", "*CI*ACME", 1)
    assert "*CI*ACME" in text
    assert any("CLP06" in p for p in validate_835(text))


def test_pyx12_validation_catches_an_invalid_835(world: World) -> None:
    text = _interchange(world).replace("CLP*CLM-1018*1*", "CLP*CLM-1018*Q*", 1)
    problems = validate_835(text)
    assert any("CLP02" in p for p in problems)


def test_835_text_is_deterministic_and_uses_the_world_date(world: World) -> None:
    text = _interchange(world)
    assert text == _interchange(world)
    assert "*250616*1200*" in text.splitlines()[0]


def test_delimiters_inside_data_cannot_break_segments(world: World) -> None:
    remit = world.remittances["ERA10180608"]
    tricky = remit.model_copy(update={"patient_last_name": "O*Neil~Smith:Jr"})
    (back,), _ = parse_835(write_835([tricky], {}, world.practice, world.today))
    assert back.patient_last_name == "O Neil Smith Jr"
    assert back.lines == remit.lines


def test_more_than_six_adjustments_of_one_group_split_across_cas_segments(world: World) -> None:
    remit = world.remittances["ERA10180608"]
    many = tuple(Adjustment(group_code="CO", reason_code=str(c), amount=1.0) for c in range(40, 48))
    line = remit.lines[0].model_copy(update={"adjustments": many})
    changed = remit.model_copy(update={"lines": (line,)})
    text = write_835([changed], {}, world.practice, world.today)
    assert sum(seg.startswith("CAS*CO") for seg in text.splitlines()) == 2
    assert parse_835(text)[0][0].lines[0].adjustments == many


@given(st.integers(min_value=0, max_value=10_000_000))
def test_amounts_survive_the_text_format(cents: int) -> None:
    from adapters.rcm.x12 import _amount

    value = cents / 100
    assert float(_amount(value)) == value


def test_parser_rejects_text_that_is_not_an_835(world: World) -> None:
    with pytest.raises(X12ParseError, match="ISA"):
        parse_835("not x12 at all")
    with pytest.raises(X12ParseError, match="ISA"):
        parse_835("ISA*00*" + "x" * 120 + "~")
    with pytest.raises(X12ParseError, match="837"):
        parse_835(_interchange(world).replace("ST*835*", "ST*837*", 1))


def test_a_reversal_and_its_correction_travel_on_one_835_with_the_take_back_in_a_plb(world: World) -> None:
    first, reversal, corrected = world.remittances_for("CLM-1121")
    text = write_835([first, reversal, corrected], {}, world.practice, world.today)
    assert text.count("ST*835*") == 2
    assert "CLP*CLM-1121*22*-240*-170**14*HRTL25112100~" in text
    assert "PLB*1316246810*20251231*FB:HRTL25112100*-20~" in text
    assert "BPR*H*0*C*NON" in text  # -170 + 150 paid, the -20 carried forward: a zero check
    assert validate_835(text) == []
    assert parse_835(text)[0] == [first, reversal, corrected]


def test_the_writer_refuses_a_shared_trace_it_could_not_read_back(world: World) -> None:
    _, reversal, corrected = world.remittances_for("CLM-1121")
    with pytest.raises(ValueError, match="at least two"):
        write_835([corrected], {}, world.practice, world.today)
    renamed = corrected.model_copy(update={"remittance_id": "ERA1121R-9"})
    with pytest.raises(ValueError, match="must be"):
        write_835([reversal, renamed], {}, world.practice, world.today)
    early = reversal.model_copy(update={"provider_adjustments": corrected.provider_adjustments})
    with pytest.raises(ValueError, match="last payment"):
        write_835([early, corrected], {}, world.practice, world.today)
