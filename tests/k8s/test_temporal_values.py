"""The Temporal helm chart's values (chart `temporal` 1.6.0): every key is one the chart has, both
stores are the temporal-pg CloudNativePG cluster with its operator-made Secret, and the namespace
the workers and the bridge use is created with a retention."""

from __future__ import annotations

from typing import Any

import yaml

from tests.k8s.render import K8S, by_kind, configmaps, render

VALUES = K8S / "base" / "engines" / "temporal-values.yaml"

CHART_KEYS = {
    "server.replicaCount",
    "server.config.persistence.defaultStore",
    "server.config.persistence.visibilityStore",
    "server.config.persistence.numHistoryShards",
    "server.config.persistence.datastores",
    "server.config.namespaces.create",
    "server.config.namespaces.namespace",
    "server.frontend.service.type",
    "server.frontend.service.port",
    "admintools.enabled",
    "web.enabled",
    "web.replicaCount",
    "schema.useHelmHooks",
    "shims.dockerize",
    "shims.elasticsearchTool",
}
"""The keys of the chart's values.yaml (1.6.0) these values set; below `datastores` and `namespace`
the chart passes the server's own config through."""

SQL_KEYS = {
    "createDatabase",
    "manageSchema",
    "pluginName",
    "databaseName",
    "connectAddr",
    "connectProtocol",
    "user",
    "existingSecret",
    "secretKey",
    "maxConns",
    "maxIdleConns",
    "maxConnLifetime",
}
"""A SQL datastore's keys in the chart's values.yaml and values/values.postgresql.yaml."""


def _leaves(tree: dict[str, Any], prefix: str = "") -> set[str]:
    out = set()
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and path not in CHART_KEYS:
            out |= _leaves(value, path + ".")
        else:
            out.add(path)
    return out


def test_every_key_is_the_charts() -> None:
    values = yaml.safe_load(VALUES.read_text())
    assert _leaves(values) <= CHART_KEYS, _leaves(values) - CHART_KEYS


def test_both_stores_are_temporal_pg_with_the_operators_secret() -> None:
    values = yaml.safe_load(VALUES.read_text())
    persistence = values["server"]["config"]["persistence"]
    stores = persistence["datastores"]
    assert set(stores) == {persistence["defaultStore"], persistence["visibilityStore"]}
    (cluster,) = [
        c for c in by_kind(render("prod"), "Cluster").values() if c["metadata"]["name"] == "temporal-pg"
    ]
    initdb = cluster["spec"]["bootstrap"]["initdb"]
    assert cluster["metadata"]["namespace"] == "temporal"
    databases = {initdb["database"]} | {sql.split()[2] for sql in initdb["postInitSQL"]}
    for store in stores.values():
        sql = store["sql"]
        assert set(sql) <= SQL_KEYS
        assert sql["pluginName"] == "postgres12" and sql["databaseName"] in databases
        assert sql["connectAddr"] == "temporal-pg-rw.temporal.svc:5432"
        assert (sql["user"], sql["existingSecret"], sql["secretKey"]) == (
            initdb["owner"],
            "temporal-pg-app",
            "password",
        )
        assert "password" not in sql
    assert {s["sql"]["databaseName"] for s in stores.values()} == databases


def test_the_namespace_loopline_uses_is_created_with_a_retention() -> None:
    namespaces = yaml.safe_load(VALUES.read_text())["server"]["config"]["namespaces"]
    assert namespaces["create"] is True
    created = {n["name"]: n["retention"] for n in namespaces["namespace"]}
    for overlay in ("dev", "prod"):
        maps = configmaps(render(overlay))
        used = {maps["loopline-bridge"]["LOOPLINE_BRIDGE_TEMPORAL_NAMESPACE"]} | {
            maps[m]["LOOPLINE_TEMPORAL_NAMESPACE"]
            for m in ("loopline-workflows-cpu", "loopline-workflows-gpu")
        }
        assert used == {"loopline"} and created["loopline"].endswith("d")
        frontend = {
            maps["loopline-bridge"]["LOOPLINE_BRIDGE_TEMPORAL_ADDRESS"],
            maps["loopline-workflows-cpu"]["LOOPLINE_TEMPORAL_ADDRESS"],
        }
        assert frontend == {
            f"temporal-frontend.temporal.svc:{yaml.safe_load(VALUES.read_text())['server']['frontend']['service']['port']}"
        }
