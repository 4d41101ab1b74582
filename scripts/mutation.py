"""``make mutation``: mutation testing of the engine modules with cosmic-ray, a score per module.

Why cosmic-ray: it mutates the module's file on disk and runs a test command, so it works with any layout —
here the same file is imported as ``tether_lsp.server.documents`` through the package's symlinks, which
mutmut 3's copied tree and module-name trampolines do not follow. It is maintained, stores its work in one
SQLite file per module (a run can be resumed), and its operators can be filtered to the ones that model the
bugs worth catching (below): boundaries and negations of comparisons, ``and``/``or``, ``+``/``-``,
``True``/``False``, numbers, ``not`` added or removed, loops that never run, ``break``/``continue``.

Each module runs its own unit tests (fast: one pytest process per mutant, stopping at the first failure).
Prints, per module, killed / all and the score, then every surviving mutant that is not listed as
equivalent in ``tests/mutation/equivalents.txt`` (``path:line:operator  # why it cannot be killed``).
Usage: ``python -m scripts.mutation [MODULE ...]`` (default: all); ``--list`` shows the modules.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".cache" / "mutation"
EQUIVALENTS = ROOT / "tests" / "mutation" / "equivalents.txt"
BIN = Path(sys.executable).parent

#: Engine modules and the tests that are meant to catch their bugs.
MODULES: dict[str, list[str]] = {
    "server/documents.py": ["tests/unit/server/test_documents_parts.py", "tests/unit/server/test_documents.py"],
    "server/byte_edits.py": ["tests/unit/server/test_documents_parts.py", "tests/unit/server/test_documents.py"],
    "server/positions.py": ["tests/unit/server/test_positions_parts.py", "tests/unit/server/test_positions.py"],
    "server/encodings.py": ["tests/unit/server/test_positions.py"],
    "server/linediff.py": ["tests/unit/server/test_linediff.py"],
    "server/settings.py": [
        "tests/unit/server/test_settings.py",
        "tests/unit/test_docs.py",  # the docs hold the defaults
    ],
    "handlers/markers/calculator.py": [
        "tests/unit/markers/test_calculator_parts.py",
        "tests/unit/markers/test_calculator.py",
        "tests/unit/markers/test_structure.py",
    ],
    "handlers/markers/line_map.py": [
        "tests/unit/markers/test_calculator_parts.py",
        "tests/unit/markers/test_calculator.py",
        "tests/unit/markers/test_structure.py",
    ],
    "handlers/markers/line_similarity.py": [
        "tests/unit/markers/test_calculator_parts.py",
        "tests/unit/markers/test_calculator.py",
        "tests/unit/markers/test_structure.py",
    ],
    "handlers/markers/columns.py": [
        "tests/unit/markers/test_columns.py",
        "tests/unit/markers/test_calculator_parts.py",
        "tests/unit/markers/test_calculator.py",
    ],
    "handlers/markers/buffer.py": ["tests/unit/markers/test_buffer_parts.py", "tests/unit/markers/test_buffer.py"],
    "handlers/markers/structure.py": ["tests/unit/markers/test_structure.py"],
    "handlers/edits/locate.py": ["tests/unit/edits/test_locate.py", "tests/unit/edits/test_resolve.py"],
    "server/span_carry.py": [
        "tests/unit/server/test_span_carry.py",
        "tests/unit/edits/test_carry.py",
        "tests/unit/edits/test_resolve.py",
        "tests/unit/markers/test_buffer.py",
        "tests/unit/markers/test_buffer_parts.py",
    ],
    "handlers/edits/merge.py": ["tests/unit/edits/test_merge.py", "tests/unit/edits/test_resolve.py"],
    "handlers/edits/stream.py": ["tests/unit/edits/test_stream.py", "tests/unit/edits/test_stream_rules.py"],
    "handlers/playground/resolver.py": [
        "tests/unit/playground/test_resolver.py",
        "tests/unit/playground/test_resolver_rules.py",
        "tests/unit/playground/test_resolver_documented.py",
    ],
    "handlers/replacement/engine.py": [
        "tests/unit/replacement/test_engine_parts.py",
        "tests/unit/replacement/test_engine.py",
    ],
    "handlers/selectors/vocabulary.py": [
        "tests/unit/selectors/test_vocabulary_edges.py",
        "tests/unit/selectors/test_vocabulary_table.py",
        "tests/unit/selectors/test_engine.py",
    ],
    "handlers/selectors/index.py": [
        "tests/unit/selectors/test_index_queries.py",  # fast, and first: most mutants die in it
        "tests/unit/selectors/test_index_reuse.py",
        "tests/unit/selectors/test_index_splice.py",
        "tests/unit/selectors/test_spans.py",
        "tests/unit/selectors/test_engine.py",
    ],
    "handlers/selectors/index_rows.py": [
        "tests/unit/selectors/test_index_queries.py",
        "tests/unit/selectors/test_index_splice.py",
    ],
    "handlers/selectors/index_splice.py": [
        "tests/unit/selectors/test_index_splice.py",
        "tests/unit/selectors/test_index_reuse.py",
    ],
    "handlers/selectors/text_filter.py": ["tests/unit/selectors/test_text_filter.py"],
    "handlers/selectors/unindexed.py": ["tests/unit/selectors/test_unindexed.py"],
    "handlers/actions/python_delimited.py": [
        "tests/unit/actions/test_python_delimited.py",  # golden cases first: most mutants die in them
        "tests/unit/actions/test_python_actions.py",
    ],
    "handlers/actions/python_lines.py": [
        "tests/unit/actions/test_python_lines.py",
        "tests/unit/actions/test_lines.py",
        "tests/unit/actions/test_python_actions.py",
    ],
    "handlers/actions/actions.py": [
        "tests/unit/actions/test_python_actions.py",
        "tests/unit/actions/test_yaml_actions.py",
    ],
    "handlers/actions/yaml_block.py": [
        "tests/unit/actions/test_yaml_members.py",
        "tests/unit/actions/test_yaml_actions.py",
    ],
    "handlers/actions/yaml_flow.py": [
        "tests/unit/actions/test_yaml_members.py",
        "tests/unit/actions/test_yaml_actions.py",
    ],
    "handlers/actions/wrap.py": ["tests/unit/actions/test_wrap.py"],
    "handlers/actions/unwrap.py": ["tests/unit/actions/test_wrap.py"],
}

#: The operators kept (cosmic-ray names); all others are filtered out before the run.
KEPT = [
    r"core/ReplaceComparisonOperator_(Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Eq_NotEq|NotEq_Eq|Is_IsNot|IsNot_Is|In_NotIn|NotIn_In)",
    r"core/ReplaceBinaryOperator_(Add_Sub|Sub_Add|Mul_Div|Div_Mul|FloorDiv_Mul|Mod_FloorDiv)",
    r"core/ReplaceAndWithOr",
    r"core/ReplaceOrWithAnd",
    r"core/ReplaceTrueWithFalse",
    r"core/ReplaceFalseWithTrue",
    r"core/NumberReplacer",
    r"core/AddNot",
    r"core/ReplaceUnaryOperator_Not_Delete",
    r"core/ReplaceUnaryOperator_USub_Delete",
    r"core/ZeroIterationForLoop",
    r"core/ReplaceBreakWithContinue",
    r"core/ReplaceContinueWithBreak",
]


def equivalents() -> set[tuple[str, int, str]]:
    """``(path, line, operator)`` of the mutants accepted as equivalent, each with its reason in the file."""
    found = set()
    for raw in EQUIVALENTS.read_text(encoding="utf-8").splitlines() if EQUIVALENTS.exists() else []:
        entry, _, reason = raw.partition("#")
        if not entry.strip():
            continue
        path, line, operator = entry.strip().split(":", 2)
        if not reason.strip():
            raise SystemExit(f"{EQUIVALENTS}: {raw!r} has no reason")
        found.add((path, int(line), operator.strip()))
    return found


def excluded_operators() -> list[str]:
    names = subprocess.run([str(BIN / "cosmic-ray"), "operators"], capture_output=True, text=True, check=True)
    kept = [re.compile(pattern + "$") for pattern in KEPT]
    return [re.escape(n) + "$" for n in names.stdout.split() if not any(k.match(n) for k in kept)]


def config(module: str, tests: list[str]) -> str:
    command = f"{sys.executable} -m pytest -x -q -p no:cacheprovider -p no:randomly {' '.join(tests)}"
    excluded = ", ".join(json.dumps(pattern) for pattern in excluded_operators())
    digest = hashlib.sha256()
    for path in (module, *tests):
        digest.update((ROOT / path).read_bytes())
    return (
        f"# {module} and its tests at {digest.hexdigest()}: a change to either starts a new session\n"
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(module)}\n"
        "timeout = 60.0\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(command)}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = [{excluded}]\n"
    )


def run(module: str, tests: list[str]) -> list[list[Any]]:
    """Run (or resume) one module's session; its results as cosmic-ray dumps them."""
    WORK.mkdir(parents=True, exist_ok=True)
    stem = module.replace("/", ".")
    cfg, session = WORK / f"{stem}.toml", WORK / f"{stem}.sqlite"
    text = config(module, tests)
    if not cfg.exists() or cfg.read_text() != text or not session.exists():
        cfg.write_text(text)
        session.unlink(missing_ok=True)
        subprocess.run([str(BIN / "cosmic-ray"), "init", str(cfg), str(session)], check=True, cwd=ROOT)
        subprocess.run([str(BIN / "cr-filter-operators"), str(session), str(cfg)], check=True, cwd=ROOT)
    subprocess.run([str(BIN / "cosmic-ray"), "exec", str(cfg), str(session)], check=True, cwd=ROOT)
    dump = subprocess.run([str(BIN / "cosmic-ray"), "dump", str(session)], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in dump.stdout.splitlines() if line.strip()]


def summarise(module: str, records: list[list[Any]], accepted: set[tuple[str, int, str]]) -> list[str]:
    """Print the module's score; returns its unexplained survivors."""
    outcomes: Counter[str] = Counter()
    survivors = []
    for item, result in records:  # cosmic-ray's dump: [work item, result or None] per mutant
        if result is None:
            outcomes["not run"] += 1
            continue
        (mutation,) = item["mutations"]
        line = mutation["start_pos"][0]
        operator = mutation["operator_name"]
        if result.get("test_outcome") == "killed" or result.get("worker_outcome") in ("timeout", "exception"):
            outcomes["killed"] += 1
        elif (module, line, operator) in accepted:
            outcomes["equivalent"] += 1
        elif result.get("worker_outcome") == "skipped":
            outcomes["skipped"] += 1
        else:
            outcomes["survived"] += 1
            survivors.append(f"{module}:{line}:{operator}  (occurrence {mutation['occurrence']})")
    counted = outcomes["killed"] + outcomes["survived"]
    score = 100 * outcomes["killed"] / counted if counted else 100.0
    print(
        f"{module:<36} killed {outcomes['killed']:>4} / {counted:<4} = {score:5.1f}%"
        f"   (equivalent {outcomes['equivalent']}, not run {outcomes['not run']})",
        flush=True,
    )
    return survivors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", help="engine modules (default: all)")
    parser.add_argument("--list", action="store_true", help="list the modules and their tests")
    args = parser.parse_args()
    if args.list:
        for module, tests in MODULES.items():
            print(module, " ".join(tests))
        return 0
    chosen = args.modules or list(MODULES)
    unknown = [m for m in chosen if m not in MODULES]
    if unknown:
        raise SystemExit(f"not an engine module: {', '.join(unknown)} (see --list)")
    accepted = equivalents()
    survivors: list[str] = []
    results = {module: run(module, MODULES[module]) for module in chosen}
    print("Mutation score per module (equivalent mutants, listed with reasons, are not counted)")
    for module, records in results.items():
        survivors += summarise(module, records, accepted)
    if survivors:
        print(f"Surviving mutants ({len(survivors)}): kill them with a test or list them as equivalent")
        print("\n".join(f"  {s}" for s in survivors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
