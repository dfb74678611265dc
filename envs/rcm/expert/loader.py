"""Loading the expert set from its data files (`envs/rcm/expert/cases/*.json`, package data)."""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

from pydantic import ValidationError

from envs.rcm.expert.model import ExpertCase
from envs.rcm.expert.patches import PatchError


class ExpertCaseError(ValueError):
    """A case file that does not load: bad JSON, a bad field, a patch or world that does not fit."""


def case_files(folder: str = "cases") -> list[Traversable]:
    """The case files of a folder of the package (`cases`, or `pending`), by name."""
    found = files("envs.rcm.expert").joinpath(folder)
    if not found.is_dir():  # `pending/` is empty (and absent from a checkout) once every case plays
        return []
    return sorted((f for f in found.iterdir() if f.name.endswith(".json")), key=lambda f: f.name)


def load_case(source: Traversable) -> ExpertCase:
    """One case; its id must be the file's name, and its world must validate."""
    try:
        case = ExpertCase.model_validate_json(source.read_text(encoding="utf-8"))
        case.world_snapshot  # noqa: B018 - builds and validates the patched world now
    except (ValidationError, PatchError, ValueError) as exc:
        raise ExpertCaseError(f"{source.name}: {exc}") from exc
    if f"{case.id}.json" != source.name:
        raise ExpertCaseError(f"{source.name}: holds case {case.id!r}; name the file {case.id}.json")
    return case


def load_expert_cases() -> list[ExpertCase]:
    """Every case of the expert set, in id order."""
    cases = [load_case(f) for f in case_files()]
    if not cases:
        raise ExpertCaseError("no expert cases found in envs/rcm/expert/cases")
    return cases


def load_pending_cases() -> list[ExpertCase]:
    """Cases the brief decides but the rcm domain logic cannot play yet (`pending/`): each one's
    gold is refused by the tools today. They move to `cases/` when the logic follows the brief."""
    return [load_case(f) for f in case_files("pending")]
