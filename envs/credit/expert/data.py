"""Expert cases written as data (`cases/*.json`): the hand package as changes to `build.Hand`, the
hand-worked figures and every acceptable decision, the wrong moves, and the source the case rests
on. Each file becomes an `ExpertCase` scored by `credit.v1` like the cases written in Python.

A file holds `id`, `title`, `family`, `rule`, `source`, optional `today` and `policy` (changes to
`FundPolicy`), `hand` (changes to `Hand`: amounts in millions where the key ends in `_m`),
`right` (`classes`, `figures`, `conditions`, `max_amount_m`, `escalation_reasons`, `ask_first`,
`may_ask`), `golds` (one per acceptable class: its conditions and reasons) and `wrong` (moves
with why they are wrong).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from adapters.credit.models import AddBack, BorrowerAnswer, ExistingDebt, FundPolicy, SourcesAndUses
from envs.credit.assess import Assessment
from envs.credit.expert.build import Hand, M, package, quarter
from envs.credit.expert.model import Decision, ExpertCase, Move, figures, move

CASES = Path(__file__).with_name("cases")


class CaseFileError(ValueError):
    """A case file that does not describe a case."""


def _hand(raw: dict[str, Any]) -> Hand:
    fields: dict[str, Any] = {}
    for key, value in raw.items():
        if key.endswith("_m"):
            name = key.removesuffix("_m")
            fields[name] = tuple(v * M for v in value) if isinstance(value, list) else value * M
        elif key == "addbacks":
            fields[key] = tuple(AddBack.model_validate(a) for a in value)
        elif key == "debts":
            fields[key] = tuple(ExistingDebt.model_validate(d) for d in value)
        elif key == "covenants":
            fields[key] = tuple((m, float(level)) for m, level in value)
        elif key == "sources_and_uses":
            fields[key] = SourcesAndUses.model_validate(value)
        elif key in ("springing", "cures"):
            fields[key] = tuple((m, v) for m, v in value)
        elif key == "customer_contract_ends":
            fields[key] = date.fromisoformat(value)
        elif key == "restated":
            fields[key] = (value[0], date.fromisoformat(value[1]), value[2] * M)
        elif key != "answers":
            fields[key] = value
    hand = Hand(**fields)
    answers = []
    for a in raw.get("answers", ()):
        a = dict(a)
        period, relabel = a.pop("quarter", None), a.pop("as", None)
        restates = a.pop("restates", None)
        answer = BorrowerAnswer.model_validate(a)
        if period is not None:
            found = quarter(hand, period)
            if restates is not None:  # the quarter restated: {"ebitda_m": ..., "on": date}
                found = found.model_copy(
                    update={
                        "restated": True,
                        "restated_on": date.fromisoformat(restates["on"]),
                        "original_ebitda": found.income.ebitda,
                        "income": found.income.model_copy(update={"ebitda": restates["ebitda_m"] * M}),
                    }
                )
            if relabel is not None:  # the quarter's figures, for a later quarter: [label, start, end]
                found = found.model_copy(
                    update={
                        "label": relabel[0],
                        "start": date.fromisoformat(relabel[1]),
                        "end": date.fromisoformat(relabel[2]),
                    }
                )
            answer = answer.model_copy(update={"period": found})
        answers.append(answer)
    return Hand(**{**fields, "answers": tuple(answers)}) if answers else hand


def _figures(raw: dict[str, Any]) -> Any:
    return figures(
        raw["adj_m"] * M,
        raw["tl"],
        raw["sl"],
        raw["ic"],
        raw["fccr"],
        raw["dscr"],
        raw["liq_m"] * M,
        **raw.get("headroom", {}),
    )


def _conditions(raw: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    out = []
    for c in raw:
        value = c.get("value_m")
        out.append(
            {
                "kind": c["kind"],
                "detail": c["detail"],
                "value": value * M if value is not None else c.get("value"),
            }
        )
    return tuple(out)


def _move(name: str, why: str, pkg: Any, f: Any, raw: dict[str, Any]) -> Move:
    klass = raw["class"]
    own = _figures(raw["figures"]) if "figures" in raw else f  # a wrong move's own (wrong) figures
    decision = Decision(
        klass,
        own if klass != "request_information" else None,
        _conditions(raw.get("conditions", [])),
        tuple(raw.get("reasons", ())),
        raw.get("memo"),
    )
    return move(
        name,
        why,
        pkg,
        decision,
        request=tuple(raw.get("request", ())),
        delivered=tuple(raw.get("delivered", ())),
        skip_reads=bool(raw.get("skip_reads", False)),
    )


def load_case(path: Path) -> ExpertCase:
    """One case file as an `ExpertCase`."""
    try:
        raw = json.loads(path.read_text())
        pkg = package(_hand(raw.get("hand", {})), raw["package_id"])
        right = raw["right"]
        f = _figures(right["figures"]) if right.get("figures") else None
        max_amount = right.get("max_amount_m")
        assessment = Assessment(
            classes=tuple(right["classes"]),
            figures=f,
            conditions=tuple(right.get("conditions", ())),
            max_amount=max_amount * M if max_amount is not None else right.get("max_amount"),
            escalation_reasons=tuple(right.get("escalation_reasons", ())),
            ask_first=tuple(right.get("ask_first", ())),
            may_ask=tuple(right.get("may_ask", ())),
        )
        golds = tuple(_move(g.get("name", g["class"]), g["why"], pkg, f, g) for g in raw["golds"])
        wrong = tuple(_move(w["name"], w["why"], pkg, f, w) for w in raw["wrong"])
        return ExpertCase(
            raw["id"],
            raw["title"],
            tuple(raw["family"]),
            raw["rule"],
            pkg,
            assessment,
            golds=golds,
            wrong_moves=wrong,
            policy=FundPolicy.model_validate(raw.get("policy", {})),
            today=date.fromisoformat(raw["today"]) if "today" in raw else ExpertCase.today,
            source=raw["source"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CaseFileError(f"{path.name}: {type(exc).__name__}: {exc}") from exc


def load_case_files() -> list[ExpertCase]:
    """Every case file, in name order."""
    return [load_case(p) for p in sorted(CASES.glob("*.json"))]
