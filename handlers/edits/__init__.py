"""Inline edits: place model-produced edits on a document that moved on, and stream them in (docs/edits.md)."""
