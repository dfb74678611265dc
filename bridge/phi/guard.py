"""`EventGuard`: the last check before an event is sealed, closing PHI on every string it holds.

The recorder has already tokenised the PHI-marked fields its models name and scrubbed the free text
it knows of. The guard then walks the whole event as JSON, every key and every value, and holds each
string to the field policy (`fields.toml`, `bridge.phi.policy`): a declared literal, an identifier
of the declared shape with no PHI in it, a code of the declared shape, a tool the domain offers,
scrubbed free text, or JSON data whose keys are plain identifiers and whose strings are scrubbed.
Anything else (a field with no policy, an identifier that holds a name, an unknown tool, a key
with a patient's name) is tokenised whole. PHI is looked for in three places: the episode's known
values (`KnownPhi`), the tenant's directory (`PhiDirectory`: every value any episode showed, in any
spelling) and the pattern classes (`bridge.phi.patterns`).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from bridge.phi.directory import PhiDirectory
from bridge.phi.known import KnownPhi
from bridge.phi.patterns import find_identifier_spans, find_spans
from bridge.phi.policy import FieldPolicy, Rule, default_policy
from bridge.phi.scrub import replace_spans
from bridge.phi.tokenizer import PhiTokenizer
from schemas.events import EpisodeStarted
from schemas.registry import EventData

_TOKEN = re.compile(r"^phi_[0-9a-f]{16}$")
_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}$")
"""A key kept when it holds no PHI: an identifier, a code (`99213`, `CO-45`)."""
_SLUG = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_SPACE = re.compile(r"\s")
_CACHE_LIMIT = 8192
_PHI_KEY = re.compile(
    r"(?i)(?:^|[_.-])(?:dob|birth_?date|date_?of_?birth|birthday|mrn|medical_?record(?:_?number)?|ssn|"
    r"social_?security(?:_?number)?|(?:patient|first|last|full|given|family|middle|maiden)_?name|surname|"
    r"date_?of_?death|death_?date|dod|passport(?:_?(?:number|no))?|national_?id|itin|"
    r"drivers?_?licen[cs]e(?:_?(?:number|no))?)(?:$|[_.-])"
)
"""A key of JSON data that names a PHI field (`dob`, `patient_name`, `mrn`): its value is
tokenised whole, whatever its shape (a bare `1/2/03`, an id of no known form)."""
_ORG_OWNER = (
    r"(?:payer|plan|provider|facility|billing|clinic|practice|office|vendor|bank|lender|insurer|tool)"
)
_PERSON_KEY = re.compile(
    rf"(?i)^(?!{_ORG_OWNER}[_.-])(?:[a-z0-9]+[_.-]){{0,3}}(?:"
    r"(?:zip|zip_?code|postal_?code|post_?code|address|addr\d*|addr(?:ess)?_?line_?\d|street|city|"
    r"phone|cell|mobile|fax|tel|email|e_?mail)(?:_?\d)?|"
    r"acc(?:oun)?t(?:_?(?:number|no|num|id))?|(?:member|subscriber|insured|policy)_?(?:id|no|number)|"
    r"(?:pt|owner|guarantor|subscriber|member|insured|borrower|co_?signer|spouse|bene(?:ficiary)?|dependent|"
    r"principal|signatory|emergency_?contact|contact|next_?of_?kin|parent|guardian)_?name|"
    r"user_?name|login|handle|screen_?name|(?:vehicle_?|licen[cs]e_?)?plate(?:_?(?:number|no))?|vin|"
    r"(?:device_?)?serial(?:_?(?:number|no))?|iban|card_?number|national_?id(?:_?number)?)"
    r"(?:_(?:local|native|alt|alias|legal|full|preferred|other|\d))?$"
)
"""A key that names a person's contact, address, account, member id, name (also in another script:
`spouse_name_local`), user name, plate, serial, IBAN or card (`home_zip`, `guarantor_phone`,
`acct_no`, `owner_name`, `borrower_username`): tokenised whole like `_PHI_KEY`, unless the key
says the value is an organisation's (`payer_phone`, `billing_address`)."""


def _phi_key(key: str) -> bool:
    return bool(_PHI_KEY.search(key) or _PERSON_KEY.match(key))


class PhiGuardError(ValueError):
    """The guarded event no longer fits its model: the field policy tokenised a field the model
    constrains (a literal with no `literal` line). Nothing is recorded; fix `fields.toml`."""


class _Pass:
    """One event's walk: the raw values of the tokens it made, whether anything changed."""

    __slots__ = ("_parent", "changed", "known", "raw_by_token")

    def __init__(self, known: KnownPhi | None, parent: _Pass | None = None) -> None:
        self.known = known
        # A pass without the episode's values still records into its parent's tokens.
        self.raw_by_token: dict[str, Any] = {} if parent is None else parent.raw_by_token
        self.changed = False
        self._parent = parent

    def mark_changed(self) -> None:
        """Something was tokenised: the event must be rebuilt."""
        self.changed = True
        if self._parent is not None:
            self._parent.mark_changed()


class EventGuard:
    """Holds every string of an event to the field policy; tokenises what fails it."""

    def __init__(
        self,
        tokenizer: PhiTokenizer,
        tenant: str,
        *,
        tools: frozenset[str] | None = None,
        policy: FieldPolicy | None = None,
    ) -> None:
        self._tokenizer = tokenizer
        self._tenant = tenant
        self._tools = tools
        self._policy = policy or default_policy()
        self._directory: PhiDirectory = tokenizer.directory(tenant)
        self._objects: dict[str, frozenset[str]] = {}
        # Strings found free of tenant PHI and patterns, per directory generation: the same keys
        # and ids recur in every event of every episode.
        self._clean: set[str] = set()  # (a NUL before the text: checked without the patterns)
        self._clean_generation = -1

    def guard(self, data: EventData, known: KnownPhi | None = None) -> EventData:
        """`data` as it may be recorded: itself when every string passes, else a copy with each
        failing string tokenised (raw values in the vault before this returns)."""
        rules = self._policy.rules(data.TYPE)
        walk = _Pass(known)
        guarded = self._walk(
            data.model_dump(mode="json"), "", rules, self._object_paths(data.TYPE, rules), walk
        )
        if not walk.changed:
            return data
        try:
            held = type(data).model_validate(guarded)
        except ValidationError as exc:
            raise PhiGuardError(
                f"the PHI field policy tokenised a field {data.TYPE} constrains; give it a line "
                f"in bridge/phi/fields.toml: {exc.errors()[0]['loc']}"
            ) from None
        self._tokenizer.store(self._tenant, walk.raw_by_token)
        return held

    def subject(self, subject: str | None, rule: str, known: KnownPhi | None = None) -> str | None:
        """An event's subject (an item id, a tool name) held to `rule` (`id` or `tool`), as the
        same value inside the event is."""
        if subject is None:
            return None
        walk = _Pass(known)
        rules = self._policy.rules(EpisodeStarted.TYPE)
        held = self._string(subject, rules["work_item.item_id"] if rule == "id" else Rule("tool"), walk)
        self._tokenizer.store(self._tenant, walk.raw_by_token)
        return held

    def _object_paths(self, event_type: str, rules: dict[str, Rule]) -> frozenset[str]:
        paths = self._objects.get(event_type)
        if paths is None:
            prefixes = {""}
            for path in rules:
                parts = path.split(".")
                prefixes.update(".".join(parts[:i]) for i in range(1, len(parts)))
            paths = self._objects[event_type] = frozenset(prefixes)
        return paths

    def _walk(
        self, value: Any, path: str, rules: dict[str, Rule], objects: frozenset[str], walk: _Pass
    ) -> Any:
        rule = rules.get(path)
        if rule is not None and rule.kind == "data":
            return self._data(value, walk)
        if isinstance(value, str):
            return self._string(value, rule, walk)
        if isinstance(value, dict):
            if rule is None and path not in objects:
                return self._opaque(value, walk)  # a structure no policy line names: fail closed
            return {
                key: self._walk(item, f"{path}.{key}" if path else key, rules, objects, walk)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [self._walk(item, f"{path}.*", rules, objects, walk) for item in value]
        return value

    def _string(self, value: str, rule: Rule | None, walk: _Pass) -> str:
        if rule is None:
            return value if _TOKEN.match(value) else self._tokenize(value, walk)
        if rule.kind == "literal" or _TOKEN.match(value):
            return value
        if rule.kind == "text":
            return self._scrub(value, walk, patterns=True)
        if rule.kind == "code":
            assert rule.shape is not None
            return value if rule.shape.match(value) else self._tokenize(value, walk)
        if rule.kind == "tool":
            if self._tools is not None:
                return value if value in self._tools else self._tokenize(value, walk)
            return (
                value
                if _SLUG.match(value) and not self._holds_phi(value, walk)
                else self._tokenize(value, walk)
            )
        assert rule.shape is not None  # id
        if rule.shape.match(value) and not self._holds_phi(value, walk):
            return value
        return self._tokenize(value, walk)

    def _data(self, value: Any, walk: _Pass) -> Any:
        if isinstance(value, str):
            if _TOKEN.match(value):
                return value
            # Free text in a field (a note) is scrubbed like any free text; a bare value (a code,
            # a date of service) only of the tenant's PHI-marked values: the episode's known values
            # also hold the leaves of undeclared keys, and a reason code an agent once sent
            # undeclared must not turn into a token in every later result.
            # A bare value is still held to the shapes that are identifiers wherever they stand
            # (an SSN, a phone number, an e-mail, a segment's name).
            if _SPACE.search(value) is not None:
                return self._scrub(value, walk, patterns=True)
            return self._scrub(value, _Pass(None, walk), patterns=False)
        if isinstance(value, dict):
            return {
                self._key(key, walk): (
                    self._opaque(item, walk) if item and _phi_key(key) else self._data(item, walk)
                )
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [self._data(item, walk) for item in value]
        return value  # a number, a boolean, null

    def _opaque(self, value: Any, walk: _Pass) -> Any:
        if isinstance(value, str):
            return value if _TOKEN.match(value) else self._tokenize(value, walk)
        if isinstance(value, dict):
            return {self._key(key, walk): self._opaque(item, walk) for key, item in value.items()}
        if isinstance(value, list):
            return [self._opaque(item, walk) for item in value]
        return value

    def _key(self, key: str, walk: _Pass) -> str:
        if _TOKEN.match(key) or (_PLAIN_KEY.match(key) and not self._holds_phi(key, walk)):
            return key
        return self._tokenize(key, walk)

    def _holds_phi(self, value: str, walk: _Pass) -> bool:
        if walk.known is not None and walk.known.spans(value):
            return True
        return bool(self._tenant_spans(value, patterns=True))

    def _tenant_spans(self, text: str, *, patterns: bool) -> list[tuple[int, int, str]]:
        """The spans of the tenant's directory (and the pattern classes) in `text`; a string found
        clean is remembered until the directory learns something new."""
        if self._clean_generation != self._directory.generation or len(self._clean) > _CACHE_LIMIT:
            self._clean, self._clean_generation = set(), self._directory.generation
        key = text if patterns else "\x00" + text
        if key in self._clean:
            return []
        spans = self._directory.spans(text)
        spans += find_spans(text) if patterns else find_identifier_spans(text)
        if not spans:
            self._clean.add(key)
        return spans

    def _scrub(self, text: str, walk: _Pass, *, patterns: bool) -> str:
        if not text:
            return text
        spans = self._tenant_spans(text, patterns=patterns)
        if walk.known is not None:
            spans = spans + walk.known.spans(text)
        if not spans:
            return text
        return replace_spans(text, spans, lambda raw: self._tokenize(raw, walk))

    def _tokenize(self, value: str, walk: _Pass) -> str:
        token = self._tokenizer.token(self._tenant, value)
        walk.raw_by_token[token] = value
        walk.mark_changed()
        return token
