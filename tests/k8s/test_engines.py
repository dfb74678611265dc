"""The engines as the design wants them: every topic of schemas/topics.py as a KafkaTopic with
explicit partitions and retention, RF >= 3 and min.insync.replicas >= 2 in prod, KRaft node pools of
3, a KafkaUser per client with ACLs for exactly its topics, Postgres for every store; and no Secret
written in the manifests, only references to the ones operators and the platform team make."""

from __future__ import annotations

import pytest

from schemas.topics import CHECKPOINTS_TOPIC, DLQ_TOPIC, EVENTS_TOPIC
from tests.k8s.render import OVERLAYS, Obj, by_kind, pod_spec, render, workloads

SECRETS = {
    "loopline-bridge-secrets": "the platform team: vault-key, token-digests, canary-secret (k8s/README.md)",
    "loopline-policy-secrets": "the platform team: the policy server's serving-key and release-key (k8s/README.md)",
    "loopline-event-public-keys": "the platform team: public.json, checkpoints.pub (k8s/README.md)",
    "loopline-keys-bridge": "the platform team: the bridge's own event and checkpoint keys",
    "loopline-keys-detector": "the platform team: the detector's own event and checkpoint keys",
    "loopline-keys-promotion": "the platform team: the promotion workflow's own event key",
    "loopline-pg-app": "CloudNativePG, for loopline-pg's owner",
    "loopline-kafka-cluster-ca-cert": "Strimzi, the cluster CA",
    "loopline-bridge": "Strimzi, KafkaUser loopline-bridge",
    "loopline-streams": "Strimzi, KafkaUser loopline-streams",
    "loopline-workflows": "Strimzi, KafkaUser loopline-workflows",
    "loopline-review-tls": "the platform team (or cert-manager): the review console's certificate",
}
"""Every Secret a manifest refers to, and who makes it."""

CLIENT_TOPICS = {
    "loopline-bridge": {EVENTS_TOPIC, CHECKPOINTS_TOPIC},
    "loopline-streams": {EVENTS_TOPIC, DLQ_TOPIC, CHECKPOINTS_TOPIC},
    "loopline-workflows": {EVENTS_TOPIC},
}


def _topics(objects: list[Obj]) -> dict[str, Obj]:
    return {t["spec"]["topicName"]: t for t in by_kind(objects, "KafkaTopic").values()}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_topic_is_declared_with_partitions_and_retention_and_no_compaction(overlay: str) -> None:
    topics = _topics(render(overlay))
    assert set(topics) == {EVENTS_TOPIC, DLQ_TOPIC, CHECKPOINTS_TOPIC}
    for name, topic in topics.items():
        spec = topic["spec"]
        assert spec["partitions"] >= 1 and spec["replicas"] >= 1, name
        assert int(spec["config"]["retention.ms"]) > 0
        assert spec["config"]["cleanup.policy"] == "delete"  # design.md §6: nothing depends on compaction


def test_prod_replicates_every_topic_three_times_and_acks_on_two() -> None:
    objects = render("prod")
    for name, topic in _topics(objects).items():
        assert topic["spec"]["replicas"] >= 3, name
        assert int(topic["spec"]["config"]["min.insync.replicas"]) >= 2, name
    (kafka,) = by_kind(objects, "Kafka").values()
    config = kafka["spec"]["kafka"]["config"]
    assert config["default.replication.factor"] >= 3 and config["min.insync.replicas"] >= 2
    assert config["auto.create.topics.enable"] is False
    pools = by_kind(objects, "KafkaNodePool").values()
    assert sum(p["spec"]["replicas"] for p in pools if "broker" in p["spec"]["roles"]) >= 3
    assert (
        sum(p["spec"]["replicas"] for p in pools if "controller" in p["spec"]["roles"]) >= 3
    )  # KRaft quorum
    for pool in pools:
        assert pool["metadata"]["labels"]["strimzi.io/cluster"] == kafka["metadata"]["name"]
    clusters = by_kind(objects, "Cluster")
    assert clusters["loopline-pg"]["spec"]["instances"] >= 3
    assert clusters["loopline-pg"]["spec"]["minSyncReplicas"] >= 1


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_kafka_client_has_a_user_with_acls_for_exactly_its_topics(overlay: str) -> None:
    objects = render(overlay)
    (kafka,) = by_kind(objects, "Kafka").values()
    (listener,) = kafka["spec"]["kafka"]["listeners"]
    assert listener["tls"] is True and listener["authentication"] == {"type": "tls"}
    assert kafka["spec"]["kafka"]["authorization"] == {"type": "simple"}
    users = by_kind(objects, "KafkaUser")
    assert set(users) == set(CLIENT_TOPICS)
    for name, user in users.items():
        acls = user["spec"]["authorization"]["acls"]
        topics = {a["resource"]["name"] for a in acls if a["resource"]["type"] == "topic"}
        assert topics == CLIENT_TOPICS[name], name
        assert all(a["resource"]["patternType"] == "literal" for a in acls)
        assert all("All" not in a["operations"] for a in acls)
    groups = [
        a
        for a in users["loopline-streams"]["spec"]["authorization"]["acls"]
        if a["resource"]["type"] == "group"
    ]
    assert [g["resource"]["name"] for g in groups] == ["loopline-streams"]
    # each client mounts its own user's certificate
    for workload in workloads(objects):
        for volume in pod_spec(workload).get("volumes", []):
            if volume["name"] == "kafka-user":
                assert volume["secret"]["secretName"] in users


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_no_secret_is_written_and_every_one_referred_to_has_a_maker(overlay: str) -> None:
    objects = render(overlay)
    assert not by_kind(objects, "Secret"), "a Secret with a literal value in the manifests"
    referred: set[str] = set()
    for workload in workloads(objects):
        pod = pod_spec(workload)
        referred |= {v["secret"]["secretName"] for v in pod.get("volumes", []) if "secret" in v}
        for container in pod["containers"]:
            referred |= {
                e["valueFrom"]["secretKeyRef"]["name"] for e in container.get("env", []) if "valueFrom" in e
            }
            assert all("secretRef" not in source for source in container.get("envFrom", []))
    for ingress in by_kind(objects, "Ingress").values():
        referred |= {t["secretName"] for t in ingress["spec"].get("tls", [])}
    assert referred <= set(SECRETS), referred - set(SECRETS)
    for data in (o.get("data", {}) for o in by_kind(objects, "ConfigMap").values()):
        secretish = [
            k
            for k in data
            if any(w in k for w in ("KEY", "TOKEN", "PASSWORD", "DIGEST")) and not k.endswith("_FILE")
        ]
        assert not secretish, f"a secret setting in a ConfigMap: {secretish}"
