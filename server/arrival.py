"""The arrival number of the message being dispatched, in a module of its own: services read it (to tell the
events that came before their message from those that came after) without importing the protocol layer.

0 means none, as in tests that call handlers directly. The protocol sets it before each message's handler
starts; a task takes a copy of the context when it is created, which is at dispatch, so an ``async`` handler
still reads its own message's number after later messages were handled.
"""

from __future__ import annotations

import contextvars

ARRIVAL: contextvars.ContextVar[int] = contextvars.ContextVar("tether_arrival", default=0)
