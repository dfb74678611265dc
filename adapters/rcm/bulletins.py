"""Dated payer rules as the office sees them: the rules in effect on a date of service, the
bulletins published so far, and a bulletin's publication (an event from the payer, not a tool).

A change whose bulletin is still pending is applied by the payer (see `adapters.rcm.payers`) but
shown by no tool until `publish_bulletin` dates it; the sim plans that by call count
(`envs.rcm.faults`), the sandbox takes it from an admin route.
"""

from __future__ import annotations

from pydantic import BaseModel

from adapters.rcm import args
from adapters.rcm.errors import DomainError
from adapters.rcm.payers import Bulletin, Payer, RuleChange, rule_differences, rules_in_effect
from adapters.rcm.results import BulletinsResult, BulletinView, PayerRulesResult
from adapters.rcm.world import Change, World

Outcome = tuple[BaseModel, World]


def published_changes(world: World, payer: Payer) -> tuple[RuleChange, ...]:
    """The payer's dated changes the office can know of: those whose bulletin is published."""
    return tuple(
        c
        for c in sorted(payer.rule_changes, key=lambda c: c.effective_date)
        if c.bulletin_id is None or _published(world, c.bulletin_id)
    )


def _published(world: World, bulletin_id: str) -> bool:
    found = world.bulletins.get(bulletin_id)
    return found is not None and found.published_date is not None


def get_payer_rules(world: World, a: args.GetPayerRulesArgs) -> Outcome:
    payer = world.payer(a.payer_id)
    day = a.service_date or world.today
    changes = published_changes(world, payer)
    result = PayerRulesResult(
        payer_id=payer.payer_id,
        name=payer.name,
        kind=payer.kind,
        rules=rules_in_effect(payer.rules, changes, day),
        in_effect_on=day,
        rule_changes=list(changes),
    )
    return result, world


def get_payer_bulletins(world: World, a: args.GetPayerBulletinsArgs) -> Outcome:
    if a.payer_id is not None:
        world.payer(a.payer_id)
    shown = [
        b
        for b in world.bulletins.values()
        if b.published_date is not None and a.payer_id in (None, b.payer_id)
    ]
    shown.sort(key=lambda b: (b.published_date, b.bulletin_id))
    return BulletinsResult(payer_id=a.payer_id, bulletins=[bulletin_view(world, b) for b in shown]), world


def bulletin_view(world: World, bulletin: Bulletin) -> BulletinView:
    """The bulletin with the rule fields its change sets differently from the rules before it."""
    payer = world.payers.get(bulletin.payer_id)
    change = (
        next((c for c in payer.rule_changes if c.bulletin_id == bulletin.bulletin_id), None)
        if payer
        else None
    )
    changes = {}
    if payer is not None and change is not None:
        earlier = tuple(c for c in payer.rule_changes if c.effective_date < change.effective_date)
        before = rules_in_effect(payer.rules, earlier, change.effective_date)
        changes = rule_differences(before, change.rules)
    return BulletinView(
        bulletin_id=bulletin.bulletin_id,
        payer_id=bulletin.payer_id,
        title=bulletin.title,
        text=bulletin.text,
        effective_date=bulletin.effective_date,
        published_date=bulletin.published_date or world.today,
        changes=changes,
    )


def publish_bulletin(world: World, bulletin_id: str) -> World:
    """The world once the payer has published `bulletin_id` (dated today); a bulletin already
    published keeps its date."""
    found = world.bulletins.get(bulletin_id)
    if found is None:
        raise DomainError("unknown_bulletin", f"no bulletin {bulletin_id!r} on file")
    if found.published_date is not None:
        return world
    change = Change(world)
    change.put("bulletins", bulletin_id, found.model_copy(update={"published_date": world.today}))
    return change.commit()
