"""Expert agreement and business-outcome correlation of the verifiers, from the archive's database.

Labels (the label store) and verdicts (archived `verifier.scored` events) become the plain pairs
`envs.verifiers.agreement` measures; `loopline verifiers agreement|outcomes` print the results and the
verifier card reuses them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from bridge.store.labels import LabelSource, SqlLabelStore
from bridge.store.verdicts import SqlVerdictReader
from envs.verifiers.agreement import (
    DEFAULT_MIN_KAPPA,
    DEFAULT_MIN_LABELS,
    Agreement,
    AgreementSummary,
    OutcomeCorrelation,
    ReviewerCount,
    agreement_by_verifier,
    between_reviewers,
    business_truth,
    one_per_reviewer,
    outcome_correlations,
    reviewer_counts,
)

NO_OUTCOMES = "no scored production episodes with outcomes"


class AgreementReport(BaseModel):
    """Every verifier's agreement with the expert labels in the store."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    labels: int
    """Labels considered."""
    unscored_labels: int
    """Of them, labels whose subject no verifier scored in the archive (they count for no verifier)."""
    verifiers: list[AgreementSummary]
    """Per verifier, by name: agreement over the labelled subjects it scored, and the gate."""
    reviewers: list[ReviewerCount] = []
    """Who labelled, and how many subjects each (one label per reviewer per subject)."""
    between_reviewers: Agreement | None = None
    """Reviewers' agreement with each other on the subjects two or more of them labelled."""


class OutcomeReport(BaseModel):
    """How well each verifier's scores predict the business outcomes observed later."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    episodes: int
    """Archived episodes with a verdict and at least one `outcome.observed`."""
    unknown_truth: int
    """Of them, episodes whose outcome kinds say neither good nor bad."""
    verifiers: list[OutcomeCorrelation]
    """Per verifier, by name: AUC and agreement over the episodes of known truth it scored."""
    note: str | None = None
    """Why there is nothing to report, when there is not."""


def archived_agreement(
    db_url: str,
    *,
    source: LabelSource | None = None,
    min_kappa: float = DEFAULT_MIN_KAPPA,
    min_labels: int = DEFAULT_MIN_LABELS,
) -> AgreementReport:
    """Each label (one per reviewer per subject) paired with every verifier's latest verdict on its
    subject, measured per verifier; who labelled, and how reviewers agree with each other."""
    store = SqlLabelStore(db_url)
    store.create_schema()
    labels = one_per_reviewer((x.subject, x.reviewer, x.passed) for x in store.list_labels(source=source))
    verdicts = SqlVerdictReader(store.engine).verdicts(subject for subject, _, _ in labels)
    rows = [
        (v.verifier, v.passed, passed) for subject, _, passed in labels for v in verdicts.get(subject, [])
    ]
    return AgreementReport(
        labels=len(labels),
        unscored_labels=sum(1 for subject, _, _ in labels if subject not in verdicts),
        verifiers=agreement_by_verifier(rows, min_kappa=min_kappa, min_labels=min_labels),
        reviewers=reviewer_counts(labels),
        between_reviewers=between_reviewers(labels),
    )


def archived_outcomes(db_url: str) -> OutcomeReport:
    """Each scored episode's verdicts against the business truth of its observed outcomes."""
    episodes = SqlVerdictReader(db_url).scored_with_outcomes()
    truths = [(episode, business_truth(episode.outcome_kinds)) for episode in episodes]
    rows = [
        (v.verifier, v.score, v.passed, truth)
        for ep, truth in truths
        if truth is not None
        for v in ep.verdicts
    ]
    unknown = sum(1 for _, truth in truths if truth is None)
    note = None
    if not episodes:
        note = NO_OUTCOMES
    elif not rows:
        note = f"{NO_OUTCOMES} of a known kind ({unknown} with outcomes that say neither good nor bad)"
    return OutcomeReport(
        episodes=len(episodes), unknown_truth=unknown, verifiers=outcome_correlations(rows), note=note
    )
