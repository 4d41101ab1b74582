"""Prompt playground state: prompts in Python and YAML keep their identity across edits (docs/playground.md)."""
