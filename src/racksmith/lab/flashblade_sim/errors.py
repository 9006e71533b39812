"""The error the simulated array answers with, in the REST 2.x wire shape."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An HTTP error answer: ``{"errors": [{"message": ..., "context": ...}]}``.

    Several problems in one request (e.g. two unknown names) travel together, as the
    array reports each of them with its own context.
    """

    def __init__(
        self,
        status: int,
        message: str,
        context: str | None = None,
        *,
        more: list[tuple[str, str | None]] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.errors: list[tuple[str, str | None]] = [(message, context), *(more or [])]

    def body(self) -> dict[str, Any]:
        errors = []
        for message, context in self.errors:
            entry: dict[str, Any] = {"message": message}
            if context is not None:
                entry["context"] = context
            errors.append(entry)
        return {"errors": errors}
