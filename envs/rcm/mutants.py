"""Mutation operators of the denial desk: the argument mistakes real specialists make in writes.

Each operator alters the write calls of a gold trajectory (wrong code, amount, payer, claim or
queue, a missing attachment, a patient billed on a CO line, a posting split or merged, a claim
closed while work is pending); `envs.adversarial` adds the generic ones (drop, duplicate, reorder).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

from envs.adversarial.operator import Calls, MutationContext, Operator, label, renamed
from envs.rcm.mistakes import Path, code_edits, tweak
from schemas.tools import ToolCall

Found = Iterator[tuple[str, Calls]]
QUEUES = ("supervisor", "credentialing", "coding", "billing", "compliance")
MONEY_TOOLS = ("post_write_off", "transfer_to_patient_responsibility", "escalate_to_human")
MADE_UP_CLAIM = "CLM-00000"


def with_value(calls: Calls, index: int, path: Path, value: Any) -> Calls:
    """`calls` with the argument at `path` of call `index` set to `value`."""
    arguments = copy.deepcopy(calls[index].arguments)
    node: Any = arguments
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    changed = calls[index].model_copy(update={"arguments": arguments})
    return (*calls[:index], changed, *calls[index + 1 :])


def spliced(calls: Calls, index: int, new: Sequence[ToolCall]) -> Calls:
    """`calls` with call `index` replaced by `new` (several calls, or none)."""
    return calls[:index] + tuple(new) + calls[index + 1 :]


def _call(like: ToolCall, suffix: str, name: str, **arguments: Any) -> ToolCall:
    return ToolCall(call_id=f"{like.call_id}-{suffix}", name=name, arguments=arguments)


def _path(path: Path) -> str:
    return ".".join(str(p) for p in path)


def wrong_code(ctx: MutationContext, calls: Calls) -> Found:
    for i, call in enumerate(calls):
        for path, old, new in code_edits(ctx.task.initial_world, call):
            yield f"{label(i, call)}: {_path(path)} {old!r} -> {new!r}", with_value(calls, i, path, new)


def wrong_amount(ctx: MutationContext, calls: Calls) -> Found:
    for i, call in enumerate(calls):
        amount = call.arguments.get("amount")
        if call.name in MONEY_TOOLS and isinstance(amount, int | float) and amount > 0:
            for factor, what in ((0.9, "10% short"), (1.1, "10% over")):
                new = round(float(amount) * factor, 2)
                yield (
                    f"{label(i, call)}: amount {amount} -> {new} ({what})",
                    with_value(calls, i, ("amount",), new),
                )


def _claim_payer(ctx: MutationContext, claim_id: str) -> str | None:
    claim = ctx.task.initial_world.get("claims", {}).get(claim_id) or {}
    payer = claim.get("payer_id")
    return str(payer) if payer else None


def wrong_payer(ctx: MutationContext, calls: Calls) -> Found:
    payers = sorted(ctx.task.initial_world.get("payers", {}))
    for i, call in enumerate(calls):
        payer = call.arguments.get("payer_id")
        if call.name not in ("bill_other_payer", "request_authorization") or not payer:
            continue
        denying = _claim_payer(ctx, str(call.arguments.get("claim_id") or ""))
        options = [p for p in (denying, *payers) if p and p != payer]
        for other in list(dict.fromkeys(options))[:2]:
            yield (
                f"{label(i, call)}: payer_id {payer!r} -> {other!r}",
                with_value(calls, i, ("payer_id",), other),
            )
        if call.name == "bill_other_payer":
            member = str(call.arguments.get("member_id", ""))
            yield (
                f"{label(i, call)}: member_id {member!r} -> {tweak(member)!r}",
                with_value(calls, i, ("member_id",), tweak(member)),
            )
            sequence = call.arguments.get("payer_sequence")
            other_seq = "secondary" if sequence == "primary" else "primary"
            yield (
                f"{label(i, call)}: payer_sequence {sequence!r} -> {other_seq!r}",
                with_value(calls, i, ("payer_sequence",), other_seq),
            )


def wrong_claim(ctx: MutationContext, calls: Calls) -> Found:
    claims = sorted(ctx.task.initial_world.get("claims", {}))
    for i, call in enumerate(calls):
        claim_id = call.arguments.get("claim_id")
        if not ctx.is_write(call) or not claim_id:
            continue
        other = next((c for c in claims if c != claim_id), MADE_UP_CLAIM)
        yield (
            f"{label(i, call)}: claim_id {claim_id!r} -> {other!r}",
            with_value(calls, i, ("claim_id",), other),
        )
        icn = call.arguments.get("original_claim_control_number")
        if icn:
            wrong = tweak(str(icn))
            yield (
                f"{label(i, call)}: original_claim_control_number {icn!r} -> {wrong!r}",
                with_value(calls, i, ("original_claim_control_number",), wrong),
            )


def wrong_queue(ctx: MutationContext, calls: Calls) -> Found:
    for i, call in enumerate(calls):
        queue = call.arguments.get("queue")
        if call.name == "escalate_to_human" and queue:
            for other in QUEUES:
                if other != queue:
                    yield (
                        f"{label(i, call)}: queue {queue!r} -> {other!r}",
                        with_value(calls, i, ("queue",), other),
                    )


def missing_attachment(ctx: MutationContext, calls: Calls) -> Found:
    for i, call in enumerate(calls):
        attached = list(call.arguments.get("attachment_document_ids") or [])
        if call.name not in ("submit_appeal", "request_authorization") or not attached:
            continue
        for doc in attached:
            rest = [d for d in attached if d != doc]
            yield (
                f"{label(i, call)}: without attachment {doc}",
                with_value(calls, i, ("attachment_document_ids",), rest),
            )
        if len(attached) > 1:
            yield f"{label(i, call)}: no attachments", with_value(calls, i, ("attachment_document_ids",), [])


def patient_billed_on_co(ctx: MutationContext, calls: Calls) -> Found:
    for i, call in enumerate(calls):
        if call.name == "post_write_off":
            args = call.arguments
            transfer = _call(
                call,
                "pt",
                "transfer_to_patient_responsibility",
                claim_id=args.get("claim_id"),
                amount=args.get("amount"),
                reason="other",
            )
            yield (
                f"{label(i, call)}: the write-off billed to the patient instead",
                spliced(calls, i, [transfer]),
            )


def split_posting(ctx: MutationContext, calls: Calls) -> Found:
    for i, call in enumerate(calls):
        amount = call.arguments.get("amount")
        if call.name != "post_write_off" or not isinstance(amount, int | float) or amount < 0.04:
            continue
        args = call.arguments
        half = round(float(amount) / 2, 2)
        rest = round(float(amount) - half, 2)
        part = {**args, "amount": half}
        to_patient = _call(
            call,
            "pt",
            "transfer_to_patient_responsibility",
            claim_id=args.get("claim_id"),
            amount=rest,
            reason="other",
        )
        yield (
            f"{label(i, call)}: split into a ${half} write-off and a ${rest} patient transfer",
            spliced(calls, i, [call.model_copy(update={"arguments": part}), to_patient]),
        )
        short = round(rest - min(1.0, rest / 2), 2)
        second = renamed(call, "split").model_copy(update={"arguments": {**args, "amount": short}})
        yield (
            f"{label(i, call)}: split into write-offs of ${half} and ${short} (not the ${amount} total)",
            spliced(calls, i, [call.model_copy(update={"arguments": part}), second]),
        )


def merged_postings(ctx: MutationContext, calls: Calls) -> Found:
    offs = [i for i, c in enumerate(calls) if c.name == "post_write_off"]
    moves = [i for i, c in enumerate(calls) if c.name == "transfer_to_patient_responsibility"]
    for w in offs:
        for t in moves:
            wo, tr = calls[w].arguments, calls[t].arguments
            if wo.get("claim_id") != tr.get("claim_id"):
                continue
            total = round(float(wo.get("amount", 0)) + float(tr.get("amount", 0)), 2)
            first, last = sorted((w, t))
            keep = [c for j, c in enumerate(calls) if j != last]
            for name, args, what in (
                ("post_write_off", {**wo, "amount": total}, "one write-off"),
                ("transfer_to_patient_responsibility", {**tr, "amount": total}, "one patient transfer"),
            ):
                merged = ToolCall(call_id=f"{calls[first].call_id}-merged", name=name, arguments=args)
                out = list(keep)
                out[first] = merged
                yield (
                    f"{label(w, calls[w])} and {label(t, calls[t])} merged into {what} of ${total}",
                    tuple(out),
                )


_PENDING = (
    "submit_appeal",
    "submit_replacement_claim",
    "submit_new_claim",
    "request_authorization",
    "bill_other_payer",
)


def close_while_pending(ctx: MutationContext, calls: Calls) -> Found:
    for i, call in enumerate(calls):
        if call.name in _PENDING and call.arguments.get("claim_id"):
            close = _call(
                call, "close", "close_claim", claim_id=call.arguments["claim_id"], reason="no_action_needed"
            )
            yield f"closed the claim after {label(i, call)}, with that work pending", (*calls, close)
            return


OPERATORS: tuple[Operator, ...] = (
    Operator("wrong_code", "a wrong code, modifier, diagnosis, auth number, basis or reason", wrong_code),
    Operator("wrong_amount", "an amount 10% short or over", wrong_amount),
    Operator("wrong_payer", "the wrong payer, member id or payer sequence", wrong_payer),
    Operator("wrong_claim", "a write on another claim, or quoting a wrong control number", wrong_claim),
    Operator("wrong_queue", "an escalation to the wrong queue", wrong_queue),
    Operator("missing_attachment", "an appeal or request without an attachment", missing_attachment),
    Operator("patient_billed_on_co", "a write-off billed to the patient instead", patient_billed_on_co),
    Operator(
        "split_posting", "a write-off split into patient + write-off, or parts that do not sum", split_posting
    ),
    Operator(
        "merged_postings", "a write-off and a patient transfer merged into one posting", merged_postings
    ),
    Operator(
        "close_while_pending",
        "the claim closed while its appeal or resubmission is pending",
        close_while_pending,
    ),
)
"""The rcm operators its descriptor adds to the generic ones."""
