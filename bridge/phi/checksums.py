"""Identifiers whose shape carries a check digit, found without a label: a number that passes its
scheme's check is far more likely the identifier than a chance string of digits.

Pure. IBAN (ISO 13616, mod 97), payment cards (Luhn, 13 to 19 digits, in groups of four or
unbroken), China's resident identity number (ISO 7064 mod 11-2, a birth date inside), South
Africa's identity number (a birth date, Luhn), Türkiye's T.C. kimlik number (two check digits),
Norway's fødselsnummer (a birth date, two mod-11 check digits), India's Aadhaar number (Verhoeff,
four-four-four), Hong Kong's HKID (mod 11, the check in brackets), Canada's SIN (Luhn, three-three-
three), and two shapes too rare to need a check: India's PAN (`AAAPA9999A`) and the UK's National
Insurance number (`AB 12 34 56 C`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5), (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7), (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3), (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)  # fmt: skip
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4), (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7), (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)  # fmt: skip


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def iban_valid(value: str) -> bool:
    compact = value.replace(" ", "").upper()
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def verhoeff(digits: str) -> bool:
    check = 0
    for i, ch in enumerate(reversed(digits)):
        check = _VERHOEFF_D[check][_VERHOEFF_P[i % 8][int(ch)]]
    return check == 0


def _day_month(day: int, month: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31


def china_resident_id(value: str) -> bool:
    body, last = value[:17], value[17].upper()
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    check = "10X98765432"[sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 11]
    year, month, day = int(body[6:10]), int(body[10:12]), int(body[12:14])
    return check == last and 1900 <= year <= 2099 and 1 <= month <= 12 and 1 <= day <= 31


def south_africa_id(value: str) -> bool:
    return _day_month(int(value[4:6]), int(value[2:4])) and value[10] in "01" and luhn(value)


def turkish_id(value: str) -> bool:
    d = [int(c) for c in value]
    if d[0] == 0:
        return False
    tenth = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
    return tenth == d[9] and sum(d[:10]) % 10 == d[10]


def norwegian_id(value: str) -> bool:
    d = [int(c) for c in value]
    day = d[0] * 10 + d[1]
    if not _day_month(day - 40 if day > 40 else day, d[2] * 10 + d[3]):  # a D-number adds 40
        return False
    k1 = 11 - sum(x * w for x, w in zip(d[:9], (3, 7, 6, 1, 8, 9, 4, 5, 2), strict=True)) % 11
    k2 = 11 - sum(x * w for x, w in zip(d[:10], (5, 4, 3, 2, 7, 6, 5, 4, 3, 2), strict=True)) % 11
    return (k1 % 11) == d[9] and (k2 % 11) == d[10]


def hkid(value: str) -> bool:
    compact = re.sub(r"[()\s]", "", value).upper()
    letters, digits, check = compact[:-7], compact[-7:-1], compact[-1]
    chars = ([36] if len(letters) == 1 else []) + [ord(c) - 55 for c in letters] + [int(c) for c in digits]
    total = sum(v * w for v, w in zip(chars, range(9, 1, -1), strict=True))
    expected = (11 - total % 11) % 11
    return check == ("A" if expected == 10 else str(expected))


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value)


CHECKED: tuple[tuple[str, re.Pattern[str], Callable[[str], bool]], ...] = (
    (
        "iban",
        re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"),
        iban_valid,
    ),
    (
        "card_number",
        re.compile(
            r"(?<![\d-])(?:[3-6]\d{3}(?:[ -]\d{4}){3}(?:[ -]\d{1,3})?|3[47]\d{13}|[4-6]\d{15})(?![\d-])"
        ),
        lambda v: luhn(_digits(v)),
    ),
    ("national_id", re.compile(r"(?<!\d)\d{17}[\dXx](?![\w-])"), china_resident_id),
    ("national_id", re.compile(r"(?<![\d-])\d{13}(?![\d-])"), south_africa_id),
    ("national_id", re.compile(r"(?<![\d-])\d{11}(?![\d-])"), lambda v: turkish_id(v) or norwegian_id(v)),
    (
        "national_id",
        re.compile(r"(?<![\d-])[2-9]\d{3}[ -]\d{4}[ -]\d{4}(?![\d-])"),
        lambda v: verhoeff(_digits(v)),
    ),
    ("national_id", re.compile(r"\b[A-Z]{1,2}\d{6} ?\(?[0-9A]\)?(?![\w(])"), hkid),
    ("national_id", re.compile(r"(?<![\d-])\d{3}[ -]\d{3}[ -]\d{3}(?![\d-])"), lambda v: luhn(_digits(v))),
    ("national_id", re.compile(r"\b[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z]\b"), lambda v: True),
    (
        "national_id",
        re.compile(r"\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"),
        lambda v: v[:2] not in ("GB", "NK", "TN", "ZZ", "BG", "KN", "NT"),
    ),
)
"""(class, shape, check): a match of the shape is PHI when its check passes."""
_GATE = re.compile(r"\d{3}[ -]?\d{3}|\d{4}[A-Z]\b|\d{2} \d{2} \d{2}")


def find_checked_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, class) for each identifier whose shape and check digits match."""
    if _GATE.search(text) is None:
        return []
    spans: list[tuple[int, int, str]] = []
    for kind, shape, check in CHECKED:  # each shape holds its gate's digits
        for match in shape.finditer(text):
            if check(match.group()):
                spans.append((match.start(), match.end(), kind))
    return spans
