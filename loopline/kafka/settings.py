"""The broker settings every deployable that talks to Kafka nests, `LOOPLINE_KAFKA_` prefix.

A deployable builds `KafkaSettings` at start-up (or from the running stack with
`loopline.stack.kafka_settings`) and asks it for a confluent-kafka client config, so the
embedded-broker tuning lives in one place. Nothing here reads the environment at import time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

KafkaRole = Literal["common", "producer", "consumer", "admin"]


def check_host_port(value: str, what: str) -> None:
    host, sep, port = value.rpartition(":")
    if not host or not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{what} {value!r} is not host:port")


def normalise_bootstrap_servers(value: str) -> str:
    """`value` as a clean comma-separated host:port list; ValueError when it is not one."""
    hosts = [part.strip() for part in value.split(",") if part.strip()]
    if not hosts:
        raise ValueError("bootstrap servers are empty; give host:port[,host:port]")
    for host in hosts:
        check_host_port(host, "bootstrap server")
    return ",".join(hosts)


class KafkaSettings(BaseSettings):
    """Where the Kafka-compatible broker is and how clients should talk to it.

    Environment: `LOOPLINE_KAFKA_BOOTSTRAP_SERVERS`, `LOOPLINE_KAFKA_EMBEDDED`, ...; on a cluster
    with TLS client authentication `LOOPLINE_KAFKA_SECURITY_PROTOCOL=ssl` and the three PEM files.
    """

    model_config = SettingsConfigDict(env_prefix="LOOPLINE_KAFKA_", extra="ignore")

    bootstrap_servers: str = Field(
        default="127.0.0.1:9092", description="Comma-separated host:port list of the brokers."
    )
    embedded: bool = Field(
        default=True,
        description="True when the broker is the embedded Tansu of `loopline up`: turns on the "
        "settings that broker needs (design.md section 6).",
    )
    client_id: str = Field(default="loopline", min_length=1, description="Kafka client.id.")
    session_timeout_ms: int = Field(
        default=6000,
        ge=1000,
        le=300_000,
        description="Consumer-group session timeout. Tansu makes every group join wait half of it, "
        "so the embedded broker wants 3-6 s; a real Kafka cluster keeps the librdkafka default.",
    )

    security_protocol: Literal["plaintext", "ssl"] = Field(
        default="plaintext",
        description="`ssl`: TLS with a client certificate (a Strimzi listener with `authentication: tls`).",
    )
    ssl_ca_file: Path | None = Field(default=None, description="PEM of the CA that signed the brokers.")
    ssl_cert_file: Path | None = Field(default=None, description="PEM of this client's certificate.")
    ssl_key_file: Path | None = Field(default=None, description="PEM of this client's private key.")

    @field_validator("bootstrap_servers")
    @classmethod
    def _check_bootstrap_servers(cls, value: str) -> str:
        return normalise_bootstrap_servers(value)

    @model_validator(mode="after")
    def _check_embedded_session_timeout(self) -> KafkaSettings:
        # Outside 3-6 s the embedded broker is either flaky (heartbeats miss) or slow (every
        # join waits half the timeout), so refuse it rather than let tests take 20 s per group.
        if self.embedded and not 3000 <= self.session_timeout_ms <= 6000:
            raise ValueError(
                "LOOPLINE_KAFKA_SESSION_TIMEOUT_MS must be 3000-6000 for the embedded broker "
                f"(got {self.session_timeout_ms})"
            )
        return self

    @model_validator(mode="after")
    def _check_tls_files(self) -> KafkaSettings:
        files = (self.ssl_ca_file, self.ssl_cert_file, self.ssl_key_file)
        if self.security_protocol == "ssl" and None in files:
            raise ValueError(
                "LOOPLINE_KAFKA_SECURITY_PROTOCOL=ssl needs LOOPLINE_KAFKA_SSL_CA_FILE, "
                "LOOPLINE_KAFKA_SSL_CERT_FILE and LOOPLINE_KAFKA_SSL_KEY_FILE"
            )
        return self

    def tls_files(self) -> tuple[Path, Path, Path] | None:
        """(CA, certificate, key) when clients authenticate with TLS; None on plaintext."""
        if self.security_protocol != "ssl":
            return None
        assert self.ssl_ca_file and self.ssl_cert_file and self.ssl_key_file  # _check_tls_files
        return self.ssl_ca_file, self.ssl_cert_file, self.ssl_key_file

    def client_config(self, role: KafkaRole = "common") -> dict[str, Any]:
        """A confluent-kafka config dict for `role`; add `group.id` etc. on top of it.

        On the embedded broker it carries the Tansu fixes (`loopline.stack.tansu_compat`).
        Properties of one role only are left out of the others: librdkafka warns about every
        property a client type ignores.
        """
        config: dict[str, Any] = {
            "bootstrap.servers": self.bootstrap_servers,
            "client.id": self.client_id,
        }
        if (tls := self.tls_files()) is not None:
            config["security.protocol"] = "SSL"
            config["ssl.ca.location"], config["ssl.certificate.location"], config["ssl.key.location"] = map(
                str, tls
            )
        if role == "producer":
            # Delivery is at-least-once end to end (design.md section 3): wait for the broker.
            config["acks"] = "all"
        if self.embedded:
            from loopline.stack.tansu_compat import client_overrides  # only ever needed for Tansu

            # The embedded broker listens on 127.0.0.1 only; never wait for an IPv6 attempt.
            config["broker.address.family"] = "v4"
            config.update(client_overrides(role, self.session_timeout_ms))
        return config
