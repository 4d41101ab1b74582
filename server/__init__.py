"""Tether's language-server runtime: everything features stand on, and nothing feature-specific."""

__version__ = "0.1.0"
