"""The one error a question can end in, and what an answer says when the store is at fault.

Every problem with a question is an `ApiError`: the status to answer with and one line saying
what is wrong and where, sent as ``{"error": "..."}``.
"""

from __future__ import annotations

from typing import final


@final
class ApiError(Exception):
    """A question that cannot be answered: 400 (a bad parameter), 401 (no token), 404 (no
    such session or invocation), 409 (a session that cannot answer it as asked)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


VERIFY_HINT = "correx-tools verify checks the store and names each fault"
"""What an answer says when the store's own data is what went wrong."""
