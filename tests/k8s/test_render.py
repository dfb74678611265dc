"""Every overlay renders with `kubectl kustomize`, and every object is valid offline: Kubernetes
objects against the 1.37.0 schemas (strict: no unknown fields), operator resources against their
CRD schemas (Strimzi 1.2.0, CloudNativePG 1.30.0)."""

from __future__ import annotations

import jsonschema
import kubernetes_validate
import pytest

from tests.k8s.render import KUBERNETES_VERSION, OPERATORS, OVERLAYS, Obj, crd_schema, render


def _validate(obj: Obj) -> None:
    key = (obj["apiVersion"], obj["kind"])
    if key in OPERATORS:
        jsonschema.Draft7Validator(crd_schema(*key)).validate(obj)
    else:
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_object_of_the_overlay_is_valid(overlay: str) -> None:
    objects = render(overlay)
    assert len(objects) > 30
    errors = []
    for obj in objects:
        try:
            _validate(obj)
        except (kubernetes_validate.ValidationError, jsonschema.ValidationError) as exc:
            errors.append(f"{obj['kind']}/{obj['metadata']['name']}: {getattr(exc, 'message', exc)}")
        except kubernetes_validate.SchemaNotFoundError:
            errors.append(f"{obj['kind']}/{obj['metadata']['name']}: no schema for {obj['apiVersion']}")
    assert not errors, "\n".join(errors)


def test_the_checks_catch_a_wrong_field_in_either_kind_of_object() -> None:
    objects = render("prod")
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    deployment["spec"]["replicaz"] = 2
    with pytest.raises(kubernetes_validate.ValidationError):
        _validate(deployment)
    topic = next(o for o in objects if o["kind"] == "KafkaTopic")
    topic["spec"]["partitions"] = 0
    with pytest.raises(jsonschema.ValidationError):
        _validate(topic)
    pool = next(o for o in objects if o["kind"] == "KafkaNodePool")
    pool["spec"]["roles"] = ["zookeeper"]
    with pytest.raises(jsonschema.ValidationError):
        _validate(pool)
    cluster = next(o for o in objects if o["kind"] == "Cluster")
    del cluster["spec"]["instances"]
    with pytest.raises(jsonschema.ValidationError):
        _validate(cluster)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_object_has_a_namespace_or_is_cluster_wide(overlay: str) -> None:
    cluster_wide = {"Namespace", "StorageClass"}
    for obj in render(overlay):
        namespace = obj["metadata"].get("namespace")
        assert (namespace is None) == (obj["kind"] in cluster_wide), obj["metadata"]
        assert namespace in (None, "loopline", "temporal")
