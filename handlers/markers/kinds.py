"""The kinds a marker can have: the one list the markers service checks and both fronts offer. A module of its
own, importing nothing, so the agents' front can name the kinds in its tool table at start-up without loading
the markers service (which brings SQLAlchemy)."""

from __future__ import annotations

KINDS = ("comment", "question", "issue", "bookmark")
#: The kind of a marker made without one.
DEFAULT_KIND = "comment"
