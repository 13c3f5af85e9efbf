"""Signed links (DESIGN.md §4.2) and webhook signatures (§4.3): pure functions, no network."""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import re
import time
from typing import Any, Iterable, List, Mapping, Optional, Tuple, Union
from urllib.parse import quote

__all__ = ["encode_query", "sign_query", "build_signed_url", "verify_webhook", "Expires"]

#: An absolute expiry: unix seconds or an aware ``datetime``; or a ``timedelta`` from now.
Expires = Union[int, float, _dt.datetime, _dt.timedelta]


def _scalar(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise TypeError(f"{name}: cannot send a {type(value).__name__} in a query string")


def _pairs(options: Mapping[str, Any]) -> Iterable[Tuple[str, str]]:
    for name, value in options.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            if name != "headers":
                raise TypeError(f"{name}: objects cannot be sent in a query string; give the text form instead")
            # headers as repeated "Name: value", the GET form the server accepts.
            for header, header_value in value.items():
                yield name, f"{header}: {header_value}"
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, Mapping):
                    raise TypeError(f"{name}: objects cannot be sent in a query string; give the text form instead")
                yield name, _scalar(name, item)
        else:
            yield name, _scalar(name, value)


def encode_query(options: Mapping[str, Any]) -> str:
    """The query string of capture options as the GET form expects it.

    Booleans become ``true``/``false``, lists repeat their parameter (``hide_selectors=a&hide_selectors=b``),
    a ``headers`` mapping becomes repeated ``Name: value``; ``None`` values are left out. Everything but
    RFC 3986 unreserved characters is percent-encoded, so the string reaches the server byte for byte.
    """
    return "&".join(f"{quote(name, safe='')}={quote(value, safe='')}" for name, value in _pairs(options))


def sign_query(query: str, signing_secret: str) -> str:
    """Hex HMAC-SHA256 of the raw query string with the key's signing secret."""
    return hmac.new(signing_secret.encode("utf-8"), query.encode("utf-8"), hashlib.sha256).hexdigest()


def _unix(expires: Expires, now: Optional[float] = None) -> int:
    if isinstance(expires, _dt.timedelta):
        return int((time.time() if now is None else now) + expires.total_seconds())
    if isinstance(expires, _dt.datetime):
        if expires.tzinfo is None:
            raise ValueError("expires: give an aware datetime (with tzinfo), e.g. datetime.now(timezone.utc)")
        return int(expires.timestamp())
    if isinstance(expires, bool) or not isinstance(expires, (int, float)):
        raise TypeError("expires: unix seconds, an aware datetime or a timedelta")
    return int(expires)


def build_signed_url(
    base_url: str,
    options: Mapping[str, Any],
    key_id: str,
    signing_secret: str,
    expires: Optional[Expires] = None,
) -> str:
    """``<base_url>/v1/take?<options>[&expires=…]&access_key=<key id>&signature=<hex>``.

    The signature is the hex HMAC-SHA256 of everything between ``?`` and ``&signature=``.
    """
    for reserved in ("apikey", "access_key", "signature", "expires"):
        if reserved in options:
            raise ValueError(f"{reserved}: not a capture option here; signed_url adds what it needs")
    query = encode_query(options)
    tail: List[str] = []
    if expires is not None:
        tail.append(f"expires={_unix(expires)}")
    tail.append(f"access_key={quote(key_id, safe='')}")
    query = "&".join(([query] if query else []) + tail)
    return f"{base_url.rstrip('/')}/v1/take?{query}&signature={sign_query(query, signing_secret)}"


def verify_webhook(
    raw_body: Union[bytes, bytearray, str],
    header: Optional[str],
    signing_secret: str,
    tolerance_seconds: Optional[float] = 300,
    *,
    now: Optional[float] = None,
) -> bool:
    """True when ``X-Shutter-Signature`` (``t=<unix>,v1=<hex>``) signs this exact body.

    ``raw_body`` must be the bytes as received, before any JSON parsing. The signature is
    hex HMAC-SHA256(signing_secret, ``t + "." + body``), compared in constant time; any ``v1``
    entry may match (several appear while a secret is being rotated). A timestamp further than
    ``tolerance_seconds`` from now (either way) is refused, which stops replays; ``None`` turns
    that check off.
    """
    if not header or not signing_secret:
        return False
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else bytes(raw_body)
    timestamp: Optional[str] = None
    signatures: List[str] = []
    for part in header.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep:
            continue
        if key == "t":
            timestamp = value.strip()
        elif key == "v1":
            signatures.append(value.strip())
    if timestamp is None or not re.fullmatch(r"[0-9]{1,15}", timestamp) or not signatures:
        return False
    if tolerance_seconds is not None:
        current = time.time() if now is None else now
        if abs(current - int(timestamp)) > tolerance_seconds:
            return False
    expected = hmac.new(signing_secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()
    matched = False
    for signature in signatures:
        # Every candidate is compared, so the time taken does not tell which one matched.
        if hmac.compare_digest(expected.encode("ascii"), signature.lower().encode("ascii", "replace")):
            matched = True
    return matched
