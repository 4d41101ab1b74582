"""Every selector, table-driven, on realistic Python and YAML (each expected text checked by hand against what the
selector is meant to select)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.selectors.harness import Doc
from tests.unit.selectors.sources import ACTIONS, ANSIBLE, K8S, PY

DOCS = {
    "PY": Doc("python", PY),
    "ANSIBLE": Doc("yaml", ANSIBLE),
    "K8S": Doc("yaml", K8S),
    "ACTIONS": Doc("yaml", ACTIONS),
}

CASES: list[tuple[str, list[Any], list[str]]] = [
    (
        "PY",
        ["selectFunctions"],
        [
            "def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done",
            '@staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end',
            "async def inner():\n            return await get(url)",
            'def outer(items):\n    square = lambda x, y=2: x * y\n    evens = [i for i in items if i % 2 == 0]\n    if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass\n    for i in items:\n        total += i\n    while False:\n        break\n    match items:\n        case [first, *rest]:\n            return first\n    return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    (
        "PY",
        ["selectMethods"],
        [
            "def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done",
            '@staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end',
        ],
    ),
    (
        "PY",
        ["selectClasses"],
        [
            '@dataclass\n@frozen(order=True)\nclass Café:\n    """Menu 東京."""\n\n    size: int = 3\n\n    def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done\n\n    @staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end'
        ],
    ),
    (
        "PY",
        ["selectCalls"],
        ["frozen(order=True)", "get(url)", "inner()", "len(items)", 'print("big", len(items))', "len(items)"],
    ),
    (
        "PY",
        ["selectStatements"],
        [
            '"""Modül docstring — café ☕."""',
            "import os",
            "from typing import Any as Ánything",
            '@dataclass\n@frozen(order=True)\nclass Café:\n    """Menu 東京."""\n\n    size: int = 3\n\n    def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done\n\n    @staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end',
            '"""Menu 東京."""',
            "size: int = 3",
            "def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done",
            "total = base * (1 + tax)",
            "return total",
            '@staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end',
            "async def inner():\n            return await get(url)",
            "return await get(url)",
            "return await inner()",
            'def outer(items):\n    square = lambda x, y=2: x * y\n    evens = [i for i in items if i % 2 == 0]\n    if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass\n    for i in items:\n        total += i\n    while False:\n        break\n    match items:\n        case [first, *rest]:\n            return first\n    return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
            "square = lambda x, y=2: x * y",
            "evens = [i for i in items if i % 2 == 0]",
            'if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass',
            "return None",
            'print("big", len(items))',
            "pass",
            "for i in items:\n        total += i",
            "total += i",
            "while False:\n        break",
            "break",
            "match items:\n        case [first, *rest]:\n            return first",
            "return first",
            'return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    (
        "PY",
        ["selectIfStatements"],
        [
            'if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass'
        ],
    ),
    ("PY", ["selectLoops"], ["for i in items:\n        total += i", "while False:\n        break"]),
    ("PY", ["selectImports"], ["import os", "from typing import Any as Ánything"]),
    (
        "PY",
        ["selectAssignments"],
        [
            "size: int = 3",
            "total = base * (1 + tax)",
            "square = lambda x, y=2: x * y",
            "evens = [i for i in items if i % 2 == 0]",
            "total += i",
        ],
    ),
    (
        "PY",
        ["selectReturns"],
        [
            "return total",
            "return await get(url)",
            "return await inner()",
            "return None",
            "return first",
            'return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    ("PY", ["selectLambdas"], ["lambda x, y=2: x * y"]),
    ("PY", ["selectComprehensions"], ["[i for i in items if i % 2 == 0]", "(x for x in items)"]),
    ("PY", ["selectStrings"], ['"""Modül docstring — café ☕."""', '"""Menu 東京."""', '"🚀"', '"big"', '"a"']),
    ("PY", ["selectComments"], ["# done", "# trailing comment at block end"]),
    (
        "PY",
        ["selectIdentifiers"],
        [
            "os",
            "typing",
            "Any",
            "Ánything",
            "dataclass",
            "frozen",
            "order",
            "Café",
            "size",
            "int",
            "price",
            "self",
            "base",
            "tax",
            "kw",
            "total",
            "base",
            "tax",
            "total",
            "staticmethod",
            "fetch",
            "url",
            "str",
            "retries",
            "int",
            "inner",
            "get",
            "url",
            "inner",
            "outer",
            "items",
            "square",
            "x",
            "y",
            "x",
            "y",
            "evens",
            "i",
            "i",
            "items",
            "i",
            "items",
            "len",
            "items",
            "print",
            "len",
            "items",
            "i",
            "items",
            "total",
            "i",
            "items",
            "first",
            "rest",
            "first",
            "extra",
            "x",
            "x",
            "items",
        ],
    ),
    ("PY", ["selectLists"], ["(1, 2)", "{3, 4}"]),
    ("PY", ["selectMaps"], ['{"a": 1, **extra}']),
    ("PY", ["selectPairs"], ['"a": 1']),
    ("PY", ["selectDocuments"], []),
    ("PY", ["selectName"], ["Café", "outer"]),
    ("PY", ["selectFunctions", "selectName"], ["price", "fetch", "inner", "outer"]),
    ("PY", ["selectDecorators"], ["@dataclass", "@frozen(order=True)"]),
    ("PY", ["selectFunctions", "selectDecorators"], ["@staticmethod"]),
    (
        "PY",
        ["selectFunctions", "selectParameters"],
        ["self", "base", "tax=0.2", "**kw", 'url: str = "🚀"', "retries: int = 3", "items"],
    ),
    ("PY", ["selectLambdas", "selectParameters"], ["x", "y=2"]),
    (
        "PY",
        ["selectBody"],
        [
            '"""Menu 東京."""\n\n    size: int = 3\n\n    def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done\n\n    @staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end',
            'square = lambda x, y=2: x * y\n    evens = [i for i in items if i % 2 == 0]\n    if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass\n    for i in items:\n        total += i\n    while False:\n        break\n    match items:\n        case [first, *rest]:\n            return first\n    return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    ("PY", ["selectIfStatements", "selectBody"], ["return None"]),
    ("PY", ["selectCalls", "selectArguments"], ["order=True", "url", "items", '"big"', "len(items)", "items"]),
    ("PY", ["selectArguments"], ["order=True", "url", "items", '"big"', "len(items)"]),
    ("PY", ["selectPairs", "selectKey"], ['"a"']),
    (
        "PY",
        ["selectAssignments", "selectValue"],
        ["3", "base * (1 + tax)", "lambda x, y=2: x * y", "[i for i in items if i % 2 == 0]", "i"],
    ),
    (
        "PY",
        ["selectReturns", "selectValue"],
        [
            "total",
            "await get(url)",
            "await inner()",
            "None",
            "first",
            '{"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    ("PY", ["selectFunctions", "selectParameters", "selectValue"], ["0.2", '"🚀"', "3"]),
    ("PY", ["selectMaps", "selectItems"], ['"a": 1', "**extra"]),
    ("PY", ["selectLists", "selectItems"], ["1", "2", "3", "4"]),
    ("PY", ["selectCondition"], ["not items", "False"]),
    ("PY", [("selectByType", "elif_clause"), "selectCondition"], ["len(items) > 9"]),
    (
        "PY",
        ["selectClasses", "selectBody", "selectChildren"],
        [
            '"""Menu 東京."""',
            "size: int = 3",
            "def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done",
            '@staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end',
        ],
    ),
    (
        "PY",
        ["selectReturns", "selectParent"],
        [
            "total = base * (1 + tax)\n        return total  # done",
            "async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end",
            "async def inner():\n            return await get(url)",
            'square = lambda x, y=2: x * y\n    evens = [i for i in items if i % 2 == 0]\n    if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass\n    for i in items:\n        total += i\n    while False:\n        break\n    match items:\n        case [first, *rest]:\n            return first\n    return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
            'if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass',
            "case [first, *rest]:\n            return first",
        ],
    ),
    (
        "PY",
        ["selectCalls", ("filterText", "^print"), "selectParent"],
        ['elif len(items) > 9:\n        print("big", len(items))'],
    ),
    (
        "PY",
        ["selectChildren"],
        [
            '"""Modül docstring — café ☕."""',
            "import os",
            "from typing import Any as Ánything",
            '@dataclass\n@frozen(order=True)\nclass Café:\n    """Menu 東京."""\n\n    size: int = 3\n\n    def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done\n\n    @staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end',
            'def outer(items):\n    square = lambda x, y=2: x * y\n    evens = [i for i in items if i % 2 == 0]\n    if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass\n    for i in items:\n        total += i\n    while False:\n        break\n    match items:\n        case [first, *rest]:\n            return first\n    return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    (
        "PY",
        ["selectMethods", "selectSiblings"],
        [
            '"""Menu 東京."""',
            "size: int = 3",
            "def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done",
            '@staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end',
        ],
    ),
    (
        "PY",
        ["selectMethods", "selectNextSibling"],
        [
            '@staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end'
        ],
    ),
    (
        "PY",
        ["selectMethods", "selectPrevSibling"],
        [
            "size: int = 3",
            "def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done",
        ],
    ),
    ("PY", ["selectReturns", ("selectEnclosing", "function"), "selectName"], ["price", "fetch", "inner", "outer"]),
    (
        "PY",
        ["selectComprehensions", ("selectEnclosing", "statement")],
        ["evens = [i for i in items if i % 2 == 0]", 'return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)'],
    ),
    ("PY", [("selectAt", 14, 12)], ["return total"]),
    ("PY", [("selectAt", 14, 12), ("selectEnclosing", "method"), "selectName"], ["price"]),
    ("PY", [("selectRange", 13, 0, 15, 0)], ["total = base * (1 + tax)\n        return total  # done"]),
    (
        "PY",
        ["selectClasses", "selectMethods", "selectFirst"],
        ["def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done"],
    ),
    ("PY", ["selectFunctions", "selectParameters", "selectLast"], ["**kw", "retries: int = 3", "items"]),
    ("PY", ["selectFunctions", "selectParameters", ("selectNth", 1)], ["base", "retries: int = 3"]),
    ("PY", ["selectFunctions", "selectParameters", ("selectNth", -2)], ["tax=0.2", 'url: str = "🚀"']),
    (
        "PY",
        ["selectFunctions", "selectParameters", "selectAllButFirst"],
        ["base", "tax=0.2", "**kw", "retries: int = 3"],
    ),
    ("PY", ["selectFunctions", "selectParameters", "selectAllButLast"], ["self", "base", "tax=0.2", 'url: str = "🚀"']),
    (
        "PY",
        ["selectIdentifiers", ("filterText", "^it")],
        ["items", "items", "items", "items", "items", "items", "items", "items"],
    ),
    (
        "PY",
        ["selectFunctions", ("filterNotText", "(?i)ASYNC")],
        [
            "def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done",
            'def outer(items):\n    square = lambda x, y=2: x * y\n    evens = [i for i in items if i % 2 == 0]\n    if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass\n    for i in items:\n        total += i\n    while False:\n        break\n    match items:\n        case [first, *rest]:\n            return first\n    return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    (
        "PY",
        ["selectStatements", ("filterKind", "return")],
        [
            "return total",
            "return await get(url)",
            "return await inner()",
            "return None",
            "return first",
            'return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    (
        "PY",
        ["selectFunctions", "filterOutermost"],
        [
            "def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done",
            '@staticmethod\n    async def fetch(url: str = "🚀", /, retries: int = 3):\n        async def inner():\n            return await get(url)\n        return await inner()\n        # trailing comment at block end',
            'def outer(items):\n    square = lambda x, y=2: x * y\n    evens = [i for i in items if i % 2 == 0]\n    if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass\n    for i in items:\n        total += i\n    while False:\n        break\n    match items:\n        case [first, *rest]:\n            return first\n    return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    (
        "PY",
        ["selectFunctions", "filterInnermost"],
        [
            "def price(self, base, *, tax=0.2, **kw):\n        total = base * (1 + tax)\n        return total  # done",
            "async def inner():\n            return await get(url)",
            'def outer(items):\n    square = lambda x, y=2: x * y\n    evens = [i for i in items if i % 2 == 0]\n    if not items:\n        return None\n    elif len(items) > 9:\n        print("big", len(items))\n    else:\n        pass\n    for i in items:\n        total += i\n    while False:\n        break\n    match items:\n        case [first, *rest]:\n            return first\n    return {"a": 1, **extra}, (1, 2), {3, 4}, (x for x in items)',
        ],
    ),
    ("PY", [("selectByType", "lambda_parameters")], ["x, y=2"]),
    (
        "ANSIBLE",
        ["selectChildren"],
        [
            '- name: Café servers\n  hosts: web\n  vars:\n    greeting: "Bonjour 東京"\n  tasks:\n    - name: Install\n      apt: {name: nginx, state: present}\n    - name: Write\n      copy:\n        content: |\n          línea 1\n          line 2\n        dest: /tmp/x'
        ],
    ),
    (
        "ANSIBLE",
        ["selectStrings"],
        [
            "Café servers",
            "web",
            '"Bonjour 東京"',
            "Install",
            "nginx",
            "present",
            "Write",
            "|\n          línea 1\n          line 2",
            "/tmp/x",
        ],
    ),
    (
        "ANSIBLE",
        ["selectPairs", "selectKey"],
        [
            "name",
            "hosts",
            "vars",
            "greeting",
            "tasks",
            "name",
            "apt",
            "name",
            "state",
            "name",
            "copy",
            "content",
            "dest",
        ],
    ),
    (
        "ANSIBLE",
        ["selectLists"],
        [
            '- name: Café servers\n  hosts: web\n  vars:\n    greeting: "Bonjour 東京"\n  tasks:\n    - name: Install\n      apt: {name: nginx, state: present}\n    - name: Write\n      copy:\n        content: |\n          línea 1\n          line 2\n        dest: /tmp/x',
            "- name: Install\n      apt: {name: nginx, state: present}\n    - name: Write\n      copy:\n        content: |\n          línea 1\n          line 2\n        dest: /tmp/x",
        ],
    ),
    (
        "ANSIBLE",
        ["selectMaps"],
        [
            'name: Café servers\n  hosts: web\n  vars:\n    greeting: "Bonjour 東京"\n  tasks:\n    - name: Install\n      apt: {name: nginx, state: present}\n    - name: Write\n      copy:\n        content: |\n          línea 1\n          line 2\n        dest: /tmp/x',
            'greeting: "Bonjour 東京"',
            "name: Install\n      apt: {name: nginx, state: present}",
            "{name: nginx, state: present}",
            "name: Write\n      copy:\n        content: |\n          línea 1\n          line 2\n        dest: /tmp/x",
            "content: |\n          línea 1\n          line 2\n        dest: /tmp/x",
        ],
    ),
    ("ANSIBLE", ["selectComments"], ["# Playbook ☕"]),
    (
        "ANSIBLE",
        ["selectPairs", ("filterText", "^tasks:"), "selectItems"],
        [
            "- name: Install\n      apt: {name: nginx, state: present}",
            "- name: Write\n      copy:\n        content: |\n          línea 1\n          line 2\n        dest: /tmp/x",
        ],
    ),
    (
        "ANSIBLE",
        ["selectPairs", ("filterText", "^tasks:"), "selectItems", "selectValue"],
        [
            "name: Install\n      apt: {name: nginx, state: present}",
            "name: Write\n      copy:\n        content: |\n          línea 1\n          line 2\n        dest: /tmp/x",
        ],
    ),
    (
        "ANSIBLE",
        ["selectPairs", ("filterText", "^content:"), "selectValue"],
        ["|\n          línea 1\n          line 2"],
    ),
    (
        "ANSIBLE",
        ["selectItems"],
        [
            '- name: Café servers\n  hosts: web\n  vars:\n    greeting: "Bonjour 東京"\n  tasks:\n    - name: Install\n      apt: {name: nginx, state: present}\n    - name: Write\n      copy:\n        content: |\n          línea 1\n          line 2\n        dest: /tmp/x'
        ],
    ),
    (
        "ANSIBLE",
        ["selectChildren", "selectChildren"],
        [
            'name: Café servers\n  hosts: web\n  vars:\n    greeting: "Bonjour 東京"\n  tasks:\n    - name: Install\n      apt: {name: nginx, state: present}\n    - name: Write\n      copy:\n        content: |\n          línea 1\n          line 2\n        dest: /tmp/x'
        ],
    ),
    (
        "K8S",
        ["selectDocuments"],
        [
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: &labels\n    app: café\ndata:\n  K: 'v'",
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels: *labels\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: reg/app:1\n        - name: side\n          image: reg/side:2\n          ports: [80, 443]",
        ],
    ),
    (
        "K8S",
        ["selectChildren"],
        [
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: &labels\n    app: café\ndata:\n  K: 'v'",
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels: *labels\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: reg/app:1\n        - name: side\n          image: reg/side:2\n          ports: [80, 443]",
        ],
    ),
    ("K8S", ["selectDocuments", "selectPairs", ("filterText", "^image:"), "selectValue"], ["reg/app:1", "reg/side:2"]),
    (
        "K8S",
        ["selectDocuments", "selectChildren"],
        [
            "apiVersion: v1",
            "kind: ConfigMap",
            "metadata:\n  labels: &labels\n    app: café",
            "data:\n  K: 'v'",
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata:\n  labels: *labels",
            "spec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: reg/app:1\n        - name: side\n          image: reg/side:2\n          ports: [80, 443]",
        ],
    ),
    (
        "K8S",
        ["selectDocuments", "selectFirst"],
        ["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: &labels\n    app: café\ndata:\n  K: 'v'"],
    ),
    ("K8S", ["selectStrings", ("filterText", "caf")], ["café"]),
    ("K8S", [("selectByType", "alias")], ["*labels"]),
    ("K8S", [("selectByType", "anchor"), "selectParent"], ["&labels\n    app: café"]),
    ("K8S", [("selectAt", 3, 10), "selectParent", "selectParent"], ["labels: &labels\n    app: café"]),
    (
        "ACTIONS",
        ["selectPairs", ("filterText", "^steps:"), "selectItems", "selectLast", "selectValue"],
        ["name: Run\n        run: pytest -q", "run: ruff check"],
    ),
    (
        "ACTIONS",
        ["selectChildren"],
        [
            "name: CI 🚀",
            "on: [push]",
            "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Run\n        run: pytest -q\n  lint:\n    steps:\n      - run: ruff check",
        ],
    ),
    (
        "ACTIONS",
        ["selectPairs", ("filterText", "^jobs:"), "selectValue", "selectChildren", "selectKey"],
        ["test", "lint"],
    ),
]


@pytest.mark.parametrize(
    ("doc", "chain", "expected"), CASES, ids=[f"{d}:{'→'.join(str(s) for s in c)}" for d, c, _ in CASES]
)
def test_selector_table(doc: str, chain: list[Any], expected: list[str]) -> None:
    assert DOCS[doc].texts(*chain) == expected


def test_every_selector_has_a_table_case() -> None:
    from tether_lsp.handlers.selectors.vocabulary import SELECTORS

    used = {step if isinstance(step, str) else step[0] for _, chain, _ in CASES for step in chain}
    assert set(SELECTORS) <= used
    assert len(SELECTORS) == 47
