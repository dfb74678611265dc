"""Every path a NetworkPolicy opens is one the design names (the table in k8s/README.md), every
deployable sits behind the default deny, and only Loopline's Kafka clients reach the listener."""

from __future__ import annotations

from typing import Any

import pytest

from tests.k8s.render import OVERLAYS, by_kind, render, workloads

KAFKA = "pod:strimzi.io/cluster=loopline-kafka"
PG = "pod:cnpg.io/cluster=loopline-pg"
TEMPORAL = "ns:kubernetes.io/metadata.name=temporal/pod:app.kubernetes.io/component=frontend"
DNS = "ns:kubernetes.io/metadata.name=kube-system/pod:k8s-app=kube-dns"
ALL = "component in deployables"


def pod(component: str) -> str:
    return f"pod:app.kubernetes.io/component={component}"


ALLOWED: dict[tuple[str, str, str, int], str] = {
    ("bridge", "from", "ns:loopline.dev/bridge-client=true", 8700): "agents and integrations call the bridge",
    (
        "bridge",
        "from",
        "ns:kubernetes.io/metadata.name=ingress-nginx",
        8700,
    ): "reviewers open the review console",
    ("bridge", "to", KAFKA, 9093): "the relay produces the outbox's events",
    ("bridge", "to", PG, 5432): "the archive's read side, the release store, the PHI vault",
    ("bridge", "to", TEMPORAL, 7233): "the review desk signals promotion workflows",
    ("bridge", "to", pod("policy"), 8000): "episodes call the served policy",
    ("bridge", "to", "cidr", 443): "episodes call the live system (prod: its address range)",
    ("bridge", "to", pod("sandbox"), 8835): "episodes call the live system (dev: the sandbox)",
    ("streams", "to", KAFKA, 9093): "consume events and dead letters, produce edge cases",
    ("streams", "to", PG, 5432): "the archive and its projections",
    ("workflows-cpu", "to", TEMPORAL, 7233): "poll the cpu task queue",
    ("workflows-cpu", "to", PG, 5432): "the archive, the release store",
    ("workflows-cpu", "to", KAFKA, 9093): "task.promoted events",
    ("workflows-cpu", "to", pod("policy"), 8000): "the release manager loads and unloads adapters",
    ("workflows-gpu", "to", TEMPORAL, 7233): "poll the gpu task queue",
    ("policy", "from", pod("bridge"), 8000): "episodes call the served policy",
    ("policy", "from", pod("workflows-cpu"), 8000): "the release manager loads and unloads adapters",
    ("policy", "to", PG, 5432): "the policy gate (dev: serve-policy) reads the release store's fingerprints",
    ("cnpg.io/cluster=loopline-pg", "from", pod("policy"), 5432): "the policy gate's release store",
    ("sandbox", "from", pod("bridge"), 8835): "dev: the bridge works the sandbox",
    (ALL, "to", DNS, 53): "name resolution",
    ("cnpg.io/cluster=loopline-pg", "from", pod("bridge"), 5432): "the bridge's stores",
    ("cnpg.io/cluster=loopline-pg", "from", pod("streams"), 5432): "the archive",
    ("cnpg.io/cluster=loopline-pg", "from", pod("workflows-cpu"), 5432): "the archive, the release store",
    ("cnpg.io/cluster=loopline-pg", "from", PG, 5432): "streaming replication between instances",
    (
        "cnpg.io/cluster=loopline-pg",
        "from",
        "ns:kubernetes.io/metadata.name=cnpg-system",
        8000,
    ): "the operator's status calls",
    (
        "cnpg.io/cluster=loopline-pg",
        "from",
        "ns:kubernetes.io/metadata.name=cnpg-system",
        5432,
    ): "the operator's SQL",
}
"""Every path a policy may open: (pods it selects, direction, peer, port) and why the design has it."""


def _labels(selector: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(selector.get("matchLabels", {}).items()))


def _target(selector: dict[str, Any]) -> str:
    if "matchExpressions" in selector:
        return ALL
    labels = selector["matchLabels"]
    return labels.get("app.kubernetes.io/component") or _labels(selector)


def _peer(peer: dict[str, Any]) -> str:
    if "ipBlock" in peer:
        return "cidr"
    parts = []
    if "namespaceSelector" in peer:
        parts.append(f"ns:{_labels(peer['namespaceSelector'])}")
    if "podSelector" in peer:
        parts.append(f"pod:{_labels(peer['podSelector'])}")
    return "/".join(parts)


def opened_paths(objects: list[dict[str, Any]]) -> set[tuple[str, str, str, int]]:
    paths = set()
    for policy in by_kind(objects, "NetworkPolicy").values():
        spec = policy["spec"]
        target = _target(spec["podSelector"])
        for direction, rules, side in (
            ("from", spec.get("ingress", []), "from"),
            ("to", spec.get("egress", []), "to"),
        ):
            for rule in rules:
                assert rule.get(side) and rule.get("ports"), (
                    f"{policy['metadata']['name']}: a rule open to all"
                )
                paths |= {
                    (target, direction, _peer(p), port["port"]) for p in rule[side] for port in rule["ports"]
                }
    return paths


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_opened_path_is_one_the_design_names(overlay: str) -> None:
    opened = opened_paths(render(overlay))
    assert opened <= set(ALLOWED), sorted(opened - set(ALLOWED))
    assert (ALL, "to", DNS, 53) in opened


def test_an_extra_path_would_be_caught() -> None:
    objects = render("prod")
    streams = by_kind(objects, "NetworkPolicy")["loopline-streams"]
    streams["spec"]["egress"].append({"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 443}]})
    assert ("streams", "to", "cidr", 443) in opened_paths(objects) - set(ALLOWED)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_deployable_is_behind_the_default_deny_both_ways(overlay: str) -> None:
    objects = render(overlay)
    deny = by_kind(objects, "NetworkPolicy")["loopline-default-deny"]["spec"]
    assert deny["policyTypes"] == ["Ingress", "Egress"] and "ingress" not in deny and "egress" not in deny
    (expression,) = deny["podSelector"]["matchExpressions"]
    components = {
        w["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"] for w in workloads(objects)
    }
    assert expression["key"] == "app.kubernetes.io/component" and components == set(expression["values"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_only_the_kafka_clients_reach_the_listener(overlay: str) -> None:
    objects = render(overlay)
    (kafka,) = by_kind(objects, "Kafka").values()
    (listener,) = kafka["spec"]["kafka"]["listeners"]
    peers = {
        p["podSelector"]["matchLabels"]["app.kubernetes.io/component"] for p in listener["networkPolicyPeers"]
    }
    clients = {target for (target, direction, peer, _port) in ALLOWED if direction == "to" and peer == KAFKA}
    assert peers == clients == {"bridge", "streams", "workflows-cpu"}
