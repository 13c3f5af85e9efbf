"""Signed links (DESIGN.md §4.2) and webhook signatures (§4.3) against vectors computed here, independently."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import unittest
from urllib.parse import parse_qsl, urlsplit

import _support  # noqa: F401 - puts the package on sys.path

from shutter_client import Client, encode_query, verify_webhook

SECRET = "whsec_3f1c0b0e5a2d4c6b8e9f0a1b2c3d4e5f"
KEY_ID = "4b8d9ce2-84fe-41c0-9331-4ca22e2cab68"


def hmac_hex(secret: str, message: bytes) -> str:
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


class SignedUrlTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client("unused-key-0123456789", "https://shots.example.com/")

    def test_known_vector(self) -> None:
        url = self.client.signed_url(
            {"url": "https://example.com/a b?x=1&y=ü", "full_page": True, "viewport_width": 1024, "hide_selectors": [".ad", "#cookie"]},
            KEY_ID,
            SECRET,
            expires=1893456000,
        )
        # Written out by hand: options in order, booleans as true, lists repeated, RFC 3986 encoding;
        # then expires and access_key; the signature covers exactly that and comes last.
        query = (
            "url=https%3A%2F%2Fexample.com%2Fa%20b%3Fx%3D1%26y%3D%C3%BC&full_page=true&viewport_width=1024"
            "&hide_selectors=.ad&hide_selectors=%23cookie&expires=1893456000&access_key=" + KEY_ID
        )
        signature = hmac_hex(SECRET, query.encode())
        self.assertEqual(url, f"https://shots.example.com/v1/take?{query}&signature={signature}")
        # Fixed, computed outside Python: printf '%s' "$query" | openssl dgst -sha256 -hmac "$SECRET"
        self.assertEqual(signature, "05775a0f593a22c7c5bec0d5c24404fbf4e178804ff29252744a0752f3919897")

    def test_signature_covers_the_raw_query_up_to_signature(self) -> None:
        url = self.client.signed_url({"url": "https://example.com", "format": "jpg", "quality": 70}, KEY_ID, SECRET)
        raw_query = urlsplit(url).query
        signed, _, signature = raw_query.rpartition("&signature=")
        self.assertEqual(signature, hmac_hex(SECRET, signed.encode()))
        pairs = parse_qsl(raw_query)
        self.assertEqual([k for k, _ in pairs], ["url", "format", "quality", "access_key", "signature"])
        self.assertNotIn("expires", dict(pairs))
        self.assertNotIn("apikey", raw_query)

    def test_expires_forms(self) -> None:
        when = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)
        url = self.client.signed_url({"url": "https://example.com"}, KEY_ID, SECRET, expires=when)
        self.assertIn("&expires=1893456000&", url)
        url = self.client.signed_url({"url": "https://example.com"}, KEY_ID, SECRET, expires=dt.timedelta(hours=1))
        expires = int(dict(parse_qsl(urlsplit(url).query))["expires"])
        self.assertAlmostEqual(expires, int(dt.datetime.now(dt.timezone.utc).timestamp()) + 3600, delta=5)
        with self.assertRaises(ValueError):
            self.client.signed_url({"url": "https://example.com"}, KEY_ID, SECRET, expires=dt.datetime(2030, 1, 1))

    def test_refuses_what_cannot_be_signed(self) -> None:
        with self.assertRaises(ValueError):
            self.client.signed_url({"url": "https://example.com", "apikey": "secret"}, KEY_ID, SECRET)  # type: ignore[typeddict-unknown-key]
        with self.assertRaises(TypeError):
            self.client.signed_url({"url": "https://example.com", "cookies": [{"name": "a", "value": "b"}]}, KEY_ID, SECRET)

    def test_encode_query(self) -> None:
        self.assertEqual(
            encode_query({"a": False, "b": None, "c": 1.5, "headers": {"X-One": "1"}, "d": ["x", True]}),
            "a=false&c=1.5&headers=X-One%3A%201&d=x&d=true",
        )


class VerifyWebhookTest(unittest.TestCase):
    body = b'{"job_id":"j_1","status":"succeeded","external_id":"order-42"}'
    t = 1_800_000_000

    def header(self, body: bytes = body, t: int = t, secret: str = SECRET) -> str:
        return f"t={t},v1={hmac_hex(secret, str(t).encode() + b'.' + body)}"

    def test_valid(self) -> None:
        self.assertTrue(verify_webhook(self.body, self.header(), SECRET, now=self.t + 10))
        self.assertTrue(verify_webhook(self.body.decode(), self.header(), SECRET, now=self.t))
        self.assertTrue(verify_webhook(bytearray(self.body), " t=%d , v1=%s " % (self.t, self.header().split("v1=")[1]), SECRET, now=self.t))

    def test_known_vector(self) -> None:
        # Computed outside Python: printf '%s' '1800000000.<body>' | openssl dgst -sha256 -hmac "$SECRET"
        expected = "4c8335aa9ed405a89c9a4a3ead042862392af634d909f75390f53774d7b4cab1"
        self.assertEqual(self.header(), f"t=1800000000,v1={expected}")
        self.assertTrue(verify_webhook(self.body, f"t=1800000000,v1={expected.upper()}", SECRET, now=self.t))
        self.assertTrue(verify_webhook(self.body, f"t=1800000000,v1={expected}", SECRET, now=self.t))

    def test_tampered_body_or_wrong_secret_is_refused(self) -> None:
        header = self.header()
        self.assertFalse(verify_webhook(self.body.replace(b"42", b"43"), header, SECRET, now=self.t))
        self.assertFalse(verify_webhook(self.body + b" ", header, SECRET, now=self.t))
        self.assertFalse(verify_webhook(self.body, header, SECRET + "x", now=self.t))
        self.assertFalse(verify_webhook(self.body, header.replace(f"t={self.t}", f"t={self.t + 1}"), SECRET, now=self.t))

    def test_timestamp_tolerance(self) -> None:
        header = self.header()
        self.assertFalse(verify_webhook(self.body, header, SECRET, now=self.t + 301))
        self.assertFalse(verify_webhook(self.body, header, SECRET, now=self.t - 301))
        self.assertTrue(verify_webhook(self.body, header, SECRET, tolerance_seconds=600, now=self.t + 500))
        self.assertTrue(verify_webhook(self.body, header, SECRET, tolerance_seconds=None, now=self.t + 10**6))

    def test_any_v1_may_match(self) -> None:
        good = self.header().split("v1=")[1]
        header = f"t={self.t},v1={'0' * 64},v1={good}"
        self.assertTrue(verify_webhook(self.body, header, SECRET, now=self.t))

    def test_malformed_headers(self) -> None:
        good = self.header().split("v1=")[1]
        for header in ["", None, f"v1={good}", f"t={self.t}", f"t=abc,v1={good}", f"t=१२३,v1={good}", "garbage", f"t={self.t},v1=zz"]:
            with self.subTest(header=header):
                self.assertFalse(verify_webhook(self.body, header, SECRET, now=self.t))


if __name__ == "__main__":
    unittest.main()
