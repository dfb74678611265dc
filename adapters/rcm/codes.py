"""X12 code tables the agent reads: CARC, RARC, CAS group, CLP02 claim status, 277 status category.

Descriptions are short forms of the published X12 / CMS texts. The same tables serve the sim and
the live backend, so a remittance parsed from an 835 gets exactly the descriptions the sim gives.
A code missing here (a retired or unknown CARC) gets no description rather than a guess.
"""

from __future__ import annotations

GROUP_CODES: dict[str, str] = {
    "CO": "Contractual obligation: the provider may not bill the patient for this amount",
    "PR": "Patient responsibility: may be billed to the patient",
    "OA": "Other adjustment",
    "PI": "Payer initiated reduction",
    "CR": "Correction and reversal",
}

CARC: dict[str, str] = {
    "1": "Deductible amount",
    "2": "Coinsurance amount",
    "3": "Co-payment amount",
    "4": "The procedure code is inconsistent with the modifier used, or a required modifier is missing",
    "15": "The authorization number is missing, invalid, or does not apply to the billed services or provider",
    "16": "Claim/service lacks information or has submission/billing error(s)",
    "18": "Exact duplicate claim/service",
    "22": "This care may be covered by another payer per coordination of benefits",
    "23": "The impact of prior payer(s) adjudication including payments and/or adjustments",
    "24": "Charges are covered under a capitation agreement/managed care plan",
    "26": "Expenses incurred prior to coverage",
    "27": "Expenses incurred after coverage terminated",
    "29": "The time limit for filing has expired",
    "31": "Patient cannot be identified as our insured",
    "45": "Charge exceeds fee schedule/maximum allowable or contracted/legislated fee arrangement",
    "50": "These are non-covered services because this is not deemed a 'medical necessity' by the payer",
    "96": "Non-covered charge(s)",
    "97": "The benefit for this service is included in the payment/allowance for another service/procedure that has already been adjudicated",
    "109": "Claim/service not covered by this payer/contractor; send the claim to the correct payer/contractor",
    "131": "Claim specific negotiated discount",
    "151": "Payment adjusted because the payer deems the information submitted does not support this many/frequency of services",
    "197": "Precertification/authorization/notification/pre-treatment absent",
    "204": "This service/equipment/drug is not covered under the patient's current benefit plan",
    "253": "Sequestration - reduction in federal payment",
    "B7": "This provider was not certified/eligible to be paid for this procedure/service on this date of service",
}

DEACTIVATED_CARC: frozenset[str] = frozenset(f"D{n}" for n in range(1, 25))
"""The D-series CARCs (D1-D24), all deactivated: absent from `CARC`, as any retired code is."""

RARC: dict[str, str] = {
    "M20": "Missing/incomplete/invalid HCPCS",
    "M51": "Missing/incomplete/invalid procedure code(s)",
    "M53": "Missing/incomplete/invalid days or units of service",
    "M62": "Missing/incomplete/invalid treatment authorization code",
    "M76": "Missing/incomplete/invalid diagnosis or condition",
    "M77": "Missing/incomplete/invalid/inappropriate place of service",
    "M86": "Service denied because payment already made for same/similar procedure within set time frame",
    "M127": "Missing patient medical record for this service",
    "MA04": "Secondary payment cannot be considered without the identity of or payment information from the primary payer",
    "MA18": "The claim information is also being forwarded to the patient's supplemental insurer",
    "MA61": "Missing/incomplete/invalid social security number or health insurance claim number",
    "MA130": "Claim contains incomplete and/or invalid information; no appeal rights; submit a new claim with the complete/correct information",
    "N4": "Missing/incomplete/invalid prior insurance carrier(s) EOB",
    "N30": "Patient ineligible for this service",
    "N54": "Claim information is inconsistent with pre-certified/authorized services",
    "N130": "Consult plan benefit documents/guidelines for information about restrictions for this service",
    "N211": "Alert: You may not appeal this decision",
    "N286": "Missing/incomplete/invalid referring provider primary identifier",
    "N290": "Missing/incomplete/invalid rendering provider primary identifier",
    "N362": "The number of days or units of service exceeds our acceptable maximum",
    "N382": "Missing/incomplete/invalid patient identifier",
    "N517": "Resubmit a new claim with the requested information",
    "N657": "This should be billed with the appropriate code for these services",
    "N822": "Missing procedure modifier(s)",
}

DISTINCT_PROCEDURE_MODIFIERS: dict[str, str] = {
    "59": "Distinct procedural service",
    "XE": "Separate encounter: a service distinct because it occurred during a separate encounter",
    "XS": "Separate structure: a service distinct because it was performed on a separate organ/structure",
    "XP": "Separate practitioner: a service distinct because it was performed by a different practitioner",
    "XU": "Unusual non-overlapping service: the use of a service distinct because it does not overlap the usual components of the main service",
}
"""Modifier 59 and its X{EPSU} subsets, which say more precisely why a bundled service is distinct;
a line carries 59 or one of them, never both."""

CLAIM_STATUS_CODES: dict[str, str] = {
    "1": "Processed as primary",
    "2": "Processed as secondary",
    "3": "Processed as tertiary",
    "4": "Denied",
    "19": "Processed as primary, forwarded to additional payer(s)",
    "20": "Processed as secondary, forwarded to additional payer(s)",
    "21": "Processed as tertiary, forwarded to additional payer(s)",
    "22": "Reversal of previous payment",
    "23": "Not our claim, forwarded to additional payer(s)",
    "25": "Predetermination pricing only - no payment",
}

PROVIDER_ADJUSTMENT_REASONS: dict[str, str] = {
    "72": "Authorized return: a refund the provider sent, subtracted from this payment",
    "CS": "Adjustment",
    "FB": "Forwarding balance: a negative balance carried to (or recovered from) another remittance",
    "L6": "Interest owed: interest the payer adds to the payment",
    "WO": "Overpayment recovery: an earlier overpayment recovered from this payment",
}
"""PLB03-1 provider adjustment reasons (X12 835 code list 5010), those the sandbox issues."""

STATUS_CATEGORY: dict[str, str] = {
    "A1": "Acknowledgement/Receipt: the claim has been received",
    "A2": "Acknowledgement/Acceptance into adjudication system",
    "A3": "Acknowledgement/Returned as unprocessable claim",
    "A7": "Acknowledgement/Rejected for invalid information",
    "P1": "Pending/In process",
    "F1": "Finalized/Payment: the claim has been paid",
    "F2": "Finalized/Denial: the claim has been denied",
    "F3": "Finalized/Revised: adjudication information has been changed",
    "F4": "Finalized/Adjudication complete, no payment forthcoming",
}


def describe(table: dict[str, str], code: str) -> str | None:
    """The description of `code`, or None for a code the table does not know (unknown or retired)."""
    return table.get(code)
