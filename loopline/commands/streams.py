"""`loopline streams worker`, `loopline replay`, `loopline audit verify`: the event archive's commands.

Settings come from `LOOPLINE_*` variables (`loopline.streams.settings.StreamsSettings`); options
given here override them. Heavy imports (faust, sqlmodel, confluent-kafka) happen inside commands.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

if TYPE_CHECKING:
    from bridge.streams import StreamsConfig

console = Console()
err_console = Console(stderr=True)
streams_app = typer.Typer(
    help="Stream processors: projector, edge-case detector, dead letters.", no_args_is_help=True
)
audit_app = typer.Typer(help="Audit the event archive.", no_args_is_help=True)
event_key_app = typer.Typer(help="The producers' event MAC keys (rotation).", no_args_is_help=True)
audit_app.add_typer(event_key_app, name="event-key")

DbUrl = Annotated[
    str | None, typer.Option("--db-url", help="Archive URL (default LOOPLINE_DB_URL).", show_default=False)
]
Servers = Annotated[
    str | None,
    typer.Option(
        "--bootstrap-servers",
        help="Kafka host:port list (default LOOPLINE_KAFKA_BOOTSTRAP_SERVERS).",
        show_default=False,
    ),
]


class ReplaySource(StrEnum):
    archive = "archive"
    topic = "topic"


def register(app: typer.Typer) -> None:
    """Add these commands to the `loopline` app."""
    app.add_typer(streams_app, name="streams")
    app.command("replay")(replay)
    app.add_typer(audit_app, name="audit")


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(1)


def _config(**overrides: Any) -> StreamsConfig:
    """The streams configuration from the environment, with the given options on top."""
    from pydantic import ValidationError

    from bridge.streams import StreamsConfig
    from loopline.streams.settings import StreamsSettings

    try:
        base = StreamsSettings().streams_config()
        given = {key: value for key, value in overrides.items() if value is not None}
        config = StreamsConfig.model_validate({**base.model_dump(), **given})
    except (ValidationError, ValueError) as exc:
        raise _fail(f"invalid settings: {exc}") from None
    _ensure_sqlite_folder(config.db_url)
    return config


def _environment() -> str:
    from loopline.streams.settings import StreamsSettings

    return StreamsSettings().environment


def _ensure_sqlite_folder(url: str) -> None:
    # SQLite creates the file but not its folder (the default lives in .loopline/).
    prefix = "sqlite:///"
    if url.startswith(prefix) and url[len(prefix) :] not in ("", ":memory:"):
        Path(url[len(prefix) :]).parent.mkdir(parents=True, exist_ok=True)


@streams_app.command()
def worker(
    db_url: DbUrl = None,
    bootstrap_servers: Servers = None,
    events_topic: Annotated[str | None, typer.Option(help="Event topic.", show_default=False)] = None,
    dlq_topic: Annotated[str | None, typer.Option(help="Dead-letter topic.", show_default=False)] = None,
    app_id: Annotated[str | None, typer.Option(help="Consumer group.", show_default=False)] = None,
    web_port: Annotated[
        int | None, typer.Option(help="Faust web port (default: off).", show_default=False)
    ] = None,
    detector: Annotated[bool, typer.Option(help="Run the edge-case detector agents.")] = True,
    loglevel: Annotated[str, typer.Option(help="Log level.")] = "info",
) -> None:
    """Run the projector, edge-case detector and dead-letter agents until Ctrl-C / SIGTERM.

    Only events signed by a producer of the public keyring (`LOOPLINE_EVENT_KEYS_FILE`, made by
    `loopline up`; missing, the worker refuses to start) and within that producer's scope are
    archived; the rest go to the dead-letter topic with the reason."""
    from bridge.audit.event_keys import EventKeyError
    from bridge.streams.worker import run_worker
    from loopline.streams.event_keys import verifying_keyring

    config = _config(
        db_url=db_url,
        bootstrap_servers=bootstrap_servers,
        events_topic=events_topic,
        dlq_topic=dlq_topic,
        app_id=app_id,
        web_port=web_port,
        detector=detector,
    )
    if config.event_keys_file is not None:
        try:
            verifying_keyring(config.event_keys_file, variable="LOOPLINE_EVENT_KEYS_FILE")
            if config.detector:
                if config.signing_key_file is None or not config.signing_key_file.is_file():
                    raise EventKeyError(
                        f"no detector signing key file at {config.signing_key_file} "
                        "(LOOPLINE_DETECTOR_KEY_FILE): `loopline up` makes the embedded stack's"
                    )
                config.detector_key()
        except (EventKeyError, OSError) as exc:
            raise _fail(str(exc)) from None
    if config.detector and config.checkpoint_key_file is None and _environment() not in ("dev", "test"):
        raise _fail(
            "outside dev/test the detector signs checkpoints: set LOOPLINE_STREAMS_CHECKPOINT_KEY_FILE "
            "(`loopline audit keygen` prints a seed)"
        )
    if config.detector and config.checkpoint_key_file is not None and config.checkpoint_kafka:
        _ensure_anchor_topic(config.bootstrap_servers, config.anchor_topic)
    console.print(f"streams worker: {config.events_topic} → {config.db_url} (DLQ {config.dlq_topic})")
    run_worker(config, loglevel=loglevel)


def _ensure_anchor_topic(bootstrap_servers: str, topic: str) -> None:
    """The topic the detector anchors its checkpoints on, made if missing (the embedded broker never
    creates a topic a producer names: `loopline.stack.tansu_compat`)."""
    from loopline.kafka.topics import TopicError, ensure_topics
    from loopline.streams.settings import StreamsSettings

    admin = {**StreamsSettings().kafka.client_config("admin"), "bootstrap.servers": bootstrap_servers}
    try:
        ensure_topics(admin, [topic])
    except (TopicError, TimeoutError) as exc:
        raise _fail(f"{exc} (is the broker at {bootstrap_servers} up? `loopline up`)") from None


def replay(
    source: Annotated[
        ReplaySource, typer.Option("--from", help="Rebuild from the archive, or from the topic.")
    ] = ReplaySource.archive,
    db_url: DbUrl = None,
    bootstrap_servers: Servers = None,
    topic: Annotated[
        str | None, typer.Option(help="Topic to read (default: the event topic).", show_default=False)
    ] = None,
    idle_timeout_s: Annotated[
        float, typer.Option(help="Stop reading the topic after this long without a message.")
    ] = 10.0,
) -> None:
    """Drop and rebuild every projection, from the archive or from the topic's first offset."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from bridge.store import SqlEventArchive

    config = _config(db_url=db_url, bootstrap_servers=bootstrap_servers)
    archive = SqlEventArchive(config.db_url)
    archive.create_schema()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        if source is ReplaySource.topic:
            _import_topic(archive, config, topic or config.events_topic, idle_timeout_s, progress)
        task = progress.add_task("rebuilding projections", total=archive.count())
        result = archive.rebuild(progress=lambda n: progress.advance(task, n))
    console.print(
        f"projected {result.events} events"
        + (f"; {result.skipped} no longer decode" if result.skipped else "")
    )
    if result.skipped:
        console.print("run `loopline audit verify` to see which archived events were changed")


def _import_topic(
    archive: Any, config: StreamsConfig, topic: str, idle_timeout_s: float, progress: Any
) -> None:
    from confluent_kafka import KafkaException

    from bridge.audit.event_keys import EventKeyError, KeyringFile
    from bridge.streams.admission import Admission
    from bridge.streams.replay import import_topic
    from bridge.streams.topic_reader import estimate_size, read_topic

    try:  # the worker's checks: a replay lets in nothing the worker kept out
        keyring = None if config.event_keys_file is None else KeyringFile(config.event_keys_file)
    except EventKeyError as exc:
        raise _fail(f"replay from a topic checks every event's MAC: {exc}") from None
    admission = Admission(archive.engine, keyring)

    try:
        estimate = estimate_size(config.bootstrap_servers, topic)  # ListOffsets: only for the bar
        task = progress.add_task(f"reading {topic}", total=estimate or None)

        def advance(n: int) -> None:
            progress.advance(task, n)
            done = progress.tasks[task].completed
            if estimate and done > (progress.tasks[task].total or 0):
                progress.update(task, total=done)

        result = import_topic(
            archive,
            read_topic(config.bootstrap_servers, topic, idle_timeout_s=idle_timeout_s),
            progress=advance,
            admission=admission,
        )
    except KafkaException as exc:
        raise _fail(f"cannot read {topic} from {config.bootstrap_servers}: {exc}") from None
    progress.console.print(
        f"read {result.messages} messages: {result.archived} new to the archive, {result.undecodable} undecodable"
        + (
            f", {result.refused} refused (unsigned, forged, foreign or out of order)"
            if result.refused
            else ""
        )
    )


@audit_app.command()
def verify(
    db_url: DbUrl = None,
    checkpoints: Annotated[
        list[Path] | None,
        typer.Option(
            help="A folder of signed checkpoints of the stream heads, kept outside the archive; repeat it "
            "for each (default: LOOPLINE_STREAMS_CHECKPOINT_DIR, where the bridge and the detector write)."
        ),
    ] = None,
    checkpoint_key: Annotated[
        list[str] | None,
        typer.Option(
            help="A public key the checkpoints are signed with, base64; repeat it for every key in use "
            "(default: checkpoints.pub beside LOOPLINE_EVENT_KEYS_FILE, which `loopline up` writes)."
        ),
    ] = None,
    event_keys: Annotated[
        Path | None,
        typer.Option(
            help="The producers' public keyring, to check every archived event's signature and scope "
            "(default: LOOPLINE_EVENT_KEYS_FILE)."
        ),
    ] = None,
    checkpoint_topic: Annotated[
        str | None,
        typer.Option(
            help="The Kafka topic the checkpoints are anchored on, off the archive's host (default: "
            "LOOPLINE_STREAMS_CHECKPOINT_TOPIC, else the events topic's sibling, loopline.checkpoints.v1; "
            "the broker from LOOPLINE_KAFKA_*); unreadable, it is a finding (`--skip checkpoint-topic`).",
            show_default=False,
        ),
    ] = None,
    lag_s: Annotated[
        float, typer.Option(help="How long an event may stand past its producer's newest checkpoint.")
    ] = 300.0,
    at: Annotated[
        datetime | None,
        typer.Option(help="Audit as of this time (ISO 8601, UTC; default now): the lag is counted to it."),
    ] = None,
    skip: Annotated[
        list[str] | None,
        typer.Option(
            help="Leave out a check by name: checkpoints, checkpoint-topic, event-topic, signatures or "
            "projections (a weaker audit, asked for; the hash chains and stored hashes always run)."
        ),
    ] = None,
) -> None:
    """Audit the archive: every stream's hash chain and every stored hash against its content; every
    signed checkpoint a prefix of its stream, and no stream grown past its newest checkpoint beyond
    the lag; every event signed by its producer and within its scope; the projections against a
    rebuild; the archive against the event topic (LOOPLINE_EVENTS_TOPIC: every position it names
    holds its event, every event there is archived or dead-lettered). What cannot be checked (no
    key, no checkpoint, no broker) is a finding. Exit 1 on any."""
    from bridge.audit.checkpoints import CheckpointError, public_key
    from bridge.store import SqlEventArchive
    from loopline.streams.audit import SKIPPABLE, run_audit, topic_sources
    from loopline.streams.event_keys import checkpoint_public_file
    from loopline.streams.settings import StreamsSettings

    config = _config(db_url=db_url)
    archive = SqlEventArchive(config.db_url)
    if not archive.exists():
        raise _fail(f"no event archive at {config.db_url} (the streams worker creates it)")
    settings = StreamsSettings()
    try:
        keys = (
            checkpoint_public_file(settings.event_keys_file.parent)
            if not checkpoint_key
            else [public_key(k) for k in checkpoint_key]
        )
    except CheckpointError as exc:
        raise _fail(str(exc)) from None
    if set(skip or ()) - SKIPPABLE:
        raise _fail(f"--skip takes {', '.join(sorted(SKIPPABLE))}")
    anchors, events = topic_sources(
        settings.kafka,
        settings.events_topic,
        settings.dlq_topic,
        checkpoint_topic or settings.checkpoint_topic(),
    )
    outcome = run_audit(
        archive,
        checkpoint_dirs=checkpoints or [settings.streams_checkpoint_dir],
        checkpoint_keys=keys,
        event_keys=event_keys or settings.event_keys_file,
        lag_s=lag_s,
        skip=frozenset(skip or ()),
        now=None if at is None else (at if at.tzinfo else at.replace(tzinfo=UTC)),
        anchors=anchors,
        events=events,
    )
    for label, line in outcome.findings:
        err_console.print(f"[red]{label}:[/] {line}", highlight=False, soft_wrap=True)
    if not outcome.ok:
        raise _fail(
            f"{len(outcome.findings)} finding(s): {outcome.chain_breaks} of {outcome.streams} streams have a "
            "broken hash chain"
        )
    console.print(f"{outcome.streams} streams, {outcome.events} events: every hash chain is intact")
    console.print(f"checked: {'; '.join(outcome.checked)}", highlight=False)
    if outcome.skipped:
        console.print(f"[yellow]not checked (skipped): {', '.join(outcome.skipped)}[/]", highlight=False)


@audit_app.command()
def keygen() -> None:
    """Print a new checkpoint signing key (the bridge's LOOPLINE_BRIDGE_CHECKPOINT_KEY; in a file,
    the detector's LOOPLINE_STREAMS_CHECKPOINT_KEY_FILE) and its public key (for `loopline audit
    verify --checkpoint-key`)."""
    import base64

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from bridge.audit.checkpoints import public_key_text

    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    console.print(
        f"private (LOOPLINE_BRIDGE_CHECKPOINT_KEY): {base64.b64encode(seed).decode()}", highlight=False
    )
    console.print(f"public (--checkpoint-key): {public_key_text(key.public_key())}", highlight=False)


KeysFile = Annotated[
    Path | None,
    typer.Option(
        "--file",
        help="The producer's own key file (default: its role's file under .loopline/keys, e.g. bridge.json).",
    ),
]
PublicFile = Annotated[
    Path | None,
    typer.Option(
        "--public-file",
        help="The verifiers' public keyring (default LOOPLINE_EVENT_KEYS_FILE, .loopline/keys/public.json).",
    ),
]


@event_key_app.command("add")
def event_key_add(
    source: Annotated[
        str, typer.Option(help="The producer's CloudEvents source, e.g. loopline://bridge/rcm.")
    ],
    file: KeysFile = None,
    public_file: PublicFile = None,
) -> None:
    """Add (or rotate) a producer's Ed25519 event key: the private key goes to the producer's own file
    (it signs with it from its next start), the public key to the verifiers' keyring (the worker
    accepts both old and new until the old one is removed; docs/streams.md)."""
    from bridge.audit.event_keys import EventKeyError, add_key
    from bridge.audit.scopes import SCOPES
    from loopline.streams.event_keys import role_file
    from loopline.streams.settings import StreamsSettings

    scope = SCOPES.role_of(source)
    if scope is None:
        raise _fail(f"{source!r} is no named producer's source (bridge/audit/producer_scopes.json)")
    path = file or role_file(scope.role)
    public = public_file or StreamsSettings().event_keys_file
    try:
        key = add_key(path, source, public)
    except (EventKeyError, OSError) as exc:
        raise _fail(str(exc)) from None
    console.print(f"added key {key.key_id} for {source} ({scope.role}) to {path}; public key to {public}")


@event_key_app.command("list")
def event_key_list(file: PublicFile = None) -> None:
    """List a keyring's key ids and sources (never the secrets): which sign, which only verify."""
    from bridge.audit.event_keys import EventKey, EventKeyError, load_keyring
    from loopline.streams.settings import StreamsSettings

    path = file or StreamsSettings().event_keys_file
    try:
        keyring = load_keyring(path)
    except EventKeyError as exc:
        raise _fail(str(exc)) from None
    signing = {key.source: key.key_id for key in keyring.keys if isinstance(key, EventKey)}
    for key in keyring.keys:
        mark = "signs" if signing.get(key.source) == key.key_id else "verifies"
        console.print(f"{key.key_id}  {key.source}  {key.algorithm}  {mark}", highlight=False)
