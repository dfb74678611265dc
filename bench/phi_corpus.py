"""The labelled PHI corpus: free-text strings as an RCM episode writes them, each with its PHI.

    .venv/bin/python bench/phi_corpus.py      # rewrites bench/data/phi_corpus.jsonl

Each line: `text`, `phi` (every identifier in it, with its Safe Harbor class) and `known` (the
values the episode's PHI-marked fields held: the patient's name, birth date, address and member
id, as the scrubber learns them from tool results). Strings mix the formats people write (phone
numbers with and without brackets, dates in four styles, ids with dashes) and include identifiers
the episode never held (a relative's name, a fax number, a licence), which only the pattern classes
can catch. Deterministic (seed 14). The classes that do not apply to RCM free text (biometrics,
full-face photographs) are absent.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "data" / "phi_corpus.jsonl"
FIRST = [
    "Maria",
    "James",
    "Aisha",
    "Wei",
    "Olga",
    "Carlos",
    "Fatima",
    "John",
    "Priya",
    "Liam",
    "Noor",
    "Hannah",
]
LAST = ["Lopez", "Okafor", "Nguyen", "Schmidt", "Haddad", "Kowalski", "Brennan", "Tanaka", "Moreau", "Patel"]
STREETS = ["Elm Street", "Oak Avenue", "Maple Dr", "Lincoln Blvd", "Cedar Ln", "Harbor Road", "Willow Ct"]
CITIES = [("Springfield", "IL", "62704"), ("Dayton", "OH", "45402"), ("Austin", "TX", "78701"),
          ("Fresno", "CA", "93721"), ("Albany", "NY", "12207")]  # fmt: skip
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]  # fmt: skip
MBI = "ACDEFGHJKMNPQRTUVWXY"


def _mbi(rng: random.Random) -> str:
    def a() -> str:
        return rng.choice(MBI)

    def d() -> str:
        return str(rng.randint(0, 9))

    return f"{rng.randint(1, 9)}{a()}{rng.choice([a(), d()])}{d()}{a()}{rng.choice([a(), d()])}{d()}{a()}{a()}{d()}{d()}"


def _phone(rng: random.Random) -> str:
    area, mid, end = rng.randint(201, 989), rng.randint(200, 999), rng.randint(0, 9999)
    style = rng.randrange(4)
    return [f"({area}) {mid}-{end:04d}", f"{area}-{mid}-{end:04d}", f"{area}.{mid}.{end:04d}",
            f"+1 {area} {mid} {end:04d}"][style]  # fmt: skip


def _date(rng: random.Random, year: int, style: int) -> tuple[str, str]:
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    iso = f"{year}-{month:02d}-{day:02d}"
    shown = [iso, f"{month:02d}/{day:02d}/{year}", f"{MONTHS[month - 1]} {day}, {year}",
             f"{day} {MONTHS[month - 1]} {year}"][style]  # fmt: skip
    return iso, shown


def _patient(rng: random.Random) -> dict[str, Any]:
    city, state, zip_code = rng.choice(CITIES)
    payer = rng.choice(["MCR", "BLU", "ACM", "HRT", "MCD"])
    member = _mbi(rng) if payer == "MCR" else payer + "".join(str(rng.randint(0, 9)) for _ in range(9))
    return {"first": rng.choice(FIRST), "last": rng.choice(LAST), "street": f"{rng.randint(2, 9899)} {rng.choice(STREETS)}",
            "city": city, "state": state, "zip": zip_code, "member": member,
            "dob": _date(rng, rng.randint(1931, 2012), 0)[0]}  # fmt: skip


TEMPLATES: list[tuple[str, list[str]]] = [
    ("Called {first} {last} at {phone} about the denial.", ["name", "name", "phone"]),
    ("Member {member} is not eligible on the date of service.", ["member_id"]),
    ("Patient {first} {last} (DOB {dob_us}) disputes the balance.", ["name", "name", "date"]),
    ("Send the appeal to {street}, {city}, {state} {zip}.", ["address", "city", "zip"]),
    ("Subscriber id {member_dashed} does not match the card on file.", ["member_id"]),
    ("Escalating: SSN {ssn} on the claim differs from the payer's record.", ["ssn"]),
    (
        "Reached {first}'s daughter {relative} at {email}; she will fax to {fax}.",
        ["name", "name", "email", "phone"],
    ),
    ("Born {dob_long}; retro authorization window closed.", ["date"]),
    ("Ms. {last} asked for a payment plan, MRN {mrn}.", ["name", "mrn"]),
    ("The site {url} shows account number {account} as paid.", ["url", "account"]),
    (
        "upstream error: eligibility 404 for {member} ({last_upper}, {first_upper})",
        ["member_id", "name", "name"],
    ),
    ("Dr. {doctor} signed the letter on {visit_long}; licence {licence}.", ["name", "date", "licence"]),
    ("Device serial {device} was billed twice on {visit_us}.", ["device", "date"]),
    ("Login from {ip} for {email}", ["ip", "email"]),
    ("{last}, {first} — {street} — phone {phone}", ["name", "name", "address", "phone"]),
    ("Vehicle VIN {vin} in the accident report; patient {first} {last}.", ["vehicle", "name", "name"]),
    ("Mailing address PO Box {pobox}, {city} {state} {zip}", ["address", "city", "zip"]),
    (
        "Per guarantor {relative} {last}, the plan {member} ended {end_us}.",
        ["name", "name", "member_id", "date"],
    ),
]


def build(seed: int = 14, per_template: int = 12) -> list[dict[str, Any]]:
    """The corpus: every template filled `per_template` times with fresh identifiers."""
    rng = random.Random(seed)
    rows = []
    for template, _classes in TEMPLATES:
        for _ in range(per_template):
            p = _patient(rng)
            dob_iso = p["dob"]
            y, m, d = (int(x) for x in dob_iso.split("-"))
            _, visit_long = _date(rng, rng.randint(2023, 2026), 2)
            _, visit_us = _date(rng, rng.randint(2023, 2026), 1)
            _, end_us = _date(rng, rng.randint(2023, 2026), 1)
            values = {
                **p,
                "phone": _phone(rng), "fax": _phone(rng),
                "email": f"{p['first'].lower()}.{p['last'].lower()}{rng.randint(1, 99)}@{rng.choice(['example.com', 'mail.org'])}",
                "ssn": f"{rng.randint(100, 899)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}",
                "dob_us": f"{m:02d}/{d:02d}/{y}", "dob_long": f"{MONTHS[m - 1]} {d}, {y}",
                "member_dashed": "-".join([p["member"][:4], p["member"][4:7], p["member"][7:]]),
                "mrn": f"{rng.randint(10, 99)}{rng.randint(100000, 999999)}",
                "account": f"{rng.randint(1000, 9999)}-{rng.randint(100000, 999999)}",
                "url": f"https://portal.example.com/patients/{rng.randint(1000, 99999)}",
                "relative": rng.choice(FIRST), "doctor": rng.choice(LAST),
                "licence": f"{rng.choice(['A', 'G', 'MD'])}{rng.randint(10000, 999999)}",
                "device": f"SN{rng.randint(100000, 9999999)}",
                "ip": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
                "vin": "1HGCM" + "".join(rng.choice("0123456789ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(12)),
                "pobox": str(rng.randint(10, 9999)), "visit_long": visit_long, "visit_us": visit_us,
                "end_us": end_us, "last_upper": p["last"].upper(), "first_upper": p["first"].upper(),
            }  # fmt: skip
            text = template.format(**values)
            names = [
                n
                for n in ("first", "last", "relative", "doctor", "first_upper", "last_upper")
                if "{" + n + "}" in template
            ]
            phi = [{"class": "name", "value": values[n]} for n in names]
            for key, kind in (("phone", "phone"), ("fax", "phone"), ("email", "email"), ("ssn", "ssn"),
                              ("dob_us", "date"), ("dob_long", "date"), ("visit_long", "date"), ("visit_us", "date"),
                              ("end_us", "date"), ("member", "member_id"), ("member_dashed", "member_id"),
                              ("street", "address"), ("city", "city"), ("zip", "zip"), ("mrn", "mrn"),
                              ("account", "account"), ("url", "url"), ("licence", "licence"), ("device", "device"),
                              ("ip", "ip"), ("vin", "vehicle"), ("pobox", "address")):  # fmt: skip
                if "{" + key + "}" in template:
                    phi.append({"class": kind, "value": values[key]})
            known = [p["first"], p["last"], dob_iso, p["member"], {"line1": p["street"], "city": p["city"],
                     "postal_code": p["zip"]}]  # fmt: skip
            rows.append({"text": text, "phi": phi, "known": known})
    return rows


def main() -> None:
    rows = build()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    print(f"wrote {len(rows)} strings, {sum(len(r['phi']) for r in rows)} PHI values, to {OUT}")


if __name__ == "__main__":
    main()
