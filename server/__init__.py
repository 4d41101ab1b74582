"""Tether's language-server runtime: everything features stand on, and nothing feature-specific."""
