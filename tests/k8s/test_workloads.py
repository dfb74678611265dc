"""Every container of every overlay: requests and limits, probes on real health endpoints, non-root,
no privilege escalation, a read-only root filesystem where it can; every deployable has its own
ServiceAccount without a token, a PodDisruptionBudget, a grace period that covers its drain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from loopline.bridge.settings import BridgeSettings
from tests.k8s.render import OVERLAYS, Obj, by_kind, configmaps, pod_spec, render, workloads
from training.serve.vllm import VllmSettings

WRITABLE_ROOT = {("loopline-policy", "vllm")}
"""Containers whose root filesystem stays writable, and why: vLLM, torch.compile and triton write
caches in several places of vLLM's own image."""

HEALTH_PATHS = {"/healthz", "/readyz", "/health"}
"""The health endpoints the code serves: the bridge, stream and workflow workers (`/healthz`,
`/readyz`), the sandbox and vLLM (`/health`)."""

TCP_PROBED = {
    "serve-policy": "every route needs a bearer key (training/serve/access.py), /health too",
    "policy-gate": "every route needs a bearer key (training/serve/access.py), /health too",
}
"""Containers probed with a TCP check, and why an HTTP probe cannot reach them."""

EXEC_PROBED = {"vllm": "http://127.0.0.1:8001/health"}
"""Containers that listen on the pod's loopback only, probed from inside by their health URL."""


def _containers(overlay: str) -> list[tuple[Obj, Obj]]:
    return [(w, c) for w in workloads(render(overlay)) for c in pod_spec(w)["containers"]]


def _ids(overlay: str) -> list[str]:
    return [f"{w['metadata']['name']}/{c['name']}" for w, c in _containers(overlay)]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_container_has_requests_limits_probes_and_runs_unprivileged(overlay: str) -> None:
    problems: list[str] = []
    for workload, container in _containers(overlay):
        where = f"{overlay}: {workload['metadata']['name']}/{container['name']}"
        pod = pod_spec(workload)
        resources = container.get("resources", {})
        for part in ("requests", "limits"):
            if not {"cpu", "memory"} <= set(resources.get(part, {})):
                problems.append(f"{where}: {part} lack cpu or memory")
        for probe in ("livenessProbe", "readinessProbe"):
            if container["name"] in EXEC_PROBED:
                command = " ".join(container.get(probe, {}).get("exec", {}).get("command", []))
                if EXEC_PROBED[container["name"]] not in command:
                    problems.append(f"{where}: {probe} does not ask {EXEC_PROBED[container['name']]}")
                continue
            if container["name"] in TCP_PROBED:
                if "port" not in container.get(probe, {}).get("tcpSocket", {}):
                    problems.append(f"{where}: {probe} is not a TCP check ({TCP_PROBED[container['name']]})")
                continue
            path = container.get(probe, {}).get("httpGet", {}).get("path")
            if path not in HEALTH_PATHS:
                problems.append(f"{where}: {probe} is not an HTTP probe of a health endpoint ({path})")
        context = container.get("securityContext", {})
        if not (pod.get("securityContext", {}).get("runAsNonRoot") or context.get("runAsNonRoot")):
            problems.append(f"{where}: may run as root")
        if context.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{where}: allows privilege escalation")
        if context.get("capabilities", {}).get("drop") != ["ALL"]:
            problems.append(f"{where}: keeps capabilities")
        writable = (workload["metadata"]["name"], container["name"]) in WRITABLE_ROOT
        if context.get("readOnlyRootFilesystem") is not (not writable):
            problems.append(f"{where}: readOnlyRootFilesystem should be {not writable}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_deployable_has_its_own_service_account_without_a_token_and_a_pdb(overlay: str) -> None:
    objects = render(overlay)
    accounts = by_kind(objects, "ServiceAccount")
    budgets = list(by_kind(objects, "PodDisruptionBudget").values())
    used = set()
    for workload in workloads(objects):
        pod, name = pod_spec(workload), workload["metadata"]["name"]
        account = pod["serviceAccountName"]
        assert account not in used, f"{name} shares its ServiceAccount"
        used.add(account)
        assert accounts[account]["automountServiceAccountToken"] is False
        assert pod["automountServiceAccountToken"] is False
        labels = workload["spec"]["template"]["metadata"]["labels"]
        covering = [b for b in budgets if b["spec"]["selector"]["matchLabels"].items() <= labels.items()]
        assert len(covering) == 1, f"{name} has {len(covering)} PodDisruptionBudgets"
        assert covering[0]["spec"].get("maxUnavailable") == 1  # never blocks a node drain at 1 replica


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_bridge_grace_period_covers_its_drain(overlay: str) -> None:
    objects = render(overlay)
    drain_s = BridgeSettings.model_validate(
        {"drain_s": configmaps(objects)["loopline-bridge"]["LOOPLINE_BRIDGE_DRAIN_S"]}
    ).drain_s
    bridge = by_kind(objects, "StatefulSet")["loopline-bridge"]
    # serve_until_signalled's grace, then the episodes' deadline, then the relay's flush (loopline/bridge/serve.py)
    assert pod_spec(bridge)["terminationGracePeriodSeconds"] == 3 * drain_s + 10


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_bridge_outbox_is_on_a_local_disk(overlay: str) -> None:
    objects = render(overlay)
    bridge = by_kind(objects, "StatefulSet")["loopline-bridge"]
    (claim,) = bridge["spec"]["volumeClaimTemplates"]
    mounts = {m["name"]: m["mountPath"] for m in pod_spec(bridge)["containers"][0]["volumeMounts"]}
    assert (
        mounts[claim["metadata"]["name"]]
        == configmaps(objects)["loopline-bridge"]["LOOPLINE_BRIDGE_STATE_DIR"]
    )
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    storage_class = claim["spec"]["storageClassName"]
    classes = by_kind(objects, "StorageClass")
    if overlay == "prod":
        assert classes[storage_class]["provisioner"] == "kubernetes.io/no-provisioner"  # local PVs
        assert classes[storage_class]["volumeBindingMode"] == "WaitForFirstConsumer"
    else:
        assert storage_class == "local-path"  # kind's and k3s's node-local provisioner


def test_prod_gpu_pods_ask_for_a_gpu_on_gpu_nodes_and_dev_asks_for_none() -> None:
    for name in ("loopline-workflows-gpu", "loopline-policy"):
        pod = pod_spec(by_kind(render("prod"), "Deployment")[name])
        assert pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"
        assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
        assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
        dev = pod_spec(by_kind(render("dev"), "Deployment")[name])
        assert "nvidia.com/gpu" not in yaml.safe_dump(dev)


def test_vllm_serves_what_training_serve_vllm_says_with_runtime_adapter_loading() -> None:
    pod = pod_spec(by_kind(render("prod"), "Deployment")["loopline-policy"])
    vllm, gate = pod["containers"]
    args = [*vllm["command"], *vllm["args"]]
    expected = VllmSettings(
        base_model=Path(args[2]), served_name="loopline-rcm", max_loras=4, host="127.0.0.1", port=8001
    )
    assert args == expected.args()
    assert "--enable-lora" in args
    env = {e["name"]: e["value"] for e in vllm["env"] if "value" in e}
    assert expected.env().items() <= env.items()
    assert env["VLLM_ALLOW_RUNTIME_LORA_UPDATING"] == "True"
    keys = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in vllm["env"] if "valueFrom" in e}
    assert keys["VLLM_API_KEY"] == {"name": "loopline-policy-secrets", "key": "upstream-key"}
    assert gate["name"] == "policy-gate"
    assert gate["args"][:3] == ["policy-gate", "--upstream", "http://127.0.0.1:8001"]


def test_only_the_policy_gate_is_reachable_and_only_it_and_vllm_hold_vllms_key() -> None:
    pod = pod_spec(by_kind(render("prod"), "Deployment")["loopline-policy"])
    vllm, gate = pod["containers"]
    assert "ports" not in vllm and [p["containerPort"] for p in gate["ports"]] == [8000]
    refs = {e["name"]: e["valueFrom"]["secretKeyRef"]["key"] for e in gate["env"] if "valueFrom" in e}
    assert refs["LOOPLINE_POLICY_API_KEY"] == "serving-key"
    assert refs["LOOPLINE_POLICY_RELEASE_KEY"] == "release-key"
    assert refs["LOOPLINE_POLICY_UPSTREAM_KEY"] == "upstream-key"
    copies = "/var/lib/loopline/adapter-copies"
    assert [m["mountPath"] for c in (vllm, gate) for m in c["volumeMounts"] if m["name"] == "copies"] == [
        copies
    ] * 2
    assert {e["name"]: e.get("value") for e in gate["env"]}["LOOPLINE_POLICY_COPY_ROOT"] == copies
    for overlay in OVERLAYS:
        for workload in workloads(render(overlay)):
            for container in pod_spec(workload)["containers"]:
                holds = {
                    e["valueFrom"]["secretKeyRef"]["key"]
                    for e in container.get("env", [])
                    if "valueFrom" in e
                    and e["valueFrom"]["secretKeyRef"]["name"] == "loopline-policy-secrets"
                }
                if "upstream-key" in holds:
                    assert container["name"] in {"vllm", "policy-gate"}, f"{overlay}: {container['name']}"


def test_the_bridge_holds_the_policy_servers_serving_key_and_never_the_release_key() -> None:
    for overlay in OVERLAYS:
        objects = render(overlay)
        (bridge,) = pod_spec(by_kind(objects, "StatefulSet")["loopline-bridge"])["containers"]
        refs = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in bridge["env"] if "valueFrom" in e}
        assert refs["LOOPLINE_BRIDGE_POLICY_API_KEY"] == {
            "name": "loopline-policy-secrets",
            "key": "serving-key",
        }
        assert ("LOOPLINE_BRIDGE_CANARY_SECRET" in refs) == (overlay == "prod")
        for workload in workloads(objects):
            for container in pod_spec(workload)["containers"]:
                holds = {
                    e["valueFrom"]["secretKeyRef"]["key"]
                    for e in container.get("env", [])
                    if "valueFrom" in e
                    and e["valueFrom"]["secretKeyRef"]["name"] == "loopline-policy-secrets"
                }
                if "release-key" in holds:
                    assert container["name"] in {"serve-policy", "policy-gate"}, (
                        f"{overlay}: {container['name']} holds the release key"
                    )


def test_the_autoscalers_scale_the_bridge_on_cpu_and_the_workers_up_to_the_partitions() -> None:
    for overlay in OVERLAYS:
        objects = render(overlay)
        scalers = by_kind(objects, "HorizontalPodAutoscaler")
        bridge = scalers["loopline-bridge"]
        assert bridge["spec"]["scaleTargetRef"] == {
            "apiVersion": "apps/v1", "kind": "StatefulSet", "name": "loopline-bridge",
        }  # fmt: skip
        assert [m["resource"]["name"] for m in bridge["spec"]["metrics"]] == ["cpu"]
        events = next(
            t
            for t in by_kind(objects, "KafkaTopic").values()
            if t["spec"]["topicName"] == "loopline.events.v1"
        )
        streams: Any = scalers["loopline-streams"]["spec"]
        assert streams["scaleTargetRef"]["name"] == "loopline-streams"
        assert streams["maxReplicas"] == events["spec"]["partitions"], overlay
        assert (
            int(configmaps(objects)["loopline-streams"]["LOOPLINE_TOPIC_PARTITIONS"])
            == events["spec"]["partitions"]
        )
