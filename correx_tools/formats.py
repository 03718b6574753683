"""Tools described and checked: tool definitions read from and written to MCP, OpenAI and
Anthropic forms, JSON Schemas compiled and requests validated against them, results as each
form wants them, and the JSON values and names a tool works with.

Every name here is also importable from ``correx_tools`` itself; each is imported when first
asked for. The names and where they live are `correx_tools._public`'s table.
"""

import typing as _typing

from . import _public

if _typing.TYPE_CHECKING:
    from .core.tools.definitions import portable_name as portable_name
    from .core.tools.definitions import tool_definitions as tool_definitions
    from .core.tools.formats._reader import FormatError as FormatError
    from .core.tools.formats.mcp import McpPolicy as McpPolicy
    from .core.tools.formats.openai_strict import without_strict_nulls as without_strict_nulls
    from .core.tools.json_values import freeze_json as freeze_json
    from .core.tools.json_values import thaw_json as thaw_json
    from .core.tools.paths import PathError as PathError
    from .core.tools.paths import check_relative_path as check_relative_path
    from .core.tools.registry import RegistryError as RegistryError
    from .core.tools.registry import RegistryErrorKind as RegistryErrorKind
    from .core.tools.result_messages import ToolOutcome as ToolOutcome
    from .core.tools.result_messages import outcome_text as outcome_text
    from .core.tools.result_messages import to_anthropic_result as to_anthropic_result
    from .core.tools.result_messages import to_mcp_result as to_mcp_result
    from .core.tools.result_messages import to_openai_result as to_openai_result
    from .core.tools.schema.compiled import CompiledSchema as CompiledSchema
    from .core.tools.schema.compiled import SchemaError as SchemaError
    from .core.tools.schema.compiled import compile_schema as compile_schema
    from .core.tools.short_ids import UnresolvedId as UnresolvedId
    from .core.tools.short_ids import short_invocation_id as short_invocation_id
    from .core.tools.spec import ToolSpec as ToolSpec
    from .core.tools.validation import Invalid as Invalid
    from .core.tools.validation import Valid as Valid
    from .core.tools.validation import ValidationLimits as ValidationLimits
    from .core.tools.validation import ValidationResult as ValidationResult
    from .core.tools.validation import Violation as Violation
    from .core.tools.validation import validate_request as validate_request

__getattr__, __dir__, __all__ = _public.attach(__name__, "formats")
