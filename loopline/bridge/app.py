"""Composition of the bridge process: capture, runtime, live tools, read side and the HTTP API."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal

from adapters import Toolbox
from bridge.api.app import create_app
from bridge.api.auth import Identity, Role, TokenTable, token_digest
from bridge.api.labels import Labelling
from bridge.api.models import RejectedEvent
from bridge.api.review import Reviewing
from bridge.api.review_sessions import ReviewSessions
from bridge.api.services import BridgeServices
from bridge.api.traces import TraceContexts
from bridge.capture import CaptureConfig, CaptureService
from bridge.metrics.bridge_registry import bridge_registry
from bridge.phi import OPERATOR_ROLE, VaultUnavailable
from bridge.recording import CaptureUnavailable
from bridge.runtime import EpisodeRunner, OpenAIChatPolicy, Scorer
from bridge.runtime.canary import CanaryRouter
from bridge.store import SqlEpisodeReader, SqlEventArchive
from bridge.store.review_sessions import SqlSessionStore
from engine import EpisodeConfig, Policy, Recorder
from engine.domain import LiveClient, ToolDomain
from envs.domain import DOMAINS
from loopline.bridge.review_agreement import review_agreements
from loopline.bridge.serve import DrainReport, drain
from loopline.bridge.settings import DEV_TOKENS, BridgeSettings
from loopline.streams.event_keys import signing_key


@dataclass
class BridgeProcess:
    """Everything one bridge process runs; `close()` drains the relay."""

    settings: BridgeSettings
    capture: CaptureService
    services: BridgeServices
    tokens: TokenTable
    live: LiveClient
    review_desk: Any = None
    """The Temporal review desk when review is served (closed with the process)."""
    recovered: tuple[str, ...] = ()
    """Episodes found open at start-up and closed with `episode.interrupted`."""
    _app: Any = None

    def app(self) -> Any:
        """The API of this process (one instance: its runs and sessions are what `drain` waits on)."""
        if self._app is None:
            self._app = create_app(self.services, self.tokens)
        return self._app

    def drain(self, deadline_s: float) -> DrainReport:
        """Stop taking work, let running episodes finish up to `deadline_s`, close the rest with a
        record, flush the relay (`loopline.bridge.serve.drain`), then close the live client."""
        report = drain(self.app(), self.capture, self.services.executor, deadline_s=deadline_s)
        self.live.close()
        if self.review_desk is not None:
            self.review_desk.close()
        return report

    def close(self) -> bool:
        self.live.close()
        if self.review_desk is not None:
            self.review_desk.close()
        self.services.executor.shutdown(wait=True)
        return self.capture.close()


def capture_config(settings: BridgeSettings) -> CaptureConfig:
    settings.state_dir.mkdir(parents=True, exist_ok=True)
    signing_key(settings.event_keys_file, settings.source, variable="LOOPLINE_BRIDGE_EVENT_KEYS_FILE")
    return CaptureConfig(
        tenant=settings.tenant,
        source=settings.source,
        outbox_path=settings.state_dir / "outbox.db",
        vault_url=settings.resolved_vault_url(),
        vault_key=settings.vault_key,
        environment=settings.environment,
        topic=settings.events_topic,
        kafka=settings.kafka.client_config("producer"),
        relay_process=settings.relay_process,
        durability=settings.durability,
        event_keys_file=settings.event_keys_file,
        checkpoint_key=settings.resolved_checkpoint_key(),
        checkpoint_topic=settings.checkpoint_topic,
        checkpoint_dir=settings.checkpoint_dir,
        checkpoint_interval_s=settings.checkpoint_interval_s,
    )


def token_table(settings: BridgeSettings) -> TokenTable:
    """Each configured digest's role, and the person named for it in `token_names`."""
    roles = {digest: Role(role) for digest, role in settings.token_digests.items()}
    if settings.environment in ("dev", "test"):
        roles |= {token_digest(token): Role(role) for token, role in DEV_TOKENS.items()}
    names = settings.token_names
    return TokenTable({digest: Identity(role, names.get(digest, "")) for digest, role in roles.items()})


def rcm_services(
    capture: CaptureService,
    toolbox: Toolbox,
    policy: Policy,
    config: EpisodeConfig,
    archive: SqlEventArchive,
) -> BridgeServices:
    """`domain_services` for the rcm domain (the bridge's default)."""
    return domain_services(capture, toolbox, policy, config, archive, DOMAINS.get("rcm").tool)


def domain_services(
    capture: CaptureService,
    toolbox: Toolbox,
    policy: Policy,
    config: EpisodeConfig,
    archive: SqlEventArchive,
    domain: ToolDomain,
    router: CanaryRouter | None = None,
    scorer: Scorer | None = None,
) -> BridgeServices:
    """What the API serves, over one capture service: recorders that redact by the domain's tool
    models and world snapshots by its world model, the runner, outcomes, the read side and PHI
    reveal. `router`, when given, picks the policy per work item (the release's champion and canary);
    `scorer`, when given, judges each finished episode (`verifier.scored` on its stream).

    The bridge uses it with the live backend; tests with the sim backend and a scripted policy.
    """
    args_models = {spec.name: spec.args_model for spec in domain.tools}
    snapshot = capture.redactor.snapshot_redactor(domain.world_model)
    reader = SqlEpisodeReader(archive.engine)

    traces = TraceContexts()

    def recorders(episode_id: str) -> Recorder:
        return capture.recorder(
            episode_id, args_models=args_models, snapshot_redact=snapshot, traceparent=traces.take(episode_id)
        )

    return BridgeServices(
        runner=EpisodeRunner(
            policy, toolbox, recorders, config, rules=domain.rules, router=router, scorer=scorer
        ),
        toolbox=toolbox,
        recorders=recorders,
        record_outcome=lambda episode_id, outcome: capture.record_outcome(
            episode_id, outcome, history=[e.structured for e in reader.episode_events(episode_id)]
        ),
        reader=reader,
        reveal_phi=lambda token: str(capture.vault.reveal(token, OPERATOR_ROLE)),
        capture_health=capture.health,
        rejected_events=lambda: rejected_events(capture),
        unavailable=(CaptureUnavailable, VaultUnavailable),
        labelling=Labelling.open(archive.engine),
        work_item_problem=domain.work_item_problem,
        metrics=bridge_registry(capture.health, capture.outbox.path, archive.engine),
        traces=traces,
    )


def rejected_events(capture: CaptureService) -> list[RejectedEvent]:
    """The outbox's rejected rows, as the operator API shows them."""
    return [
        RejectedEvent(
            event_id=row.event_id,
            episode_id=row.episode_id,
            seq=row.seq,
            size_bytes=len(row.doc),
            reason=row.rejected or "",
            rejected_at=datetime.fromtimestamp(row.delivered_at or 0.0, UTC),
        )
        for row in capture.outbox.rejected_rows()
    ]


def build_bridge(
    settings: BridgeSettings, policy: Policy | None = None, scorer: Scorer | None = None
) -> BridgeProcess:
    """Wire a bridge process; `policy` overrides the one the settings name (tests, the demo);
    `scorer` judges each finished episode (the demo's second day, whose work items are tasks)."""
    capture = CaptureService.open(capture_config(settings))
    recovered = capture.close_interrupted(
        "found open at start-up: the bridge process that ran it stopped without closing it (a crash or a kill)"
    )
    domain = DOMAINS.get(settings.domain).tool
    live = domain.live(settings.live_url, settings.live_timeout_s)
    config = EpisodeConfig(
        max_steps=settings.max_steps,
        max_seconds=settings.max_seconds,
    )
    archive = SqlEventArchive(settings.db_url)
    archive.create_schema()
    try:
        reviewing = review_services(settings)
    except ReviewUnavailable:
        capture.close()
        live.close()
        raise
    router = release_router(settings) if policy is None else None
    services = domain_services(
        capture,
        Toolbox(domain.tools, live),
        policy or make_policy(settings),
        config,
        archive,
        domain,
        router,
        scorer,
    )
    # The review page reveals a document's text from the vault capture tokenised it into, and keeps
    # its sessions in the archive's database (a restart signs no one out; pods share them).
    if reviewing is not None:
        sessions = SqlSessionStore(archive.engine)
        sessions.create_schema()
        agreements = review_agreements(settings.db_url)
        reviewing = replace(
            reviewing, vault=capture.vault, sessions=ReviewSessions(store=sessions), agreements=agreements
        )
    services.review = reviewing
    services.max_episodes_per_caller = settings.max_episodes_per_caller
    desk = reviewing.desk if reviewing is not None else None
    return BridgeProcess(
        settings, capture, services, token_table(settings), live, desk, tuple(e.episodeid for e in recovered)
    )


class ReviewUnavailable(ValueError):
    """The bridge was told to serve review but cannot reach Temporal."""


def review_services(settings: BridgeSettings) -> Reviewing | None:
    """The draft store and the Temporal review desk when `settings.temporal_address` is set, so
    `/v1/review` and `/review` serve the promotion workflows' drafts; None otherwise (those routes
    then answer that there are no drafts here). Raises `ReviewUnavailable` when Temporal does not
    answer: a bridge told to serve review does not start without it."""
    if settings.temporal_address is None:
        return None
    from adapters.drafting.store import DraftStore
    from workflows.promotion.client import TemporalReviewDesk

    store = DraftStore(settings.drafts_dir)
    try:
        desk = TemporalReviewDesk(settings.temporal_address, store, settings.temporal_namespace)
    except Exception as exc:  # the client raises RuntimeError and friends when nothing answers
        raise ReviewUnavailable(
            f"LOOPLINE_BRIDGE_TEMPORAL_ADDRESS={settings.temporal_address}: Temporal does not answer "
            f"({type(exc).__name__}: {exc}); start it (`loopline up`) or unset the address to run "
            "the bridge without review"
        ) from None
    from loopline.bridge.review_domains import review_domains

    return Reviewing(store, desk, domains=review_domains())


def release_router(settings: BridgeSettings) -> CanaryRouter | None:
    """The router that follows the release store, when `settings.release_db_url` is set: the
    champion and the canary are served by their versioned names from the policy server."""
    if settings.release_db_url is None:
        return None
    from loopline.release.routing import ReleaseRouter, served_fingerprints
    from training.release.manager import ReleaseManager
    from training.release.store import SqlReleaseStore

    store = SqlReleaseStore(settings.release_db_url)
    store.create_schema()
    key = settings.policy_api_key.get_secret_value() if settings.policy_api_key else None

    def client_for(name: str, adapter_id: str | None, route: Literal["champion", "canary"]) -> Policy:
        return OpenAIChatPolicy(
            settings.policy_base_url, name, api_key=key, adapter_id=adapter_id, route=route
        )

    return ReleaseRouter(
        ReleaseManager(store, tenant=settings.tenant),
        client_for,
        base_name=settings.policy_model,
        check_s=settings.release_check_s,
        verify=served_fingerprints(settings.policy_base_url, key)
        if settings.release_verify_fingerprints
        else None,
        secret=settings.canary_key(),
    )


def make_policy(settings: BridgeSettings) -> Policy:
    if settings.policy == "openai":
        key = settings.policy_api_key.get_secret_value() if settings.policy_api_key else None
        return OpenAIChatPolicy(settings.policy_base_url, settings.policy_model, api_key=key)
    from envs.rollout import reference_policy

    return reference_policy(settings.domain)
