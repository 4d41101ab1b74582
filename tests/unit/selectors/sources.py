"""Realistic sources for the selector tables (non-ASCII before and inside selected nodes on purpose)."""

PY = '''"""Modül docstring — café ☕."""
import os
from typing import Any as Ánything


@dataclass
@frozen(order=True)
class Café:
    """Menu 東京."""

    size: int = 3

    def price(self, base, *, tax=0.2, **kw):
        total = base * (1 + tax)
        return total  # done

    @staticmethod
    async def fetch(url: str = "🚀", /, retries: int = 3):
        async def inner():
            return await get(url)
        return await inner()
        # trailing comment at block end


def outer(items):
    square = lambda x, y=2: x * y
    evens = [i for i in items if i % 2 == 0]
    if not items:
        return None
    elif len(items) > 9:
        print("big", len(items))
    else:
        pass
    for i in items:
        total += i
    while False:
        break
    match items:
        case [first, *rest]:
            return first
    return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)
'''

ANSIBLE = """# Playbook ☕
- name: Café servers
  hosts: web
  vars:
    greeting: "Bonjour 東京"
  tasks:
    - name: Install
      apt: {name: nginx, state: present}
    - name: Write
      copy:
        content: |
          línea 1
          line 2
        dest: /tmp/x
"""

K8S = """apiVersion: v1
kind: ConfigMap
metadata:
  labels: &labels
    app: café
data:
  K: 'v'
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels: *labels
spec:
  template:
    spec:
      containers:
        - name: app
          image: reg/app:1
        - name: side
          image: reg/side:2
          ports: [80, 443]
"""

ACTIONS = """name: CI 🚀
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Run
        run: pytest -q
  lint:
    steps:
      - run: ruff check
"""
