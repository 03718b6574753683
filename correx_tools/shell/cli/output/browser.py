"""Opening the page in a browser without its link on the browser's command line.

Any user of the machine can read another's command lines (``ps``,
``/proc/*/cmdline``), so the browser is not given the link: it is given a file,
an HTML page in a folder of the user's own (0700) readable by the user alone
(0600), that sends the browser on to the link. The file goes once the page
has traded the link's code, or when the server stops.

A browser confined away from the temporary folder (a snap, say) cannot open
that file; the printed link is there for it.
"""

from __future__ import annotations

import html
import os
import shutil
import tempfile
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path


def redirect_file(url: str) -> Path:
    """A page, readable by this user alone, that sends a browser on to ``url``."""
    folder = Path(tempfile.mkdtemp(prefix="correx-serve-"))
    path = folder / "open.html"
    shown = html.escape(url, quote=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(
            '<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
            f'<meta http-equiv="refresh" content="0;url={shown}"><title>correx-tools serve</title>'
            f'<p><a href="{shown}">Open the debugger</a></p>\n'
        )
    return path


def remove(path: Path) -> None:
    """Remove a file `redirect_file` made, and its folder (nothing if already gone)."""
    shutil.rmtree(path.parent, ignore_errors=True)


def open_in_browser(address: str, failed: Callable[[], None]) -> None:
    """Hand ``address`` to the user's browser, in a thread: a browser may take its time;
    ``failed`` is called when none could be opened (no display, no browser installed)."""

    def run() -> None:
        try:
            opened = webbrowser.open(address)
        except webbrowser.Error:
            opened = False
        if not opened:
            failed()

    threading.Thread(target=run, daemon=True).start()
