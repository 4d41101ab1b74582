"""Deterministic generated corpora for benchmarks: realistic 10,000-line Python and YAML files."""

from __future__ import annotations


def python_file(lines: int = 10_000) -> str:
    """Classes with methods, decorators, async defs, comprehensions, docstrings and non-ASCII strings."""
    out: list[str] = ["import asyncio", "import functools", "", ""]
    n = 0
    while len(out) < lines:
        out += [
            f"class Service{n}:",
            f'    """Service number {n}: handles café orders for 東京 🚀."""',
            "",
            "    def __init__(self, repo, limit=10):",
            "        self.repo = repo",
            "        self.limit = limit",
            "",
            "    @functools.lru_cache(maxsize=128)",
            f"    def compute_{n}(self, items, factor=2):",
            "        total = sum(x * factor for x in items if x > 0)",
            "        if total > self.limit:",
            f"            return {{'total': total, 'label': 'é{n}'}}",
            "        return [y for y in items if y % 2 == 0]",
            "",
            f"    async def fetch_{n}(self, key):",
            "        await asyncio.sleep(0)",
            "        try:",
            "            return self.repo[key]",
            "        except KeyError:",
            "            return None",
            "",
            "",
        ]
        n += 1
    return "\n".join(out[:lines]) + "\n"


def yaml_file(lines: int = 10_000) -> str:
    """Kubernetes-like documents with nested mappings, sequences, flow collections and block scalars."""
    out: list[str] = []
    n = 0
    while len(out) < lines:
        out += [
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata:",
            f"  name: service-{n}",
            "  labels: {app: orders, tier: backend}",
            "spec:",
            "  replicas: 3",
            "  template:",
            "    spec:",
            "      containers:",
            f"        - name: app-{n}",
            f"          image: registry.example/app:{n}.0",
            "          ports: [{containerPort: 8080}]",
            "          env:",
            "            - name: GREETING",
            '              value: "Bonjour 東京 🚀"',
            "          command:",
            "            - /bin/sh",
            "            - -c",
            "            - |",
            f"              echo starting {n}",
            "              exec app",
            "---",
        ]
        n += 1
    return "\n".join(out[:lines]) + "\n"


def ansible_file(lines: int = 1_000) -> str:
    """An Ansible playbook: plays with tasks using FQCN and short module names, block scalars, Jinja."""
    out: list[str] = []
    n = 0
    while len(out) < lines:
        out += [
            f"- name: Configure group {n}",
            f"  hosts: group_{n}",
            "  become: true",
            "  tasks:",
            f"    - name: Install packages {n}",
            "      ansible.builtin.apt:",
            "        name: [nginx, git]",
            "        state: present",
            f"    - name: Get cpu count {n}",
            "      shell:",
            "        command: >-",
            '          "{{ working_dir }}/oc get machineset -o json"',
            f"        register: cpu_{n}",
            f"    - name: Restart {n}",
            "      ansible.builtin.service:",
            "        name: nginx",
            "        state: restarted",
            "      when: cpu_{n}.changed",
        ]
        n += 1
    return "\n".join(out[:lines]) + "\n"
