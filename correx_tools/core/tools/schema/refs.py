"""Local references inside one schema document, resolved without leaving it.

A reference is *local* when it names a place in the schema that holds it:
a fragment (``#``, ``#/$defs/a``, ``#name``), or the schema's own ``$id``
(absolute, or a URN) followed by one. JSON pointers in a fragment are
percent-decoded first (RFC 3986), then ``~1`` and ``~0`` (RFC 6901). A plain
name is an ``$anchor`` or ``$dynamicAnchor``, or, in drafts 4 to 7, an
``$id``/``id`` of the form ``#name``. Anything that leaves the document is
not resolved here, and `compile_schema` refuses it: validation
never fetches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, final
from urllib.parse import unquote, urldefrag, urljoin

LEGACY_ID_DIALECTS = frozenset(
    {
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-04/schema",
    }
)
"""The drafts whose ``$id`` (``id`` in draft 4) may be a plain-name fragment (``#name``)."""


@final
@dataclass(frozen=True, slots=True)
class Unresolved:
    """Why a reference is not a place in this document."""

    leaves_document: bool
    """True for a reference to another document (refused: never fetched)."""
    message: str


def id_keyword(dialect: str) -> str:
    """The keyword that names a schema: ``id`` in draft 4, ``$id`` after."""
    return "id" if dialect == "http://json-schema.org/draft-04/schema" else "$id"


def resolve(root: Mapping[str, Any], ref: str, dialect: str) -> object | Unresolved:
    """The node ``ref`` points at inside ``root``, or why it points at none.

    >>> schema = {"$id": "urn:example:root", "$defs": {"a%b": {"type": "string"}}}
    >>> resolve(schema, "#/$defs/a%25b", "")
    {'type': 'string'}
    >>> resolve(schema, "urn:example:root#/$defs/a%25b", "")
    {'type': 'string'}
    >>> resolve(schema, "https://example.com/other.json", "").leaves_document
    True
    """
    base = root.get(id_keyword(dialect))
    base_uri = urldefrag(base)[0] if isinstance(base, str) and not base.startswith("#") else ""
    target = urljoin(base_uri, ref) if base_uri else ref
    uri, fragment = urldefrag(target)
    if uri not in ("", base_uri):
        return Unresolved(True, "it names another document, and validation never fetches")
    if fragment == "":
        return root
    if fragment.startswith("/"):
        return _pointer(root, unquote(fragment))
    return _anchor(root, unquote(fragment), dialect)


def _pointer(root: Mapping[str, Any], pointer: str) -> object | Unresolved:
    node: object = root
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return Unresolved(False, "it points at nothing in this schema")
    return node


def _anchor(root: Mapping[str, Any], name: str, dialect: str) -> object | Unresolved:
    legacy_id = id_keyword(dialect) if dialect in LEGACY_ID_DIALECTS else None
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if node.get("$anchor") == name or node.get("$dynamicAnchor") == name:
                return node
            if legacy_id is not None and node.get(legacy_id) == f"#{name}":
                return node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return Unresolved(False, f"no anchor named {name[:60]!r} in this schema")
