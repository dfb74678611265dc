"""What a borrower's answer changes in the package: a delivered period joins it (or, restated,
replaces the period of the same label), a quality-of-earnings report restates bridge lines (by id),
a sources-and-uses table is attached, a compliance certificate attaches to its debt and replaces
the outstanding principal with the certified one, the sponsor's breach history joins the sponsor,
and the largest customer's contract joins the borrower. The sim and the sandbox
both apply answers through `answered`, so the world they hold after a request is the same."""

from __future__ import annotations

from adapters.credit.models import BorrowerAnswer, CreditPackage


def answered(package: CreditPackage, answer: BorrowerAnswer) -> CreditPackage:
    """The package once `answer` is delivered (an answer still to follow changes nothing)."""
    if not answer.available:
        return package
    update: dict[str, object] = {}
    if answer.period is not None:
        # A period the package already has is replaced only by a restatement of it.
        new = answer.period
        known = {p.label for p in package.periods}
        if new.label not in known or new.restated:
            periods = (*(p for p in package.periods if p.label != new.label), new)
            update["periods"] = tuple(sorted(periods, key=lambda x: (x.end, x.kind)))
    if answer.addbacks:
        restated = {a.addback_id: a for a in answer.addbacks}
        kept = tuple(restated.pop(a.addback_id, a) for a in package.bridge.addbacks)
        lines = (*kept, *restated.values())
        update["bridge"] = package.bridge.model_copy(
            update={
                "addbacks": lines,
                "management_adjusted_ebitda": package.bridge.reported_ebitda + sum(a.amount for a in lines),
            }
        )
    if answer.sources_and_uses is not None:
        update["sources_and_uses"] = answer.sources_and_uses
    if answer.certificates:
        certified = {c.debt_id: c for c in answer.certificates}
        update["existing_debt"] = tuple(
            d.model_copy(
                update={"certificate": certified[d.debt_id], "outstanding": certified[d.debt_id].outstanding}
            )
            if d.debt_id in certified
            else d
            for d in package.existing_debt
        )
    if answer.breach_history is not None:
        update["sponsor"] = package.sponsor.model_copy(update={"breach_history": answer.breach_history})
    if answer.customer_contract is not None:
        update["borrower"] = package.borrower.model_copy(
            update={"largest_customer_contract": answer.customer_contract}
        )
    return package.model_copy(update=update) if update else package


def answered_all(package: CreditPackage, items: tuple[str, ...]) -> CreditPackage:
    """The package once every delivered answer to `items` is in."""
    for answer in package.answers:
        if answer.item in items:
            package = answered(package, answer)
    return package
