"""How far a verifier can be trusted: agreement with expert labels and with later business outcomes.

Pure functions over plain pairs, so labels from any source feed them alike: a reviewer's labels from
the label store, the hand-written expert set (gold trajectories labelled pass, wrong moves fail), or
outcomes observed in production.

- Expert agreement takes `(verifier_passed, expert_pass)` pairs: counts, accuracy, Cohen's kappa,
  false-pass rate (the verifier passed what the expert failed, over the expert's fails) and
  false-fail rate (over the expert's passes). `fit_for_training` gates a verifier on kappa and the
  number of labels.
- Business-outcome correlation takes `(score, passed, good)` triples: the ROC AUC of the score
  against the business truth (Mann-Whitney, ties counted half) and the agreement of `passed` with it.

- Reviewers: `one_per_reviewer` keeps one label per reviewer per trajectory (the latest), so a
  reviewer counts once however often they relabel; `reviewer_counts` says who labelled how much;
  `between_reviewers` is the agreement of reviewers with each other on the trajectories two of them
  labelled (every pair of reviewers on a trajectory is one pair of ratings).

Cohen's kappa is undefined (None) when there are no pairs, and when the expected agreement is 1:
the verifier and the experts put every trajectory into one and the same class. Observed agreement
is then perfect too, but nothing shows the verifier can tell a pass from a fail, so the gate counts
an undefined kappa as not fit. When only one side uses a single class, kappa is defined (0 when
that side is constant and the other is not).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from envs.domain import DOMAINS
from envs.verifiers.outcome_kinds import NO_KINDS, OutcomeKinds

DEFAULT_MIN_KAPPA = 0.8
DEFAULT_MIN_LABELS = 50


class Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class Confusion(Result):
    """Verifier verdicts against expert labels (or business truth), counted."""

    both_pass: int = Field(default=0, ge=0)
    """The verifier passed and the expert passed."""
    false_pass: int = Field(default=0, ge=0)
    """The verifier passed what the expert failed."""
    false_fail: int = Field(default=0, ge=0)
    """The verifier failed what the expert passed."""
    both_fail: int = Field(default=0, ge=0)
    """The verifier failed and the expert failed."""

    @property
    def n(self) -> int:
        """Pairs counted."""
        return self.both_pass + self.false_pass + self.false_fail + self.both_fail


class Agreement(Result):
    """How one verifier agrees with the experts (or with business truth)."""

    verifier: str
    """Verifier name, e.g. `rcm.v2`."""
    n: int = Field(ge=0)
    """Pairs compared."""
    confusion: Confusion
    """The counts behind every rate."""
    accuracy: float | None
    """Share of pairs where verifier and expert agree; None without pairs."""
    kappa: float | None
    """Cohen's kappa; None when undefined (no pairs, or both sides used one and the same class)."""
    false_pass_rate: float | None
    """Verifier passes over expert fails; None when the experts failed nothing."""
    false_fail_rate: float | None
    """Verifier fails over expert passes; None when the experts passed nothing."""


class Fitness(Result):
    """Whether a verifier's agreement admits it for training, and why."""

    fit: bool
    """True when kappa is defined, at least `min_kappa`, on at least `min_labels` labels."""
    reason: str
    """The deciding fact, in words."""
    min_kappa: float = Field(ge=-1.0, le=1.0)
    """The kappa required."""
    min_labels: int = Field(ge=1)
    """The labels required."""


class AgreementSummary(Result):
    """A verifier's agreement with the experts and the gate's decision on it."""

    agreement: Agreement
    """Accuracy, kappa and error rates."""
    fitness: Fitness
    """Fit for training or not, with the reason."""


class OutcomeCorrelation(Result):
    """How well one verifier's scores predict the business truth observed later."""

    verifier: str
    """Verifier name."""
    n: int = Field(ge=0)
    """Scored episodes with a known business truth."""
    good: int = Field(ge=0)
    """Of them, episodes whose outcome was good."""
    bad: int = Field(ge=0)
    """Of them, episodes whose outcome was bad."""
    auc: float | None
    """ROC AUC of the score against good/bad; None unless both classes occur."""
    agreement: Agreement
    """`passed` against good/bad: accuracy, kappa, false-pass rate (passed, then went bad)."""


def confusion(pairs: Iterable[tuple[bool, bool]]) -> Confusion:
    """Count `(verifier_passed, expert_pass)` pairs."""
    counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for verifier_passed, expert_pass in pairs:
        counts[(bool(verifier_passed), bool(expert_pass))] += 1
    return Confusion(
        both_pass=counts[(True, True)],
        false_pass=counts[(True, False)],
        false_fail=counts[(False, True)],
        both_fail=counts[(False, False)],
    )


def cohen_kappa(counts: Confusion) -> float | None:
    """Cohen's kappa of the two raters in `counts`; None when undefined (see the module docstring)."""
    n = counts.n
    verifier_pass = counts.both_pass + counts.false_pass
    expert_pass = counts.both_pass + counts.false_fail
    # kappa = (p_o - p_e) / (1 - p_e), multiplied through by n^2 to stay in integers until the end.
    chance = verifier_pass * expert_pass + (n - verifier_pass) * (n - expert_pass)
    denominator = n * n - chance
    if n == 0 or denominator == 0:
        return None
    return (n * (counts.both_pass + counts.both_fail) - chance) / denominator


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def agreement(pairs: Iterable[tuple[bool, bool]], verifier: str = "") -> Agreement:
    """Accuracy, kappa, false-pass and false-fail rates of `(verifier_passed, expert_pass)` pairs."""
    counts = confusion(pairs)
    return Agreement(
        verifier=verifier,
        n=counts.n,
        confusion=counts,
        accuracy=_ratio(counts.both_pass + counts.both_fail, counts.n),
        kappa=cohen_kappa(counts),
        false_pass_rate=_ratio(counts.false_pass, counts.false_pass + counts.both_fail),
        false_fail_rate=_ratio(counts.false_fail, counts.false_fail + counts.both_pass),
    )


def fit_for_training(
    result: Agreement, min_kappa: float = DEFAULT_MIN_KAPPA, min_labels: int = DEFAULT_MIN_LABELS
) -> Fitness:
    """Whether `result` admits its verifier for training: kappa >= `min_kappa` on >= `min_labels`."""
    if not -1.0 <= min_kappa <= 1.0:
        raise ValueError(f"min_kappa must lie in [-1, 1], got {min_kappa}")
    if min_labels < 1:
        raise ValueError(f"min_labels must be at least 1, got {min_labels}")

    def decide(fit: bool, reason: str) -> Fitness:
        return Fitness(fit=fit, reason=reason, min_kappa=min_kappa, min_labels=min_labels)

    if result.n < min_labels:
        return decide(False, f"{result.n} labels, fewer than the {min_labels} required")
    if result.kappa is None:
        side = "pass" if result.confusion.both_pass else "fail"
        return decide(
            False,
            f"kappa is undefined: every label and every verdict is {side}; label trajectories of both classes",
        )
    if result.kappa < min_kappa:
        return decide(False, f"kappa {result.kappa:.3f} is below {min_kappa} on {result.n} labels")
    return decide(True, f"kappa {result.kappa:.3f} >= {min_kappa} on {result.n} labels")


def agreement_summary(
    verifier: str,
    pairs: Iterable[tuple[bool, bool]],
    *,
    min_kappa: float = DEFAULT_MIN_KAPPA,
    min_labels: int = DEFAULT_MIN_LABELS,
) -> AgreementSummary:
    """One verifier's agreement with `(verifier_passed, expert_pass)` pairs, and the gate on it."""
    result = agreement(pairs, verifier)
    return AgreementSummary(agreement=result, fitness=fit_for_training(result, min_kappa, min_labels))


def agreement_by_verifier(
    rows: Iterable[tuple[str, bool, bool]],
    *,
    min_kappa: float = DEFAULT_MIN_KAPPA,
    min_labels: int = DEFAULT_MIN_LABELS,
) -> list[AgreementSummary]:
    """`agreement_summary` per verifier of `(verifier, verifier_passed, expert_pass)` rows, by name."""
    grouped: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for name, verifier_passed, expert_pass in rows:
        grouped[name].append((verifier_passed, expert_pass))
    return [
        agreement_summary(name, grouped[name], min_kappa=min_kappa, min_labels=min_labels)
        for name in sorted(grouped)
    ]


class ReviewerCount(Result):
    """How many trajectories one reviewer labelled."""

    reviewer: str
    """The reviewer's identity (the signed-in name; never a name a request stated)."""
    labels: int = Field(ge=0)
    """Trajectories they labelled (one label each)."""


def one_per_reviewer(labels: Iterable[tuple[str, str, bool]]) -> list[tuple[str, str, bool]]:
    """`(subject, reviewer, passed)` labels with one per reviewer per subject: the last one given."""
    latest: dict[tuple[str, str], bool] = {}
    for subject, reviewer, passed in labels:
        latest.pop((subject, reviewer), None)  # re-inserted last: order follows the latest label
        latest[(subject, reviewer)] = bool(passed)
    return [(subject, reviewer, passed) for (subject, reviewer), passed in latest.items()]


def reviewer_counts(labels: Iterable[tuple[str, str, bool]]) -> list[ReviewerCount]:
    """Labels per reviewer (one per subject), by reviewer."""
    counts: dict[str, int] = defaultdict(int)
    for _, reviewer, _ in one_per_reviewer(labels):
        counts[reviewer] += 1
    return [ReviewerCount(reviewer=name, labels=counts[name]) for name in sorted(counts)]


def between_reviewers(labels: Iterable[tuple[str, str, bool]]) -> Agreement:
    """How reviewers agree with each other: each pair of reviewers who labelled the same subject is
    one `(first, second)` pair of ratings (reviewers in name order); kappa over all such pairs."""
    by_subject: dict[str, dict[str, bool]] = defaultdict(dict)
    for subject, reviewer, passed in one_per_reviewer(labels):
        by_subject[subject][reviewer] = passed
    pairs = [
        (ratings[a], ratings[b])
        for ratings in by_subject.values()
        for i, a in enumerate(sorted(ratings))
        for b in sorted(ratings)[i + 1 :]
    ]
    return agreement(pairs, "reviewers")


def roc_auc(pairs: Iterable[tuple[float, bool]]) -> float | None:
    """ROC AUC of `(score, good)` pairs: the chance a good one outscores a bad one, ties half.

    Computed from average ranks (the Mann-Whitney U statistic), so O(n log n); None unless both a
    good and a bad pair occur.
    """
    ordered = sorted((float(score), bool(good)) for score, good in pairs)
    good = sum(1 for _, g in ordered if g)
    bad = len(ordered) - good
    if good == 0 or bad == 0:
        return None
    good_rank_sum = 0.0
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1][0] == ordered[start][0]:
            end += 1
        mean_rank = (start + end) / 2 + 1  # ranks start at 1; a tie shares the mean of its ranks
        good_rank_sum += mean_rank * sum(1 for i in range(start, end + 1) if ordered[i][1])
        start = end + 1
    return (good_rank_sum - good * (good + 1) / 2) / (good * bad)


def outcome_kinds(domain: str | None = None) -> OutcomeKinds:
    """`domain`'s outcome kinds; without a domain, every domain's together."""
    if domain is not None:
        if domain not in DOMAINS.names():
            return NO_KINDS
        return DOMAINS.get(domain).outcome_kinds or NO_KINDS
    kinds = [d.outcome_kinds for d in DOMAINS.all() if d.outcome_kinds is not None]
    return OutcomeKinds(
        good=frozenset().union(*(k.good for k in kinds)),
        bad=frozenset().union(*(k.bad for k in kinds)),
        lasting=frozenset().union(*(k.lasting for k in kinds)),
    )


def business_truth(kinds: Sequence[str], domain: str | None = None) -> bool | None:
    """Good (True) or bad (False) from an episode's outcome kinds in stream order; None when unknown.

    The domain's kinds decide (`outcome_kinds`; every domain's without one): a
    lasting bad kind anywhere makes the episode bad (a covenant breach, a default); otherwise the
    last good or bad kind decides (a claim denied again and then won on appeal ended well). Other
    kinds (a partial payment, a pended claim) say nothing either way.
    """
    known = outcome_kinds(domain)
    if any(kind in known.lasting for kind in kinds):
        return False
    for kind in reversed(kinds):
        if kind in known.good:
            return True
        if kind in known.bad:
            return False
    return None


def outcome_correlation(verifier: str, rows: Iterable[tuple[float, bool, bool]]) -> OutcomeCorrelation:
    """How one verifier's `(score, passed, good)` rows predict the business truth."""
    triples = [(float(score), bool(passed), bool(good)) for score, passed, good in rows]
    good = sum(1 for _, _, g in triples if g)
    return OutcomeCorrelation(
        verifier=verifier,
        n=len(triples),
        good=good,
        bad=len(triples) - good,
        auc=roc_auc((score, g) for score, _, g in triples),
        agreement=agreement(((passed, g) for _, passed, g in triples), verifier),
    )


def outcome_correlations(rows: Iterable[tuple[str, float, bool, bool]]) -> list[OutcomeCorrelation]:
    """`outcome_correlation` per verifier of `(verifier, score, passed, good)` rows, by name."""
    grouped: dict[str, list[tuple[float, bool, bool]]] = defaultdict(list)
    for name, score, passed, good in rows:
        grouped[name].append((score, passed, good))
    return [outcome_correlation(name, grouped[name]) for name in sorted(grouped)]
