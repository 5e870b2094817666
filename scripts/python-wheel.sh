#!/usr/bin/env bash
# The Python package for the tests (docs/python.md, docs/testing.md): builds
# the wheel with maturin (from PyPI, in ${CARGO_TARGET_DIR:-target}/venv-maturin,
# once per build directory) in the dev profile, so that it reuses the debug
# artifacts `cargo test` builds in the same build directory (RocksDB is not
# compiled again), then installs it into a fresh venv,
# ${CARGO_TARGET_DIR:-target}/venv-python, with pandas, pytest,
# openapi-spec-validator, nbconvert and ipykernel (the worked notebook). The
# integration tests python_module.rs and python_client.rs run pytest in that
# venv. Never into the system Python.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
maturin_version="1.16.0"
tools="$target/venv-maturin"
venv="$target/venv-python"
wheels="$target/wheels-dev"
test_tools=("pandas==3.1.1" "pytest==9.2.0" "openapi-spec-validator==0.9.0" "nbconvert==7.17.2" "ipykernel==7.4.0")
if ! python3 -m venv --help >/dev/null 2>&1; then
  bash scripts/install-deps.sh --python
fi
mkdir -p "$target"
if ! { [ -x "$tools/bin/maturin" ] && "$tools/bin/maturin" --version 2>/dev/null | grep -q "$maturin_version"; }; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q --disable-pip-version-check "maturin==$maturin_version"
fi
rm -rf "$wheels"
# --compatibility linux: a wheel for this machine (the release check builds
# the portable one); the dev profile shares cargo test's artifacts
"$tools/bin/maturin" build --profile dev --compatibility linux --interpreter python3 --out "$wheels" >&2
wheel=$(ls "$wheels"/qajudge-*.whl)
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$wheel" "${test_tools[@]}"
"$venv/bin/qajudge" --version
