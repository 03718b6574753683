"""``correx-tools validate`` and ``correx-tools tools``: tool definitions in and out.

Both read a JSON file of tool definitions in any form
`tool_definitions` knows: this
library's own (``parameters``, ``tier``, ``capabilities``), MCP (a
``tools/list`` response or its tools), Anthropic or OpenAI.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from returns.result import Failure

from ...core.tools.capability import ToolCapability
from ...core.tools.definitions import tool_definitions
from ...core.tools.formats._reader import FormatError
from ...core.tools.registry import InMemoryToolRegistry
from ...core.tools.request import ToolRequest
from ...core.tools.spec import ToolSpec
from ...core.tools.tier import Tier
from ...core.tools.validation import Invalid
from .errors import CliError
from .output.render import emit, table
from .sources.stores import read_json

FORMATS = ("openai", "anthropic", "mcp")
"""What ``correx-tools tools --to`` writes."""


def read_tools(
    argument: str, *, tier: Tier = Tier.AUTO, capabilities: frozenset[ToolCapability] = frozenset()
) -> tuple[ToolSpec, ...]:
    """The tools of a definitions file, or a one-line error naming the file and JSON path."""
    specs = tool_definitions(
        read_json(argument, "tool definitions"), tier=tier, capabilities=capabilities
    )
    if isinstance(specs, Failure):
        raise CliError(f"{argument}: {specs.failure()}")
    return specs.unwrap()


def cmd_validate(args: argparse.Namespace) -> int:
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
        emit(
            args,
            {
                "valid": False,
                "reason": result.reason,
                "violations": [{"path": v.path, "message": v.message} for v in result.violations],
            },
            lambda: (
                f"invalid: {result.reason}\n"
                + table(["path", "problem"], [(v.path, v.message) for v in result.violations])
            ),
        )
        return 1
    emit(
        args,
        {"valid": True, "violations": []},
        lambda: f"valid: {request.tool_name} request fits its schema",
    )
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    specs = read_tools(
        args.source,
        tier=Tier(args.tier),
        capabilities=frozenset(ToolCapability(c) for c in args.capability),
    )
    converted: list[dict[str, Any]] = []
    for spec in specs:
        match args.to:
            case "openai":
                result = spec.to_openai(api=args.openai_api, strict=args.strict or None)
            case "anthropic":
                result = spec.to_anthropic()
            case _:
                result = spec.to_mcp()
        if isinstance(result, Failure):
            error: FormatError = result.failure()
            raise CliError(f"{args.source}: {error}")
        converted.append(result.unwrap())
    # JSON either way: the output is meant for another program.
    print(json.dumps(converted, ensure_ascii=False, indent=None if args.json else 2))
    return 0


def add_tools_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools tools``."""
    parser.add_argument(
        "source",
        metavar="SOURCE",
        help="a JSON file of tool definitions (MCP, OpenAI, Anthropic or this library's); "
        "- reads standard input",
    )
    parser.add_argument("--to", required=True, choices=FORMATS, help="the format to write")
    parser.add_argument(
        "--openai-api",
        choices=("chat", "responses"),
        default="chat",
        help="OpenAI's Chat Completions or Responses shape (default: %(default)s)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="with --to openai: rewrite each schema into strict mode's subset "
        "(optional properties become nullable), or fail saying why",
    )
    parser.add_argument(
        "--tier",
        choices=[tier.value for tier in Tier],
        default=Tier.AUTO.value,
        help="the tier of tools whose definition has none (default: %(default)s); "
        "MCP annotations may raise it",
    )
    parser.add_argument(
        "--capability",
        action="append",
        default=[],
        choices=[capability.value for capability in ToolCapability],
        help="a capability of tools whose definition has none (repeatable)",
    )
