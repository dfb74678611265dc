"""The held-out PHI corpus: writes bench/data/phi_heldout.jsonl from hand-written templates.

    .venv/bin/python bench/phi_heldout_corpus.py bench/data/phi_heldout.jsonl

Written from the RCM brief (/work/shared/domains/rcm.md) before `bridge.phi.guard` and
`bridge.phi.directory` existed, and not tuned after: eight invented patients, their names in the
spellings people write (`KHAN, AISHA`, `A. Khan`, `aisha_khan`), birth dates in eight formats,
member ids with and without separators, put into every string field kind an episode records
(free text, queues, model names, call ids, tool names, keys, outcome kinds, item ids, reason
codes, actors), with another patient of the same world named in notes; and PHI-free strings of
the same fields. Deterministic.
"""

import json
import random
import sys

rng = random.Random(27)
PEOPLE = [  # first, last, dob, member_id, phone, street, city
    ("Aisha", "Khan", "1975-11-02", "ACM-100234", "(312) 555-0198", "41 Larkspur Road", "Peoria"),
    ("Tomasz", "Wiśniewski", "1958-03-17", "MCD200417781", "773.555.0142", "9 Orchard Hill Dr", "Joliet"),
    ("Grace", "Oyelaran", "1990-07-30", "BCX-7788123", "217-555-0111", "1200 W Main St", "Urbana"),
    ("Luis", "Ferreira-Santos", "1949-12-05", "1EG4TE5MK72", "(815) 555 0177", "77 Prairie Ave", "Rockford"),
    ("Mei", "Nakamura", "1983-02-14", "ACM554210987", "630 555 0123", "5 Birch Ct", "Naperville"),
    (
        "Deshawn",
        "McAllister",
        "2001-09-09",
        "UHC-33021987",
        "+1 309 555 0155",
        "318 Kingfisher Lane",
        "Bloomington",
    ),
    ("Ingrid", "Johansson", "1966-05-21", "MCD-900112233", "224.555.0166", "62 Harbor Way", "Evanston"),
    ("Olu", "Adeyemi", "1972-01-08", "ACM 311 002 145", "(708) 555-0134", "14 Quarry Rd", "Cicero"),
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def dob_variants(iso):
    y, m, d = iso.split("-")
    mi, di = int(m), int(d)
    return [
        iso,
        f"{y}/{m}/{d}",
        f"{m}/{d}/{y}",
        f"{mi}/{di}/{y}",
        f"{d}.{m}.{y}",
        f"{MONTHS[mi - 1]} {di}, {y}",
        f"{di} {MONTHS[mi - 1][:3]} {y}",
        f"{y}{m}{d}",
    ]


def name_variants(f, last):
    return [
        f"{f} {last}",
        f"{last.upper()}, {f.upper()}",
        f"{last}, {f}",
        f"{f[0]}. {last}",
        f"{last} {f[0]}.",
        f"{f.lower()} {last.lower()}",
        f"{f}_{last}".lower(),
        f"{last.upper()}",
    ]


def id_variants(mid):
    core = "".join(c for c in mid if c.isalnum())
    return [mid, core, core.lower(), "-".join([core[:3], core[3:]]), " ".join([core[:3], core[3:]])]


FIELDS_TEXT = [
    "work_item.instructions",
    "close_claim.note",
    "escalated.reason",
    "escalated.recommendation",
    "episode.ended.final_message",
    "model.responded.content",
    "human.intervened.note",
    "tool.failed.error.message",
    "outcome.observed.external_ref",
    "correct_claim.note",
]
FIELDS_ID = [
    "escalated.queue",
    "policy.model",
    "call.call_id",
    "call.name",
    "arguments.<key>",
    "result.<key>",
    "outcome.observed.kind",
    "work_item.item_id",
    "outcome.observed.reason_codes",
    "human.intervened.actor",
]
TEXT_T = [
    "Patient {name} called about the denial; DOB {dob}.",
    "{name} says the claim was billed to the wrong plan.",
    "Spoke with {name} ({phone}); she will send the referral.",
    "Member id on file {mid} does not match the card.",
    "Write-off approved, see note for {name}.",
    "Resubmit with corrected DOB {dob} for {name}.",
    "Do not bill {name}; CO-45 applies.",
    "Mail the appeal to {street}, {city}.",
    "Wrong patient: billed under {other} instead of {name}.",
    "Per call with {other}, coverage ended.",
    "{name} / {mid} / {dob}",
    "Escalate: {name} disputes the balance",
]
ID_T = ["{n}", "{n}-queue", "model-{n}", "call_{n}", "{n}_note", "{mid}", "{dob}", "{name}"]
rows = []


def add(field, text, phi, known, world):
    rows.append({"field": field, "text": text, "phi": phi, "known": known, "world": world})


for i, p in enumerate(PEOPLE):
    f, last, dob, mid, phone, street, city = p
    other = PEOPLE[(i + 3) % len(PEOPLE)]
    known = [f, last, dob, mid, phone, {"line1": street, "city": city}]
    world = [other[0], other[1], other[2], other[3]]
    names, dobs, mids = name_variants(f, last), dob_variants(dob), id_variants(mid)
    for j, t in enumerate(TEXT_T):
        name = names[j % len(names)]
        d = dobs[j % len(dobs)]
        m = mids[j % len(mids)]
        oth = name_variants(other[0], other[1])[(j + i) % 8]
        text = t.format(name=name, dob=d, phone=phone, mid=m, street=street, city=city, other=oth)
        phi = []
        for cls, v in (
            ("name", name),
            ("date", d),
            ("phone", phone),
            ("member_id", m),
            ("address", street),
            ("city", city),
            ("name", oth),
        ):
            if (
                "{"
                + {
                    "name": "name",
                    "date": "dob",
                    "phone": "phone",
                    "member_id": "mid",
                    "address": "street",
                    "city": "city",
                }.get(cls, "x")
                + "}"
                in t
                and v in text
            ):
                if cls == "name" and v == oth:
                    continue
                phi.append({"class": cls, "value": v})
        if "{other}" in t:
            phi.append({"class": "name", "value": oth})
        add(FIELDS_TEXT[(i + j) % len(FIELDS_TEXT)], text, phi, known, world)
    for j, t in enumerate(ID_T):
        n = (
            names[(j + i) % len(names)].replace(" ", "_").replace(",", "").replace(".", "").lower()
            if "{n}" in t
            else ""
        )
        text = t.format(
            n=n, mid=mids[j % len(mids)], dob=dobs[(j + 2) % len(dobs)], name=names[(j + 1) % len(names)]
        )
        v = n if n else text
        cls = "member_id" if "{mid}" in t else "date" if "{dob}" in t else "name"
        add(FIELDS_ID[(i + j) % len(FIELDS_ID)], text, [{"class": cls, "value": v}], known, world)
    # a name the episode never showed, known only from another episode of the tenant's world
    add(
        "close_claim.note",
        f"Also check {other[0]} {other[1]}'s claim from {other[2]}.",
        [{"class": "name", "value": f"{other[0]} {other[1]}"}, {"class": "date", "value": other[2]}],
        known,
        world,
    )
# PHI-free strings of the same fields: the price of scrubbing is what changes here
CLEAN = [
    ("escalated.queue", "credentialing"),
    ("escalated.queue", "supervisor"),
    ("escalated.queue", "coding"),
    ("policy.model", "qwen2.5-1.5b-instruct"),
    ("policy.model", "rcm-agent-v3"),
    ("call.call_id", "call_0001"),
    ("call.call_id", "c-7f3a9e"),
    ("call.name", "get_claim"),
    ("call.name", "submit_appeal"),
    ("call.name", "close_claim"),
    ("arguments.<key>", "claim_id"),
    ("arguments.<key>", "payer_sequence"),
    ("result.<key>", "adjustments"),
    ("outcome.observed.kind", "paid"),
    ("outcome.observed.kind", "appeal_won"),
    ("outcome.observed.kind", "denied"),
    ("work_item.item_id", "CLM-1001"),
    ("work_item.item_id", "CLM-20417"),
    ("outcome.observed.reason_codes", "CO-16"),
    ("outcome.observed.reason_codes", "PR-2"),
    ("outcome.observed.reason_codes", "N290"),
    ("outcome.observed.reason_codes", "MA130"),
    ("human.intervened.actor", "u-41c2"),
    ("close_claim.note", "Contractual adjustment CO-45 posted, nothing owed."),
    ("close_claim.note", "Closed after the corrected claim (frequency 7) was paid in full."),
    ("escalated.reason", "CARC 197 with no authorization on file and the retro-auth window closed."),
    ("escalated.recommendation", "Ask coding to review modifier 25 on line 2."),
    ("episode.ended.final_message", "Appeal submitted citing CO-50 and the letter of medical necessity."),
    (
        "work_item.instructions",
        "Work the denial on claim CLM-1001: CO-16 with RARC N290, resubmit as replacement.",
    ),
    ("model.responded.content", "The remittance shows PR-1 patient responsibility of $20.00."),
    ("tool.failed.error.message", "appeal window closed 2 days ago for payer ACME"),
    ("outcome.observed.external_ref", "ERA 8842 batch 17"),
    ("human.intervened.note", "Approved: matches the contract rate for CPT 99214."),
    ("correct_claim.note", "Place of service changed from 11 to 02 telehealth."),
    ("work_item.instructions", "Bill the secondary payer; the primary paid $80.00 of $120.00."),
    ("escalated.reason", "Timely filing limit of 90 days expired; no 277CA acceptance on file."),
]
for field, text in CLEAN:
    add(field, text, [], [], [])
with open(sys.argv[1], "w") as out:
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
print(len(rows), sum(len(r["phi"]) for r in rows))
