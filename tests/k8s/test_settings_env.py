"""Every environment variable a manifest sets is one the container's command reads, and the
command's settings build from exactly that environment: in prod (environment `production`, where a
missing archive, broker, Temporal or keyring refuses to start) and in dev."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_settings import BaseSettings

from loopline.bridge.settings import BridgeSettings
from loopline.kafka.settings import KafkaSettings
from loopline.streams.settings import StreamsSettings
from tests.k8s.render import OVERLAYS, Obj, configmaps, pod_spec, render, workloads
from training.serve.vllm import VllmSettings
from workflows.settings import WorkflowsSettings

LIBRARY_ENV = {
    "PGUSER": "libpq (psycopg) reads the database user",
    "PGPASSWORD": "libpq (psycopg) reads the database password",
}
"""Variables a library of the code reads rather than a settings class."""

VLLM_ENV = {*VllmSettings(Path("base"), "name").env(), "HF_HUB_OFFLINE", "HOME", "VLLM_API_KEY"}
"""What vLLM's container reads: `training.serve.vllm`'s, no hub, a writable home and its own key
(held by the policy gate beside it)."""

SECRET_VALUES = {
    ("loopline-bridge-secrets", "vault-key"): base64.b64encode(secrets.token_bytes(32)).decode(),
    ("loopline-bridge-secrets", "token-digests"): json.dumps({hashlib.sha256(b"t").hexdigest(): "operator"}),
    ("loopline-bridge-secrets", "canary-secret"): secrets.token_urlsafe(32),
    ("loopline-policy-secrets", "serving-key"): secrets.token_urlsafe(24),
    ("loopline-policy-secrets", "release-key"): secrets.token_urlsafe(24),
    ("loopline-policy-secrets", "upstream-key"): secrets.token_urlsafe(24),
    ("loopline-pg-app", "username"): "loopline",
    ("loopline-pg-app", "password"): "pw",
}


def readers(args: list[str]) -> list[type[BaseSettings]]:
    """The settings classes a `loopline` command reads."""
    if args[:2] == ["bridge", "serve"]:
        return [BridgeSettings]
    if args[:2] == ["streams", "worker"]:
        return [StreamsSettings]
    if args[:2] == ["workflows", "worker"]:
        gpu = "--queue" in args and args[args.index("--queue") + 1] == "gpu"
        # the cpu queue publishes task.promoted: KafkaSettings, and the keyring from StreamsSettings
        return [WorkflowsSettings] if gpu else [WorkflowsSettings, KafkaSettings, StreamsSettings]
    if args[:1] in (["sandbox"], ["serve-policy"], ["policy-gate"]):
        return []
    raise AssertionError(f"a command tests/k8s does not know: {args}")


def option_env(args: list[str]) -> set[str]:
    """The variables a `loopline` command's own options read (`envvar=`), beside settings classes."""
    if args[:1] not in (["serve-policy"], ["policy-gate"]):
        return set()
    from loopline.commands.serve_policy import policy_gate, serve_policy

    command = serve_policy if args[:1] == ["serve-policy"] else policy_gate
    hints = typing.get_type_hints(command, include_extras=True)
    found: set[str] = set()
    for hint in hints.values():
        for meta in getattr(hint, "__metadata__", ()):
            envvar = getattr(meta, "envvar", None)
            found |= {envvar} if isinstance(envvar, str) else set(envvar or ())
    return found


def env_names(cls: type[BaseSettings]) -> set[str]:
    """The variables `cls` reads (nested settings read their own prefix)."""
    prefix = str(cls.model_config.get("env_prefix", ""))
    delimiter = cls.model_config.get("env_nested_delimiter")
    names: set[str] = set()
    for name, field in cls.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseSettings):
            names |= env_names(kind)
        elif isinstance(kind, type) and issubclass(kind, BaseModel) and delimiter:
            names |= {f"{prefix}{name}{delimiter}{sub}".upper() for sub in kind.model_fields}
        else:
            names.add(f"{prefix}{name}".upper())
    return names


def container_env(objects: list[Obj], container: Obj) -> dict[str, str]:
    """The environment the container starts with (Secrets' values made up)."""
    maps = configmaps(objects)
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env.update(maps[source["configMapRef"]["name"]])
    for item in container.get("env", []):
        if "value" in item:
            env[item["name"]] = item["value"]
        else:
            ref = item["valueFrom"]["secretKeyRef"]
            env[item["name"]] = SECRET_VALUES[(ref["name"], ref["key"])]
    return env


def _deployables(overlay: str) -> list[tuple[str, Obj, Obj]]:
    objects = render(overlay)
    return [(w["metadata"]["name"], w, c) for w in workloads(objects) for c in pod_spec(w)["containers"]]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_variable_a_manifest_sets_is_read_by_its_command(overlay: str) -> None:
    objects = render(overlay)
    unread = []
    for name, _workload, container in _deployables(overlay):
        env = set(container_env(objects, container))
        if container["name"] == "vllm":
            read = VLLM_ENV
        else:
            read = set(LIBRARY_ENV) | option_env(container["args"])
            read = read.union(*(env_names(cls) for cls in readers(container["args"])))
        unread += [f"{name}/{container['name']}: {var}" for var in sorted(env - read)]
    assert not unread, "\n".join(unread)


KEY_FILES = (
    "public.json", "checkpoints.pub", "bridge.json", "detector.json", "promotion.json", "checkpoint-bridge.key",
    "checkpoint-detector.key", "ca.crt", "user.crt", "user.key",
)  # fmt: skip
"""What the Secrets hold (k8s/README.md): a file of each name stands in for every mount."""


def _mounted(pod: Obj, container: Obj, root: Path) -> dict[str, Path]:
    """Each mount path of a Secret, and a folder standing in for it (with the files the pod would see)."""
    secret_volumes = {v["name"] for v in pod.get("volumes", []) if "secret" in v}
    out = {}
    for mount in container.get("volumeMounts", []):
        if mount["name"] in secret_volumes:
            folder = root / mount["mountPath"].strip("/")
            folder.mkdir(parents=True, exist_ok=True)
            for file in KEY_FILES:
                (folder / file).write_text("{}")
            out[mount["mountPath"]] = folder
    return out


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_command_settings_build_from_the_manifest_environment(
    overlay: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    objects = render(overlay)
    built: dict[str, Any] = {}
    for name, workload, container in _deployables(overlay):
        if container["name"] == "vllm":
            continue
        env = container_env(objects, container)
        for mount, folder in _mounted(pod_spec(workload), container, tmp_path / name).items():
            env = {k: v.replace(mount, str(folder)) for k, v in env.items()}
        with monkeypatch.context() as patch:
            for var in [v for v in os.environ if v.startswith("LOOPLINE_")]:
                patch.delenv(var)
            for var, value in env.items():
                patch.setenv(var, value)
            for cls in readers(container["args"]):
                built[f"{name}:{cls.__name__}"] = cls()
    expected = "production" if overlay == "prod" else "dev"
    assert built["loopline-bridge:BridgeSettings"].environment == expected
    assert built["loopline-streams:StreamsSettings"].environment == expected
    assert built["loopline-workflows-gpu:WorkflowsSettings"].task_queue == "gpu"
    assert built["loopline-workflows-cpu:WorkflowsSettings"].task_queue == "cpu"
    assert built["loopline-bridge:BridgeSettings"].kafka.tls_files() is not None
    assert not built["loopline-streams:StreamsSettings"].kafka.embedded


def test_prod_refuses_to_start_without_a_variable_the_code_requires(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    objects = render("prod")
    (streams,) = [c for name, _w, c in _deployables("prod") if name == "loopline-streams"]
    env = container_env(objects, streams)
    del env["LOOPLINE_DB_URL"]
    for var in [v for v in os.environ if v.startswith("LOOPLINE_")]:
        monkeypatch.delenv(var)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    with pytest.raises(ValueError, match="LOOPLINE_DB_URL"):
        StreamsSettings()
