"""The console's agreement figures: the reviewers' labels in the archive's label store against each
other and against every verifier's archived verdicts (`loopline.card.agreement`, the numbers the
verifier card prints), as the plain figures the bridge's console shows."""

from __future__ import annotations

from bridge.api.review_console import Agreements, AgreementSource, VerifierAgreement


def review_agreements(db_url: str) -> AgreementSource:
    """Measures, on each call, the reviewers' agreement in the archive at `db_url`."""

    def measure() -> Agreements:
        from loopline.card.agreement import archived_agreement

        report = archived_agreement(db_url, source="reviewer")
        between = report.between_reviewers
        return Agreements(
            reviewers=tuple((r.reviewer, r.labels) for r in report.reviewers),
            between_n=between.n if between is not None else 0,
            between_kappa=between.kappa if between is not None else None,
            verifiers=tuple(
                VerifierAgreement(
                    v.agreement.verifier, v.agreement.n, v.agreement.kappa, v.fitness.fit, v.fitness.reason
                )
                for v in report.verifiers
            ),
        )

    return measure
