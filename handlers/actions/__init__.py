"""Structural actions: remove, clone, move, swap, wrap… on what a selector finds (docs/actions.md)."""
