"""The verifier card as rich tables (the JSON form is the model itself)."""

from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from envs.adversarial.blind_report import BlindReport
from envs.adversarial.twins import TwinReport
from loopline.card.agreement import AgreementReport
from loopline.card.model import VerifierCard


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def blind_tables(report: BlindReport) -> list[Table | Text]:
    """The blind desks' share of the reference's reward and their worst families, then the tasks the
    visible facts decide, with why."""
    table = Table(title=f"blind desks on {report.verifier} ({report.tasks} tasks)")
    columns = ("desk", "share (undecided)", "share (all)", "passed", "beat nothing", "worst family")
    for column in columns:
        table.add_column(column, justify="left" if column in ("desk", "worst family") else "right")
    for s in report.summaries:
        worst = s.worst_family
        table.add_row(
            s.policy,
            f"{s.share_undecided:.1%}",
            f"{s.share:.1%}",
            str(s.passed),
            str(len(s.above_nothing)),
            f"{worst.family} {worst.passed}/{worst.tasks}" if worst else "",
        )
    reasons: dict[str, int] = {}
    for reason in report.visible.values():
        reasons[reason] = reasons.get(reason, 0) + 1
    listed = ", ".join(f"{reason} ({n})" for reason, n in sorted(reasons.items()))
    return [table, Text(f"tasks the visible facts decide (allowed): {listed or 'none'}")]


def twin_text(report: TwinReport) -> Text:
    """The twin sets: how many, whose golds differ, and how the blind desks fared on them."""
    differ = sum(s.golds_differ for s in report.sets)
    both = sum(bool(s.passes_both) for s in report.sets)
    desks = ", ".join(f"{d} one of two in {report.passed_one.get(d, 0)}" for d in report.desks)
    return Text(
        f"counterfactual twins on {report.verifier}: {len(report.sets)} sets, golds differ in {differ}, "
        f"a blind desk passes both twins in {both}" + (f" ({desks})" if desks else "")
    )


def render(card: VerifierCard, console: Console) -> None:
    """Print every section of the card, then what fails."""
    console.print(Group(*sections(card)))


def sections(card: VerifierCard) -> list[Table | Text]:
    out: list[Table | Text] = []
    validation = Table(
        title="gold replay validation (every gold 1.0, doing nothing 0, rcm remittances pass pyx12)"
    )
    for column in ("task set", "tasks", "valid", "alternative golds"):
        validation.add_column(column, justify="left" if column == "task set" else "right")
    for block in card.validation:
        validation.add_row(block.name, str(block.tasks), str(block.valid), str(block.alternatives))
    out.append(validation)

    expert = Table(title="expert set (hand-written cases)")
    for column in ("verifier", "golds 1.0", "alternatives 1.0", "wrong moves < 1.0"):
        expert.add_column(column, justify="left" if column == "verifier" else "right")
    for r in card.expert:
        expert.add_row(
            r.verifier,
            f"{r.golds_passed}/{r.golds}",
            f"{r.alternatives_passed}/{r.alternatives}",
            f"{r.wrong_rejected}/{r.wrong_moves}",
        )
    out.append(expert)
    if card.reference is not None:
        ref = card.reference
        out.append(
            Text(f"{ref.policy} policy on the expert set under {ref.verifier}: {ref.passed}/{ref.cases}")
        )

    mutation = Table(
        title=f"mutation testing ({card.mutation.tasks} tasks, {card.mutation.outcome_changing} outcome-changing "
        f"of {card.mutation.mutants} mutants)"
    )
    for column in ("verifier", "rejected", "outcome-changing", "mutation score", "weakest family"):
        mutation.add_column(column, justify="left" if column in ("verifier", "weakest family") else "right")
    for v in card.mutation.verifiers:
        scored = [f for f in v.by_family if f.score is not None]
        weakest = min(scored, key=lambda f: f.score or 0.0) if scored else None
        mutation.add_row(
            v.verifier,
            str(v.overall.rejected),
            str(v.overall.outcome_changing),
            _rate(v.overall.score),
            f"{weakest.name} {_rate(weakest.score)}" if weakest else "",
        )
    out.append(mutation)

    exploits = Table(title=f"exploit battery ({len(card.exploits.policies)} exploits)")
    for column in ("verifier", "tasks", "beat doing nothing", "with a wrong outcome", "hackable share"):
        exploits.add_column(column, justify="left" if column == "verifier" else "right")
    for e in card.exploits.verifiers:
        exploits.add_row(
            e.verifier, str(e.tasks), str(e.hackable_tasks), str(e.fooled_tasks), f"{e.fooled_share:.1%}"
        )
    out.append(exploits)
    for rule in card.hackable:
        out.append(
            Text(
                f"{rule.verifier}: an exploit beats doing nothing on {rule.above_nothing} of {rule.tasks} tasks, "
                f"{len(rule.above_nothing_untagged)} of them not decided by the visible facts (the rule); "
                f"{rule.wrong_outcome} with an outcome no gold trajectory reaches (the narrower count)"
            )
        )
    for line in card.open_bars:
        out.append(Text(f"{card.admitted}, not yet a bar: {line}", style="yellow"))
    if card.blind is not None:
        out.extend(blind_tables(card.blind))
    if card.twins is not None:
        out.append(twin_text(card.twins))

    agreement = Table(title=f"expert agreement (labels from {card.agreement_sources})")
    for column in ("verifier", "n", "accuracy", "kappa", "false pass", "training"):
        agreement.add_column(column, justify="left" if column in ("verifier", "training") else "right")
    for s in card.agreement:
        a = s.agreement
        agreement.add_row(
            a.verifier,
            str(a.n),
            _rate(a.accuracy),
            _rate(a.kappa),
            _rate(a.false_pass_rate),
            "fit" if s.fitness.fit else "not fit",
        )
    out.append(agreement)
    if card.label_store is not None:
        out.append(Text(reviewers_line(card.label_store)))
    if card.outcomes is not None:
        if card.outcomes.note:
            out.append(Text(f"business outcomes: {card.outcomes.note}"))
        for c in card.outcomes.verifiers:
            out.append(Text(f"business outcomes, {c.verifier}: n={c.n}, AUC {_rate(c.auc)}"))
    if card.failing:
        out.append(
            Text(
                f"{card.admitted} misses:\n" + "\n".join(f"  - {line}" for line in card.failing), style="red"
            )
        )
    else:
        out.append(Text(f"{card.admitted} meets every bar", style="green"))
    return out


def reviewers_line(stored: AgreementReport) -> str:
    """Who labelled in the label store, and how far reviewers agree with each other."""
    who = ", ".join(f"{r.reviewer} ({r.labels})" for r in stored.reviewers) or "nobody yet"
    between = stored.between_reviewers
    if between is None or between.n == 0:
        how = "no trajectory has labels from two reviewers yet"
    else:
        kappa = _rate(between.kappa) if between.kappa is not None else "undefined (one class only)"
        how = f"kappa between reviewers {kappa} over {between.n} pairs of labels on the same trajectory"
    return f"reviewers in the label store: {who}; {how}"
