"""Which names a request may give in its ``Host`` header: against DNS rebinding.

A page on another site that resolves its own name to this machine sends that name, so a
server bound to one address answers only requests that name it (or ``localhost``). A server
bound to every address (``0.0.0.0``) cannot know its names, and relies on the credentials.
"""

from __future__ import annotations

WILDCARDS = frozenset({"0.0.0.0", "::", ""})
"""The addresses that bind every interface: no name to check a request against."""


def allowed_hosts(host: str) -> frozenset[str] | None:
    """The host names a request may use for a server bound to ``host`` (``None``: any)."""
    if host in WILDCARDS:
        return None
    names = {host.lower().strip("[]"), "localhost"}
    if host in ("127.0.0.1", "localhost"):
        names.add("127.0.0.1")
    if host in ("::1", "localhost"):
        names.add("::1")
    return frozenset(names)


def host_name(value: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8765`` gives ``::1``)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value
