"""Shutter's official Python client: screenshots, jobs, signed links and webhook checks.

    from shutter_client import Client

    client = Client(api_key="shk_...", base_url="https://shots.example.com")
    png = client.take(url="https://example.com", full_page=True)

Standard library only; Python 3.9 or newer.
"""

from ._version import __version__
from .client import DEFAULT_BASE_URL, Client, Jobs, SavedFile
from .errors import ShutterError
from .options import TAKE_OPTION_NAMES, AnimateOptions, Cookie, TakeOptions
from .signing import encode_query, verify_webhook

__all__ = [
    "__version__",
    "AnimateOptions",
    "Client",
    "Cookie",
    "DEFAULT_BASE_URL",
    "Jobs",
    "SavedFile",
    "ShutterError",
    "TAKE_OPTION_NAMES",
    "TakeOptions",
    "encode_query",
    "verify_webhook",
]
