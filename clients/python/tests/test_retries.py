"""Retries, errors and the request shapes, against small fake APIs on 127.0.0.1 (scripted answers)."""

from __future__ import annotations

import json
import os
import tempfile
import time
import unittest
from typing import Any, Dict, List

from _support import FakeApi, error_answer, json_answer

from shutter_client import Client, ShutterError

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 100
OK_PNG = (200, {"Content-Type": "image/png", "X-Request-Id": "req-ok"}, PNG)


class FakeApiCase(unittest.TestCase):
    def serve(self, script: Any) -> FakeApi:
        api = FakeApi(script)
        self.addCleanup(api.close)
        return api

    def client(self, api: FakeApi, **settings: Any) -> Client:
        return Client("shk_test_key_0123456789", api.base, **settings)


class RetryTest(FakeApiCase):
    def test_503_with_retry_after_then_200(self) -> None:
        api = self.serve([error_answer(503, "overloaded", "queue full", "req-1", {"Retry-After": "1"}), OK_PNG])
        started = time.monotonic()
        data = self.client(api).take(url="https://example.com")
        elapsed = time.monotonic() - started
        self.assertEqual(data, PNG)
        self.assertEqual(len(api.requests), 2)
        gap = api.requests[1]["at"] - api.requests[0]["at"]
        self.assertGreaterEqual(gap, 0.95, "Retry-After: 1 is honoured")
        self.assertLess(elapsed, 5)
        # The retry is the same request.
        self.assertEqual(api.requests[0]["body"], api.requests[1]["body"])

    def test_429_rate_limited_is_retried(self) -> None:
        api = self.serve([error_answer(429, "rate_limited", "slow down", "req-1", {"Retry-After": "0"}), OK_PNG])
        self.assertEqual(self.client(api).take(url="https://example.com"), PNG)
        self.assertEqual(len(api.requests), 2)

    def test_no_retry_on_400(self) -> None:
        api = self.serve([error_answer(400, "invalid_parameter", "quality must be an integer from 0 to 100", "req-400"), OK_PNG])
        with self.assertRaises(ShutterError) as raised:
            self.client(api).take(url="https://example.com", quality=150)
        self.assertEqual(len(api.requests), 1)
        self.assertEqual((raised.exception.status, raised.exception.code), (400, "invalid_parameter"))
        self.assertEqual(raised.exception.request_id, "req-400")

    def test_no_retry_on_other_4xx_or_500(self) -> None:
        for status, code in [(401, "invalid_api_key"), (403, "target_forbidden"), (404, "not_found"), (422, "navigation_failed"), (500, "internal_error"), (504, "capture_timeout")]:
            with self.subTest(status=status):
                api = self.serve([error_answer(status, code, "no", "req"), OK_PNG])
                with self.assertRaises(ShutterError) as raised:
                    self.client(api).take(url="https://example.com")
                self.assertEqual(raised.exception.status, status)
                self.assertEqual(len(api.requests), 1)

    def test_429_quota_exceeded_surfaces_without_retrying(self) -> None:
        api = self.serve(
            [
                json_answer(
                    429,
                    {"error": {"code": "quota_exceeded", "message": "the monthly quota of 100 captures is used up"}, "request_id": "req-q"},
                    {"Retry-After": "1", "X-Quota-Remaining": "0"},
                ),
                OK_PNG,
            ]
        )
        with self.assertRaises(ShutterError) as raised:
            self.client(api).take(url="https://example.com")
        error = raised.exception
        self.assertEqual((error.status, error.code), (429, "quota_exceeded"))
        self.assertEqual(error.request_id, "req-q", "taken from the body when the header is missing")
        self.assertEqual(error.retry_after, 1.0)
        self.assertEqual(error.headers["x-quota-remaining"], "0")
        self.assertIn("quota", error.message)
        self.assertEqual(len(api.requests), 1)

    def test_retries_are_bounded_by_count(self) -> None:
        api = self.serve([error_answer(503, "overloaded", "queue full", "req", {"Retry-After": "0"})])
        with self.assertRaises(ShutterError) as raised:
            self.client(api, max_retries=2).take(url="https://example.com")
        self.assertEqual(raised.exception.code, "overloaded")
        self.assertEqual(len(api.requests), 3)

    def test_retries_are_bounded_by_time(self) -> None:
        api = self.serve([error_answer(503, "overloaded", "queue full", "req", {"Retry-After": "30"}), OK_PNG])
        started = time.monotonic()
        with self.assertRaises(ShutterError) as raised:
            self.client(api, max_retry_time=5).take(url="https://example.com")
        self.assertLess(time.monotonic() - started, 2, "a Retry-After past the budget is not waited for")
        self.assertEqual(raised.exception.retry_after, 30.0)
        self.assertEqual(len(api.requests), 1)

    def test_retries_can_be_turned_off(self) -> None:
        api = self.serve([error_answer(503, "overloaded", "queue full", "req", {"Retry-After": "0"}), OK_PNG])
        with self.assertRaises(ShutterError):
            self.client(api, max_retries=0).take(url="https://example.com")
        self.assertEqual(len(api.requests), 1)

    def test_retry_after_as_http_date(self) -> None:
        api = self.serve([error_answer(503, "overloaded", "busy", "req", {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), OK_PNG])
        self.assertEqual(self.client(api).take(url="https://example.com"), PNG)  # a date in the past: at once
        self.assertEqual(len(api.requests), 2)

    def test_connection_reset_is_retried(self) -> None:
        api = self.serve(["reset", OK_PNG])
        self.assertEqual(self.client(api).take(url="https://example.com"), PNG)
        self.assertEqual(len(api.requests), 2)

    def test_connection_refused_is_a_shutter_error(self) -> None:
        api = self.serve([OK_PNG])
        base = api.base
        api.close()
        with self.assertRaises(ShutterError) as raised:
            Client("shk_test_key_0123456789", base, max_retries=0).status()
        self.assertIsNone(raised.exception.status)
        self.assertEqual(raised.exception.code, "connection_error")

    def test_timeout_is_a_shutter_error(self) -> None:
        def slow(_: Dict[str, Any]) -> Any:
            time.sleep(1.5)
            return OK_PNG

        api = self.serve(slow)
        with self.assertRaises(ShutterError) as raised:
            self.client(api, timeout=0.5).take(url="https://example.com")
        self.assertEqual(raised.exception.code, "timeout")
        self.assertEqual(len(api.requests), 1, "a timeout is not retried: the capture may still be running")


class ErrorShapeTest(FakeApiCase):
    def test_non_json_error_body(self) -> None:
        api = self.serve([(502, {"Content-Type": "text/html"}, b"<html>Bad Gateway</html>")])
        with self.assertRaises(ShutterError) as raised:
            self.client(api).status()
        error = raised.exception
        self.assertEqual((error.status, error.code), (502, "http_error"))
        self.assertIn("Bad Gateway", error.message)

    def test_details_and_header_request_id(self) -> None:
        body = {
            "error": {
                "code": "invalid_parameter",
                "message": "quality must be an integer from 0 to 100",
                "details": [{"parameter": "quality", "message": "must be ≤ 100", "value": "150"}],
            },
            "request_id": "from-body",
        }
        api = self.serve([json_answer(400, body, {"X-Request-Id": "from-header"})])
        with self.assertRaises(ShutterError) as raised:
            self.client(api).take(url="https://example.com")
        error = raised.exception
        self.assertEqual(error.details, body["error"]["details"])
        self.assertEqual(error.request_id, "from-header")
        self.assertEqual(str(error), "400 invalid_parameter: quality must be an integer from 0 to 100 (request id from-header)")
        self.assertIsInstance(error, Exception)

    def test_truncated_file_leaves_nothing(self) -> None:
        api = self.serve([(200, {"Content-Type": "image/png", "Content-Length": "100000", "Connection": "close"}, PNG)])
        directory = tempfile.mkdtemp()
        self.addCleanup(os.rmdir, directory)
        with self.assertRaises(ShutterError) as raised:
            self.client(api).take_to_file(os.path.join(directory, "x.png"), url="https://example.com")
        self.assertEqual(raised.exception.code, "connection_error")
        self.assertEqual(os.listdir(directory), [])


class RequestShapeTest(FakeApiCase):
    def test_take_sends_json_with_the_apikey_header(self) -> None:
        api = self.serve([OK_PNG])
        self.client(api).take(url="https://example.com", full_page=True, hide_selectors=[".a", ".b"], viewport_width=800)
        request = api.requests[0]
        self.assertEqual((request["method"], request["path"]), ("POST", "/v1/take"))
        self.assertEqual(request["headers"]["apikey"], "shk_test_key_0123456789")
        self.assertNotIn("authorization", request["headers"])
        self.assertNotIn("apikey", request["path"])
        self.assertEqual(request["headers"]["content-type"], "application/json")
        self.assertTrue(request["headers"]["user-agent"].startswith("shutter-client-python/"))
        self.assertEqual(
            json.loads(request["body"]), {"url": "https://example.com", "full_page": True, "hide_selectors": [".a", ".b"], "viewport_width": 800}
        )

    def test_take_to_file(self) -> None:
        api = self.serve([OK_PNG])
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "shot.png")
            saved = self.client(api).take_to_file(path, chunk_size=7, url="https://example.com")
            with open(path, "rb") as written:
                self.assertEqual(written.read(), PNG)
            self.assertEqual((saved.size, saved.content_type, saved.request_id), (len(PNG), "image/png", "req-ok"))

    def test_take_json_sends_response_type_json(self) -> None:
        api = self.serve([json_answer(200, {"request_id": "r", "format": "png", "width": 1280, "height": 800})])
        answer = self.client(api).take_json(url="https://example.com")
        self.assertEqual(answer["width"], 1280)
        self.assertEqual(json.loads(api.requests[0]["body"])["response_type"], "json")

    def test_status_and_devices(self) -> None:
        def route(request: Dict[str, Any]) -> Any:
            if request["path"] == "/v1/status":
                return json_answer(200, {"status": "ok", "version": "0.1.0"})
            return json_answer(200, {"devices": [{"name": "pixel_7"}]})

        api = self.serve(route)
        client = self.client(api)
        self.assertEqual(client.status()["status"], "ok")
        self.assertEqual(client.devices(), [{"name": "pixel_7"}])
        self.assertEqual([(r["method"], r["path"]) for r in api.requests], [("GET", "/v1/status"), ("GET", "/v1/devices")])

    def test_jobs_create_sends_async_and_an_idempotency_key(self) -> None:
        api = self.serve(
            [
                error_answer(503, "overloaded", "busy", "r1", {"Retry-After": "0"}),
                json_answer(202, {"job_id": "j1", "status": "queued", "status_url": "/v1/jobs/j1", "request_id": "r2"}),
            ]
        )
        created = self.client(api).jobs.create(url="https://example.com", webhook_url="https://hooks.example.com/x")  # type: ignore[typeddict-unknown-key]
        self.assertEqual(created["job_id"], "j1")
        first, second = api.requests
        self.assertEqual(json.loads(first["body"]), {"url": "https://example.com", "webhook_url": "https://hooks.example.com/x", "async": True})
        self.assertTrue(first["headers"]["idempotency-key"])
        self.assertEqual(first["headers"]["idempotency-key"], second["headers"]["idempotency-key"], "a retry keeps its key")

    def test_jobs_wait_polls_until_finished(self) -> None:
        states: List[str] = ["queued", "running", "running", "succeeded"]

        def job(request: Dict[str, Any]) -> Any:
            state = states.pop(0) if len(states) > 1 else states[0]
            return json_answer(200, {"job_id": "j1", "status": state, "result": {"url": "http://x/f.png"} if state == "succeeded" else None})

        api = self.serve(job)
        finished = self.client(api).jobs.wait({"job_id": "j1"}, timeout=10, poll_interval=0.05)
        self.assertEqual(finished["status"], "succeeded")
        self.assertEqual(len(api.requests), 4)
        self.assertTrue(all(r["path"] == "/v1/jobs/j1" and r["method"] == "GET" for r in api.requests))

    def test_jobs_wait_times_out(self) -> None:
        api = self.serve([json_answer(200, {"job_id": "j/1", "status": "running"})])
        with self.assertRaises(ShutterError) as raised:
            self.client(api).jobs.wait("j/1", timeout=0.3, poll_interval=0.05)
        self.assertEqual(raised.exception.code, "wait_timeout")
        self.assertEqual(api.requests[0]["path"], "/v1/jobs/j%2F1")

    def test_bulk_payload(self) -> None:
        api = self.serve([json_answer(202, {"jobs": [{"job_id": "a"}, {"job_id": "b"}]})])
        self.client(api).bulk([{"url": "https://a.example"}, {"url": "https://b.example"}], defaults={"format": "jpg"}, webhook_url="https://h.example")
        request = api.requests[0]
        self.assertEqual((request["method"], request["path"]), ("POST", "/v1/bulk"))
        self.assertEqual(
            json.loads(request["body"]),
            {"requests": [{"url": "https://a.example"}, {"url": "https://b.example"}], "defaults": {"format": "jpg"}, "webhook_url": "https://h.example"},
        )
        self.assertTrue(request["headers"]["idempotency-key"])


if __name__ == "__main__":
    unittest.main()
