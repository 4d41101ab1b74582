"""Replacement analysis: insert vs replace for an AI completion, decided on the syntax tree (docs/replacement.md)."""
