"""A credit deal-system world rebuilt from what the live system answered during one episode, and
the credit side of `adapters.drafting.draft.Rebuild`. Pure.

The package is rebuilt as it stood when the analyst opened it: its overview (`get_package`: the
borrower, the sponsor, the periods delivered, FX rates, status, answers already received), every
delivered period's statements, the EBITDA bridge, the term sheet, the existing debt and the fund
policy, each from its first answer. The borrower's answers to an information request become the
package's hidden answers (a period an answer delivered joins the answer, not the package, as read
after the request; bridge lines a quality-of-earnings report restated and a sources-and-uses table
delivered join the answer as the later reads show them); an
item whose answer the episode never saw (not asked, or the request failed) is "to follow", since
the deal team does not have it and nothing says the borrower would supply it. Ids the
episode's writes were issued (`REC-7`) set the world's counters, so the sim issues the same ids
again; the date those writes were stamped with is the world's today. Whatever the episode never
read is left out: a package whose overview, statements, bridge or term sheet were never read is
refused with a `RecordingError`, since no faithful world can be made up for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, get_args

from adapters.credit.models import (
    AddBack,
    BorrowerAnswer,
    BreachRecord,
    ComplianceCertificate,
    CreditPackage,
    CustomerContract,
    EbitdaBridge,
    ExistingDebt,
    FinancialPeriod,
    FundPolicy,
    SourcesAndUses,
    TermSheet,
)
from adapters.credit.records import InformationItem
from adapters.credit.sim import SimBackend
from adapters.credit.tools import CREDIT_TOOLS
from adapters.credit.world import ID_PREFIX, World
from adapters.drafting.rebuild import DomainRebuild
from adapters.drafting.recording import RecordedCall, RecordedEpisode, RecordingError
from schemas.tasks import WorkItem
from schemas.tools import ToolOutcome

_ANSWER = re.compile(r"^(\w+) \((delivered|to follow)\): (.*)$", re.DOTALL)
UNSEEN = "the borrower's answer is not in the episode: to follow"
"""What an item the episode never saw answered holds: the deal team does not have it."""
_DELIVERS_A_PERIOD = ("missing_quarter", "latest_quarter", "quality_of_earnings")
"""The information items whose answer can bring a period (the quarter the package lacked, the latest
one, a quarter a quality-of-earnings report restates)."""
_RESTATES_LINES = ("quality_of_earnings", "addback_support")
"""The information items whose answer can restate bridge lines."""
_STAMP = {"recommendation": "recorded_on", "request": "requested_on", "escalation": "escalated_on"}
_ISSUED = {
    "record_recommendation": "recommendation",
    "request_information": "request",
    "escalate_to_committee": "escalation",
}
"""Rebuilds a work item's payload from the world (for payloads capture tokenises wholesale)."""


def reconstruct_world(episode: RecordedEpisode) -> World:
    """The world the episode's answers imply (raises `RecordingError` when they imply none)."""
    try:
        return _reconstruct(episode)
    except (KeyError, TypeError, AttributeError) as exc:  # an answer without the shape its tool gives
        raise RecordingError(
            f"the recorded answers do not make a credit package ({type(exc).__name__}: {exc})"
        ) from None


def _reconstruct(episode: RecordedEpisode) -> World:
    ok = [c for c in episode.calls if c.outcome is ToolOutcome.OK and c.result is not None]
    first: dict[tuple[str, str], dict[str, Any]] = {}
    for recorded in ok:
        key = (recorded.call.name, str(recorded.call.arguments.get("period", "")))
        first.setdefault(key, dict(recorded.result or {}))
    overview = _needed(first, ("get_package", ""), "the package overview (get_package)")
    answers, delivered, asked = _answers(ok, {p["label"] for p in overview["periods"]})
    revealed = {answer.item for answer in answers}
    answers += [
        BorrowerAnswer(item=item, available=False, text=UNSEEN)
        for item in get_args(InformationItem)
        if item not in revealed
    ]
    periods = []
    for summary in overview["periods"]:
        found = _needed(
            first, ("get_financial_statements", summary["label"]), f"the statements of {summary['label']}"
        )
        periods.append(FinancialPeriod.model_validate(found["period"]))
    bridge = _needed(first, ("get_ebitda_bridge", ""), "the EBITDA bridge")["bridge"]
    answers = [
        _changed_file(
            _with_period(answer, delivered.get(answer.item), ok, asked.get(answer.item, 0)), ok, asked, bridge
        )
        for answer in answers
    ]
    terms = _needed(first, ("get_term_sheet", ""), "the term sheet")["term_sheet"]
    debt_read = first.get(("get_existing_debt", ""), {})
    debts = debt_read.get("debts", [])
    table = debt_read.get("sources_and_uses")
    policy = first.get(("get_fund_policy", ""), {}).get("policy")
    package = CreditPackage(
        package_id=overview["package_id"],
        received=overview["received"],
        borrower=overview["borrower"],
        sponsor=overview["sponsor"],
        periods=tuple(periods),
        bridge=EbitdaBridge.model_validate(bridge),
        term_sheet=TermSheet.model_validate(terms),
        existing_debt=tuple(ExistingDebt.model_validate(d) for d in debts),
        fx_to_facility=overview["fx_to_facility"],
        sources_and_uses=SourcesAndUses.model_validate(table) if table else None,
        answers=tuple(answers),
        status=overview["status"],
        received_answers=tuple(overview["answers_received"]),
    )
    counters, today = _issued(ok)
    return World(
        today=today or _worked_on(episode.work_item) or package.received,
        policy=FundPolicy.model_validate(policy) if policy is not None else FundPolicy(),
        packages={package.package_id: package},
        counters=counters,
    )


def _needed(first: dict[tuple[str, str], dict[str, Any]], key: tuple[str, str], what: str) -> dict[str, Any]:
    if key not in first:
        raise RecordingError(f"the episode never read {what}: the package cannot be rebuilt")
    return first[key]


def _read_after(ok: Sequence[RecordedCall], at: int, tool: str, period: str = "") -> dict[str, Any] | None:
    """The first answer of `tool` (for `period`) read after call `at`, or None."""
    for recorded in ok[at + 1 :]:
        if recorded.call.name == tool and str(recorded.call.arguments.get("period", "")) == period:
            return dict(recorded.result or {})
    return None


def _with_period(
    answer: BorrowerAnswer, label: str | None, ok: Sequence[RecordedCall], at: int
) -> BorrowerAnswer:
    """`answer` with the period it delivered, as the episode read it after the request (a restated
    quarter reads differently before it)."""
    if label is None:
        return answer
    found = _read_after(ok, at, "get_financial_statements", label)
    if found is None:
        raise RecordingError(f"the episode never read the delivered period {label}")
    return answer.model_copy(update={"period": FinancialPeriod.model_validate(found["period"])})


def _changed_file(
    answer: BorrowerAnswer, ok: Sequence[RecordedCall], asked: dict[str, int], bridge: dict[str, Any]
) -> BorrowerAnswer:
    """`answer` with what it changed in the file as the episode read it after the request: the
    bridge lines it restated, the sources-and-uses table, the certificates on the debt table, the
    sponsor's breach history and the largest customer's contract it delivered."""
    if not answer.available or answer.item not in asked:
        return answer
    at = asked[answer.item]
    if answer.item in _RESTATES_LINES:
        later = _read_after(ok, at, "get_ebitda_bridge")
        if later is not None:
            before = {a["addback_id"]: a for a in bridge["addbacks"]}
            lines = tuple(
                AddBack.model_validate(a)
                for a in later["bridge"]["addbacks"]
                if before.get(a["addback_id"]) != a
            )
            answer = answer.model_copy(update={"addbacks": lines})
    if answer.item == "sources_and_uses":
        later = _read_after(ok, at, "get_existing_debt")
        table = (later or {}).get("sources_and_uses")
        if table:
            answer = answer.model_copy(update={"sources_and_uses": SourcesAndUses.model_validate(table)})
    if answer.item == "compliance_certificates":
        debts = (_read_after(ok, at, "get_existing_debt") or {}).get("debts", [])
        certified = tuple(
            ComplianceCertificate.model_validate(d["certificate"]) for d in debts if d.get("certificate")
        )
        answer = answer.model_copy(update={"certificates": certified})
    if answer.item in ("breach_history", "customer_contracts"):
        later = _read_after(ok, at, "get_package")
        if later is not None and answer.item == "breach_history":
            history = later["sponsor"].get("breach_history")
            records = None if history is None else tuple(BreachRecord.model_validate(r) for r in history)
            answer = answer.model_copy(update={"breach_history": records})
        elif later is not None and later["borrower"].get("largest_customer_contract"):
            contract = CustomerContract.model_validate(later["borrower"]["largest_customer_contract"])
            answer = answer.model_copy(update={"customer_contract": contract})
    return answer


def _answers(
    ok: Sequence[RecordedCall], known: set[str]
) -> tuple[list[BorrowerAnswer], dict[str, str], dict[str, int]]:
    """The borrower's answers the requests revealed, the period label each delivered answer
    brought (a request's delivered periods, in the order of its delivered items; `known`: the labels
    the package overview had), and the position
    of the request that revealed each item."""
    answers: list[BorrowerAnswer] = []
    delivered: dict[str, str] = {}
    asked: dict[str, int] = {}
    for at, recorded in enumerate(ok):
        if recorded.call.name != "request_information":
            continue
        result: dict[str, Any] = dict(recorded.result or {})
        labels = list(result.get("delivered_periods", []))
        for text in result.get("answers", []):
            match = _ANSWER.match(str(text))
            if match is None:  # "<item>: the borrower has nothing further to provide"
                continue
            item, state, said = match.groups()
            answers.append(BorrowerAnswer(item=item, available=state == "delivered", text=said))
            asked[item] = at
            if state == "delivered" and item in _DELIVERS_A_PERIOD:
                # A restated quarter has a label the package had; a missing or later one has not.
                restates = item == "quality_of_earnings"
                label = next((x for x in labels if (x in known) == restates), None)
                if label is not None:
                    labels.remove(label)
                    delivered[item] = label
        if labels:
            raise RecordingError(f"periods {', '.join(labels)} were delivered by an unknown answer")
    return answers, delivered, asked


def _issued(ok: Sequence[RecordedCall]) -> tuple[dict[str, int], date | None]:
    """Counters one below the first id of each kind the writes were issued, and their date."""
    counters: dict[str, int] = {}
    today: date | None = None
    for recorded in ok:
        kind = _ISSUED.get(recorded.call.name)
        if kind is None:
            continue
        record = next(iter((recorded.result or {}).values()), None)
        if not isinstance(record, dict):
            continue
        number = str(record.get(f"{kind}_id", "")).removeprefix(ID_PREFIX[kind])
        if number.isdigit():
            counters.setdefault(kind, int(number) - 1)
        stamp = record.get(_STAMP[kind])
        if today is None and isinstance(stamp, str):
            today = date.fromisoformat(stamp)
    return counters, today


def _worked_on(item: WorkItem) -> date | None:
    try:
        return date.fromisoformat(str(item.payload.get("worked_on", "")))
    except ValueError:
        return None


def credit_rebuild(
    rebuild_work_item: Callable[[World, WorkItem], WorkItem] | None = None,
) -> DomainRebuild[World]:
    """The credit side of `adapters.drafting.draft.Rebuild` (credit marks no PHI: nothing to
    substitute); `rebuild_work_item` rebuilds a tokenised payload (the environment's work item)."""
    return DomainRebuild(
        "credit",
        CREDIT_TOOLS,
        lambda episode, _: reconstruct_world(episode),
        World.from_snapshot,
        SimBackend,
        rebuild_work_item,
    )
