"""`WorldBuilder`: assembles one seeded RCM world (practice, payers, people, a claim and its 835).

Every case of the task generator starts from a builder: a practice with its clinicians, the
payers with their rules, the patient with coverage and PHI, two look-alike patients so that
demographic searches have something to tell apart, then the claim, its remittance, documents and
authorizations the case needs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal

from adapters.rcm.era import AdjSpec, build_remittance
from adapters.rcm.filing import filed_claim
from adapters.rcm.models import (
    Address,
    Claim,
    Coverage,
    Document,
    DocumentKind,
    Patient,
    Payer,
    PayerSequence,
    Practice,
    Provider,
    Remittance,
    ServiceLine,
)
from adapters.rcm.payers import Bulletin, RuleChange
from adapters.rcm.records import Authorization, WriteOff
from adapters.rcm.world import World
from envs.rcm.vocab import (
    BY_CODE,
    CITIES,
    CLINICIANS,
    FIRST_NAMES,
    LAST_NAMES,
    PAYERS,
    PRACTICES,
    PROCEDURES,
    STREETS,
)
from envs.rcm.vocab import member_id as make_member_id
from envs.rcm.vocab import npi as make_npi

"""(group code, CARC, amount) of one CAS adjustment."""


@dataclass(frozen=True)
class LineSpec:
    """A service line to bill: code, modifiers, place of service, charge."""

    code: str
    modifiers: tuple[str, ...] = ()
    pos: str | None = None
    charge: float | None = None


@dataclass
class WorldBuilder:
    """Collects entities for one world; ids are unique within it and drawn from `rng`."""

    rng: random.Random
    today: date
    payers: Sequence[Payer] = PAYERS
    limit: float = 500.0
    patients: dict[str, Patient] = field(default_factory=dict)
    coverages: dict[str, Coverage] = field(default_factory=dict)
    claims: dict[str, Claim] = field(default_factory=dict)
    remittances: dict[str, Remittance] = field(default_factory=dict)
    documents: dict[str, Document] = field(default_factory=dict)
    authorizations: dict[str, Authorization] = field(default_factory=dict)
    bulletins: dict[str, Bulletin] = field(default_factory=dict)
    write_offs: dict[str, WriteOff] = field(default_factory=dict)
    """What the practice posted before the work item (e.g. the contractual part of a first payment)."""

    def __post_init__(self) -> None:
        rng = self.rng
        self.practice = Practice(
            name=rng.choice(PRACTICES),
            billing_npi=make_npi(rng),
            tax_id=f"{rng.randrange(10, 99)}{rng.randrange(1000000, 9999999)}",
            write_off_approval_limit=self.limit,
        )
        names = rng.sample(CLINICIANS, 3)
        self.clinicians = [Provider(npi=make_npi(rng), name=n, kind="individual") for n in names]
        self._used: set[str] = set()

    # -- ids, dates, money ----------------------------------------------------------------------
    def new_id(self, prefix: str, digits: int = 5) -> str:
        while True:
            candidate = f"{prefix}{self.rng.randrange(10 ** (digits - 1), 10**digits)}"
            if candidate not in self._used:
                self._used.add(candidate)
                return candidate

    def ago(self, days: int) -> date:
        return self.today - timedelta(days=days)

    def payer(self, payer_id: str) -> Payer:
        return next(p for p in self.payers if p.payer_id == payer_id)

    def change_rules(self, payer_id: str, **rules: object) -> None:
        """The payer's rules in this world differ from the vocabulary's (a contract, a new rule)."""
        self.payers = [
            p.model_copy(update={"rules": p.rules.model_copy(update=rules)}) if p.payer_id == payer_id else p
            for p in self.payers
        ]

    def dated_change(
        self, payer_id: str, effective: date, published: date | None, title: str, text: str, **rules: object
    ) -> str:
        """The payer changes `rules` for services from `effective` on (a new version on top of the
        latest), announced by a bulletin published on `published` (None: still pending, for a plan
        to publish); returns the bulletin's id."""
        bulletin_id = self.new_id("BUL-")
        payer = self.payer(payer_id)
        latest = payer.rules_on(date.max)
        change = RuleChange(
            effective_date=effective, rules=latest.model_copy(update=rules), bulletin_id=bulletin_id
        )
        changed = payer.model_copy(update={"rule_changes": (*payer.rule_changes, change)})
        self.payers = [changed if p.payer_id == payer_id else p for p in self.payers]
        self.bulletins[bulletin_id] = Bulletin(
            bulletin_id=bulletin_id,
            payer_id=payer_id,
            title=title,
            text=text,
            effective_date=effective,
            published_date=published,
        )
        return bulletin_id

    def contract(self, payer_id: str, code: str, rate: float) -> None:
        """Put the practice's fee schedule with the payer on file: `code` at `rate`, and the other
        procedures at rates drawn inside their charge ranges."""
        schedule = {p.code: float(round(self.rng.uniform(p.low * 0.45, p.low * 0.8))) for p in PROCEDURES}
        schedule[code] = round(rate, 2)
        self.change_rules(payer_id, fee_schedule=schedule)

    # -- people ---------------------------------------------------------------------------------
    def person(
        self,
        plans: Sequence[tuple[str, PayerSequence, date, date | None]],
        *,
        senior: bool = False,
        last_name: str | None = None,
        birth_date: date | None = None,
    ) -> Patient:
        """A patient with one coverage per plan (payer id, COB order, start, end)."""
        rng = self.rng
        age = rng.randrange(66, 90) if senior else rng.randrange(19, 64)
        born = self.today - timedelta(days=age * 365 + rng.randrange(365))
        city, state, zip3 = rng.choice(CITIES)
        patient = Patient(
            patient_id=self.new_id("P-"),
            first_name=rng.choice(FIRST_NAMES),
            last_name=last_name or rng.choice(LAST_NAMES),
            birth_date=birth_date or born,
            gender=rng.choice(("F", "M")),
            address=Address(
                line1=f"{rng.randrange(10, 990)} {rng.choice(STREETS)}",
                city=city,
                state=state,
                postal_code=f"{zip3}{rng.randrange(10, 99)}",
            ),
        )
        self.patients[patient.patient_id] = patient
        for payer_id, order, start, end in plans:
            self.cover(patient, payer_id, order, start, end)
        return patient

    def cover(
        self, patient: Patient, payer_id: str, order: PayerSequence, start: date, end: date | None = None
    ) -> Coverage:
        coverage = Coverage(
            coverage_id=self.new_id("COV-"),
            patient_id=patient.patient_id,
            payer_id=payer_id,
            member_id=make_member_id(self.rng, self.payer(payer_id)),
            group_number=f"GRP-{payer_id}-{self.rng.randrange(100, 999)}",
            plan_name=f"{self.payer(payer_id).name} {self.rng.choice(('Gold', 'Silver', 'Standard', 'Plus'))}",
            subscriber_first_name=patient.first_name,
            subscriber_last_name=patient.last_name,
            subscriber_birth_date=patient.birth_date,
            relationship="self",
            start_date=start,
            end_date=end,
            cob_order=order,
        )
        self.coverages[coverage.coverage_id] = coverage
        return coverage

    def lookalikes(self, patient: Patient, payer_id: str) -> None:
        """Two other patients: one sharing the last name, one sharing the birth date."""
        self.person([(payer_id, "primary", self.ago(900), None)], last_name=patient.last_name)
        other_payer = self.rng.choice(("MCR", "BLUE", "ACME"))
        self.person([(other_payer, "primary", self.ago(700), None)], birth_date=patient.birth_date)

    def coverage_of(self, patient: Patient, payer_id: str) -> Coverage | None:
        """The patient's coverage at the payer, if any."""
        found = (
            c
            for c in self.coverages.values()
            if c.patient_id == patient.patient_id and c.payer_id == payer_id
        )
        return next(found, None)

    # -- claims and remittances -----------------------------------------------------------------
    def claim(
        self,
        patient: Patient,
        payer_id: str,
        lines: Sequence[LineSpec],
        dos: date,
        *,
        dx: Sequence[str] | None = None,
        member_id: str | None = None,
        rendering: str | None = None,
        auth: str | None = None,
        submitted: date | None = None,
        accepted: date | None = None,
        sequence: PayerSequence | None = None,
    ) -> Claim:
        """A claim as sent; `member_id` and `sequence` default to the patient's coverage there."""
        rng = self.rng
        procedures = [BY_CODE[spec.code] for spec in lines]
        diagnoses = tuple(dx or dict.fromkeys(rng.choice(p.diagnoses) for p in procedures))
        service_lines = tuple(
            ServiceLine(
                line_number=n,
                procedure_code=spec.code,
                modifiers=spec.modifiers,
                charge=spec.charge if spec.charge is not None else float(rng.randrange(p.low, p.high)),
                place_of_service=spec.pos or p.place_of_service,
                service_date=dos,
                diagnosis_pointers=(min(n, len(diagnoses)),),
            )
            for n, (spec, p) in enumerate(zip(lines, procedures, strict=True), start=1)
        )
        sent = submitted or dos + timedelta(days=rng.randrange(1, 6))
        claim_id = self.new_id("CLM-")
        pcn = f"{payer_id}{sent:%y%j}{rng.randrange(10000, 99999)}"
        coverage = self.coverage_of(patient, payer_id)
        member = member_id or (coverage.member_id if coverage else None)
        if member is None:
            raise ValueError(f"patient {patient.patient_id} has no coverage at {payer_id}; give member_id")
        claim = filed_claim(
            claim_id=claim_id,
            patient=patient,
            payer_id=payer_id,
            member_id=member,
            billing_npi=self.practice.billing_npi,
            rendering_npi=rendering or self.clinicians[0].npi,
            payer_claim_control_number=pcn,
            diagnoses=diagnoses,
            lines=service_lines,
            submitted=sent,
            status="denied",
            accepted=accepted,
            prior_auth_number=auth,
            payer_sequence=sequence or (coverage.cob_order if coverage else "primary"),
        )
        self.claims[claim_id] = claim
        return claim

    def remit(
        self,
        claim: Claim,
        produced: date,
        adjustments: dict[int, list[AdjSpec]],
        remarks: dict[int, tuple[str, ...]] | None = None,
        *,
        paid: dict[int, float] | None = None,
    ) -> Remittance:
        """An 835 for the claim; a line pays its charge less its adjustments unless `paid` says."""
        remittance = build_remittance(
            claim,
            remittance_id=self.new_id("ERA", 8),
            produced=produced,
            filing_indicator=self.payer(claim.payer_id).claim_filing_indicator,
            adjustments=adjustments,
            remarks=remarks,
            paid=paid,
        )
        paid_total, patient_part = remittance.paid_amount, remittance.patient_responsibility_amount
        self.remittances[remittance.remittance_id] = remittance
        status = "denied" if paid_total == 0 and patient_part == 0 else "partially_paid"
        if paid_total >= claim.total_charge - 0.005:
            status = "paid"
        self.claims[claim.claim_id] = claim.model_copy(update={"status": status})
        return remittance

    def posted_contractual(self, claim: Claim, amount: float, first_paid: date) -> WriteOff:
        """The CO-45 of the claim's first payment (paid on `first_paid`), written off the day after:
        what the practice posted before the work item."""
        posted = WriteOff(
            write_off_id=self.new_id("WO-"),
            claim_id=claim.claim_id,
            amount=amount,
            reason_code="contractual",
            note="CO-45 on the first payment",
            posted_date=first_paid + timedelta(days=1),
        )
        self.write_offs[posted.write_off_id] = posted
        return posted

    def deny(
        self, claim: Claim, produced: date, carc: str, *, group: str = "CO", remarks: tuple[str, ...] = ()
    ) -> Remittance:
        """Every line denied in full with one CARC (remarks on line 1)."""
        adjustments = {line.line_number: [(group, carc, line.charge)] for line in claim.lines}
        return self.remit(claim, produced, adjustments, {1: remarks} if remarks else None)

    # -- documents and authorizations -----------------------------------------------------------
    def document(
        self,
        patient: Patient,
        claim: Claim | None,
        kind: DocumentKind,
        title: str,
        text: str,
        *,
        day: date | None = None,
        signed: bool = True,
        codes: tuple[str, ...] = (),
        reason: str = "",
    ) -> Document:
        doc = Document(
            document_id=self.new_id("DOC-"),
            patient_id=patient.patient_id,
            claim_id=claim.claim_id if claim else None,
            kind=kind,
            title=title,
            document_date=day or (claim.first_service_date if claim else self.today),
            signed=signed,
            procedure_codes=codes,
            noncoverage_reason=reason,
            text=text,
        )
        self.documents[doc.document_id] = doc
        return doc

    def authorization(
        self,
        patient: Patient,
        payer_id: str,
        codes: Sequence[str],
        dos: date,
        *,
        status: Literal["approved", "pended", "denied"] = "approved",
    ) -> Authorization:
        requested = dos - timedelta(days=self.rng.randrange(5, 20))
        auth = Authorization(
            auth_id=self.new_id("AUTH-", 6),
            patient_id=patient.patient_id,
            payer_id=payer_id,
            procedure_codes=tuple(codes),
            service_date=dos,
            requested_date=requested,
            status=status,
            auth_number=self.new_id("PA", 6) if status == "approved" else None,
            decision_reason="meets clinical criteria" if status == "approved" else "",
            decision_date=requested + timedelta(days=2),
        )
        self.authorizations[auth.auth_id] = auth
        return auth

    def build(self) -> World:
        providers = {p.npi: p for p in self.clinicians}
        providers[self.practice.billing_npi] = Provider(
            npi=self.practice.billing_npi, name=self.practice.name, kind="organization"
        )
        return World(
            today=self.today,
            practice=self.practice,
            payers={p.payer_id: p for p in self.payers},
            providers=providers,
            patients=self.patients,
            coverages=self.coverages,
            claims=self.claims,
            remittances=self.remittances,
            documents=self.documents,
            authorizations=self.authorizations,
            bulletins=self.bulletins,
            write_offs=self.write_offs,
        )
