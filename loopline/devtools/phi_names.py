"""Write `bridge/phi/names.json.gz`, the name lexicon of the PHI guard, from the `faker` package.

    PYTHONPATH=$PWD .venv/bin/python -m loopline.devtools.phi_names

The given names and surnames of every `faker` person locale (faker is MIT-licensed; a dev
dependency: the guard reads the written file, never faker), in Latin script only, each token of a
multi-word entry on its own, case-folded, and again with its diacritics folded (`Łukasz` →
`lukasz`). `common` holds what is not a name where it stands capitalised: the common English
words of faker's `en_US` lorem list, its company words and job titles, the US states, the countries, the
street words, months and weekdays, and the hand-picked names that are also everyday words
(`phi_names.toml`, with the particles and the words of organisations' and places' names). The guard counts a name only with a lexicon word that is not common.
"""

from __future__ import annotations

import gzip
import importlib
import json
import pkgutil
import re
import tomllib
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[2] / "bridge" / "phi" / "names.json.gz"
_LATIN = re.compile("^[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff'\u2019-]{2,}$")
_FOLD = str.maketrans(
    {"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "\u0131": "i", "þ": "th"}
)
WORDS = Path(__file__).with_name("phi_names.toml")
"""The hand-picked word lists (names that are everyday words, payers, labels; particles; the words
of organisations' and places' names), copied into the lexicon."""


def fold(token: str) -> str:
    """`token` case-folded, its diacritics dropped."""
    lowered = token.casefold().translate(_FOLD)
    return "".join(c for c in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(c))


def _tokens(values: Iterable[Any]) -> set[str]:
    out: set[str] = set()
    for value in values:
        for token in str(value).replace(".", " ").split():
            if _LATIN.match(token):
                out.add(token.casefold())
                out.add(fold(token))
    return out


def _values(provider: type, marker: str) -> list[Any]:
    found: list[Any] = []
    for attr in dir(provider):
        value = getattr(provider, attr)
        if marker in attr and not callable(value):
            found.extend(value if isinstance(value, (list, tuple, set, dict)) else [])
    return found


def _modules(package: str) -> list[Any]:
    root = importlib.import_module(package)
    return [importlib.import_module(f"{package}.{m.name}") for m in pkgutil.iter_modules(root.__path__)]


def build() -> dict[str, list[str]]:
    """The lexicon: given names, surnames and common words, each sorted."""
    given: set[str] = set()
    surnames: set[str] = set()
    for module in _modules("faker.providers.person"):
        given |= _tokens(_values(module.Provider, "first_names"))
        surnames |= _tokens(_values(module.Provider, "last_names"))
    lorem = importlib.import_module("faker.providers.lorem.en_US").Provider
    company = importlib.import_module("faker.providers.company.en_US").Provider
    address = importlib.import_module("faker.providers.address.en_US").Provider
    date_time = importlib.import_module("faker.providers.date_time.en_US").Provider
    words: list[Any] = list(lorem.word_list)
    for group in (*company.catch_phrase_words, *company.bsWords):
        words.extend(group)
    words.extend(company.company_suffixes)
    words.extend(importlib.import_module("faker.providers.job.en_US").Provider.jobs)
    words.extend(address.states)
    words.extend(address.countries)
    words.extend(address.street_suffixes)
    words.extend(address.city_prefixes)
    words.extend(address.city_suffixes)
    words.extend(getattr(date_time, "MONTH_NAMES", {}).values())
    words.extend(getattr(date_time, "DAY_NAMES", {}).values())
    lists = {key: str(value).split() for key, value in tomllib.loads(WORDS.read_text()).items()}
    common = _tokens(words) | set(lists.pop("stop_names"))
    return {"given": sorted(given), "surnames": sorted(surnames), "common": sorted(common)} | {
        key: sorted(value) for key, value in lists.items()
    }


def main() -> None:
    lexicon = build()
    data = json.dumps(lexicon, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    OUT.write_bytes(gzip.compress(data, mtime=0))
    sizes = ", ".join(f"{len(v)} {k}" for k, v in lexicon.items())
    print(f"wrote {OUT.name}: {sizes} ({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
