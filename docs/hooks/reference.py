"""MkDocs hook: reference pages generated from the code at build time, so they cannot fall behind it.

- ``<!-- settings -->`` becomes the table of every field of :class:`theorem_rag.config.Settings` (its environment
  variable, type, default and help line), followed by the environment variables that only the CLI reads (click
  options with ``envvar=`` that are not settings) and the ones read by name (the API key).
- ``<!-- openapi -->`` becomes the REST reference: every route of the FastAPI app and every schema, from the app's
  own OpenAPI document, which is also written beside the page as ``openapi.json``. The app is built over a stand-in
  search object: no database, model or network is touched.

The CLI reference comes from the click commands themselves (the ``mkdocs-click`` extension).
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

_openapi: dict[str, Any] | None = None


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _type_name(annotation: Any) -> str:
    name = getattr(annotation, "__name__", None) or str(annotation)
    return name.replace("typing.", "").replace("pathlib.", "").replace("NoneType", "None")


def settings_markdown() -> str:
    from theorem_rag.config import Settings

    prefix = Settings.model_config.get("env_prefix", "")
    rows = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for name, field in Settings.model_fields.items():
        if field.default_factory is not None:
            default = f"`{field.default_factory.__name__}()`"
        else:
            default = "unset" if field.default is None else f"`{field.default!r}`"
        rows.append(f"| `{prefix}{name.upper()}` | {_cell(_type_name(field.annotation))} | {_cell(default)} "
                    f"| {_cell(field.description or '')} |")
    cli = sorted(_cli_envvars() - {f"{prefix}{n.upper()}" for n in Settings.model_fields})
    rows += ["", "Read by the command line only (each is also a flag; `theorem-rag COMMAND --help` says which):", ""]
    rows += [", ".join(f"`{v}`" for v in cli) if cli else "none", ""]
    return "\n".join(rows)


def _cli_envvars() -> set[str]:
    import click

    from theorem_rag.cli import main

    found: set[str] = set()

    def walk(command: click.Command) -> None:
        for param in command.params:
            envvar = getattr(param, "envvar", None)
            found.update([envvar] if isinstance(envvar, str) else envvar or [])
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(main)
    return found


def openapi() -> dict[str, Any]:
    global _openapi
    if _openapi is None:
        from theorem_rag.api.app import create_app

        stand_in = SimpleNamespace(k=10, max_k=100, stats=lambda: {})
        _openapi = create_app(stand_in).openapi()
    return _openapi


def _schema_type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(_schema_type(s) for s in schema["anyOf"])
    if schema.get("type") == "array":
        return f"array of {_schema_type(schema.get('items', {}))}"
    return schema.get("type", "any")


def openapi_markdown() -> str:
    spec = openapi()
    out = [f"OpenAPI {spec['openapi']}, `{spec['info']['title']}` {spec['info']['version']}: "
           "[openapi.json](openapi.json) (a running server also serves it at `/openapi.json`, with Swagger UI at "
           "`/docs`).", ""]
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            out += [f"### `{method.upper()} {path}`", "", op.get("description") or op.get("summary", ""), ""]
            params = op.get("parameters", [])
            if params:
                out += ["| parameter | in | type | required | meaning |", "|---|---|---|---|---|"]
                out += [f"| `{p['name']}` | {p['in']} | {_cell(_schema_type(p.get('schema', {})))} | "
                        f"{'yes' if p.get('required') else 'no'} | {_cell(p.get('description', ''))} |" for p in params]
                out.append("")
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                out += [f"Body: {_schema_type(body['schema'])}", ""]
            out += ["| status | meaning |", "|---|---|"]
            out += [f"| {code} | {_cell(r.get('description', ''))} |" for code, r in op.get("responses", {}).items()]
            out.append("")
    out += ["## Schemas", ""]
    for name, schema in spec.get("components", {}).get("schemas", {}).items():
        out += [f"### {name}", "", schema.get("description", ""), ""]
        props = schema.get("properties", {})
        if props:
            required = set(schema.get("required", []))
            out += ["| field | type | required | meaning |", "|---|---|---|---|"]
            out += [f"| `{k}` | {_cell(_schema_type(v))} | {'yes' if k in required else 'no'} | "
                    f"{_cell(v.get('description', ''))} |" for k, v in props.items()]
            out.append("")
    return "\n".join(out)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if "<!-- settings -->" in markdown:
        markdown = markdown.replace("<!-- settings -->", settings_markdown())
    if "<!-- openapi -->" in markdown:
        markdown = markdown.replace("<!-- openapi -->", openapi_markdown())
    return markdown


def on_files(files, config):
    from mkdocs.structure.files import File

    files.append(File.generated(config, "reference/openapi.json", content=json.dumps(openapi(), indent=1) + "\n"))
    return files
