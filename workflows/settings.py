"""`WorkflowsSettings`: the Temporal worker's settings (`LOOPLINE_` prefix), read at start-up."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from adapters.drafting.draft import DEFAULT_THRESHOLD


class WorkflowsSettings(BaseSettings):
    """Where Temporal, the archive, the drafts and the task sets are; how promotion behaves."""

    model_config = SettingsConfigDict(env_prefix="LOOPLINE_", extra="ignore")

    temporal_address: str = Field(
        default="127.0.0.1:7233", min_length=3, description="Temporal frontend host:port."
    )
    temporal_namespace: str = Field(default="default", min_length=1, description="Temporal namespace.")
    task_queue: str = Field(default="cpu", min_length=1, description="The task queue this worker serves.")
    db_url: str = Field(
        default="sqlite:///.loopline/archive.db", min_length=1, description="The event archive."
    )
    drafts_dir: Path = Field(default=Path(".loopline/drafts"), description="The draft store.")
    tasksets_root: Path = Field(
        default=Path(".loopline/tasksets"), description="Where task sets are published."
    )
    promoted_task_set: str = Field(
        default="{domain}-promoted",
        min_length=1,
        description="The task set promotions join; {domain} is the edge case's domain.",
    )
    events_topic: str = Field(
        default="loopline.events.v1", min_length=1, description="Where task.promoted goes."
    )
    draft_threshold: float = Field(
        default=DEFAULT_THRESHOLD, ge=0.0, le=1.0, description="Fidelity a draft needs to be reviewed."
    )
    review_reminder_s: float = Field(default=4 * 3600, gt=0, description="Remind reviewers after this long.")
    review_escalate_s: float = Field(
        default=24 * 3600, gt=0, description="Escalate a review after this long."
    )
    tenant: str = Field(default="default", min_length=1, description="Tenant of the task.promoted events.")
    gpu_task_queue: str = Field(
        default="gpu", min_length=1, description="The queue of training activities (improvement cycle)."
    )
    activity_threads: int = Field(default=4, ge=1, le=64, description="Threads for synchronous activities.")
    workflows_metrics_port: int | None = Field(
        default=None, ge=0, le=65535, description="Prometheus `/metrics` port of the worker; unset: off."
    )
    environment: Literal["dev", "test", "staging", "production"] = Field(
        default="dev", description="Outside dev/test, Temporal and the archive must be given."
    )
    health_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="Port of `/healthz` and `/readyz` (workflows.health); unset: off.",
    )
    health_bind: str = Field(
        default="127.0.0.1", min_length=1, description="Address the health port binds (0.0.0.0 in a pod)."
    )

    @model_validator(mode="after")
    def _given_outside_dev(self) -> WorkflowsSettings:
        # loopline.settings_guard.require_given's check; workflows sits below loopline, so it is here
        missing = [
            f"LOOPLINE_{n.upper()}" for n in ("temporal_address", "db_url") if n not in self.model_fields_set
        ]
        if self.environment not in ("dev", "test") and missing:
            raise ValueError(
                f"{', '.join(missing)} must be set when the environment is {self.environment!r} "
                "(their defaults are the one-machine stack's)"
            )
        return self
