"""YAML texts the YAML actions' properties run over: every member of each is removed, cloned and swapped."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SAMPLES: dict[str, str] = {
    "manifest": """\
# Source: shop/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: café-web  # the shop's front
  labels: {app: web, tier: front}

spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: "nginx:1.27"
          ports:
          - containerPort: 80
          # the health port
          - containerPort: 8081
          env:
            -
              name: GREETING
              value: 你好 🌍
            - name: MODE
              value: >
                folded text
                over two lines

          args: [--port, "80", --verbose,]
---
apiVersion: v1
kind: Service
metadata: {name: web, labels: {app: web}}
spec:
  ports: [{port: 80, targetPort: 80}]
""",
    "anchors_and_tags": """\
defaults: &defaults
  retries: 3
  timeout: 10
service:
  <<: *defaults
  name: !!str 42
  tags: !!set {a, b}
  script: |
    echo "one"
    # not a comment: inside the block scalar
    echo "two"
explicit:
  ? complex key
  : its value
  plain: x
""",
    "rhythm": """\
first: 1

second:
  - a

  - b
  - c

third: 3
""",
    "flows": """\
one_line: [1, 2, 3]
multi:
  [
    alpha,  # the first
    beta,
    gamma,
  ]
mapping: {x: 1, y: [1, 2], z: {deep: true}}
tight: [a,b,c]
""",
    "nested_sequences": """\
- - a
  - b
- - c
-
  - d: 1
    e: 2
  - f
""",
}


def corpus_files() -> dict[str, bytes]:
    """The repository's own YAML examples and test corpus."""
    found = sorted([*ROOT.glob("examples/**/*.y*ml"), *ROOT.glob("tests/corpus/prompts/*.y*ml")])
    return {str(p.relative_to(ROOT)): p.read_bytes() for p in found}
