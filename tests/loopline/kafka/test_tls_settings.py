"""TLS client authentication to the brokers (a Strimzi listener with `authentication: tls`): the
settings need all three PEM files, librdkafka gets them, and faust gets an SSL context from them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import faust
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pydantic import ValidationError

from bridge.streams.app import faust_app
from loopline.kafka.settings import KafkaSettings
from loopline.streams.settings import StreamsSettings


def _pem_pair(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate and its key, as Strimzi's user secret holds them."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "loopline-streams")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(1).not_valid_before(now).not_valid_after(now + dt.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    cert_file, key_file = folder / "user.crt", folder / "user.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_file, key_file


def test_ssl_without_its_files_is_refused_naming_them() -> None:
    with pytest.raises(ValidationError, match="LOOPLINE_KAFKA_SSL_CA_FILE"):
        KafkaSettings(embedded=False, security_protocol="ssl", ssl_ca_file=Path("ca.crt"))


def test_plaintext_configs_carry_no_tls() -> None:
    config = KafkaSettings(embedded=False).client_config("producer")
    assert not any(key.startswith(("ssl.", "security.")) for key in config)
    assert KafkaSettings(embedded=False).tls_files() is None


def test_ssl_settings_from_the_environment_reach_librdkafka_and_faust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = _pem_pair(tmp_path)
    for name, value in {
        "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": "kafka-bootstrap:9093", "LOOPLINE_KAFKA_EMBEDDED": "false",
        "LOOPLINE_KAFKA_SECURITY_PROTOCOL": "ssl", "LOOPLINE_KAFKA_SSL_CA_FILE": str(cert),
        "LOOPLINE_KAFKA_SSL_CERT_FILE": str(cert), "LOOPLINE_KAFKA_SSL_KEY_FILE": str(key),
        "LOOPLINE_DB_URL": f"sqlite:///{tmp_path / 'a.db'}",
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    config = KafkaSettings().client_config("consumer")
    assert config["security.protocol"] == "SSL"
    assert (config["ssl.ca.location"], config["ssl.certificate.location"], config["ssl.key.location"]) == (
        str(cert), str(cert), str(key),
    )  # fmt: skip
    streams = StreamsSettings().streams_config()
    assert streams.tls_files == (cert, cert, key)
    app = faust_app(streams)
    assert isinstance(app.conf.broker_credentials, faust.SSLCredentials)
    assert app.conf.broker_credentials.context.verify_mode.name == "CERT_REQUIRED"
