"""ATIF v1.7 (the Agent Trajectory Interchange Format of Harbor, NeMo Gym and NeMo Relay): episodes
out of the archive as trajectories, and trajectories from other stacks in, re-scored by our
verifiers. `schema` validates against the vendored published schema; `export` writes; `imports`
reads, matches a task and re-scores."""

ATIF_VERSION = "ATIF-v1.7"
"""The one ATIF version this package writes and reads."""
