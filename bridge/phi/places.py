"""Addresses as the rest of the world writes them: the number after the street (`Hauptstraße 12`,
`Victoria Rd 7`), the street's kind before its name (`8 Via Garibaldi`, `Avenida de la
Constitución 12`), a flat before the house (`Apartment 4, 19 Harbour Crescent`), a rural route's
box (`RR 4 Box 118`), British, Canadian and Irish postcodes (`G12 8LF`, `B3H 4R2`, `T12 X7PK`),
and the town with its postal code of four to six digits after a street (`, Wellington 6011`, `, 20121 Milano`); an HL7
address's town, state and ZIP code (`^^BOISE^ID^83702`).

Pure. `find_place_spans` finds the shapes on their own; `extend_addresses` widens each address
span the patterns found over the flat (a box, a slip, a lot) before it and the town, postal code
and country after it.
"""

from __future__ import annotations

import re

_CAP = r"[A-ZÀ-ÖØ-Þ\u0100-\u017f]"
_TITLE_WORD = rf"{_CAP}[\w'\u2019.-]*"
_STREET_KIND = (
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|"
    r"Parade|Row|Close|Crescent|Cres|Mews|Grove|Gardens|Gdns|Esplanade|Quay|Alley|Loop|Pike|Heights)"
)
_STREET_SUFFIX = (
    r"(?:stra(?:ß|ss)e|str\.|gasse|weg|allee|platz|ring|damm|laan|straat|gracht|plein|gatan|"
    r"v[äa]gen|gade|vej|veien|gata|utca|ulica|katu|tie)"
)
_STREET_FIRST = (
    r"(?:Rue|Calle|Avenida|Avda\.?|Av\.|Via|Viale|Corso|Piazza|Largo|Rua|Travessa|Carrer|Passeig|"
    r"Chemin|All[ée]e|Plaza|Paseo|Camino|Carretera|Ulica|ul\.|Jalan|Jl\.)"
)
_LINKS = r"(?:(?:de|des|du|la|le|les|del|da|do|dos|das|di|della|dei|degli|van|von|der)\s+)*"
_HOUSE = r"\d{1,5}[A-Za-z]?(?:[-/]\d{1,4})?"
_UK_POSTCODE = r"(?:[A-Z]{1,2}\d[A-Z\d]?\s\d[ABD-HJLNP-UW-Z]{2})"
_CA_POSTCODE = r"(?:[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z]\s?\d[ABCEGHJ-NPRSTV-Z]\d)"
_EIRCODE = r"(?:(?:[AC-FHKNPRTV-Y]\d{2}|D6W)\s[0-9AC-FHKNPRTV-Y]{4})"
"""An Irish Eircode: a routing key (`T12`, `D6W`) and a unit of four."""
_PROVINCES = r"(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT)"
_US_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|IA|ID|IL|IN|KS|KY|LA|MA|MD|ME|MI|MN|MO|MS|MT|NC|ND|NE|NH|"
    "NJ|NM|NV|NY|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VA|VT|WA|WI|WV|WY|PR|GU|VI|AS|MP"
)
_POSTCODES = {"uk": re.compile(_UK_POSTCODE), "ca": re.compile(_CA_POSTCODE)}
_TOWN = rf"(?!(?:{_US_STATES})\b)(?:{_CAP}[\w'\u2019-]+|[A-Z]{{2,}})(?:[ -](?:{_CAP}[\w'\u2019-]+)){{0,2}}"
"""A town's name; in capitals, not a US state's code (the ZIP code after one is the patterns' job)."""

PLACES: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        "address",
        re.compile(rf"{_STREET_KIND}\.?\s+\d"),
        re.compile(rf"\b(?:{_TITLE_WORD}\s+){{1,3}}{_STREET_KIND}\.?\s+{_HOUSE}\b(?![.,]\d|\s*(?:%|\$))"),
    ),
    (
        "address",
        re.compile(rf"{_STREET_SUFFIX}\s+\d"),
        re.compile(rf"\b{_CAP}[\w-]*{_STREET_SUFFIX}\s+{_HOUSE}\b"),
    ),
    (
        "address",
        re.compile(rf"\b{_STREET_FIRST}\s"),
        re.compile(
            rf"(?:\b{_HOUSE},?\s+)?\b{_STREET_FIRST}\s+{_LINKS}{_TITLE_WORD}(?:\s+{_LINKS}{_TITLE_WORD}){{0,3}}"
            rf"(?:,?\s+{_HOUSE}\b(?!\s+{_CAP}))?"
        ),
    ),
    (
        "address",
        re.compile(r"Box\s+\d"),
        re.compile(r"\b(?:HC|RR|R\.R\.|Rural\s+Route|Star\s+Route|PSC|CMR)\s*\d{1,4},?\s+Box\s+\d{1,6}\b"),
    ),
    ("zip", _POSTCODES["uk"], re.compile(rf"(?<![\w-]){_UK_POSTCODE}(?![\w-])")),
    ("zip", re.compile(r"\d[A-Z\d]?\s[A-Z\d]{4}\b"), re.compile(rf"(?<![\w-]){_EIRCODE}(?![\w-])")),
    ("city", _POSTCODES["uk"], re.compile(rf"\b(?P<v>{_TOWN}),?\s+{_UK_POSTCODE}(?![\w-])")),
    (
        "address",
        _POSTCODES["ca"],
        re.compile(rf"\b(?P<v>{_TOWN},?\s+{_PROVINCES}\s+{_CA_POSTCODE})(?![\w-])"),
    ),
    (
        "address",
        re.compile(r"\^"),
        re.compile(r"\^(?P<v>[^|^~\n]{2,40}\^[A-Z]{2}\^[A-Z0-9][A-Z0-9 -]{2,9})(?=[|^~\s]|$)"),
    ),
)
"""(class, gate, pattern), as `bridge.phi.patterns.GATED_PATTERNS`: a pattern is tried only where
its gate (something it cannot match without) is found; a group `v` marks only that group."""
_DIGIT = re.compile(r"\d")

_COUNTRY = (
    r"(?:USA|U\.S\.A\.|United\s+States|Canada|Mexico|M[ée]xico|Brazil|Brasil|Argentina|Chile|Colombia|Peru|"
    r"Per[úu]|Venezuela|Ecuador|Uruguay|Paraguay|Bolivia|Cuba|Jamaica|Haiti|Dominican\s+Republic|Puerto\s+Rico|"
    r"United\s+Kingdom|UK|England|Scotland|Wales|Ireland|[ÉE]ire|France|Germany|Deutschland|Austria|"
    r"[ÖO]sterreich|Switzerland|Schweiz|Suisse|Italy|Italia|Spain|Espa[ñn]a|Portugal|Netherlands|Nederland|"
    r"Belgium|Belgique|Belgi[ëe]|Luxembourg|Denmark|Danmark|Norway|Norge|Sweden|Sverige|Finland|Suomi|"
    r"Iceland|[ÍI]sland|Poland|Polska|Czechia|Czech\s+Republic|Slovakia|Hungary|Magyarorsz[áa]g|Romania|"
    r"Rom[âa]nia|Bulgaria|Greece|Ukraine|Russia|Turkey|T[üu]rkiye|Israel|Lebanon|Jordan|Egypt|Morocco|"
    r"Nigeria|Ghana|Kenya|Ethiopia|Tanzania|Uganda|South\s+Africa|India|Pakistan|Bangladesh|Sri\s+Lanka|"
    r"Nepal|China|Hong\s+Kong|Taiwan|Japan|Korea|South\s+Korea|Philippines|Vietnam|Viet\s+Nam|Thailand|"
    r"Malaysia|Singapore|Indonesia|Australia|New\s+Zealand|UAE|United\s+Arab\s+Emirates|Saudi\s+Arabia|"
    r"Qatar|Kuwait|Iran|Iraq)"
)
"""Countries' names as an address ends with them (in English and in their own language)."""
_TAIL = re.compile(
    rf"(?:,?\s+(?:Apt|Apartment|Suite|Ste|Unit|Flat|app|apto|depto|dpto|piso|Whg|lgh)\.?\s*[\w-]+|,\s+\d{{1,3}}[º°ª]?\s?[A-Za-z]{{0,6}}\.?)?,?\s+"
    rf"(?:\d{{4,6}}\s+{_TOWN}|{_TOWN}(?:,\s+{_TOWN})?,?\s+(?:[A-Z]{{2,3}}\s+)?(?:\d{{4,6}}(?:-\d{{4}})?|{_UK_POSTCODE}|{_CA_POSTCODE}))"
    r"(?![\w-])"
    rf"(?:,?\s+{_COUNTRY}\b)?"
)
"""A town and its postal code, either way round, right after a street (and its flat: `Apt 4`,
`2º dcha.`; a region's name, or a state's or a province's code, between them)."""
_FLAT_BEFORE = re.compile(
    r"(?:\b(?:Flat|Apartment|Apt\.?|Unit|Suite|Box|Slip|Lot|Berth|Space)\s+[\w-]{1,6},?\s+)$"
)


def find_place_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, class) for every address shape of `PLACES` in `text`."""
    spans: list[tuple[int, int, str]] = []
    if _DIGIT.search(text) is None:
        return spans  # every shape holds a house number, a box or a postal code
    for kind, gate, pattern in PLACES:
        if gate.search(text) is None:
            continue
        for match in pattern.finditer(text):
            start, end = match.span("v" if "v" in pattern.groupindex else 0)
            spans.append((start, end, kind))
    return spans


def extend_addresses(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Each address span with the flat before it and the town and postal code after it, where
    they are there (the spans that grew, as new spans)."""
    grown: list[tuple[int, int, str]] = []
    for start, end, kind in spans:
        if kind != "address":
            continue
        new_start, new_end = start, end
        tail = _TAIL.match(text, end)
        if tail is not None:
            new_end = tail.end()
        flat = _FLAT_BEFORE.search(text, max(0, start - 24), start)
        if flat is not None:
            new_start = flat.start()
        if (new_start, new_end) != (start, end):
            grown.append((new_start, new_end, "address"))
    return grown
