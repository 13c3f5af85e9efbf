"""The client against a real Shutter (node dist/bundle/main.js serve, real Chromium), pages on 127.0.0.1.

Features of DESIGN.md §4.2/§4.3 that the server may not have yet are probed when their test runs
and skipped until the server answers as the contract says.
"""

from __future__ import annotations

import base64
import datetime as dt
import glob
import json
import os
import subprocess
import tempfile
import time
import tracemalloc
import unittest
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional

from _support import (
    MOVING_BOX_PAGE,
    SIMPLE_PAGE,
    TALL_PAGE,
    FixtureServer,
    ShutterServer,
    png_size,
    skip_unless_feature,
)

import shutter_client
from shutter_client import TAKE_OPTION_NAMES, Client, ShutterError, verify_webhook

SERVER: Optional[ShutterServer] = None
PAGES: Optional[FixtureServer] = None


def setUpModule() -> None:  # noqa: N802 - unittest's name
    global SERVER, PAGES
    PAGES = FixtureServer(
        {
            "/page.html": ("text/html; charset=utf-8", SIMPLE_PAGE),
            "/tall.html": ("text/html; charset=utf-8", TALL_PAGE),
            "/box.html": ("text/html; charset=utf-8", MOVING_BOX_PAGE),
        }
    )
    try:
        SERVER = ShutterServer()
    except BaseException:
        PAGES.close()
        raise


def tearDownModule() -> None:  # noqa: N802
    if SERVER is not None:
        SERVER.stop()
    if PAGES is not None:
        PAGES.close()


def server() -> ShutterServer:
    assert SERVER is not None, "setUpModule did not run"
    return SERVER


def requires(feature: str):  # type: ignore[no-untyped-def]
    return skip_unless_feature(server, feature)


def page(path: str = "/page.html") -> str:
    assert PAGES is not None
    return PAGES.base + path


def fetch(url: str, headers: Optional[Dict[str, str]] = None) -> "tuple[int, Dict[str, str], bytes]":
    """A plain GET without the client (and without an API key)."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as answer:
        return answer.code, {k.lower(): v for k, v in answer.headers.items()}, answer.read()


class TakeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = server().client

    def test_take_png_defaults(self) -> None:
        data = self.client.take(url=page())
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(png_size(data), (1280, 800))

    def test_take_jpg_with_options_and_html_source(self) -> None:
        data = self.client.take(html="<h1>inline</h1>", format="jpg", quality=60, viewport_width=640, viewport_height=480)
        self.assertEqual(data[:3], b"\xff\xd8\xff")
        png = self.client.take(url=page(), viewport_width=800, viewport_height=600, hide_selectors=[".ad", "#nothing"])
        self.assertEqual(png_size(png), (800, 600))

    def test_take_to_file_streams_a_20_mb_full_page_png(self) -> None:
        directory = tempfile.mkdtemp(prefix="shutter-pyclient-file-")
        path = os.path.join(directory, "tall.png")
        tracemalloc.start()
        try:
            saved = self.client.take_to_file(path, chunk_size=16 * 1024, url=page("/tall.html?h=10000"), full_page=True)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        try:
            size = os.path.getsize(path)
            self.assertEqual(saved.size, size)
            self.assertEqual(saved.path, path)
            self.assertEqual(saved.content_type, "image/png")
            self.assertTrue(saved.request_id)
            self.assertGreater(size, 15_000_000, "the fixture should make a PNG of about 20 MB")
            with open(path, "rb") as written:
                self.assertEqual(png_size(written.read(32)), (1280, 10000))
            # Read a chunk at a time: Python's allocations peak far below the file's size.
            self.assertLess(peak, 2_000_000, f"peak {peak} bytes for a {size}-byte file")
            self.assertLess(peak, size / 10)
            self.assertEqual(os.listdir(directory), ["tall.png"], "no partial file left beside it")
        finally:
            for name in glob.glob(os.path.join(directory, "*")) + glob.glob(os.path.join(directory, ".*")):
                os.unlink(name)
            os.rmdir(directory)

    def test_take_to_file_leaves_nothing_on_error(self) -> None:
        directory = tempfile.mkdtemp(prefix="shutter-pyclient-file-")
        try:
            with self.assertRaises(ShutterError) as raised:
                self.client.take_to_file(os.path.join(directory, "x.png"), url=page(), quality=50)
            self.assertEqual(raised.exception.status, 400)
            self.assertEqual(os.listdir(directory), [])
        finally:
            os.rmdir(directory)

    @requires("response_type_json")
    def test_take_json(self) -> None:
        answer = self.client.take_json(url=page())
        self.assertEqual(answer["format"], "png")
        self.assertEqual(answer["content_type"], "image/png")
        self.assertEqual((answer["width"], answer["height"]), (1280, 800))
        self.assertTrue(answer["request_id"])
        self.assertIn("timings", answer)
        self.assertEqual(png_size(base64.b64decode(answer["data_base64"])), (1280, 800))


def ffmpeg_tool(name: str, args: List[str], video: bytes) -> bytes:
    """Runs the real ffprobe/ffmpeg on a video given on stdin; its stdout."""
    return subprocess.run([name, "-v", "error", *args], input=video, stdout=subprocess.PIPE, check=True, timeout=60).stdout


class AnimateTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = server().client

    def test_animate_answers_the_video_as_it_plays(self) -> None:
        used = self.client.status()["usage"]["used"]
        video = self.client.animate(url=page("/box.html"), format="gif", duration=1, fps=5, viewport_width=320, viewport_height=200)
        self.assertEqual(video[:6], b"GIF89a")
        entries = "stream=codec_name,width,height,nb_read_frames"
        probe = ffmpeg_tool("ffprobe", ["-count_frames", "-show_entries", entries, "-of", "json", "-i", "pipe:0"], video)
        probed = json.loads(probe)["streams"][0]
        self.assertEqual((probed["codec_name"], probed["width"], probed["height"], int(probed["nb_read_frames"])), ("gif", 320, 200, 5))
        # The box slides 200 px in 2 s: 20 px further right in each frame at 5 fps.
        grey = ffmpeg_tool("ffmpeg", ["-i", "pipe:0", "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1"], video)
        frames = [grey[i * 320 * 200 : (i + 1) * 320 * 200] for i in range(5)]
        lefts = [next(x for x in range(320) if frame[40 * 320 + x] < 128) for frame in frames]
        for before, after in zip(lefts, lefts[1:]):
            self.assertLessEqual(abs(after - before - 20), 3, f"box edges {lefts}")
        # One video, one capture.
        self.assertEqual(self.client.status()["usage"]["used"], used + 1)

    def test_a_still_image_option_is_a_400_naming_it(self) -> None:
        with self.assertRaises(ShutterError) as raised:
            self.client.animate(url=page(), duration=1, quality=80)
        self.assertEqual(raised.exception.status, 400)
        self.assertEqual(raised.exception.code, "parameter_not_applicable")
        self.assertEqual([d.get("parameter") for d in raised.exception.details], ["quality"])


class ErrorsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = server().client

    def test_400_is_a_shutter_error_with_code_details_and_request_id(self) -> None:
        with self.assertRaises(ShutterError) as raised:
            self.client.take(url=page(), quality=150)
        error = raised.exception
        self.assertEqual(error.status, 400)
        self.assertIn(error.code, ("invalid_parameter", "parameter_not_applicable"))
        self.assertTrue(error.message)
        self.assertIsInstance(error.details, list)
        self.assertIn("quality", [d.get("parameter") for d in error.details])
        self.assertTrue(error.request_id)
        self.assertEqual(error.request_id, error.headers.get("x-request-id"))
        self.assertIn(error.request_id, str(error))

    def test_unknown_parameter_names_a_suggestion(self) -> None:
        with self.assertRaises(ShutterError) as raised:
            self.client.take(url=page(), **{"full_pgae": True})  # type: ignore[arg-type]
        self.assertEqual(raised.exception.code, "unknown_parameter")
        self.assertIn("full_page", json.dumps(raised.exception.details))

    def test_bad_key_is_401(self) -> None:
        with self.assertRaises(ShutterError) as raised:
            Client("not-a-real-key-0123456789", server().base, max_retries=0).status()
        self.assertEqual((raised.exception.status, raised.exception.code), (401, "invalid_api_key"))

    def test_unreachable_target_is_422(self) -> None:
        with self.assertRaises(ShutterError) as raised:
            self.client.take(url="http://127.0.0.1:9/", timeout=10)
        self.assertEqual(raised.exception.status, 422)
        self.assertEqual(raised.exception.code, "navigation_failed")


class ServiceTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = server().client

    def test_status(self) -> None:
        status = self.client.status()
        self.assertEqual(status["status"], "ok")
        self.assertEqual(status["version"], shutter_client.__version__)
        self.assertEqual(status["key"]["name"], "bootstrap")
        self.assertTrue(status["key"]["id"])
        self.assertEqual(status["plan"]["name"], "scale")
        self.assertIn("remaining", status["usage"])

    def test_devices(self) -> None:
        devices = self.client.devices()
        self.assertGreater(len(devices), 10)
        names = {d["name"] for d in devices}
        self.assertIn("iphone_15_pro", names)
        phone = next(d for d in devices if d["name"] == "iphone_15_pro")
        for field in ("viewport", "device_scale_factor", "mobile", "has_touch", "user_agent"):
            self.assertIn(field, phone)
        data = self.client.take(url=page(), viewport_device="iphone_15_pro")
        expected = (
            round(phone["viewport"]["width"] * phone["device_scale_factor"]),
            round(phone["viewport"]["height"] * phone["device_scale_factor"]),
        )
        self.assertEqual(png_size(data), expected)

    def test_generated_options_match_the_served_openapi(self) -> None:
        status, _, body = fetch(server().base + "/openapi.json")
        self.assertEqual(status, 200)
        served = json.loads(body)["components"]["schemas"]["TakeOptions"]["properties"]
        self.assertEqual(list(TAKE_OPTION_NAMES), list(served), "run node clients/python/scripts/generate_types.mjs")


class SignedLinkTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = server().client

    def _key(self) -> "tuple[str, str]":
        key = self.client.status()["key"]
        return key["id"], key["signing_secret"]

    @requires("signed_links")
    def test_signed_link_is_accepted_without_the_api_key(self) -> None:
        key_id, secret = self._key()
        url = self.client.signed_url({"url": page(), "viewport_width": 640}, key_id, secret, expires=dt.timedelta(minutes=5))
        self.assertNotIn(server().api_key, url)
        status, headers, body = fetch(url)
        self.assertEqual(status, 200, body[:300])
        self.assertEqual(headers["content-type"], "image/png")
        self.assertEqual(png_size(body)[0], 640)

    @requires("signed_links")
    def test_tampered_or_expired_signed_links_are_refused(self) -> None:
        key_id, secret = self._key()
        url = self.client.signed_url({"url": page(), "viewport_width": 640}, key_id, secret)
        status, _, body = fetch(url.replace("viewport_width=640", "viewport_width=641"))
        self.assertEqual(status, 403, body[:300])
        self.assertEqual(json.loads(body)["error"]["code"], "signature_invalid")
        expired = self.client.signed_url({"url": page()}, key_id, secret, expires=int(time.time()) - 60)
        status, _, body = fetch(expired)
        self.assertEqual(status, 403, body[:300])
        unsigned = url.split("&signature=")[0]
        status, _, _ = fetch(unsigned)
        self.assertIn(status, (401, 403))


class JobsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = server().client

    def _png_of(self, job: Dict[str, Any]) -> bytes:
        status, _, body = fetch(job["result"]["url"])
        self.assertEqual(status, 200)
        return body

    @requires("async_jobs")
    def test_create_get_wait(self) -> None:
        created = self.client.jobs.create(url=page(), viewport_width=700, external_id="order-42")
        self.assertEqual(created["status"], "queued")
        self.assertTrue(created["job_id"])
        self.assertIn(created["job_id"], created["status_url"])
        seen = self.client.jobs.get(created["job_id"])
        self.assertEqual(seen["job_id"], created["job_id"])
        self.assertIn(seen["status"], ("queued", "running", "succeeded"))
        job = self.client.jobs.wait(created, timeout=120, poll_interval=0.5)
        self.assertEqual(job["status"], "succeeded", job)
        self.assertEqual(job["external_id"], "order-42")
        self.assertEqual(job["result"]["format"], "png")
        self.assertEqual(png_size(self._png_of(job))[0], 700)

    @requires("async_jobs")
    def test_unknown_job_is_404(self) -> None:
        with self.assertRaises(ShutterError) as raised:
            self.client.jobs.get("no-such-job")
        self.assertEqual((raised.exception.status, raised.exception.code), (404, "not_found"))

    @requires("bulk")
    def test_bulk(self) -> None:
        answer = self.client.bulk([{"url": page()}, {"url": page(), "viewport_width": 500}], defaults={"viewport_height": 400})
        jobs: List[Dict[str, Any]] = answer["jobs"]
        self.assertEqual(len(jobs), 2)
        finished = [self.client.jobs.wait(j["job_id"], timeout=120, poll_interval=0.5) for j in jobs]
        self.assertEqual([j["status"] for j in finished], ["succeeded", "succeeded"], finished)
        self.assertEqual(png_size(self._png_of(finished[1])), (500, 400))

    @requires("bulk")
    def test_bulk_with_a_bad_entry_queues_nothing(self) -> None:
        with self.assertRaises(ShutterError) as raised:
            self.client.bulk([{"url": page()}, {"url": page(), "quality": 500}])
        self.assertEqual(raised.exception.status, 400)
        self.assertIn("1", json.dumps(raised.exception.details) + raised.exception.message)

    @requires("webhooks")
    def test_webhook_signed_by_the_server_verifies(self) -> None:
        receiver = FixtureServer({})
        try:
            secret = self.client.status()["key"]["signing_secret"]
            created = self.client.jobs.create(url=page(), webhook_url=receiver.base + "/hook", external_id="hook-1")
            posts = receiver.wait_for_posts(1, timeout=120)
            self.assertTrue(posts, "no webhook arrived within 120 s")
            post = posts[0]
            header = next(v for k, v in post["headers"].items() if k.lower() == "x-shutter-signature")
            self.assertTrue(verify_webhook(post["body"], header, secret))
            delivered = json.loads(post["body"])
            self.assertEqual(delivered["job_id"], created["job_id"])
            self.assertEqual(delivered["external_id"], "hook-1")
            tampered = post["body"].replace(b"hook-1", b"hook-2")
            self.assertFalse(verify_webhook(tampered, header, secret))
            self.assertFalse(verify_webhook(post["body"], header, secret + "x"))
        finally:
            receiver.close()


if __name__ == "__main__":
    unittest.main()
