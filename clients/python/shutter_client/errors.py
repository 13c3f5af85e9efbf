"""The one exception type the client raises for anything the API (or the network) refused."""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional

__all__ = ["ShutterError"]


class ShutterError(Exception):
    """An error answered by Shutter, or a request that never got an answer.

    Attributes:
        status: the HTTP status (``400``, ``429``, ...); ``None`` when no response arrived
            (connection refused or reset, timeout).
        code: Shutter's machine-readable error code (``invalid_parameter``, ``quota_exceeded``,
            ...). Errors made by the client itself use ``connection_error``, ``timeout``,
            ``wait_timeout``, ``invalid_response`` (a 2xx that is not the JSON expected) and ``http_error``
            (a non-JSON error body, e.g. from a proxy).
        message: the human-readable message.
        details: ``error.details`` as sent: usually a list of ``{"parameter", "message", ...}``
            objects naming every problem with the request, sometimes an object of facts
            (a ``capture_timeout``'s step and pending requests); ``None`` when absent.
        request_id: the request id (``X-Request-Id`` header, else the body's ``request_id``);
            quote it when reporting a problem.
        retry_after: seconds from ``Retry-After`` when the server sent it (429, 503).
        headers: the response headers (lower-case names), empty when there was no response.
    """

    status: Optional[int]
    code: str
    message: str
    details: Any
    request_id: Optional[str]
    retry_after: Optional[float]
    headers: Mapping[str, str]

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        code: str = "http_error",
        details: Any = None,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.request_id = request_id
        self.retry_after = retry_after
        self.headers = dict(headers or {})

    def __str__(self) -> str:
        head = f"{self.status} {self.code}" if self.status is not None else self.code
        text = f"{head}: {self.message}"
        if self.request_id:
            text += f" (request id {self.request_id})"
        return text

    def __repr__(self) -> str:
        return (
            f"ShutterError(status={self.status!r}, code={self.code!r}, message={self.message!r}, "
            f"request_id={self.request_id!r})"
        )

    @classmethod
    def from_response(
        cls,
        status: int,
        headers: Mapping[str, str],
        body: bytes,
        reason: str = "",
        retry_after: Optional[float] = None,
    ) -> "ShutterError":
        """Builds the error from an HTTP error response (JSON ``{"error": {...}, "request_id"}``)."""
        lowered = {k.lower(): v for k, v in headers.items()}
        request_id = lowered.get("x-request-id") or None
        parsed: Any = None
        try:
            parsed = json.loads(body.decode("utf-8")) if body else None
        except (UnicodeDecodeError, ValueError):
            parsed = None
        error = parsed.get("error") if isinstance(parsed, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            body_request_id = parsed.get("request_id") if isinstance(parsed, dict) else None
            return cls(
                str(error.get("message") or error["code"]),
                status=status,
                code=error["code"],
                details=error.get("details"),
                request_id=request_id or (body_request_id if isinstance(body_request_id, str) else None),
                retry_after=retry_after,
                headers=lowered,
            )
        snippet = body[:200].decode("utf-8", "replace").strip()
        message = f"HTTP {status} {reason}".strip()
        if snippet:
            message += f": {snippet}"
        return cls(message, status=status, code="http_error", request_id=request_id, retry_after=retry_after, headers=lowered)
