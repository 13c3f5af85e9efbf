"""The HTTP client: header authentication, bounded retries, errors as ShutterError."""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import platform
import random
import socket
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Union
from urllib.parse import quote

from ._version import __version__
from .errors import ShutterError
from .signing import Expires, build_signed_url

if TYPE_CHECKING:  # type checkers ship typing_extensions; nothing is imported at run time
    from typing_extensions import Unpack

    from .options import AnimateOptions, TakeOptions

__all__ = ["Client", "Jobs", "SavedFile", "DEFAULT_BASE_URL"]

DEFAULT_BASE_URL = "http://localhost:8080"

#: Statuses worth another try: the server says "not now" (limits, queue full, shutting down).
RETRY_STATUSES = frozenset({429, 503})
#: 429 codes that waiting a few seconds cannot fix.
NO_RETRY_CODES = frozenset({"quota_exceeded"})
#: Failures where the request may not have been seen at all, or the answer was lost.
RETRY_EXCEPTIONS = (ConnectionResetError, ConnectionAbortedError, BrokenPipeError, http.client.RemoteDisconnected)
#: Error bodies are small JSON; never read more than this of one.
MAX_ERROR_BODY = 1024 * 1024
#: Job states after which nothing changes.
FINAL_JOB_STATES = frozenset({"succeeded", "failed"})


@dataclass(frozen=True)
class SavedFile:
    """What :meth:`Client.take_to_file` wrote."""

    path: str
    size: int
    content_type: Optional[str]
    request_id: Optional[str]
    #: Response headers, lower-case names (``x-shutter-truncated``, ``server-timing``, ...).
    headers: Dict[str, str] = field(default_factory=dict)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect would turn a POST into a GET without its body: surface it instead."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


def _retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After as seconds: a number, or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _read_failure(failure: BaseException, response: Any) -> ShutterError:
    """A body that stopped coming: not retried, since the capture was made (and charged)."""
    timed_out = isinstance(failure, (socket.timeout, TimeoutError))
    return ShutterError(
        f"reading the response failed: {failure!r}",
        status=getattr(response, "status", None),
        code="timeout" if timed_out else "connection_error",
        request_id=response.headers.get("x-request-id") if getattr(response, "headers", None) is not None else None,
    )


def _lower_headers(message: Any) -> Dict[str, str]:
    return {name.lower(): value for name, value in message.items()} if message is not None else {}


class Client:
    """A client of one Shutter service.

    Args:
        api_key: the API key, sent in the ``apikey`` header (never in the URL).
        base_url: the service's root URL, e.g. ``https://shots.example.com`` (no ``/v1``).
        timeout: seconds a single network operation (connect, or a wait for the next bytes) may
            take. Captures may take up to their own ``timeout`` option (90 s at most) plus queueing.
        max_retries: further attempts after a 429/503 or a reset connection (0 turns retries off).
        max_retry_time: seconds after the first attempt past which no retry starts; a
            ``Retry-After`` that would end later is not waited for and the error is raised.
        user_agent: replaces the default ``shutter-client-python/<version>`` User-Agent.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        *,
        timeout: float = 120.0,
        max_retries: int = 3,
        max_retry_time: float = 60.0,
        user_agent: Optional[str] = None,
    ) -> None:
        if not api_key:
            raise ValueError("api_key is required")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL such as https://shots.example.com")
        if max_retries < 0 or max_retry_time < 0:
            raise ValueError("max_retries and max_retry_time must not be negative")
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_time = max_retry_time
        self.user_agent = user_agent or f"shutter-client-python/{__version__} (Python {platform.python_version()})"
        self.jobs = Jobs(self)
        self._opener = urllib.request.build_opener(_NoRedirect())
        # Seams for tests: how the client sleeps and reads the clock.
        self._sleep: Callable[[float], None] = time.sleep
        self._clock: Callable[[], float] = time.monotonic

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r})"

    # ---- captures ---------------------------------------------------------------------------

    def take(self, **options: Unpack[TakeOptions]) -> bytes:
        """Captures a page and returns the file's bytes (PNG by default).

        Options are the API's parameters as keyword arguments: ``take(url="https://example.com",
        format="jpg", quality=70, full_page=True)``. The request is a POST with a JSON body,
        so ``html`` of up to 5 MB and lists such as ``hide_selectors=[...]`` travel as they are.
        """
        with self._request("POST", "/v1/take", body=dict(options)) as response:
            try:
                return response.read()
            except (OSError, http.client.HTTPException) as failure:
                raise _read_failure(failure, response) from failure

    def animate(self, **options: Unpack[AnimateOptions]) -> bytes:
        """Records a video of a page (``POST /v1/animate``) and returns its bytes: mp4 by default.

        The page's options are take's (``url``, ``viewport_width``, ``hide_selectors``, …), plus the
        video's: ``format`` (mp4, webm, gif), ``duration``, ``fps``, ``scenario`` ("default" or
        "scroll") and the ``scroll_*`` options, e.g. ``animate(url="https://example.com",
        scenario="scroll", scroll_back=True)``.
        """
        with self._request("POST", "/v1/animate", body=dict(options)) as response:
            try:
                return response.read()
            except (OSError, http.client.HTTPException) as failure:
                raise _read_failure(failure, response) from failure

    def take_to_file(
        self, path: Union[str, "os.PathLike[str]"], *, chunk_size: int = 64 * 1024, **options: Unpack[TakeOptions]
    ) -> SavedFile:
        """Captures a page straight into a file, ``chunk_size`` bytes at a time.

        The body never sits in memory as a whole, so a full-page capture of tens of megabytes
        costs no more than one chunk. The file appears at ``path`` only once complete (written
        beside it under a temporary name, then renamed); on failure nothing is left behind.
        """
        if chunk_size <= 0:
            raise ValueError("chunk_size must be positive")
        target = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(target))
        with self._request("POST", "/v1/take", body=dict(options)) as response:
            headers = _lower_headers(response.headers)
            buffer = bytearray(chunk_size)
            view = memoryview(buffer)
            size = 0
            fd, partial = tempfile.mkstemp(prefix=".shutter-", suffix=".part", dir=directory)
            try:
                with os.fdopen(fd, "wb") as out:
                    while True:
                        try:
                            count = response.readinto(buffer)
                        except (OSError, http.client.HTTPException) as failure:
                            raise _read_failure(failure, response) from failure
                        if not count:
                            break
                        out.write(view[:count])
                        size += count
                expected = headers.get("content-length")
                if expected is not None and expected.isdigit() and int(expected) != size:
                    raise ShutterError(
                        f"the response ended after {size} of {expected} bytes",
                        code="connection_error",
                        request_id=headers.get("x-request-id"),
                        headers=headers,
                    )
                os.replace(partial, target)
            except BaseException:
                try:
                    os.unlink(partial)
                except OSError:
                    pass
                raise
            finally:
                view.release()
        return SavedFile(
            path=target,
            size=size,
            content_type=headers.get("content-type"),
            request_id=headers.get("x-request-id"),
            headers=headers,
        )

    def take_json(self, **options: Unpack[TakeOptions]) -> Dict[str, Any]:
        """Captures with ``response_type=json``: the metadata (and, when small and not stored,
        ``data_base64``) instead of the file. See DESIGN §4.2 for the fields."""
        body: Dict[str, Any] = dict(options)
        body["response_type"] = "json"
        return self._json("POST", "/v1/take", body=body)

    # ---- account and service ----------------------------------------------------------------

    def status(self) -> Dict[str, Any]:
        """``GET /v1/status``: the calling key, its plan, usage, limits and the service's state."""
        return self._json("GET", "/v1/status")

    def devices(self) -> List[Dict[str, Any]]:
        """``GET /v1/devices``: the names ``viewport_device`` accepts, with what each one sets
        (``name``, ``viewport``, ``device_scale_factor``, ``mobile``, ``has_touch``, ``user_agent``)."""
        answer = self._json("GET", "/v1/devices")
        devices = answer.get("devices")
        return list(devices) if isinstance(devices, list) else []

    # ---- jobs -------------------------------------------------------------------------------

    def bulk(
        self,
        requests: Sequence[TakeOptions],
        defaults: Optional[TakeOptions] = None,
        webhook_url: Optional[str] = None,
        *,
        idempotency_key: Optional[str] = None,
    ) -> Dict[str, Any]:
        """``POST /v1/bulk``: up to 50 captures queued as jobs at once (202, a job per entry).

        Each entry is merged over ``defaults`` by the server; one bad entry fails the whole call
        with a 400 naming its index and nothing is queued. An ``Idempotency-Key`` is sent (a
        random one unless given) so a retried call cannot queue the captures twice.
        """
        payload: Dict[str, Any] = {"requests": [dict(entry) for entry in requests]}
        if defaults is not None:
            payload["defaults"] = dict(defaults)
        if webhook_url is not None:
            payload["webhook_url"] = webhook_url
        key = idempotency_key or str(uuid.uuid4())
        return self._json("POST", "/v1/bulk", body=payload, headers={"Idempotency-Key": key})

    # ---- signed links -----------------------------------------------------------------------

    def signed_url(
        self,
        options: TakeOptions,
        key_id: str,
        signing_secret: str,
        expires: Optional[Expires] = None,
    ) -> str:
        """A ``GET /v1/take`` link that works without the API key, for ``<img src>`` or social cards.

        ``key_id`` is the key's public id (``status()["key"]["id"]``), ``signing_secret`` the key's
        signing secret (shown with the key). ``expires``: unix seconds, an aware ``datetime``, or a
        ``timedelta`` from now; without it the link does not expire. No request is made.
        """
        return build_signed_url(self.base_url, options, key_id, signing_secret, expires)

    # ---- plumbing ---------------------------------------------------------------------------

    def _json(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Dict[str, Any]:
        with self._request(method, path, body=body, headers=headers) as response:
            request_id = response.headers.get("x-request-id")
            try:
                raw = response.read()
            except (OSError, http.client.HTTPException) as failure:
                raise _read_failure(failure, response) from failure
        try:
            parsed = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise ShutterError(
                f"expected a JSON answer from {method} {path}, got {len(raw)} bytes of something else",
                status=response.status,
                code="invalid_response",
                request_id=request_id,
            ) from error
        if not isinstance(parsed, dict):
            raise ShutterError(
                f"expected a JSON object from {method} {path}", status=response.status, code="invalid_response", request_id=request_id
            )
        return parsed

    def _request(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> http.client.HTTPResponse:
        """Sends one API request, retrying what may be retried; returns the open 2xx response."""
        data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8") if body is not None else None
        all_headers = {
            "apikey": self.api_key,
            "Accept": "*/*",
            "User-Agent": self.user_agent,
        }
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        url = self.base_url + path
        started = self._clock()
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, headers=all_headers, method=method)
            try:
                response = self._opener.open(request, timeout=self.timeout)
            except urllib.error.HTTPError as answer:
                error = self._error_of(answer)
                if answer.code in RETRY_STATUSES and error.code not in NO_RETRY_CODES:
                    delay = error.retry_after if error.retry_after is not None else self._backoff(attempt)
                    if self._may_retry(attempt, started, delay):
                        attempt += 1
                        self._sleep(delay)
                        continue
                raise error from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as failure:
                cause = failure.reason if isinstance(failure, urllib.error.URLError) else failure
                if isinstance(cause, socket.timeout) or isinstance(cause, TimeoutError):
                    raise ShutterError(
                        f"{method} {path}: no answer within {self.timeout} s", code="timeout"
                    ) from failure
                if isinstance(cause, RETRY_EXCEPTIONS):
                    delay = self._backoff(attempt)
                    if self._may_retry(attempt, started, delay):
                        attempt += 1
                        self._sleep(delay)
                        continue
                raise ShutterError(f"{method} {path}: {cause}", code="connection_error") from failure
            return response  # type: ignore[no-any-return]

    def _may_retry(self, attempt: int, started: float, delay: float) -> bool:
        return attempt < self.max_retries and (self._clock() - started) + delay <= self.max_retry_time

    @staticmethod
    def _backoff(attempt: int) -> float:
        """0.5 s, 1 s, 2 s, ... up to 8 s, with jitter so clients that failed together do not return together."""
        return min(8.0, 0.5 * (2**attempt)) * (0.5 + random.random() / 2)

    @staticmethod
    def _error_of(answer: urllib.error.HTTPError) -> ShutterError:
        headers = _lower_headers(answer.headers)
        try:
            body = answer.read(MAX_ERROR_BODY)
        except (OSError, http.client.HTTPException):
            body = b""
        finally:
            answer.close()
        return ShutterError.from_response(
            answer.code, headers, body, reason=str(answer.reason or ""), retry_after=_retry_after(headers.get("retry-after"))
        )


class Jobs:
    """Asynchronous captures: ``client.jobs.create(...)``, ``get(job_id)``, ``wait(job_id)``."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def create(self, *, idempotency_key: Optional[str] = None, **options: Unpack[TakeOptions]) -> Dict[str, Any]:
        """Queues a capture (``async=1``): ``{"job_id", "status": "queued", "status_url", "request_id"}``.

        Pass ``webhook_url=`` to be called when it finishes and ``external_id=`` to have your own id
        echoed. An ``Idempotency-Key`` is sent (a random one unless given), so a retried call
        answers the same job instead of queuing a second one.
        """
        body: Dict[str, Any] = dict(options)
        body["async"] = True
        key = idempotency_key or str(uuid.uuid4())
        return self._client._json("POST", "/v1/take", body=body, headers={"Idempotency-Key": key})

    def get(self, job_id: str) -> Dict[str, Any]:
        """``GET /v1/jobs/{id}``: the job's status, and its result or error once finished."""
        return self._client._json("GET", f"/v1/jobs/{quote(str(job_id), safe='')}")

    def wait(
        self,
        job_id: Union[str, Mapping[str, Any]],
        timeout: float = 300.0,
        poll_interval: float = 1.0,
    ) -> Dict[str, Any]:
        """Polls until the job has ``succeeded`` or ``failed`` and returns it (check ``status``).

        Accepts the id or the dict ``create`` returned. Raises ``ShutterError`` with code
        ``wait_timeout`` if the job is still unfinished after ``timeout`` seconds.
        """
        identifier = str(job_id["job_id"]) if isinstance(job_id, Mapping) else job_id
        clock, sleep = self._client._clock, self._client._sleep
        deadline = clock() + timeout
        while True:
            job = self.get(identifier)
            if job.get("status") in FINAL_JOB_STATES:
                return job
            left = deadline - clock()
            if left <= 0:
                raise ShutterError(
                    f"job {identifier} is still {job.get('status')} after {timeout} s", code="wait_timeout", details=job
                )
            sleep(min(poll_interval, left))
