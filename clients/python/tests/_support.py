"""Test helpers: a real Shutter started from dist/, fixture pages and scriptable fake APIs on 127.0.0.1.

Imported first by every test module; it puts clients/python on sys.path so the tests run with
``python3 -m unittest discover -s clients/python/tests`` from the repository root, nothing installed.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

TESTS_DIR = Path(__file__).resolve().parent
CLIENT_DIR = TESTS_DIR.parent
REPO_ROOT = CLIENT_DIR.parent.parent
if str(CLIENT_DIR) not in sys.path:
    sys.path.insert(0, str(CLIENT_DIR))

from shutter_client import Client, ShutterError  # noqa: E402

SERVER_ENTRY = REPO_ROOT / "dist" / "bundle" / "main.js"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# ---- fixture pages ---------------------------------------------------------------------------

SIMPLE_PAGE = b"""<!doctype html><html><head><title>Shutter client fixture</title>
<meta name="description" content="A page for the Python client's tests"></head>
<body style="margin:0;background:#2a6;font:32px sans-serif"><h1 id="title">Hello from 127.0.0.1</h1>
<p class="ad">an ad</p></body></html>"""

# A very tall page of noisy gradients drawn on canvases (no big transfer to the browser); as PNG
# it is about 2 bytes a pixel, so 1280 x 10000 CSS px comes to some 20 MB.
TALL_PAGE = b"""<!doctype html><html><head><style>html,body{margin:0;padding:0;background:#fff}
canvas{display:block}</style></head><body><script>
const p = new URLSearchParams(location.search);
const height = +(p.get('h') || 10000), amp = +(p.get('amp') || 256), band = 500;
let seed = 12345; const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
for (let top = 0; top < height; top += band) {
  const h = Math.min(band, height - top);
  const c = document.createElement('canvas'); c.width = 1280; c.height = h; document.body.appendChild(c);
  const ctx = c.getContext('2d'); const img = ctx.createImageData(1280, h); const d = img.data;
  for (let y = 0; y < h; y++) for (let x = 0; x < 1280; x++) {
    const i = (y * 1280 + x) * 4, g = ((x + top + y) >> 3) & 255;
    d[i] = (g + rnd() % amp) & 255; d[i + 1] = (255 - g + rnd() % amp) & 255;
    d[i + 2] = (g * 3 + rnd() % amp) & 255; d[i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
}
</script></body></html>"""


# A box sliding 200 px in 2 s by a linear CSS animation (/v1/animate seeks it frame by frame).
MOVING_BOX_PAGE = b"""<!doctype html><html><head><style>html,body{margin:0;background:#fff}
#box{position:absolute;top:20px;left:0;width:20px;height:40px;background:#000;animation:slide 2s linear infinite}
@keyframes slide{from{left:0}to{left:200px}}</style></head><body><div id="box"></div></body></html>"""


class _QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


class FixtureServer:
    """Serves fixed pages on 127.0.0.1 and records POSTs (a webhook receiver)."""

    def __init__(self, pages: Dict[str, Tuple[str, bytes]]) -> None:
        self.pages = pages
        self.posts: List[Dict[str, Any]] = []
        self.posted = threading.Condition()
        outer = self

        class Handler(_QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                page = outer.pages.get(self.path.split("?")[0])
                if page is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                content_type, body = page
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with outer.posted:
                    outer.posts.append({"path": self.path, "headers": dict(self.headers.items()), "body": body})
                    outer.posted.notify_all()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def wait_for_posts(self, count: int, timeout: float) -> List[Dict[str, Any]]:
        with self.posted:
            self.posted.wait_for(lambda: len(self.posts) >= count, timeout)
            return list(self.posts)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ---- a scriptable fake API ------------------------------------------------------------------

Answer = Tuple[int, Dict[str, str], bytes]


def json_answer(status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> Answer:
    return status, {"Content-Type": "application/json; charset=utf-8", **(headers or {})}, json.dumps(body).encode()


def error_answer(status: int, code: str, message: str, request_id: str, headers: Optional[Dict[str, str]] = None) -> Answer:
    return json_answer(
        status, {"error": {"code": code, "message": message}, "request_id": request_id}, {"X-Request-Id": request_id, **(headers or {})}
    )


class FakeApi:
    """Answers requests from a script: a list of answers (the last one repeats) or a function of the request.

    An answer may also be the string ``"reset"``: the connection is torn down with a TCP RST.
    """

    def __init__(self, script: Any) -> None:
        self.script = script
        self.requests: List[Dict[str, Any]] = []
        outer = self

        class Handler(_QuietHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                record = {
                    "method": self.command,
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body,
                    "at": time.monotonic(),
                }
                outer.requests.append(record)
                answer = outer._next(record)
                if answer == "reset":
                    import struct

                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                status, headers, payload = answer
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if not any(name.lower() == "content-length" for name in headers):
                    self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                if any(name.lower() == "connection" and value == "close" for name, value in headers.items()):
                    self.close_connection = True

            do_GET = _answer  # noqa: N815
            do_POST = _answer  # noqa: N815

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def _next(self, record: Dict[str, Any]) -> Any:
        if callable(self.script):
            return self.script(record)
        index = min(len(self.requests) - 1, len(self.script) - 1)
        return self.script[index]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ---- a real Shutter ------------------------------------------------------------------------


class ShutterServer:
    """``node dist/bundle/main.js serve`` on a free port with a fresh data dir and bootstrap key."""

    def __init__(self) -> None:
        if not SERVER_ENTRY.exists():
            raise RuntimeError(f"{SERVER_ENTRY} is missing: build the server first (make build)")
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("node is not on PATH")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.data_dir = tempfile.mkdtemp(prefix="shutter-pyclient-")
        self.api_key = "pyclient_" + secrets.token_urlsafe(30).replace("-", "a").replace("_", "b")
        self.signing_secret = secrets.token_hex(32)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHUTTER_")}
        env.update(
            SHUTTER_PORT=str(self.port),
            SHUTTER_HOST="127.0.0.1",
            SHUTTER_DATA_DIR=self.data_dir,
            SHUTTER_BOOTSTRAP_KEY=self.api_key,
            SHUTTER_ALLOWED_PRIVATE_NETWORKS="127.0.0.0/8",
            SHUTTER_LOG_LEVEL="warn",
            SHUTTER_SIGNING_SECRET=self.signing_secret,
            SHUTTER_CONCURRENCY="2",
        )
        self.log = open(os.path.join(self.data_dir, "server.log"), "w+b")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [node, str(SERVER_ENTRY), "serve"],
            cwd=str(REPO_ROOT),
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            self._wait_until("/healthz", 60)
            self._wait_until("/readyz", 60)
        except BaseException:
            self.stop()
            raise
        self.client = Client(self.api_key, self.base)
        self._features: Dict[str, bool] = {}

    def _wait_until(self, path: str, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"shutter exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.base + path, timeout=2) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"shutter did not answer {path} within {seconds} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def log_tail(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-4000:].decode("utf-8", "replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)  # the group this test started
                self.process.wait(10)
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    # -- what the server can do yet (wave 2 is being built): probed, cached ------------------

    def knows_parameter(self, name: str, value: Any) -> bool:
        """False while /v1/take answers ``unknown_parameter`` for it (asked without a source: nothing renders)."""
        try:
            self.client._json("POST", "/v1/take", body={name: value})
        except ShutterError as error:
            problems = error.details if isinstance(error.details, list) else []
            unknown = any(
                isinstance(p, dict) and p.get("parameter") == name and p.get("code") == "unknown_parameter" for p in problems
            ) or (error.code == "unknown_parameter" and name in error.message)
            return not unknown
        return True

    def has_route(self, method: str, path: str, body: Any = None) -> bool:
        """False while the server answers ``no route …``."""
        try:
            self.client._json(method, path, body=body)
        except ShutterError as error:
            return not (error.code == "not_found" and error.message.startswith("no route"))
        return True

    def feature(self, name: str) -> bool:
        if name not in self._features:
            self._features[name] = PROBES[name](self)
        return self._features[name]


def _signing_secret_shown(server: ShutterServer) -> bool:
    key = server.client.status().get("key") or {}
    return isinstance(key.get("signing_secret"), str) and bool(key.get("signing_secret"))


PROBES: Dict[str, Callable[[ShutterServer], bool]] = {
    # §4.2 response_type=json
    "response_type_json": lambda s: s.knows_parameter("response_type", "json"),
    # §4.2 signed links: the key's signing secret is shown in /v1/status, and access_key is a parameter
    "signed_links": lambda s: _signing_secret_shown(s),
    # §4.3 async=1 and GET /v1/jobs/{id}
    "async_jobs": lambda s: s.knows_parameter("async", True) and s.has_route("GET", "/v1/jobs/probe"),
    # §4.3 webhook_url, signed with the key's signing secret
    "webhooks": lambda s: s.feature("async_jobs") and s.knows_parameter("webhook_url", "http://127.0.0.1:9/") and _signing_secret_shown(s),
    # §4.3 POST /v1/bulk
    "bulk": lambda s: s.feature("async_jobs") and s.has_route("POST", "/v1/bulk", {}),
}

FEATURE_NOTES = {
    "response_type_json": "the server does not know response_type yet (DESIGN.md §4.2)",
    "signed_links": "the server has no signed links yet: no key.signing_secret in /v1/status (DESIGN.md §4.2)",
    "async_jobs": "the server has no async jobs yet: async unknown or no GET /v1/jobs/{id} (DESIGN.md §4.3)",
    "webhooks": "the server has no webhooks yet: webhook_url unknown or no key.signing_secret (DESIGN.md §4.3)",
    "bulk": "the server has no POST /v1/bulk yet (DESIGN.md §4.3)",
}


def skip_unless_feature(get_server: Callable[[], ShutterServer], name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """unittest.skipUnless, with the probe made against the running server when the test runs
    (the server starts in setUpModule, after decorators are evaluated)."""

    def decorate(test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(test)
        def wrapper(self: unittest.TestCase, *args: Any, **kwargs: Any) -> Any:
            if not get_server().feature(name):
                raise unittest.SkipTest(FEATURE_NOTES[name])
            return test(self, *args, **kwargs)

        return wrapper

    return decorate


def png_size(data: bytes) -> Tuple[int, int]:
    """Width and height from a PNG's IHDR."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR", "no IHDR first"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
