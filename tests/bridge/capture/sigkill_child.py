"""A recording process for the SIGKILL test: records episodes until killed, printing each append.

Usage: python sigkill_child.py OUTBOX VAULT_URL KEY_HEX [--resume EPISODE] [--bootstrap HOST:PORT --topic T]

After every append *returns* it prints `<event id> <episode id> <seq>` and flushes stdout, so
whatever the parent read from the pipe is a promise the outbox must keep. With `--resume` it
first continues that (interrupted) episode from the outbox's stream head. With `--bootstrap` a
relay runs in the process too, so kills also land mid-delivery.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bridge.capture import KafkaRelay, SqliteOutbox
from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
from bridge.recording import GENESIS_HEAD, EpisodeRecorder, StreamHead
from schemas import Event, SideEffect, new_id
from schemas.events import PolicyRef
from tests.bridge.phi.phi_models import ClaimPayload, LookupArgs, LookupResult
from tests.bridge.recording.episodes import lookup_call, lookup_result, work_item

CALLS_PER_EPISODE = 20


def say(event: Event) -> None:
    sys.stdout.write(f"{event.id} {event.episodeid} {event.seq}\n")
    sys.stdout.flush()


def work(recorder: EpisodeRecorder, first_call: int) -> None:
    for n in range(first_call, CALLS_PER_EPISODE):
        say(recorder.tool_called(lookup_call(n), SideEffect.READ, LookupArgs))
        say(recorder.tool_returned(lookup_result(n), LookupResult))
    say(recorder.ended("completed", steps=CALLS_PER_EPISODE, tool_calls=CALLS_PER_EPISODE, duration_ms=1.0))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("outbox", type=Path)
    parser.add_argument("vault_url")
    parser.add_argument("key_hex")
    parser.add_argument("--resume")
    parser.add_argument("--bootstrap")
    parser.add_argument("--topic")
    args = parser.parse_args()

    outbox = SqliteOutbox(args.outbox)
    keys = PhiKeys.from_master(bytes.fromhex(args.key_hex))
    redactor = Redactor(PhiTokenizer(keys, PhiVault.open(args.vault_url, keys)), "clinic-a")
    if args.bootstrap:
        config = {"bootstrap.servers": args.bootstrap, "broker.address.family": "v4"}
        KafkaRelay(outbox, topic=args.topic, kafka_config=config).start()

    def recorder(episode_id: str, head: StreamHead = GENESIS_HEAD) -> EpisodeRecorder:
        return EpisodeRecorder(
            episode_id, sink=outbox, redactor=redactor, source="loopline://tests/sigkill", head=head
        )

    if args.resume:
        head = outbox.stream_head(args.resume)
        work(recorder(args.resume, head=head), first_call=CALLS_PER_EPISODE - 3)
    while True:
        fresh = recorder(new_id())
        say(
            fresh.started(
                work_item(), payload_model=ClaimPayload, policy=PolicyRef(model="toy"), tools=["lookup_claim"],
                tools_hash="t", system_prompt_hash="p", max_steps=50, max_seconds=60.0,
            )
        )  # fmt: skip
        work(fresh, first_call=0)


if __name__ == "__main__":
    main()
