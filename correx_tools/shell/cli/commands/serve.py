"""``correx-tools serve``: a live, read-only time-travel debugger for a store, in the browser.

Everything that can be wrong is found before the server starts, each as one
line: the extra not installed, a token-less server on a non-loopback address,
a bad ``--redact`` pattern, a store that cannot be opened, a port in use. The
server itself lives in `correx_tools.shell.serve` (imported only here, so the
other commands never need its extra).

The line it prints holds a link with a single-use code, never the token
(``--json`` gives the token, for scripts); ``--open`` hands the browser a file
that leads to the link, never the link itself (`browser`).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ....core.report.redaction import Redaction
from .. import arguments
from ..errors import CliError
from ..output.browser import open_in_browser, redirect_file, remove
from ..sources.prices import prices_of
from ..sources.served import Served, served
from ..sources.stores import close_store
from ..sources.transcripts import note

if TYPE_CHECKING:
    from ....core.audit.policy import CompiledPolicy
    from ...serve.debugger.debugger import Debugger

DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, ``127.0.0.1``, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_of(host: str, port: int, code: str | None) -> str:
    """The address to open (with a single-use code, which the page trades for a credential)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + ("" if code is None else f"#code={code}")


def exposure(host: str) -> str | None:
    """What listening on ``host`` means, when it is not this machine alone."""
    if is_loopback(host):
        return None
    reach = (
        "every address of this machine"
        if host.strip("[]") in ("0.0.0.0", "::", "")
        else f"{host}, which other machines may reach"
    )
    checked = (
        "; any Host name is accepted, so only the token guards it"
        if host.strip("[]") in ("0.0.0.0", "::", "")
        else ""
    )
    return (
        f"warning: --host {host} listens on {reach}: anyone who can reach it may try, and the "
        f"link, the token and every answer travel in clear (no TLS){checked}"
    )


def _checked(args: argparse.Namespace) -> Redaction | None:
    """What the arguments ask, checked before anything is opened: the redaction to apply."""
    if args.no_token and not is_loopback(args.host):
        raise CliError(
            f"--no-token with --host {args.host}: anyone who can reach that address could read "
            "the store; keep the token, or bind a loopback address (127.0.0.1)"
        )
    try:
        import starlette  # noqa: F401, PLC0415 - only to know the extra is there
        import uvicorn  # noqa: F401, PLC0415
    except ImportError:
        raise CliError("serve needs its extra: pip install 'correx-tools[serve]'") from None
    if args.no_redact and args.redact:
        raise CliError("--redact and --no-redact together: choose one")
    try:
        return None if args.no_redact else Redaction.with_patterns(args.redact)
    except ValueError as error:
        raise CliError(str(error)) from None


def _warn(args: argparse.Namespace) -> None:
    """The warnings of a server others may reach or that shows secrets, on stderr."""
    if args.no_redact:
        print(
            "correx-tools serve: warning: --no-redact: keys, tokens and passwords in the "
            "sessions are shown as they are to whoever opens the page",
            file=sys.stderr,
        )
    warning = exposure(args.host)
    if warning is not None:
        print(f"correx-tools serve: {warning}", file=sys.stderr)


def _policy_of(args: argparse.Namespace) -> CompiledPolicy:
    """The audit panel's policy: ``--policy FILE``, else the built-in one; a bad file said in
    one line before anything is opened."""
    from ...audit.policy_file import PolicyFileError, read_policy  # noqa: PLC0415 - only here

    try:
        return read_policy(args.policy)
    except PolicyFileError as error:
        raise CliError(f"--policy: {error}") from None


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools serve``: check everything, listen, print where, and serve until
    stopped; the exit status."""
    redaction = _checked(args)
    prices = prices_of(args)  # a bad file is said before anything is opened
    policy = _policy_of(args)
    from ...serve.debugger.debugger import Debugger  # noqa: PLC0415
    from ...serve.guard.access import Access  # noqa: PLC0415 - the optional extra
    from ...serve.server import ListenError, listen, serve  # noqa: PLC0415

    opened = served(args.source)
    store = opened.store
    try:
        sock = listen(args.host, args.port)
    except ListenError as error:
        close_store(store)
        if opened.follower is not None:
            opened.follower.stop()
        raise CliError(str(error)) from None
    _warn(args)
    port = sock.getsockname()[1]
    source = opened.label

    def tell(line: str) -> None:
        note(line, "correx-tools serve")

    access = None
    if not args.no_token:
        access = Access(
            secrets.token_urlsafe(24), link=lambda code: url_of(args.host, port, code), tell=tell
        )
    opening: Path | None = None

    def opened_page() -> None:
        if opening is not None:
            remove(opening)

    url = url_of(args.host, port, None) if access is None else access.printed_link(used=opened_page)
    if args.open and access is not None:
        # The browser's command line names a file that leads to the link, never the link.
        opening = redirect_file(url)

    def ready() -> None:
        if args.json:
            token = None if access is None else access.token
            print(json.dumps({"source": source, "url": url, "port": port, "token": token}))
        else:
            print(f"serving {source} at {url}")
        sys.stdout.flush()
        if args.open:
            open_in_browser(
                url if opening is None else opening.as_uri(),
                lambda: tell("no browser could be opened (no display, or none installed): "
                             "open the link above in one"),
            )  # fmt: skip

    # The source as the server names it in its answers: a database password masked.
    debugger = Debugger(
        store, source, lenient=args.lenient, redaction=redaction, prices=prices, policy=policy
    )
    _follow(opened, debugger)
    try:
        serve(debugger, sock, host=args.host, access=access, ready=ready, tell=tell)
    finally:
        opened_page()
        if opened.follower is not None:
            opened.follower.stop()
    return 0


def _follow(opened: Served, debugger: Debugger) -> None:
    """Transcripts: followed as their agents write them, and a session a rewritten file
    replaced read anew (nothing the server kept of it holds)."""
    if opened.follower is not None:
        opened.follower.replaced = debugger.forget
        opened.follower.start()


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65_535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535)")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools serve``."""
    parser.add_argument(
        "source",
        metavar="SOURCE",
        nargs="?",
        help=f"{arguments.SOURCE_HELP}, followed as agents write them (default: every "
        "agent's folder found on this machine)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help="the port (0: any free one; default: %(default)s)",
    )
    parser.add_argument("--open", action="store_true", help="open the page in a browser")
    arguments.add_lenient_argument(parser)
    arguments.add_cache_arguments(parser)
    arguments.add_redact_argument(parser)
    arguments.add_prices_argument(parser)
    parser.add_argument(
        "--policy",
        metavar="FILE",
        help="the policy the Audit panel holds sessions to (TOML, as `audit --policy`; "
        "default: the built-in one)",
    )
    parser.add_argument(
        "--no-redact", action="store_true", help="show the sessions unmasked (prints a warning)"
    )
    parser.add_argument(
        "--no-token",
        action="store_true",
        help="serve without a token (refused unless --host is a loopback address)",
    )
