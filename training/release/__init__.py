"""Releasing adapters: states (candidate → canary → champion → retired, or rolled back), the
canary's sequential test, the SQL release store and the manager that tells every change as an
event (docs/release.md)."""
