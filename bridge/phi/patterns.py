"""PHI pattern classes for free text: where identifiers sit in a string, by their shape.

Pure and offline: regular expressions for the HIPAA Safe Harbor identifier classes that have a
recognisable shape (SSN, phone and fax numbers, e-mail, URLs, IP addresses, full dates, ages over
89, member ids by payer format, medical record, account and NPI numbers named as such, street
addresses, a city and ZIP code before or after a state's code, names after a title, a role or a
relation, in any script's capitals, with their particles and initials), and the shapes of
`places` (other countries' addresses), `spoken` (numbers, dates and letters read out), `scripts`
(non-Latin words), `cued` (names and handles a cue gives away), `ids` (ids a label gives away, ids
with check digits) and `ocr` (shapes read with letters for digits). Names and other values without a
shape are the job of `KnownPhi`: the values the episode's PHI-marked fields held. `find_spans` gives
(start, end, class) for every match.
"""

from __future__ import annotations

import re

from bridge.phi.cued import find_cued_name_spans
from bridge.phi.ids import find_id_spans
from bridge.phi.names import find_name_spans
from bridge.phi.ocr import find_ocr_spans
from bridge.phi.places import extend_addresses, find_place_spans
from bridge.phi.scripts import find_script_spans
from bridge.phi.spoken import find_spoken_spans
from bridge.phi.variants import name_variants

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|Jun(?:e)?|Jul(?:y)?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_MBI_ALPHA = "[AC-HJKMNP-RT-Y]"
_STREET = (
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
    r"Terrace|Ter|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Av|Route|Rte|Expressway|Expy|Freeway|Fwy|Square|Sq|Trail|Trl|Parade|Row|Close|Crescent|Mews|"
    r"Grove|Gardens|Esplanade|Quay|Alley|Loop|Pike|Heights)"
)
_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|IA|ID|IL|IN|KS|KY|LA|MA|MD|ME|MI|MN|MO|MS|MT|NC|ND|NE|NH|"
    "NJ|NM|NV|NY|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VA|VT|WA|WI|WV|WY|PR|GU|VI|AS|MP"
)
"""The postal codes of US states and territories. `ID` (Idaho) counts only after a comma: `ID`
before five digits is far more often an identifier's label (`Payer ID 60054`)."""
_STATES_BARE = _STATES.replace("ID|", "")
_UPPER = "A-ZÀ-ÖØ-Þ\u0100-\u017f\u1e00-\u1eff"
_LOWER = "a-zß-öø-ÿ\u0100-\u017f\u1e00-\u1eff"
_NAME_WORD = rf"(?:[{_UPPER}]['\u2019])?[{_UPPER}][{_LOWER}]*[{_UPPER}]?[{_LOWER}]+(?:['\u2019-][{_UPPER}]?[{_LOWER}]+)*"
"""A capitalised name word: `Khan`, `Nguyễn`, `O'Brien`, `D'Angelo`, `McDonald`, `Mensah-Bonsu`, `Li`."""
_PARTICLE = (
    r"(?i:van|von|der|den|de|la|le|del|della|da|das|dos|du|di|st|y|al|el|bin|bint|ibn|abu|ben|ter|ten|zu|ap|"
    r"o|\u00f3|n[i\u00ed]|nic|mac|mc|ua|binti|bte|bt)"
)
"""The short words between a name's words (`van der`, `bin`, the Irish `Ó` and `Ní`), in any case."""
_SUFFIX = r"(?:\s+(?:Jr|Sr|II|III|IV|V)\b\.?)?"
_NAME = (
    rf"(?:[A-Z]\.\s*)*{_NAME_WORD}(?:\s+(?:[A-Z]\.|{_PARTICLE}(?=\s)|{_NAME_WORD})){{0,3}}{_SUFFIX}"
    rf"(?:,\s+(?!(?:Esq|Jr|Sr|MD|DO|RN|NP|PA|PhD)\b){_NAME_WORD}(?:\s+{_NAME_WORD})?)?"
)
"""A name: initials, up to four words with particles between them, a suffix (`Jr.`, `III`), and a
given name after a comma."""
_TITLE = r"(?i:mr|mrs|ms|miss|mx|dr|sr|sra|mme|rev|prof)"
_RELATIONS = (
    r"patient|pt|member|subscriber|guarantor|borrower|co-?signer|dependent|insured|beneficiary|daughter|"
    r"son|wife|husband|spouse|mother|father|mom|dad|sister|brother|grand(?:mother|father|son|daughter)|"
    r"aunt|uncle|niece|nephew|guardian|caregiver|parent|partner|fianc[ée]e?|widow(?:er)?|name\s+of|named|c/o|"
    r"attorney|lawyer|counsel|executor|executrix|heir|owner|founder|shareholder|principal|controller|"
    r"caller|identified\s+as|on\s+behalf\s+of|estate\s+of|spoke\s+(?:to|with)|name\s+is|"
    r"(?:last|first|given|family|maiden)\s+name|surname"
)
_OFFICERS = r"(?:CEO|CFO|COO|CTO|POA)"
"""Officers' and agents' titles, written in capitals anywhere: the name after them is a person's."""
_OPENERS = r"(?i:dear|re|attn)"
"""A letter's or a record's opening words, before a name only where a line or sentence starts."""
_SENTENCE_START = r"(?:^|(?<=[.;:!?(\n]\s)|(?<=\n))"
_ROLE = (
    rf"(?:{_TITLE}|(?:{_RELATIONS})|{_OFFICERS}|{_SENTENCE_START}(?=[A-Z])(?i:{_RELATIONS})|"
    rf"{_SENTENCE_START}{_OPENERS}|(?=[A-Z])(?i:{_RELATIONS})(?=:))"
)
"""A title anywhere; a role or relation in lower case, or capitalised where a sentence starts or as
a label (`Patient:`)
(`Guarantor Dmitri Volkov`), never mid-sentence, where it is a title's word (`Advance Beneficiary
Notice`, `Member Services`)."""
_ID_LABEL = (
    r"(?:member|subscriber|beneficiary|policy|insurance|health\s+plan|medicare|medicaid|"
    r"medical\s+record|MRN|account|acct|patient|chart|license|licence|certificate|device|serial|"
    r"vehicle|VIN|plate|DL|driver'?s\s+licen[cs]e|passport|IBAN|national\s+id|ID\s+card)"
)
_ID_LABEL_MORE = (
    r"(?:tribal\s+id|case|docket|health\s+card|personnummer|"
    r"(?<!payer\s)(?<!claim\s)(?<!group\s)(?<!plan\s)(?<!tax\s)(?:(?-i:id)|(?-i:ID)(?=:))|"
    r"(?-i:RFC|CURP|CPF|DNI|NIE|NIF|NIN|NINO|NHS|SIN|BSN|PESEL|TFN))"
)
"""More labels of an id: a court case's, a nation's (`RFC`, `NHS`, `personnummer`), a bare `id`
(not a payer's, a claim's, a group's, a plan's or a tax id), an `ID:` as a field's label."""
_CAPS_NAME = r"[A-Z]{2,}(?:['-][A-Z]{2,})*,\s*[A-Z]{2,}(?:-[A-Z]{2,})?(?:\s+[A-Z]\b)?"
"""A name as systems of record print it: `KHAN, AISHA M`."""
_AFTER_NAME = (
    r"(?=\s*[,(]?\s*(?:MRN\b|DOB\b|D\.O\.B|dob\b|born\b|b\.\s*\d|SSN\b|MBI\b|ph\b|tel\b|cell\b|phone\b|"
    r"email\b|(?<=,\s)(?:last|family|maiden)\s+name\b|"
    r"Esq\b|CEO\b|CFO\b|COO\b|controller\b|founder\b|sole\s+shareholder\b|"
    r"'s\s+(?:husband|wife|spouse|daughter|son|mother|father|sister|brother|balance|account)\b))"
)
_NOT_A_NAME = (
    rf"(?!(?i:(?:{_RELATIONS}|{_ID_LABEL}|medicare|medicaid|home|work|primary|new|old|her|his|their|"
    r"verified|confirmed|updated|no|on\s+file|the|payer|plan|provider|tax|group|claim|flag|merge|split)\b))"
)
"""A role, a label or a plain word is not the name before a label (`Guarantor phone`, `Medicare MBI`)."""
"""What follows a person's name and nothing else: an identifier's label, an officer's title, a
relative (`Faith Brown's husband`)."""
_MAIL_HOSTS = (
    r"(?i:gmail|googlemail|yahoo|ymail|hotmail|outlook|live|msn|aol|icloud|me|mac|protonmail|proton|gmx|"
    r"yandex|mail|comcast|att|verizon|sbcglobal|bellsouth|cox|charter|earthlink|optonline|zoho|qq|163|naver)"
)
"""Mail hosts people name after `at` when they read an address out."""
_SPANISH_MONTH = (
    r"(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)"
)
_SPELLED_AGE = (
    r"\b(?:ninety|one\s+hundred(?:\s+and)?)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?\b"
    r"(?!\s+(?:days?|weeks?|months?|years?\s+(?:ago|from)|minutes?|percent|units?|dollars?|visits?|claims?))"
)
"""An age over 89 written out (`ninety-two`), not a period or a count (`ninety days`)."""

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")),
    (
        "email",
        re.compile(
            r"(?<![\w.%+-])[A-Za-z0-9._%+-]*[A-Za-z][A-Za-z0-9._%+-]*@[A-Za-z][A-Za-z0-9-]{2,}\b(?!\.)"
        ),
    ),
    ("url", re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)),
    (
        "url",  # a social profile without its scheme
        re.compile(r"\b(?:facebook|instagram|linkedin|twitter|x|tiktok)\.com/[^\s<>\"',;]+", re.I),
    ),
    ("ip", re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\d|\.\d)")),
    ("ssn", re.compile(r"(?<![\w-])\d{3}[- .]\d{2}[- .]\d{4}(?![\w-])")),
    ("ssn", re.compile(r"\b(?:SSN|social\s+security(?:\s+(?:number|no\.?|#))?)\W{0,3}(?P<v>\d{9})\b", re.I)),
    (
        "ssn",
        re.compile(r"(?:\b[Xx]{3}|\*{3})[- ]?(?:[Xx]{2}|\*{2})[- ]?(?P<v>\d{4})\b"),
    ),  # masked: the last four
    ("ssn", re.compile(r"\bSSN\s+(?:ending(?:\s+in)?|last\s+(?:4|four))\W{0,3}(?P<v>\d{4})\b", re.I)),
    (
        "phone",
        re.compile(
            r"(?<![\w-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}"
            r"(?:\s*(?:ext\.?|x)\s*\d{1,5})?(?![\w-])",
            re.I,
        ),
    ),
    ("phone", re.compile(r"(?<![\w+])\+(?!1[\s.-]?\d{3})[2-9]\d{0,2}(?:[\s.-]\d{1,5}){2,5}(?![\w-])")),
    (
        "phone",
        re.compile(r"\b(?:phone|tel|telephone|fax|cell|mobile)\W{0,3}(?P<v>\+?\d[\d\s().-]{8,}\d)", re.I),
    ),
    ("date", re.compile(r"(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])")),
    ("date", re.compile(r"(?<![\w/])\d{1,2}[/-]\d{1,2}[/-](?:\d{4}|\d{2})(?![\w/])")),
    ("date", re.compile(rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b", re.I)),
    ("date", re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+\d{{4}}\b", re.I)),
    ("date", re.compile(rf"\b\d{{1,2}}-{_MONTH}-(?:\d{{4}}|\d{{2}})\b", re.I)),
    ("date", re.compile(r"(?<![\w.])(?:\d{1,2}\.\d{1,2}\.\d{4}|\d{4}[/.]\d{1,2}[/.]\d{1,2})(?!\w|\.\d)")),
    ("date", re.compile(rf"\b\d{{1,2}}\s+de\s+{_SPANISH_MONTH}\s+(?:de\s+|del\s+)?\d{{4}}\b", re.I)),
    (
        "date",
        re.compile(r"\b(?:DOB|D\.O\.B\.?|born|birth\s*date|date\s+of\s+birth)\W{0,3}(?P<v>\d{8})\b", re.I),
    ),
    (
        "member_id",  # Medicare Beneficiary Identifier, with or without its dashes
        re.compile(
            rf"\b[1-9]{_MBI_ALPHA}[{_MBI_ALPHA[1:-1]}0-9]\d-?{_MBI_ALPHA}[{_MBI_ALPHA[1:-1]}0-9]\d-?"
            rf"{_MBI_ALPHA}{{2}}\d{{2}}\b"
        ),
    ),
    ("member_id", re.compile(r"\b[A-Z]{2,4}\d{6,12}[A-Z]?\b")),  # commercial payers: prefix + digits
    ("member_id", re.compile(r"\b\d{9}[A-Z]\d?\b")),  # a Medicare claim number (HICN): nine digits, a suffix
    (
        "record_id",  # any id introduced as a member, record, account, licence or device number
        re.compile(
            rf"\b(?:{_ID_LABEL}|{_ID_LABEL_MORE})s?\s*(?:id|ID|number|no\.?|num|#)?\s*[:#=]?\s*"
            r"(?P<v>[A-Z]{1,4}\s\d{3,4}(?:\s\d{2,4})+\b(?![/.,:-]\d)|(?:[A-Z]{1,3}\s)?(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{3,}(?:\s\d{2,4}\b(?![/.,:-]\d))*"
            r"(?:\s+(?:and|or|&)\s+(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{4,}\b(?![/.,:-]\d))*)",
            re.I,
        ),
    ),
    (
        "address",
        re.compile(
            rf"\b\d{{1,6}}\s+(?:[A-Z0-9][A-Za-z0-9'.-]*\s+){{1,4}}(?i:{_STREET})\b\.?"
            r"(?:\s+(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\b)?"
            r"(?:,?\s+(?i:Apt|Apartment|Suite|Ste|Unit)\.?\s*[A-Za-z0-9-]+|\s*#\s*[A-Za-z0-9-]+)?"
            r"(?:,?\s+(?:[A-Z][a-z]+|[A-Z]{3,})(?:\s(?:[A-Z][a-z]+|[A-Z]{3,})){0,2},?\s+"
            rf"(?:(?:{_STATES})\s+)?\d{{5}}(?:-?\d{{4}})?\b)?"
        ),
    ),
    ("address", re.compile(r"\bP\.?\s?O\.?\s+Box\s+\d+\b", re.I)),
    (
        "zip",
        re.compile(
            rf"(?:,\s*(?:{_STATES})|\b(?:{_STATES_BARE})|\b(?i:ZIP(?:\s+code)?:?))\s+(?P<v>\d{{5}}(?:-?\d{{4}})?)\b"
        ),
    ),
    (
        "city",  # the words before a state's code and a ZIP code
        re.compile(
            rf"(?P<v>\b(?:[A-Z][a-z]+|[A-Z]{{3,}})(?:\s(?:[A-Z][a-z]+|[A-Z]{{3,}})){{0,2}})"
            rf"(?:,\s*(?:{_STATES})|\s+(?:{_STATES_BARE}))\s+\d{{5}}(?:-?\d{{4}})?\b"
        ),
    ),
    (
        "name",  # a capitalised name after a title, a role or a relation (and a title after a role)
        re.compile(rf"\b{_ROLE}\b(?:[.:,]?\s+|[:=])\(?(?:{_TITLE}\.?\s+)*(?P<v>{_NOT_A_NAME}{_NAME})"),
    ),
    (
        "name",  # a name before its label
        re.compile(rf"(?<![\w.'-]){_NOT_A_NAME}(?P<v>{_NAME}|{_CAPS_NAME}){_AFTER_NAME}"),
    ),
    (
        "name",  # two name words or more before an `ID` (one is a label's word: `Ins ID`, `Payer ID`)
        re.compile(rf"(?<![\w.'-]){_NOT_A_NAME}(?P<v>{_NAME_WORD}(?:\s+{_NAME_WORD})+)(?=,?\s*\(?ID\b)"),
    ),
    ("name", re.compile(rf"\bBaby\s+(?:Girl|Boy)\s+{_NAME_WORD}")),  # a newborn not yet named
    (
        "name",  # a nickname in quotes between a given name and a surname: `Catherine "Kit" Beaumont`
        re.compile(
            rf"(?:\b{_NAME_WORD}|\b[A-Z]{{2,}}|\b(?:[A-Z]\.\s*)+)\s*[\"\u201c'(][A-Z][A-Za-z.]{{0,12}}[\"\u201d')]\s+"
            rf"(?:{_NAME}|[A-Z]{{2,}}(?:['-][A-Z]{{2,}})*)"
        ),
    ),
    (
        "name",  # a whole value written `Surname, Given`
        re.compile(
            rf"^\s*(?P<v>(?:{_PARTICLE}\s+)*{_NAME_WORD}(?:[\s-]{_NAME_WORD})*,\s+{_NAME_WORD}(?:\s+[A-Z]\.?)?"
            r"(?:\s+[\"\u201c(][A-Za-z.]{1,12}[\"\u201d)])?)\s*$"
        ),
    ),
    ("age", re.compile(_SPELLED_AGE, re.I)),
    ("npi", re.compile(r"\bNPI\W{0,3}(?P<v>[12]\d{9})\b", re.I)),
)
"""(class, pattern); a pattern with a group `v` marks only that group as PHI (the label stays)."""

SEGMENT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # X12 and HL7 segments: a person's name and id in NM1 (entity type 1), the birth date in DMG,
    # the patient's id, name, birth date and address in PID
    ("name", re.compile(r"\bNM1\*[A-Z0-9]{2,3}\*1\*(?P<v>[^*~]+(?:\*[^*~]*){0,4})")),
    ("record_id", re.compile(r"\bNM1\*[A-Z0-9]{2,3}\*1\*(?:[^*~]*\*){5}[A-Z0-9]{1,2}\*(?P<v>[^*~]+)")),
    ("date", re.compile(r"\bDMG\*D8\*(?P<v>\d{8})")),
    ("record_id", re.compile(r"\bPID\|(?:[^|\n]*\|){2}(?P<v>[^|^\n]+)")),
    ("name", re.compile(r"\bPID\|(?:[^|\n]*\|){4}(?P<v>[^|\n]+)")),
    ("date", re.compile(r"\bPID\|(?:[^|\n]*\|){6}(?P<v>[^|\n]+)")),
    ("address", re.compile(r"\bPID\|(?:[^|\n]*\|){10}(?P<v>[^|\n]+)")),
    ("phone", re.compile(r"\bPID\|(?:[^|\n]*\|){12}(?P<v>[^|\n]+)")),
    # the next of kin's name, address and phone (NK1), the guarantor's (GT1)
    ("name", re.compile(r"\bNK1\|[^|\n]*\|(?P<v>[^|\n]+)")),
    ("address", re.compile(r"\bNK1\|(?:[^|\n]*\|){3}(?P<v>[^|\n]+)")),
    ("phone", re.compile(r"\bNK1\|(?:[^|\n]*\|){4}(?P<v>[^|\n]+)")),
    ("name", re.compile(r"\bGT1\|(?:[^|\n]*\|){2}(?P<v>[^|\n]+)")),
    ("address", re.compile(r"\bGT1\|(?:[^|\n]*\|){4}(?P<v>[^|\n]+)")),
    ("phone", re.compile(r"\bGT1\|(?:[^|\n]*\|){5}(?P<v>[^|\n]+)")),
    # a person's street and city, state and ZIP code after their NM1 (subscriber, patient)
    ("address", re.compile(r"\bNM1\*(?:IL|QC)\*1\*[^~]*~N3\*(?P<v>[^~]+)")),
    ("address", re.compile(r"\bNM1\*(?:IL|QC)\*1\*[^~]*~(?:N3\*[^~]*~)?N4\*(?P<v>[^~]+)")),
)
"""As `PATTERNS`, in the segments of X12 and HL7 messages: tried only where a segment starts."""
_SEGMENT = re.compile(r"\b(?:NM1\*|DMG\*|PID\||NK1\||GT1\|)")

_AGE_GATE = re.compile(r"(?<!\d)(?:9\d|1[01]\d)(?!\d)")
"""An age over 89 in digits: what every age pattern but the spelled one holds."""

GATED_PATTERNS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        "age",
        _AGE_GATE,
        re.compile(
            r"\b(?:9\d|1[01]\d)[- ]?(?:years?|yrs?)\.?(?:[- ]old\b)?(?!\s+(?:ago|from|later|before|after))"
            r"|\b(?:9\d|1[01]\d)\s?(?:y/o|yo\b|y\.\s?o\.?)",
            re.I,
        ),
    ),
    (
        "age",
        _AGE_GATE,  # an age in brackets after a name or its cue: `Ada Obi (94)`, `(pt Ada Obi, 94)`, `(93, frail)`
        re.compile(
            r"(?<=[A-Za-z] \()(?P<v>9\d|1[01]\d)(?=\))|\((?:[^()\d\n]{2,40}),\s*(?P<w>9\d|1[01]\d)\s*\)"
            r"|\((?P<x>9\d|1[01]\d),\s+[a-z]"
        ),
    ),
    (
        "age",
        _AGE_GATE,
        re.compile(
            r"\b(?P<v>9\d|1[01]\d)\s+(?:this|next|last)\s+(?:month|year|week|spring|summer|fall|winter)\b"
        ),
    ),
    ("age", _AGE_GATE, re.compile(r"\b(?:age[ds]?|aged)\W{1,3}(?P<v>9\d|1[01]\d)\b", re.I)),
    (
        "age",
        _AGE_GATE,  # a bare age over 89: `At 92, the patient`, `(DOB 03/01/1930, 96)`
        re.compile(r"(?:\b(?i:at)\s+|\b(?:DOB|dob|born)\b[^,;()\n]{1,24},\s*)(?P<v>9\d|1[01]\d)(?=\s*[,)])"),
    ),
    (
        "age",
        _AGE_GATE,  # `she is 92 and`, `turned 101 in May`
        re.compile(
            r"\b(?:is|was|turns|turned|now)\s+(?P<v>9\d|1[01]\d)(?=\s+(?:and|but|now|so|in|years?|yrs?)\b)"
        ),
    ),
    (
        "email",  # a mailbox written out: `jdoe71 at gmail`, `jdoe [at] example [dot] org`
        re.compile(rf"\sat\s+{_MAIL_HOSTS}\b|\((?i:at)\)|\[(?i:at)\]|\sdot\s", re.I),
        re.compile(
            rf"(?<![\w.+-])[A-Za-z0-9._%+-]+\s*(?:\s(?i:at)\s+(?={_MAIL_HOSTS}\b|[A-Za-z0-9-]+\s(?i:dot)\s[A-Za-z]{{2,}}\b)|\((?i:at)\)|\[(?i:at)\])\s*[A-Za-z0-9-]+"
            r"(?:\s*(?:\.|\s(?i:dot)\s|\((?i:dot)\)|\[(?i:dot)\])\s*[A-Za-z]{2,})*"
        ),
    ),
    (
        "name",  # a passport's or an ID card's machine-readable zone: `P<UTOSURNAME<<GIVEN<NAMES<<<`
        re.compile(r"<<"),
        re.compile(
            r"(?:(?<=\b[PIAC][A-Z<][A-Z]{3})|(?<![A-Z<]))(?P<v>[A-Z]{2,}(?:<[A-Z]{2,})*<<[A-Z]{2,}(?:<[A-Z]{2,})*)"
        ),
    ),
    (
        "ip",  # IPv6
        re.compile(r"::|(?:[0-9A-Fa-f]{1,4}:){7}"),
        re.compile(
            r"(?<![\w:])(?=[0-9A-Fa-f:]*::|(?:[0-9A-Fa-f]{1,4}:){7})(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])"
        ),
    ),
)
"""(class, gate, pattern): a pattern costly to try at every place of every string, tried only
where its gate (something it cannot match without) is found."""


def _matches(text: str, patterns: tuple[tuple[str, re.Pattern[str]], ...]) -> list[tuple[int, int, str]]:
    spans: list[tuple[int, int, str]] = []
    for kind, pattern in patterns:
        for match in pattern.finditer(text):
            group = (
                next((g for g in ("v", "w", "x") if match.group(g) is not None), 0)
                if pattern.groupindex
                else 0
            )
            start, end = match.span(group)
            if end > start:
                spans.append((start, end, kind))
    return spans


def find_spans(text: str) -> list[tuple[int, int, str]]:
    """Every PHI span the patterns find in `text`: (start, end, class), possibly overlapping; a
    name found once is found again where the same string names its words alone (`Aoife`) or by
    a nickname or a short form (`Olu` of `Oluwaseun`); OCR's confusions (`O4/12/1951`) put right."""
    return _find_spans(text) + find_ocr_spans(text, _find_spans)


def _find_spans(text: str) -> list[tuple[int, int, str]]:
    spans = _matches(text, PATTERNS)
    if _SEGMENT.search(text) is not None:
        spans += _matches(text, SEGMENT_PATTERNS)
    spans += _matches(text, tuple((kind, p) for kind, gate, p in GATED_PATTERNS if gate.search(text)))
    spans += find_name_spans(text) + find_cued_name_spans(text)
    spans += find_place_spans(text) + find_spoken_spans(text) + find_script_spans(text)
    spans += find_id_spans(text)
    spans += extend_addresses(text, spans)
    return spans + _named_again(text, spans)


_WORD = re.compile(
    rf"(?:[{_UPPER}]['\u2019])?[{_UPPER}][{_LOWER}]{{2,}}(?:['\u2019-][{_UPPER}]?[{_LOWER}]+)*"
)


def _named_again(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    words = {m.group() for s, e, kind in spans if kind == "name" for m in _WORD.finditer(text, s, e)}
    words |= {part for word in words for part in word.split("-") if len(part) >= 3}  # `Quintanilla-Reyes`
    words |= {form for word in words for v in name_variants(word) for form in (v.capitalize(), v.upper())}
    if not words:
        return []
    again = re.compile(
        r"(?<![\w'-])(?:" + "|".join(map(re.escape, sorted(words, key=len, reverse=True))) + r")(?![\w-])"
    )
    return [(m.start(), m.end(), "name") for m in again.finditer(text)]


IDENTIFIER_CLASSES = frozenset({"email", "url", "ip", "ssn", "phone"})
"""The classes whose shape alone is an identifier, wherever it stands: found in a bare value too."""


def find_identifier_spans(text: str) -> list[tuple[int, int, str]]:
    """The spans of `find_spans` whose class is an identifier by its shape, and the person's
    fields of an X12 or HL7 segment: what a bare value (no space in it) is checked for."""
    segment = _SEGMENT.search(text) is not None
    return [s for s in find_spans(text) if s[2] in IDENTIFIER_CLASSES or (segment and s[2] != "member_id")]
