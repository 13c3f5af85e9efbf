"""The client's version: the same as the Shutter server it was released with."""

__version__ = "0.1.0"
