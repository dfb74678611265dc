"""X12 835 (005010X221A1) remittance advice: a writer for the sandbox and a parser for the live side.

One `Remittance` becomes one ST/SE transaction (one check or EFT, TRN02 = remittance id) inside
one ISA/GS envelope; the parser reads it back into exactly the same `Remittance`. The parser is a
plain segment reader (fast, no map); `validate_835` runs pyx12 against the 005010X221A1 map for
tests and tooling.
"""

from __future__ import annotations

import functools
import io
import json
import logging
import zlib
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from typing import Any

from adapters.rcm.models import Adjustment, Practice, ProviderAdjustment, RemitLine, Remittance

ELEMENT, COMPONENT, REPETITION, SEGMENT = "*", ":", "^", "~"
SENDER, RECEIVER = "LOOPLINESBX", "RIVERSIDEFM"
PAYER_EIN = "1512345678"  # TRN03 / BPR10: "1" + the payer's 9-digit EIN (sandbox value)
_PROCEDURE_QUALIFIER = "HC"  # HCPCS/CPT codes in SVC01-1


class X12ParseError(ValueError):
    """The text is not an 835 this parser understands; the message names the segment."""


def _clean(value: str) -> str:
    # Delimiters inside data would split elements; X12 has no escaping, so replace them.
    for char in (ELEMENT, COMPONENT, REPETITION, SEGMENT, "\n", "\r"):
        value = value.replace(char, " ")
    return value.strip()


def _amount(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _d8(day: date) -> str:
    return day.strftime("%Y%m%d")


def _seg(*elements: str) -> str:
    while elements and elements[-1] == "":
        elements = elements[:-1]  # trailing empty elements are not sent
    return ELEMENT.join(elements) + SEGMENT


def _cas(adjustments: Iterable[Adjustment]) -> list[str]:
    """CAS segments: one per group code, at most six reason/amount pairs each, in input order."""
    groups: dict[str, list[Adjustment]] = {}
    for adj in adjustments:
        groups.setdefault(adj.group_code, []).append(adj)
    out = []
    for group, items in groups.items():
        for start in range(0, len(items), 6):
            elements = [group]
            for adj in items[start : start + 6]:
                elements += [adj.reason_code, _amount(adj.amount), ""]
            out.append(_seg("CAS", *elements))
    return out


def _bpr(paid_total: float, method: str, produced: date) -> str:
    if method == "ACH":
        return _seg(
            "BPR",
            "I",
            _amount(paid_total),
            "C",
            "ACH",
            "CCP",
            "01",
            "011000015",
            "DA",
            "0001234567",
            PAYER_EIN,
            "",
            "01",
            "021000021",
            "DA",
            "000987654321",
            _d8(produced),
        )
    return _seg(
        "BPR", "I" if paid_total > 0 else "H", _amount(paid_total), "C", method, *[""] * 11, _d8(produced)
    )


def _claim_payment(remit: Remittance) -> list[str]:
    segs = [
        _seg(
            "CLP",
            _clean(remit.claim_id),
            remit.claim_status_code,
            _amount(remit.total_charge),
            _amount(remit.paid_amount),
            _amount(remit.patient_responsibility_amount) if remit.patient_responsibility_amount else "",
            remit.claim_filing_indicator,
            _clean(remit.payer_claim_control_number),
        ),
        *_cas(remit.claim_adjustments),
        _seg(
            "NM1",
            "QC",
            "1",
            _clean(remit.patient_last_name),
            _clean(remit.patient_first_name),
            "",
            "",
            "",
            "MI",
            _clean(remit.member_id),
        ),
    ]
    for line in remit.lines:
        procedure = COMPONENT.join([_PROCEDURE_QUALIFIER, line.procedure_code, *line.modifiers])
        segs += [
            _seg("SVC", procedure, _amount(line.charge), _amount(line.paid), "", str(line.units)),
            _seg("DTM", "472", _d8(line.service_date)),
            *_cas(line.adjustments),
            _seg("REF", "6R", str(line.line_number)),
            *[_seg("LQ", "HE", code) for code in line.remark_codes],
        ]
    return segs


def _plb(adjustments: tuple[ProviderAdjustment, ...], npi: str, produced: date) -> list[str]:
    """PLB segments, at most six adjustments each; the fiscal period is the production year's end."""
    fiscal = _d8(date(produced.year, 12, 31))
    out = []
    for start in range(0, len(adjustments), 6):
        elements = [npi, fiscal]
        for adj in adjustments[start : start + 6]:
            elements += [COMPONENT.join([adj.reason_code, _clean(adj.reference)]), _amount(adj.amount)]
        out.append(_seg("PLB", *elements))
    return out


def _transaction(group: list[Remittance], payer_name: str, practice: Practice, control: int) -> list[str]:
    """One ST/SE 835: a claim payment alone, or the payments that share a trace (a reversal and its
    correction), with the PLB adjustments the last one carries; the check is their net."""
    first, last = group[0], group[-1]
    plb = last.provider_adjustments
    net = round(sum(r.paid_amount for r in group) - sum(p.amount for p in plb), 2)
    method = last.payment_method if net > 0 else "NON"
    segs = [
        _seg("ST", "835", f"{control:04d}"),
        _bpr(net, method, first.production_date),
        _seg("TRN", "1", _clean(first.trace_number or first.remittance_id), PAYER_EIN),
        _seg("DTM", "405", _d8(first.production_date)),
        _seg("N1", "PR", _clean(payer_name)),
        _seg("N3", "PO BOX 14099"),
        _seg("N4", "SPRINGFIELD", "IL", "627940001"),
        _seg("REF", "2U", _clean(first.payer_id)),
        _seg("PER", "BL", "PROVIDER SERVICES", "TE", "8005550100"),
        _seg("N1", "PE", _clean(practice.name), "XX", practice.billing_npi),
        _seg("LX", "1"),
    ]
    for remit in group:
        segs += _claim_payment(remit)
    segs += _plb(plb, practice.billing_npi, first.production_date)
    segs.append(_seg("SE", str(len(segs) + 1), f"{control:04d}"))
    return segs


def transactions(remittances: list[Remittance]) -> list[list[Remittance]]:
    """The remittances as 835 transactions: consecutive payments sharing a trace travel together.
    Refuses what the parser could not read back the same (a lone payment with a trace, ids other
    than `<trace>-<n>`, PLB adjustments before the last payment, two production dates)."""
    groups: list[list[Remittance]] = []
    for remit in remittances:
        if remit.trace_number is not None and groups and groups[-1][0].trace_number == remit.trace_number:
            groups[-1].append(remit)
        else:
            groups.append([remit])
    for group in groups:
        trace = group[0].trace_number
        if trace is None:
            continue
        expected = [f"{trace}-{n}" for n in range(1, len(group) + 1)]
        if len(group) < 2 or [r.remittance_id for r in group] != expected:
            raise ValueError(f"payments sharing trace {trace} must be {expected} (at least two)")
        if any(r.provider_adjustments for r in group[:-1]):
            raise ValueError(f"PLB adjustments of trace {trace} belong on its last payment")
        if len({r.production_date for r in group}) != 1:
            raise ValueError(f"payments sharing trace {trace} have one production date")
    return groups


def write_835(
    remittances: list[Remittance], payer_names: dict[str, str], practice: Practice, today: date
) -> str:
    """An interchange holding one 835 transaction per remittance (dates from the world, not the clock)."""
    # Control numbers derive from the content, so the same remittances always give the same text.
    icn = zlib.crc32("|".join(r.remittance_id for r in remittances).encode()) % 1_000_000_000
    isa = _seg(
        "ISA",
        "00",
        " " * 10,
        "00",
        " " * 10,
        "ZZ",
        SENDER.ljust(15),
        "ZZ",
        RECEIVER.ljust(15),
        today.strftime("%y%m%d"),
        "1200",
        REPETITION,
        "00501",
        f"{icn:09d}",
        "0",
        "P",
        COMPONENT,
    )
    segs = [
        isa,
        _seg(
            "GS", "HP", SENDER, RECEIVER, _d8(today), "1200", str(icn % 1_000_000 or 1), "X", "005010X221A1"
        ),
    ]
    groups = transactions(remittances)
    for n, group in enumerate(groups, 1):
        payer = group[0].payer_id
        segs += _transaction(group, payer_names.get(payer, payer), practice, n)
    segs += [_seg("GE", str(len(groups)), str(icn % 1_000_000 or 1)), _seg("IEA", "1", f"{icn:09d}")]
    return "\n".join(segs) + "\n"


def _segments(text: str) -> Iterator[list[str]]:
    if not text.startswith("ISA") or len(text) < 106:
        raise X12ParseError("not an X12 interchange: it must start with a 106-character ISA segment")
    element, terminator = text[3], text[105]
    if text[:106].count(element) != 16:
        raise X12ParseError("malformed ISA segment: it must hold 16 fixed-width elements")
    for raw in text.split(terminator):
        raw = raw.strip()
        if raw:
            yield raw.split(element)


def _get(seg: list[str], index: int, default: str = "") -> str:
    return seg[index] if index < len(seg) else default


def _date(value: str) -> date:
    return datetime.strptime(value, "%Y%m%d").date()


def _adjustments(seg: list[str]) -> list[Adjustment]:
    group = seg[1]
    out = []
    for i in range(2, len(seg), 3):
        if seg[i]:
            out.append(Adjustment(group_code=group, reason_code=seg[i], amount=float(seg[i + 1])))
    return out


class _ClaimLoop:
    """One CLP loop's segments."""

    def __init__(self, clp: list[str]) -> None:
        self.clp = clp
        self.claim_adjustments: list[Adjustment] = []
        self.patient: list[str] = []
        self.lines: list[dict[str, object]] = []


class _Builder:
    """Collects one transaction's segments into its `Remittance`s (one per CLP loop)."""

    def __init__(self) -> None:
        self.header: dict[str, str] = {}
        self.claims: list[_ClaimLoop] = []
        self.plb: list[ProviderAdjustment] = []

    def build(self) -> list[Remittance]:
        if not self.claims:
            raise X12ParseError("835 transaction without a CLP claim payment")
        trace = self.header["trace"]
        shared = len(self.claims) > 1
        out = []
        for n, loop in enumerate(self.claims, 1):
            last = n == len(self.claims)
            out.append(
                self._remittance(
                    loop,
                    remittance_id=f"{trace}-{n}" if shared else trace,
                    trace_number=trace if shared else None,
                    provider_adjustments=tuple(self.plb) if last else (),
                )
            )
        return out

    def _remittance(
        self,
        loop: _ClaimLoop,
        *,
        remittance_id: str,
        trace_number: str | None,
        provider_adjustments: tuple[ProviderAdjustment, ...],
    ) -> Remittance:
        lines = [
            RemitLine(
                line_number=int(str(line.get("line_number", n))),
                procedure_code=str(line["procedure_code"]),
                modifiers=tuple(line["modifiers"]),  # type: ignore[arg-type]
                charge=float(str(line["charge"])),
                paid=float(str(line["paid"])),
                units=int(float(str(line["units"]))),
                service_date=line["service_date"],
                adjustments=tuple(line["adjustments"]),  # type: ignore[arg-type]
                remark_codes=tuple(line["remarks"]),  # type: ignore[arg-type]
            )
            for n, line in enumerate(loop.lines, 1)
        ]
        clp = loop.clp
        return Remittance(
            remittance_id=remittance_id,
            claim_id=clp[1],
            payer_id=self.header.get("payer_id", self.header.get("payer_name", "")),
            payer_claim_control_number=_get(clp, 7),
            claim_status_code=clp[2],
            total_charge=float(clp[3]),
            paid_amount=float(clp[4]),
            patient_responsibility_amount=float(_get(clp, 5) or 0),
            claim_filing_indicator=_get(clp, 6),
            production_date=_date(self.header["production_date"]),
            payment_method=self.header["method"],
            patient_first_name=_get(loop.patient, 4),
            patient_last_name=_get(loop.patient, 3),
            member_id=_get(loop.patient, 9),
            claim_adjustments=tuple(loop.claim_adjustments),
            lines=tuple(lines),
            trace_number=trace_number,
            provider_adjustments=provider_adjustments,
        )


def _provider_adjustments(seg: list[str]) -> list[ProviderAdjustment]:
    out = []
    for i in range(3, len(seg) - 1, 2):
        if seg[i]:
            reason, _, reference = seg[i].partition(COMPONENT)
            out.append(ProviderAdjustment(reason_code=reason, reference=reference, amount=float(seg[i + 1])))
    return out


def parse_835(text: str) -> tuple[list[Remittance], dict[str, str]]:
    """Every claim payment in an 835 interchange, and payer id → payer name from the N1*PR loops.
    The payments of a transaction with several CLP loops (a reversal and its correction) are
    `<trace>-<n>` and carry the trace; its PLB adjustments go on the last."""
    remittances: list[Remittance] = []
    names: dict[str, str] = {}
    current: _Builder | None = None
    for seg in _segments(text):
        tag = seg[0]
        if tag == "ST":
            if _get(seg, 1) != "835":
                raise X12ParseError(f"transaction set {_get(seg, 1)!r} is not an 835")
            current = _Builder()
            continue
        if current is None:
            continue
        b = current
        loop = b.claims[-1] if b.claims else None
        if tag == "SE":
            for remit in b.build():
                names[remit.payer_id] = b.header.get("payer_name", remit.payer_id)
                remittances.append(remit)
            current = None
        elif tag == "BPR":
            b.header["method"] = _get(seg, 4)
        elif tag == "TRN":
            b.header["trace"] = _get(seg, 2)
        elif tag == "DTM" and _get(seg, 1) == "405":
            b.header["production_date"] = _get(seg, 2)
        elif tag == "N1" and _get(seg, 1) == "PR":
            b.header["payer_name"] = _get(seg, 2)
        elif tag == "REF" and _get(seg, 1) == "2U":
            b.header["payer_id"] = _get(seg, 2)
        elif tag == "CLP":
            b.claims.append(_ClaimLoop(seg))
        elif tag == "PLB":
            b.plb.extend(_provider_adjustments(seg))
        elif loop is None:
            continue
        elif tag == "CAS":
            target = loop.lines[-1]["adjustments"] if loop.lines else loop.claim_adjustments
            target.extend(_adjustments(seg))  # type: ignore[attr-defined]
        elif tag == "NM1" and _get(seg, 1) == "QC":
            loop.patient = seg
        elif tag == "SVC":
            composite = seg[1].split(COMPONENT)
            loop.lines.append(
                {
                    "procedure_code": _get(composite, 1),
                    "modifiers": composite[2:],
                    "charge": seg[2],
                    "paid": seg[3],
                    "units": _get(seg, 5) or "1",
                    "adjustments": [],
                    "remarks": [],
                }
            )
        elif tag == "DTM" and _get(seg, 1) == "472" and loop.lines:
            loop.lines[-1]["service_date"] = _date(seg[2])
        elif tag == "REF" and _get(seg, 1) == "6R" and loop.lines:
            loop.lines[-1]["line_number"] = seg[2]
        elif tag == "LQ" and _get(seg, 1) == "HE" and loop.lines:
            loop.lines[-1]["remarks"].append(seg[2])  # type: ignore[attr-defined]
    return remittances, names


@functools.cache
def _pyx12() -> tuple[Any, Any]:
    """pyx12's document validator and default parameters, with its map loader memoised.

    pyx12 parses its XML maps (control segments and 005010X221A1) again for every document, which
    is nearly all of a validation's time. The loaded maps are only read while a document is walked
    (the walk's counters live in the walker), so one parsed copy per map file serves every
    document; the loader is wrapped once, on first use.
    """
    import pyx12.map_if
    import pyx12.params
    import pyx12.x12n_document

    # pyx12 logs every error it reports; the caller gets them as data, so they are not printed.
    logging.getLogger("pyx12").addHandler(logging.NullHandler())
    params = pyx12.params.params()
    load = pyx12.map_if.load_map_file
    if not hasattr(load, "cache_info"):

        @functools.cache
        def cached(map_file: str, param: Any, map_path: str | None = None) -> Any:
            return load(map_file, param, map_path)

        pyx12.map_if.load_map_file = cached
    return pyx12.x12n_document.x12n_document, params


def validate_835(text: str) -> list[str]:
    """Errors pyx12 finds checking `text` against the 005010X221A1 map (empty = valid)."""
    validate, params = _pyx12()
    report = io.StringIO()
    # No 999 output: pyx12 4.0 fails building a 999 for some rejected 835s; the JSON report is enough.
    valid = validate(params, io.StringIO(text), None, None, fd_json=report)
    problems = list(_error_strings(json.loads(report.getvalue() or "{}")))
    if not valid and not problems:
        problems = ["pyx12 rejected the interchange without naming an error"]
    return problems


def _error_strings(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for error in node.get("errors", []):
            yield str(error.get("err_str", error))
        for key, value in node.items():
            if key != "errors":
                yield from _error_strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _error_strings(item)
