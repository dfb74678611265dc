"""Entity → result-view conversions shared by the sim and the live backend.

The live backend parses the sandbox's 835 back into `Remittance` entities and calls the same
`remittance_view`, which is what makes the two backends' answers identical.
"""

from __future__ import annotations

from adapters.rcm.codes import CARC, CLAIM_STATUS_CODES, PROVIDER_ADJUSTMENT_REASONS, RARC, describe
from adapters.rcm.models import Adjustment, Coverage, Document, Remittance
from adapters.rcm.results import (
    AdjustmentView,
    ClaimPaymentView,
    CoverageView,
    DocumentSummary,
    ProviderAdjustmentView,
    RemarkView,
    RemitLineView,
)


def adjustment_view(adj: Adjustment) -> AdjustmentView:
    return AdjustmentView(
        group_code=adj.group_code,
        reason_code=adj.reason_code,
        amount=adj.amount,
        description=describe(CARC, adj.reason_code),
    )


def remittance_view(remittance: Remittance, payer_name: str) -> ClaimPaymentView:
    lines = [
        RemitLineView(
            line_number=line.line_number,
            procedure_code=line.procedure_code,
            modifiers=list(line.modifiers),
            charge=line.charge,
            paid=line.paid,
            units=line.units,
            service_date=line.service_date,
            adjustments=[adjustment_view(a) for a in line.adjustments],
            remarks=[RemarkView(code=c, description=describe(RARC, c)) for c in line.remark_codes],
        )
        for line in remittance.lines
    ]
    return ClaimPaymentView(
        remittance_id=remittance.remittance_id,
        payer_id=remittance.payer_id,
        payer_name=payer_name,
        payer_claim_control_number=remittance.payer_claim_control_number,
        claim_status_code=remittance.claim_status_code,
        claim_status_description=describe(CLAIM_STATUS_CODES, remittance.claim_status_code),
        total_charge=remittance.total_charge,
        paid_amount=remittance.paid_amount,
        patient_responsibility_amount=remittance.patient_responsibility_amount,
        claim_filing_indicator=remittance.claim_filing_indicator,
        production_date=remittance.production_date,
        payment_method=remittance.payment_method,
        patient_first_name=remittance.patient_first_name,
        patient_last_name=remittance.patient_last_name,
        member_id=remittance.member_id,
        claim_adjustments=[adjustment_view(a) for a in remittance.claim_adjustments],
        lines=lines,
        trace_number=remittance.trace_number,
        provider_adjustments=[
            ProviderAdjustmentView(
                reason_code=p.reason_code,
                description=describe(PROVIDER_ADJUSTMENT_REASONS, p.reason_code),
                reference=p.reference,
                amount=p.amount,
            )
            for p in remittance.provider_adjustments
        ],
    )


def coverage_view(coverage: Coverage, payer_name: str, service_date_active: bool) -> CoverageView:
    return CoverageView(
        payer_id=coverage.payer_id,
        payer_name=payer_name,
        member_id=coverage.member_id,
        group_number=coverage.group_number,
        plan_name=coverage.plan_name,
        subscriber_first_name=coverage.subscriber_first_name,
        subscriber_last_name=coverage.subscriber_last_name,
        subscriber_birth_date=coverage.subscriber_birth_date,
        relationship=coverage.relationship,
        coverage_start=coverage.start_date,
        coverage_end=coverage.end_date,
        active_on_service_date=service_date_active,
        cob_order=coverage.cob_order,
    )


def document_summary(document: Document) -> DocumentSummary:
    return DocumentSummary(
        document_id=document.document_id,
        kind=document.kind,
        title=document.title,
        document_date=document.document_date,
        signed=document.signed,
        claim_id=document.claim_id,
    )
