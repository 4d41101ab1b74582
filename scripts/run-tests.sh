#!/usr/bin/env bash
# The whole suite, tier by tier, with a one-line summary each. Called by `make test` (and so by CI).
#
# The pytest tiers run their test files on TEST_WORKERS processes (pytest-xdist; default 2, the cores CI has; 1 runs
# them in this process). Whole files go to one worker (--dist loadfile): a file's module fixtures (a built VSIX, a
# code-server) are set up once, and every worker has its own PostgreSQL cluster and data folder.
#
# pytest exits 5 when it collected nothing: a tier that must have tests fails then, unless a selection was
# asked for on purpose (TESTS_K, a pytest -k expression), in which case an empty tier is reported, not failed.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
export PATH="$PWD/$VENV/bin:$PATH"
export TETHER_REQUIRE_POSTGRES=1
export TETHER_REQUIRE_EDITORS=1
export HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-ci}

summaries=()
failed=0

tier() {
  local name=$1; shift
  local start=$SECONDS
  "$@"
  local rc=$?
  local took=$((SECONDS - start))
  if [ $rc -eq 0 ]; then
    summaries+=("PASS  $name (${took}s)")
  elif [ $rc -eq 5 ] && [ -n "${TESTS_K:-}" ]; then
    summaries+=("EMPTY $name: no test matched TESTS_K=${TESTS_K} (${took}s)")
  elif [ $rc -eq 5 ]; then
    summaries+=("FAIL  $name: no tests collected, and this tier must have tests")
    failed=1
  else
    summaries+=("FAIL  $name (exit $rc, ${took}s)")
    failed=1
  fi
}

reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT

pytest_tier() {
  local k=() workers=()
  [ -n "${TESTS_K:-}" ] && k=(-k "$TESTS_K")
  [ "${TEST_WORKERS:-2}" != 1 ] && workers=(-n "${TEST_WORKERS:-2}" --dist loadfile)
  python -m pytest -q -p no:cacheprovider --junitxml="$reports/$(basename "$1").xml" "${workers[@]}" "${k[@]}" "$@"
}

tier "lint (ruff check, ruff format --check, mypy)" bash -c 'ruff check . && ruff format --check . && mypy'
tier "VS Code client (tsc, unit tests with node --test)" bash -c \
  "cd clients/vscode && npx --no-install tsc -p . && node build.mjs test && \
   node --test --test-reporter=spec --test-reporter=junit --test-reporter-destination=stdout \
     --test-reporter-destination='$reports/vscode.xml' out/test/"
tier "unit tests" pytest_tier tests/unit
tier "end-to-end tests over stdio" pytest_tier tests/e2e
tier "hostile input (framing, malformed messages, odd documents, limits, fuzzed params)" pytest_tier tests/hostile
tier "package (wheel + sdist built, the wheel installed in a clean venv, run from a hostile folder)" \
  pytest_tier tests/package

echo
echo "== summary =="
printf '%s\n' "${summaries[@]}"
# One closing line over all tiers: "total: N passed, N failed, N skipped".
python - "$reports" <<'PY'
import sys, pathlib, xml.etree.ElementTree as ET
tests = failed = skipped = 0
for f in pathlib.Path(sys.argv[1]).glob("*.xml"):  # pytest's and node --test's JUnit reports
    for case in ET.parse(f).getroot().iter("testcase"):
        tests += 1
        failed += any(child.tag in ("failure", "error") for child in case)
        skipped += any(child.tag == "skipped" for child in case)
print(f"total: {tests - failed - skipped} passed, {failed} failed, {skipped} skipped")
PY
exit $failed
