#!/usr/bin/env bash
# The release check (docs/testing.md, "The release check"; not part of the test
# command):
#
#   bash scripts/release-check.sh [package] [wheel] [sdist] [--sdist]
#   bash scripts/release-check.sh installed VENV
#
# Without a step it runs `package` and `wheel`; `--sdist` adds `sdist`.
# - always: one version. The crate and the binding crate take the workspace's
#   version (Cargo.toml), CHANGELOG.md has a section for it, pyproject.toml
#   takes it from Cargo (dynamic).
# - package: what a crates.io upload of the crate would hold (`cargo package
#   --list`: no file over 5 MB, nothing of tests/, benches/, examples/ or
#   scripts/, as Cargo.toml's `include` says) and that it builds on its own
#   with qajudge-mapped (`cargo package -p qajudge -p qajudge-mapped`).
# - wheel: the portable Linux wheel, built as the release workflow
#   (.github/workflows/release.yml) builds it: `maturin build --release
#   --compatibility manylinux2014 --zig` (zig from PyPI's ziglang: glibc 2.17
#   without a manylinux container). `auditwheel show` must call it
#   manylinux2014 (manylinux_2_17); then `installed` on a fresh venv of it.
#   Prints the wheel's size and the build time.
# - installed VENV: a venv where the package is installed (the workflow's test
#   jobs call this on each wheel): with no Rust toolchain on the PATH and no
#   other variable of this shell, its `qajudge --version` says the version and
#   the index format, its command and module score the demo, and the Python
#   test suite (python/tests, the client's tests against the venv's own
#   `qajudge serve`) passes against the installed copy, not the source tree.
# - sdist: `maturin sdist`, `pip install` of it into a fresh venv (compiles the
#   whole crate from source, RocksDB included: the longest step), the demo
#   scored by that install.
#
# Builds in a build directory of its own, RELEASE_TARGET_DIR or else
# ~/.cache/qajudge/target-wheel, not the test command's: the zig build
# compiles every C and C++ dependency again, RocksDB included (31 minutes
# the first time under `nice -n 19` on 2 cores beside other builds; a rebuild
# with nothing changed, seconds). Tools from PyPI go into a venv there (venv-release-tools).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

steps=()
sdist=""
installed_venv=""
while [ $# -gt 0 ]; do
  case "$1" in
    package | wheel | sdist) steps+=("$1") ;;
    --sdist) sdist=1 ;;
    installed)
      [ $# -ge 2 ] || { echo "error: installed takes the venv to test" >&2; exit 2; }
      steps+=(installed)
      installed_venv=$(cd "$2" && pwd)
      shift
      ;;
    -h | --help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown step $1 (package, wheel, sdist, --sdist, installed VENV)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#steps[@]} -gt 0 ] || steps=(package wheel)
[ -z "$sdist" ] || steps+=(sdist)
wants() { [[ " ${steps[*]} " == *" $1 "* ]]; }

maturin_version="1.16.0"
ziglang_version="0.15.2"
auditwheel_version="6.8.2"
max_bytes=$((5 * 1024 * 1024))
# the workspace's version, read without cargo (a test job has none)
version=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
[ -n "$version" ] || { echo "error: Cargo.toml has no [workspace.package] version" >&2; exit 1; }

# a venv's command run with no Rust toolchain on the PATH and no other
# variable of this shell
bare() {
  local venv="$1"
  shift
  env -i HOME="$HOME" PATH="$venv/bin:/usr/bin:/bin" LANG=C.UTF-8 "$@"
}

# the demo scored by the command and the module installed in the venv $1
score_demo() {
  local venv="$1" says
  if bare "$venv" sh -c 'command -v cargo || command -v rustc' >/dev/null; then
    echo "error: a Rust toolchain is on /usr/bin or /bin: the check would not show the package needs none" >&2
    exit 1
  fi
  says=$(bare "$venv" qajudge --version)
  case "$says" in
    "qajudge $version (index format "[0-9]*")") echo "$says" >&2 ;;
    *) echo "error: the command says '$says', not qajudge $version and its index format" >&2; exit 1 ;;
  esac
  bare "$venv" qajudge evaluate --gold tests/data/demo/gold.json --run tests/data/demo/example-system.json >/dev/null
  bare "$venv" python - "$venv" <<'PY'
import sys
from pathlib import Path

import qajudge

where = Path(qajudge.__file__).resolve()
assert where.is_relative_to(Path(sys.argv[1]).resolve()), f"{where} is not the installed copy"
r = qajudge.evaluate("tests/data/demo/gold.json", ["tests/data/demo/example-system.json"])
assert r.runs == ["example-system"], r.runs
print(f"qajudge {qajudge.__version__} from {where.parent}: the command and the module score the demo", file=sys.stderr)
PY
}

# score_demo, then the Python test suite against the venv $1 (which has
# pytest), the client's tests against the venv's own server; prints pytest's
# last line
test_installed() {
  local venv="$1" work server url summary
  score_demo "$venv"
  work=$(mktemp -d)
  bare "$venv" qajudge index build --out "$work/demo-index" tests/data/demo/kg.ttl >&2 2>/dev/null
  bare "$venv" qajudge evaluate --gold tests/data/demo/gold.json --run tests/data/demo/example-system.json \
    --index "$work/demo-index" --format json >"$work/cli-report.json"
  mkdir -p "$work/data"
  # not through bare(): $! must be the server's own process
  env -i HOME="$HOME" PATH="$venv/bin:/usr/bin:/bin" LANG=C.UTF-8 \
    qajudge serve --bind 127.0.0.1:0 --workers 2 --data "$work/data" --index "$work/demo-index" \
    --benchmark demo=tests/data/demo/gold.json >/dev/null 2>"$work/serve.log" &
  server=$!
  # shellcheck disable=SC2064 # the values now
  trap "kill $server 2>/dev/null || true; rm -rf '$work'" EXIT
  url=""
  for _ in $(seq 1 300); do
    url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/serve.log" | head -1)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "error: the venv's qajudge serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
  echo "== python/tests against $venv (its server at $url)" >&2
  # QAJUDGE_BIN unset: the module is compared with the venv's own command
  if ! bare "$venv" env QAJUDGE_URL="$url" QAJUDGE_GOLD="$root/tests/data/demo/gold.json" \
    QAJUDGE_RUN="$root/tests/data/demo/example-system.json" QAJUDGE_CLI_REPORT="$work/cli-report.json" \
    python -m pytest -q -p no:cacheprovider python/tests >"$work/pytest.txt" 2>&1; then
    cat "$work/pytest.txt" >&2
    echo "error: the Python tests fail against the installed package" >&2
    exit 1
  fi
  cat "$work/pytest.txt" >&2
  summary=$(grep -E '[0-9]+ passed' "$work/pytest.txt" | tail -1)
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work"
  trap - EXIT
  echo "$summary"
}

if ! wants installed || [ ${#steps[@]} -gt 1 ]; then
  echo "== one version" >&2
  cargo metadata --format-version 1 --no-deps | python3 -c '
import json, sys
versions = {p["name"]: p["version"] for p in json.load(sys.stdin)["packages"]}
crate, binding, workspace = versions["qajudge"], versions["qajudge-python"], sys.argv[1]
if not crate == binding == workspace:
    sys.exit(f"error: the crate is {crate}, the binding {binding}, the workspace {workspace}: both crates take the workspace version")' "$version"
  # the pin of the crate qajudge depends on by path, which cargo package
  # turns into a registry dependency
  grep -q "^qajudge-mapped = { path = \"mapped\", version = \"=$version\" }" Cargo.toml ||
    { echo "error: Cargo.toml must pin qajudge-mapped to =$version (the workspace's version)" >&2; exit 1; }
  grep -q '^dynamic = \["version"\]' pyproject.toml || { echo "error: pyproject.toml must take its version from Cargo (dynamic = [\"version\"])" >&2; exit 1; }
  grep -q "^## \[$version\]" CHANGELOG.md || { echo "error: CHANGELOG.md has no section ## [$version]" >&2; exit 1; }
  echo "qajudge $version: the workspace's, both crates', pyproject's (dynamic) and CHANGELOG.md's" >&2

  export CARGO_TARGET_DIR="${RELEASE_TARGET_DIR:-$HOME/.cache/qajudge/target-wheel}"
  target="$CARGO_TARGET_DIR"
  mkdir -p "$target"
  tools="$target/venv-release-tools"
fi

if wants wheel || wants sdist; then
  if ! { [ -x "$tools/bin/maturin" ] && "$tools/bin/maturin" --version 2>/dev/null | grep -q "$maturin_version" &&
    "$tools/bin/python" -m pip show ziglang 2>/dev/null | grep -q "^Version: $ziglang_version\$" &&
    "$tools/bin/python" -m pip show auditwheel 2>/dev/null | grep -q "^Version: $auditwheel_version\$"; }; then
    rm -rf "$tools"
    python3 -m venv "$tools"
    "$tools/bin/pip" install -q --disable-pip-version-check \
      "maturin==$maturin_version" "ziglang==$ziglang_version" "auditwheel==$auditwheel_version"
  fi
fi

if wants package; then
  echo "== cargo package --list" >&2
  list=$(cargo package -p qajudge --list --allow-dirty)
  # only what the build needs ships (Cargo.toml's `include`): no test data,
  # whose benchmark excerpts and WordNet-derived tables carry their own licences
  shipped_tests=$(grep -E '^(tests|benches|examples|scripts|fuzz|clients)/' <<< "$list" || true)
  if [ -n "$shipped_tests" ]; then
    printf 'error: the package would ship files outside what the build needs:\n%s\nkeep them out with Cargo.toml'"'"'s include\n' "$shipped_tests" >&2
    exit 1
  fi
  echo "shipped beside src/ and docs/: $(grep -Ev '^(src|docs)/' <<< "$list" | tr '\n' ' ')" >&2
  count=0
  too_large=()
  while IFS= read -r file; do
    count=$((count + 1))
    [ -f "$file" ] || continue
    size=$(stat -c %s "$file")
    if [ "$size" -gt "$max_bytes" ]; then
      too_large+=("$file ($size bytes)")
    fi
  done <<< "$list"
  total=$(while IFS= read -r f; do [ -f "$f" ] && stat -c %s "$f"; done <<< "$list" | awk '{s += $1} END {print s}')
  echo "$count files, $total bytes" >&2
  if [ ${#too_large[@]} -gt 0 ]; then
    printf 'error: a file over 5 MB would be uploaded: %s; exclude it in Cargo.toml\n' "${too_large[@]}" >&2
    exit 1
  fi

  echo "== cargo package (builds the packaged crate)" >&2
  # with the crate it depends on by path (mapped/, its memory maps)
  cargo package -p qajudge -p qajudge-mapped --allow-dirty
fi

if wants wheel; then
  wheels="$target/wheels-manylinux2014"
  venv="$target/venv-release"
  echo "== maturin build --release --compatibility manylinux2014 --zig (in $target)" >&2
  rm -rf "$wheels"
  start=$SECONDS
  # the tools venv first on the PATH: maturin runs zig as `python3 -m ziglang`
  PATH="$tools/bin:$PATH" "$tools/bin/maturin" build --release --compatibility manylinux2014 --zig \
    --interpreter python3 --out "$wheels" >&2
  build_seconds=$((SECONDS - start))
  wheel=$(ls "$wheels"/qajudge-*.whl)
  wheel_bytes=$(stat -c %s "$wheel")

  echo "== auditwheel show" >&2
  shown=$("$tools/bin/auditwheel" show "$wheel")
  echo "$shown" >&2
  if ! tr -s ' \n' ' ' <<< "$shown" | grep -Eq '"(manylinux2014|manylinux_2_17)_x86_64"'; then
    echo "error: auditwheel does not call $(basename "$wheel") manylinux2014" >&2
    exit 1
  fi
  "$tools/bin/python" - "$wheel" <<'PY'
import sys, zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
assert any(n.endswith(".dist-info/licenses/THIRD-PARTY-NOTICES.md") for n in names), "the wheel lacks THIRD-PARTY-NOTICES.md"
PY

  echo "== the wheel in a fresh venv" >&2
  # the package's test extra, at the versions the test command's venv pins
  # (scripts/python-wheel.sh)
  test_tools=()
  eval "$(grep -E '^test_tools=\(' scripts/python-wheel.sh)"
  [ "${#test_tools[@]}" -gt 0 ] || { echo "error: scripts/python-wheel.sh names no test_tools" >&2; exit 1; }
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${wheel}[test]" "${test_tools[@]}"
  summary=$(test_installed "$venv")

  echo "== the wheel" >&2
  echo "$(basename "$wheel"): $wheel_bytes bytes ($(awk -v b="$wheel_bytes" 'BEGIN {printf "%.1f", b / 1048576}') MiB), built in ${build_seconds} s; in a fresh venv with no Rust toolchain: the demo scored, python/tests $summary"
fi

if wants installed; then
  echo "== installed: $installed_venv" >&2
  summary=$(test_installed "$installed_venv")
  echo "$installed_venv: the demo scored, python/tests $summary"
fi

if wants sdist; then
  sdists="$target/sdist-release"
  venv="$target/venv-release-sdist"
  echo "== maturin sdist" >&2
  rm -rf "$sdists"
  "$tools/bin/maturin" sdist --out "$sdists" >&2
  sdist=$(ls "$sdists"/qajudge-*.tar.gz)
  echo "$(basename "$sdist"): $(stat -c %s "$sdist") bytes" >&2
  # what the build needs only: no tests, their data or notebook (Cargo.toml's
  # `include`, pyproject.toml's `exclude`)
  if tar tzf "$sdist" | grep -E '/(tests|benches|examples|scripts|fuzz)/'; then
    echo "error: the sdist ships the files above, which the build does not need" >&2
    exit 1
  fi
  echo "== pip install of the sdist into a fresh venv (compiles the crate)" >&2
  start=$SECONDS
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "$sdist"
  echo "$(basename "$sdist"): built and installed in $((SECONDS - start)) s; the demo:" >&2
  score_demo "$venv"
fi
