#!/usr/bin/env bash
# make package-check: build lexbench's wheel, install it into a fresh venv in a temporary directory outside
# the checkout (dependencies from the package registry or pip's cache), and there
#   1. run an unrelated test file: lexbench must change nothing (no item, no run directory, no output);
#   2. run the demo suite with `pytest --lexbench` and check its run record and report;
#   3. run a user's test file (examples/test_my_fetcher.py) and check its rows are in the run record and report;
#   4. install the langchain extra and run the langchain provider's tests (loopback page, loopback 404) there.
# Usage: tools/package_check.sh [PYTHON]   (PYTHON builds the wheel and makes the venv; default python3)
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/lexbench-package-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "package-check: FAILED: $*" >&2; exit 1; }
start=$(date +%s)

# pip's own messages go to install.log, shown when a step fails.
install() { "$@" >>"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "$*"; }; }
install "$python" -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$checkout"
wheel=$(ls "$work"/dist/lexbench-*.whl)
# setuptools warns, some 20 lines each, for a shipped data directory pyproject does not list as a package.
! grep -q "is absent from the \`packages\` configuration" "$work/install.log" \
  || fail "the wheel build warns of unlisted data directories (list them under [tool.setuptools] packages): $(grep -o "Package '[^']*' is absent" "$work/install.log" | sort -u | tr '\n' ' ')"
install "$python" -m venv "$work/venv"
# The venv's bundled pip may predate resolver fixes lexbench's dependencies need.
install "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
install "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
py="$work/venv/bin/python"
mkdir "$work/project"
cd "$work/project"

# 1. An unrelated project: the installed plugin stays idle.
printf 'def test_unrelated():\n    assert 1 + 1 == 2\n' > test_unrelated.py
out=$("$py" -m pytest -q -p no:cacheprovider test_unrelated.py 2>&1) || fail "an unrelated test run failed: $out"
grep -q "1 passed" <<<"$out" || fail "an unrelated test run: $out"
! grep -qi lexbench <<<"$out" || fail "an unrelated test run mentions lexbench: $out"
[ ! -e runs ] || fail "an unrelated test run created runs/"
rm test_unrelated.py

# 2. The demo suite, from the installed package (no cases/ here), with the default local providers.
status=0
"$py" -m pytest --lexbench -p no:cacheprovider -q --tb=no --run-dir=demo-run > demo.log 2>&1 || status=$?
[ "$status" -le 1 ] || { cat demo.log; fail "pytest --lexbench exited $status"; }
for name in manifest.json results.jsonl report.md report.html report.json; do
  [ -s "demo-run/$name" ] || { cat demo.log; fail "demo-run/$name is missing"; }
done
rows=$(wc -l < demo-run/results.jsonl)
"$py" - "$rows" <<'PY' || fail "the demo run record does not hold every item"
import json, sys
manifest = json.load(open("demo-run/manifest.json"))
expected = manifest["suite"]["cases"] * len(manifest["providers"])
assert manifest["suite"]["id"] == "demo" and int(sys.argv[1]) == expected, (sys.argv[1], expected)
print(f"package-check: demo suite: {sys.argv[1]} items ({manifest['suite']['cases']} cases x "
      f"{', '.join(manifest['providers'])}) recorded with reports")
PY

# 3. A user's own fetcher through the fixture API: one test per case, its rows in the run record and report.
cp "$checkout/examples/test_my_fetcher.py" .
status=0
"$py" -m pytest --lexbench -p no:cacheprovider -q --tb=short --run-dir=user-run test_my_fetcher.py \
  > user.log 2>&1 || status=$?
[ "$status" -le 1 ] || { cat user.log; fail "pytest --lexbench test_my_fetcher.py exited $status"; }
"$py" <<'PY' || { cat user.log; fail "the user's test rows are not in the run record and report"; }
import json
rows = [json.loads(line) for line in open("user-run/results.jsonl")]
mine = [row for row in rows if row["provider"] == "my_fetcher"]
cases = json.load(open("user-run/manifest.json"))["suite"]["cases"]
report = json.load(open("user-run/report.json"))
listed = {p["provider"] for board in report["leaderboards"] for p in board["providers"]}
assert len(mine) == cases and "my_fetcher" in listed, (len(mine), cases, listed)
assert "my\\_fetcher" in open("user-run/report.md").read()  # Markdown escapes the underscore
print(f"package-check: the user's test file ran: {len(mine)} rows of my_fetcher "
      f"({sum(row['outcome'] == 'pass' for row in mine)} pass) in the run record, report.json and report.md")
PY
# 4. The langchain provider (optional extra) from the installed package: a loopback page, a loopback 404 and
#    the rest of tests/providers/test_langchain.py, run from an empty directory against the installed wheel.
install "$py" -m pip install --quiet --disable-pip-version-check "$wheel[langchain]"
mkdir "$work/empty"
(cd "$work/empty" && "$py" -m pytest -c /dev/null --rootdir "$work/empty" --noconftest --import-mode=importlib \
  -p no:cacheprovider -o markers=slow -q -rs "$checkout/tests/providers/test_langchain.py") > langchain.log 2>&1 \
  || { cat langchain.log; fail "the langchain provider's tests against the installed wheel"; }
! grep -q "skipped" langchain.log || { cat langchain.log; fail "the langchain provider's tests were skipped with the extra installed"; }
echo "package-check: langchain provider (installed extra): $(tail -1 langchain.log)"
echo "package-check: passed in $(( $(date +%s) - start )) s"
