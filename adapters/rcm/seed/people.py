"""Seed patients and their coverages (all invented): (id, first, last, born, gender, plans)."""

from __future__ import annotations

from datetime import date

from adapters.rcm.models import Address, Coverage, Patient

# fmt: off
_PEOPLE: list[tuple[str, str, str, date, str, list[tuple[str, str, str, date, date | None, str | None]]]] = [
    ("P-001", "Maria", "Lopez", date(1958, 3, 12), "F", [("MCR", "1EG4TE5MK72", "primary", date(2023, 4, 1), None, None)]),
    ("P-002", "James", "Carter", date(1980, 7, 22), "M", [("BLUE", "BLU448812301", "primary", date(2022, 1, 1), None, None)]),
    ("P-003", "Aisha", "Khan", date(1975, 11, 2), "F", [("ACME", "ACM100234", "primary", date(2021, 1, 1), None, None)]),
    ("P-004", "Robert", "Chen", date(1969, 1, 30), "M", [("BLUE", "BLU558120044", "primary", date(2020, 7, 1), None, None)]),
    ("P-005", "Linda", "Park", date(1990, 5, 5), "F", [("MCD", "MCD77120033", "primary", date(2024, 2, 1), None, None)]),
    ("P-006", "Thomas", "Reed", date(1972, 9, 14), "M", [("ACME", "ACM200871", "primary", date(2019, 1, 1), None, None)]),
    ("P-007", "Grace", "Miller", date(1948, 12, 1), "F", [("ACME", "ACM300415", "primary", date(2015, 1, 1), None, "Henry Miller"), ("MCR", "2KT7PL3XA19", "secondary", date(2013, 12, 1), None, None)]),
    ("P-008", "Daniel", "Ortiz", date(1985, 2, 17), "M", [("ACME", "ACM410290", "primary", date(2020, 1, 1), date(2025, 3, 31), None), ("BLUE", "BLU660233871", "primary", date(2025, 4, 1), None, None)]),
    ("P-009", "Sofia", "Rossi", date(1995, 8, 8), "F", [("BLUE", "BLU771045520", "primary", date(2023, 1, 1), date(2025, 2, 28), None)]),
    ("P-010", "Kevin", "Nguyen", date(1983, 4, 19), "M", [("ACME", "ACM310552", "primary", date(2022, 6, 1), None, None)]),
    ("P-011", "Emily", "Davis", date(1962, 6, 25), "F", [("MCR", "3JX9RT2WB41", "primary", date(2017, 7, 1), None, None)]),
    ("P-012", "Frank", "Wilson", date(1950, 10, 10), "M", [("MCR", "4HW2QN8YC07", "primary", date(2015, 11, 1), None, None)]),
    ("P-013", "Olivia", "Brown", date(1988, 1, 14), "F", [("BLUE", "BLU880412236", "primary", date(2021, 3, 1), None, None)]),
    ("P-014", "Henry", "Adams", date(1979, 3, 3), "M", [("MCD", "MCD88123456", "primary", date(2024, 9, 1), None, None)]),
    ("P-015", "Nora", "Kim", date(1966, 7, 7), "F", [("ACME", "ACM520118", "primary", date(2018, 1, 1), None, None)]),
    ("P-016", "Liam", "Scott", date(1992, 12, 12), "M", [("BLUE", "BLU990155017", "primary", date(2025, 1, 1), None, None)]),
    ("P-017", "Zoe", "Hall", date(2001, 9, 9), "F", [("ACME", "ACM630907", "primary", date(2023, 8, 1), None, None)]),
    ("P-018", "Mason", "Young", date(1958, 4, 4), "M", [("MCR", "5MN3RD7KE22", "primary", date(2023, 5, 1), None, None)]),
    ("P-019", "Ella", "King", date(1959, 11, 11), "F", [("MCR", "6PA8XW4JT90", "primary", date(2024, 12, 1), None, None)]),
    ("P-020", "Jack", "Wright", date(1955, 5, 15), "M", [("MCR", "7RB2CF9HN53", "primary", date(2020, 6, 1), None, None)]),
]
# fmt: on


def _people() -> tuple[list[Patient], list[Coverage]]:
    patients, coverages = [], []
    for pid, first, last, born, gender, plans in _PEOPLE:
        address = Address(
            line1=f"{int(pid[2:]) * 17} Elm Street", city="Springfield", state="IL", postal_code="62704"
        )
        patients.append(
            Patient(
                patient_id=pid,
                first_name=first,
                last_name=last,
                birth_date=born,
                gender=gender,
                address=address,
            )
        )
        for n, (payer, member, order, start, end, subscriber) in enumerate(plans, 1):
            sub_first, sub_last = subscriber.split() if subscriber else (first, last)
            coverages.append(
                Coverage(
                    coverage_id=f"COV-{pid[2:]}-{n}",
                    patient_id=pid,
                    payer_id=payer,
                    member_id=member,
                    group_number=f"GRP-{payer}-01",
                    plan_name=f"{payer} standard plan",
                    subscriber_first_name=sub_first,
                    subscriber_last_name=sub_last,
                    subscriber_birth_date=born if subscriber is None else date(1946, 2, 20),
                    relationship="self" if subscriber is None else "spouse",
                    start_date=start,
                    end_date=end,
                    cob_order=order,
                )
            )
    return patients, coverages


PATIENTS, COVERAGES = _people()
BY_ID = {p.patient_id: p for p in PATIENTS}
