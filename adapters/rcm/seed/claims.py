"""Seed claims: one denied claim per CARC row (see `cases.SEED_CASES`), with its remittance."""

from __future__ import annotations

from datetime import date

from adapters.rcm.models import Claim, Remittance
from adapters.rcm.seed.base import BILLING_NPI, DR_KAUR, ago
from adapters.rcm.seed.builders import claim, denied, line, rejected, remit


def seed_claims() -> tuple[list[Claim], list[Remittance]]:
    c: list[Claim] = []
    r: list[Remittance] = []

    def add(new: Claim, remittance: Remittance | None = None) -> None:
        c.append(new)
        if remittance is not None:
            r.append(remittance)

    # fmt: off
    k = claim("CLM-1001", "P-001", "MCR", "1EG4TE5MK72", ("M54.50",), (line(1, "99214", 210.0, ago(40)),), ago(38), "denied", rendering=BILLING_NPI)
    add(k, denied(k, ago(20), "16", ("N290",)))
    k = claim("CLM-1002", "P-002", "BLUE", "BLU448812301", ("J06.9",), (line(1, "99213", 150.0, ago(35), pos="10"),), ago(33), "denied")
    add(k, denied(k, ago(18), "4", ("N822",)))
    k = claim("CLM-1003", "P-003", "ACME", "ACM100234", ("M17.11",), (line(1, "20610", 220.0, ago(30), ("RT",)),), ago(29), "denied")
    add(k, denied(k, ago(12), "15", ("M62",)))
    k = claim("CLM-1004", "P-004", "BLUE", "BLU558120044", ("L97.412",), (line(1, "11042", 300.0, ago(10)),), ago(9), "denied")
    add(k, denied(k, ago(3), "197"))
    k = claim("CLM-1005", "P-005", "MCD", "MCD77120033", ("M54.16",), (line(1, "72148", 1250.0, ago(45), pos="22"),), ago(44), "denied")
    add(k, denied(k, ago(25), "197"))
    k = claim("CLM-1006", "P-006", "ACME", "ACM200871", ("E11.9",), (line(1, "99214", 210.0, ago(150)),), ago(95), "denied", accepted=ago(92))
    add(k, denied(k, ago(30), "29"))
    k = claim("CLM-1007", "P-006", "ACME", "ACM200871", ("I10",), (line(1, "99213", 150.0, ago(200)), line(2, "93000", 30.0, ago(200))), ago(80), "denied", accepted=ago(79))
    add(k, denied(k, ago(40), "29"))
    k = claim("CLM-0908", "P-001", "MCR", "1EG4TE5MK72", ("E78.5",), (line(1, "99213", 150.0, ago(70)),), ago(68), "paid")
    add(k, remit(k, ago(50), {1: [("CO", "45", 42.0), ("PR", "2", 21.6)]}))
    k = claim("CLM-1008", "P-001", "MCR", "1EG4TE5MK72", ("E78.5",), (line(1, "99213", 150.0, ago(70)),), ago(45), "denied")
    add(k, denied(k, ago(30), "18", ("M86",)))
    k = claim("CLM-0909", "P-002", "BLUE", "BLU448812301", ("S61.411A",), (line(1, "12001", 240.0, ago(60)),), ago(58), "denied")
    add(k, denied(k, ago(40), "16", ("M51",)))
    k = claim("CLM-1009", "P-002", "BLUE", "BLU448812301", ("S61.411A",), (line(1, "12001", 240.0, ago(60)),), ago(30), "denied")
    add(k, denied(k, ago(15), "18"))
    k = claim("CLM-1010", "P-007", "MCR", "2KT7PL3XA19", ("I48.91",), (line(1, "99214", 210.0, ago(28)), line(2, "93000", 30.0, ago(28))), ago(27), "denied")
    add(k, denied(k, ago(14), "22", ("MA04",)))
    k = claim("CLM-1011", "P-008", "ACME", "ACM410290", ("J45.909",), (line(1, "99213", 150.0, date(2025, 4, 20)),), date(2025, 4, 22), "denied")
    add(k, denied(k, date(2025, 5, 10), "27"))
    k = claim("CLM-1012", "P-009", "BLUE", "BLU771045520", ("N39.0",), (line(1, "99213", 150.0, date(2025, 3, 15)),), date(2025, 3, 17), "denied")
    add(k, denied(k, date(2025, 4, 2), "27", ("N30",), group="PR"))
    k = claim("CLM-1013", "P-010", "ACME", "ACM310525", ("K21.9",), (line(1, "99213", 150.0, ago(21)),), ago(20), "denied")
    add(k, denied(k, ago(10), "31", ("MA61",)))
    k = claim("CLM-1014", "P-011", "MCR", "3JX9RT2WB41", ("M17.12",), (line(1, "20610", 220.0, ago(50), ("LT",)),), ago(48), "denied")
    add(k, denied(k, ago(30), "50"))
    k = claim("CLM-1015", "P-012", "MCR", "4HW2QN8YC07", ("Z00.00",), (line(1, "G0439", 175.0, ago(40), ("GA",)),), ago(38), "denied")
    add(k, denied(k, ago(22), "50"))
    k = claim("CLM-1016", "P-013", "BLUE", "BLU880412236", ("L84", "L98.491"), (line(1, "17110", 180.0, ago(26)), line(2, "11042", 300.0, ago(26))), ago(25), "partially_paid")
    add(k, remit(k, ago(12), {1: [("CO", "45", 40.0)], 2: [("CO", "97", 300.0)]}, {2: ("N657",)}))
    k = claim("CLM-1017", "P-014", "ACME", "ACM884120", ("F41.1",), (line(1, "90834", 160.0, ago(33)),), ago(32), "denied")
    add(k, denied(k, ago(16), "109"))
    k = claim("CLM-1018", "P-015", "ACME", "ACM520118", ("E03.9",), (line(1, "99214", 210.0, ago(24)),), ago(23), "paid")
    add(k, remit(k, ago(8), {1: [("CO", "45", 70.0), ("PR", "2", 28.0)]}))
    k = claim("CLM-1019", "P-016", "BLUE", "BLU990155017", ("R10.9",), (line(1, "99203", 180.0, ago(19)),), ago(18), "paid")
    add(k, remit(k, ago(6), {1: [("CO", "45", 50.0), ("PR", "1", 130.0)]}))
    k = claim("CLM-1020", "P-017", "ACME", "ACM630907", ("J02.9",), (line(1, "99213", 150.0, ago(17)),), ago(16), "paid")
    add(k, remit(k, ago(5), {1: [("CO", "45", 40.0), ("PR", "3", 30.0)]}))
    k = claim("CLM-1021", "P-018", "MCR", "5MN3RD7KE22", ("I25.10",), (line(1, "99204", 260.0, ago(36)),), ago(35), "denied", rendering=DR_KAUR)
    add(k, denied(k, ago(20), "B7"))
    k = claim("CLM-1022", "P-019", "MCR", "6PA8XW4JT90", ("R53.83",), (line(1, "82607", 95.0, ago(42)),), ago(41), "denied")
    add(k, denied(k, ago(27), "50"))
    k = claim("CLM-1023", "P-020", "MCR", "7RB2CF9HN53", ("M25.561",), (line(1, "20610", 220.0, ago(170), ("RT",)),), ago(168), "denied")
    add(k, denied(k, ago(130), "50"))
    k = claim("CLM-1024", "P-019", "MCR", "6PA8XW4JT90", ("R53",), (line(1, "99213", 120.0, ago(25)),), ago(24), "denied")
    add(k, denied(k, ago(9), "16", ("M76", "MA130")))
    add(rejected(claim("CLM-1025", "P-003", "ACME", "ACM100243", ("M25.561",), (line(1, "99213", 150.0, ago(12)),), ago(11), "submitted"), ago(10), "subscriber id not found (2010BA NM109)"))
    # fmt: on
    return c, r
