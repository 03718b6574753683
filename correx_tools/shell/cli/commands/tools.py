"""``correx-tools tools``: a file of tool definitions converted to OpenAI, Anthropic or MCP form."""

from __future__ import annotations

import argparse
import json
from typing import Any

from returns.result import Failure

from ....core.tools.capability import ToolCapability
from ....core.tools.formats._reader import FormatError
from ....core.tools.tier import Tier
from ..errors import CliError
from ..sources.tool_files import read_tools

FORMATS = ("openai", "anthropic", "mcp")
"""What ``correx-tools tools --to`` writes."""


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools tools``; the exit status."""
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
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
