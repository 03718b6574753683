"""``correx-tools validate``: a tool request checked against a file of tool definitions."""

from __future__ import annotations

import argparse

from returns.result import Failure

from ....core.tools.registry import InMemoryToolRegistry
from ....core.tools.request import ToolRequest
from ....core.tools.validation import Invalid
from .. import arguments as shared
from ..errors import CliError
from ..output.render import emit
from ..output.tables import Column, table
from ..sources.stores import read_json
from ..sources.tool_files import read_tools


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools validate``."""
    parser.add_argument(
        "tools",
        metavar="TOOLS",
        help="a JSON file of tool definitions: this library's "
        "{name, description, parameters, tier, capabilities}, or MCP, OpenAI or Anthropic; "
        "- reads standard input",
    )
    parser.add_argument(
        "request",
        metavar="REQUEST",
        help='a JSON file, inline JSON {"tool_name": ..., "arguments": {...}}, '
        "or - for standard input",
    )
    shared.add_shown_arguments(parser, masked=False)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools validate``; the exit status."""
    registry = InMemoryToolRegistry.of(*read_tools(args.tools))
    if isinstance(registry, Failure):
        raise CliError(f"{args.tools}: {registry.failure().message}")
    raw = read_json(args.request, "request")
    name = raw.get("tool_name", raw.get("name")) if isinstance(raw, dict) else None
    arguments = raw.get("arguments", raw.get("input", {})) if isinstance(raw, dict) else None
    if not isinstance(name, str) or not isinstance(arguments, dict):
        raise CliError(
            f"{args.request}: a request is an object with tool_name and an arguments object"
        )
    request = ToolRequest(tool_name=name, arguments=arguments)
    result = registry.unwrap().validate(request)
    if isinstance(result, Invalid):
        columns = (Column("path", fit="cut", least=8, ease=24, give=1),
                   Column("problem", fit="cut", least=20, give=2))  # fmt: skip
        emit(
            args,
            {
                "valid": False,
                "reason": result.reason,
                "violations": [{"path": v.path, "message": v.message} for v in result.violations],
            },
            lambda: (
                f"invalid: {result.reason}\n"
                + table(columns, [(v.path, v.message) for v in result.violations], wide=args.wide)
            ),
        )
        return 1
    emit(
        args,
        {"valid": True, "violations": []},
        lambda: f"valid: {request.tool_name} request fits its schema",
    )
    return 0
