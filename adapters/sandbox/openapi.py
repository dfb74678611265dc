"""The OpenAPI of the sandbox's routes: arguments, bodies and every status each route can answer.

The tool routes read their arguments by hand (one handler per entry of the domain's `ToolRoutes`,
validated by the tool's own argument model), so FastAPI cannot infer their parameters; this module
writes them from the same models, and the app adds the models' schemas to its components.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from adapters.spec import ToolSpec
from adapters.wire import Endpoint
from schemas.tools import ToolError

REF = "#/components/schemas/{model}"
Schemas = dict[str, dict[str, Any]]


class ToolErrorAnswer(BaseModel):
    """The body of every refusal of a tool route."""

    error: ToolError
    """What went wrong: kind, message, status, details (the same error the sim backend returns)."""


class AdminProblem(BaseModel):
    """The body of a refusal of an admin route that FastAPI itself answers (token, body)."""

    detail: str
    """The reason."""


def schema_of(model: type[BaseModel], components: Schemas) -> dict[str, Any]:
    """`model`'s JSON schema with references into `#/components/schemas`, which gets its definitions."""
    schema = model.model_json_schema(ref_template=REF)
    components.update(schema.pop("$defs", {}))
    return schema


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": REF.format(model="ToolErrorAnswer")}}},
    }


def _parameters(endpoint: Endpoint, args: dict[str, Any]) -> list[dict[str, Any]]:
    properties, required = args.get("properties", {}), set(args.get("required", []))
    params = [
        {"name": name, "in": "path", "required": True, "schema": properties[name]}
        for name in endpoint.path_params
    ]
    if endpoint.method == "GET":
        params += [
            {"name": name, "in": "query", "required": name in required, "schema": schema}
            for name, schema in properties.items()
            if name not in endpoint.path_params
        ]
    return params


def _body(endpoint: Endpoint, args: dict[str, Any]) -> dict[str, Any]:
    """The JSON body of a POST route: the arguments that are not in the path."""
    in_path = set(endpoint.path_params)
    schema = {
        **args,
        "properties": {k: v for k, v in args.get("properties", {}).items() if k not in in_path},
        "required": [k for k in args.get("required", []) if k not in in_path],
    }
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _responses(spec: ToolSpec[Any, Any], endpoint: Endpoint, components: Schemas) -> dict[str, Any]:
    document = endpoint.document
    if document is not None:
        ok: dict[str, Any] = {
            "200": {
                "description": document.description,
                "content": {document.media_type: {"schema": {"type": "string"}}},
            },
        }
        if document.empty is not None:
            ok["204"] = {"description": document.empty}
    else:
        result = schema_of(spec.result_model, components)
        ok = {
            "200": {"description": "The tool's result.", "content": {"application/json": {"schema": result}}}
        }
    refusals = {
        "404": _error("What the arguments name is not on file."),
        "409": _error(
            "The domain refuses the action (a business rule, the record's state); the message says why."
        ),
        "422": _error(
            "The arguments do not validate against the tool's model; `details.errors` names each field."
        ),
        "503": _error(
            "An injected fault (the sandbox's fault configuration): the live system is unavailable."
        ),
        "504": _error(
            "An injected timeout: the live system answered too late (a write may have taken effect)."
        ),
    }
    if endpoint.method == "POST":
        refusals["400"] = _error("The body is not JSON, or not a JSON object.")
    return {**ok, **refusals}


def tool_operation(spec: ToolSpec[Any, Any], endpoint: Endpoint, components: Schemas) -> dict[str, Any]:
    """The `openapi_extra` of one tool route: its parameters, body and responses."""
    args = schema_of(spec.args_model, components)
    operation: dict[str, Any] = {
        "summary": spec.name,
        "description": spec.description,
        "parameters": _parameters(endpoint, args),
        "responses": _responses(spec, endpoint, components),
    }
    if endpoint.method == "POST":
        operation["requestBody"] = _body(endpoint, args)
    return operation


def error_components(components: Schemas) -> None:
    """Add the refusal bodies to `components`."""
    components["ToolErrorAnswer"] = schema_of(ToolErrorAnswer, components)
    components["AdminProblem"] = schema_of(AdminProblem, components)


ADMIN_REFUSALS: dict[int | str, dict[str, Any]] = {
    401: {"model": AdminProblem, "description": "No admin bearer token, or the wrong one."},
}
ADMIN_BODY: dict[int | str, dict[str, Any]] = {
    400: {"model": AdminProblem, "description": "The body is not JSON."},
}
ADMIN_UNKNOWN: dict[int | str, dict[str, Any]] = {
    404: {"model": ToolErrorAnswer, "description": "No such record."},
}
