"""The parcel desk's one registration line (an installed domain's is one entry point in pyproject)."""

from envs.domain import DOMAINS
from tests.toydomain import DOMAIN

DOMAINS.register(DOMAIN)
